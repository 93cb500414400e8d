#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "config/config.hpp"
#include "messages/errc.hpp"

using namespace shoal;
using namespace shoal::config;

namespace {

/// A directory of its own for a slurm.conf and its gres.conf, removed at the end.
struct conf_dir {
  std::filesystem::path path;
  conf_dir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string{tmp != nullptr && *tmp != '\0' ? tmp : "/tmp"} + "/shoal-gres-test-XXXXXX";
    char* made = ::mkdtemp(pattern.data());
    BOOST_REQUIRE(made != nullptr);
    path = made;
  }
  ~conf_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    auto file = (path / name).string();
    std::ofstream{file} << text;
    return file;
  }
};

shoal::expected<cluster_config> load(const conf_dir& dir, const std::string& slurm_conf) {
  return load_config(dir.write("slurm.conf", slurm_conf));
}

std::string error_of(const shoal::expected<cluster_config>& cfg) {
  return cfg ? std::string{"(no error)"} : describe(cfg.error());
}

const node_config& node(const cluster_config& cfg, size_t i) {
  BOOST_REQUIRE_LT(i, cfg.nodes.size());
  return cfg.nodes[i];
}

}  // namespace

BOOST_AUTO_TEST_SUITE(gres)

BOOST_AUTO_TEST_CASE(gres_types_and_node_gres_are_read) {
  auto cfg = parse_config(
      "GresTypes=gpu,nic\n"
      "NodeName=DEFAULT Gres=gpu:4\n"
      "NodeName=n[1-2]\n"
      "NodeName=n3 Gres=gpu:tesla:2,nic:1,gpu:0\n",
      "test.conf", "");
  BOOST_REQUIRE_MESSAGE(cfg, error_of(cfg));
  BOOST_CHECK_EQUAL(cfg->gres_types.size(), 2u);
  BOOST_CHECK(cfg->warnings.empty());
  BOOST_REQUIRE_EQUAL(node(*cfg, 0).gres.size(), 1u);
  BOOST_CHECK_EQUAL(node(*cfg, 1).gres[0].count, 4u);
  const auto& n3 = node(*cfg, 2).gres;
  BOOST_REQUIRE_EQUAL(n3.size(), 2u);  // gpu:0 asks for nothing
  BOOST_CHECK_EQUAL(n3[0].name, "gpu");
  BOOST_CHECK_EQUAL(n3[0].type, "tesla");
  BOOST_CHECK_EQUAL(n3[0].count, 2u);
  BOOST_CHECK_EQUAL(n3[1].name, "nic");
  BOOST_CHECK(cfg->gres_conf.empty());
}

BOOST_AUTO_TEST_CASE(a_gres_name_not_in_gres_types_is_an_error_at_the_node_line) {
  auto cfg = parse_config("GresTypes=gpu\nNodeName=n1\nNodeName=n2 Gres=fpga:1\n", "test.conf", "");
  BOOST_CHECK_EQUAL(error_of(cfg),
                    "test.conf:3: Invalid GRES configured on node n2: fpga:1 (GresTypes= does "
                    "not list fpga)");
  auto none = parse_config("NodeName=n1 Gres=gpu:1\n", "test.conf", "");
  BOOST_CHECK_EQUAL(error_of(none),
                    "test.conf:1: Invalid GRES configured on node n1: gpu:1 (GresTypes= does not "
                    "list gpu)");
}

BOOST_AUTO_TEST_CASE(malformed_gres_values_are_errors_at_their_line) {
  auto bad = parse_config("GresTypes=gpu\nNodeName=n1 Gres=gpu:2x\n", "test.conf", "");
  BOOST_CHECK_EQUAL(error_of(bad),
                    "test.conf:2: invalid value 'gpu:2x' for Gres (expected NAME[:TYPE]:COUNT "
                    "items separated by commas, such as gpu:4 or gpu:tesla:2)");
  auto types = parse_config("GresTypes=gpu:2\n", "test.conf", "");
  BOOST_CHECK_EQUAL(error_of(types),
                    "test.conf:1: invalid value 'gpu:2' for GresTypes (expected generic resource "
                    "names separated by commas, such as gpu)");
}

BOOST_AUTO_TEST_CASE(gres_conf_beside_the_config_gives_device_files) {
  conf_dir dir;
  dir.write("gres.conf",
            "# devices\n"
            "Name=gpu File=/dev/nvidia[0-1] NodeName=n1\n"
            "NodeName=n2 Name=gpu Type=tesla File=/dev/nvidia0\n"
            "NodeName=n2 Name=gpu Type=tesla File=/dev/nvidia1\n"
            "Name=nic Count=2\n");
  auto cfg = load(dir,
                  "GresTypes=gpu,nic\n"
                  "NodeName=n1 Gres=gpu:2,nic:2\n"
                  "NodeName=n2 Gres=gpu:tesla:2\n"
                  "NodeName=n3\n");
  BOOST_REQUIRE_MESSAGE(cfg, error_of(cfg));
  BOOST_CHECK_EQUAL(cfg->gres_conf, (dir.path / "gres.conf").string());
  const auto& n1 = node(*cfg, 0).gres;
  BOOST_REQUIRE_EQUAL(n1.size(), 2u);
  BOOST_CHECK((n1[0].files == std::vector<std::string>{"/dev/nvidia0", "/dev/nvidia1"}));
  BOOST_CHECK(n1[1].files.empty());
  BOOST_CHECK_EQUAL(n1[1].count, 2u);
  const auto& n2 = node(*cfg, 1).gres;
  BOOST_REQUIRE_EQUAL(n2.size(), 2u);  // one record per gres.conf line
  BOOST_CHECK_EQUAL(n2[1].type, "tesla");
  BOOST_CHECK((n2[1].files == std::vector<std::string>{"/dev/nvidia1"}));
  BOOST_CHECK(node(*cfg, 2).gres.empty());
}

BOOST_AUTO_TEST_CASE(gres_conf_named_by_gresconf_is_read_and_a_missing_one_is_an_error) {
  conf_dir dir;
  dir.write("devices.conf", "Name=gpu File=/dev/nvidia[0-3]\n");
  auto cfg = load(dir, "GresTypes=gpu\nGresConf=devices.conf\nNodeName=n1 Gres=gpu:4\n");
  BOOST_REQUIRE_MESSAGE(cfg, error_of(cfg));
  BOOST_CHECK_EQUAL(node(*cfg, 0).gres[0].files.size(), 4u);
  auto missing = load(dir, "GresTypes=gpu\nGresConf=nowhere.conf\nNodeName=n1 Gres=gpu:4\n");
  BOOST_CHECK_EQUAL(error_of(missing), (dir.path / "slurm.conf").string() +
                                           ":2: GresConf nowhere.conf not found (looked for " +
                                           (dir.path / "nowhere.conf").string() + ")");
}

BOOST_AUTO_TEST_CASE(a_device_count_that_differs_from_gres_is_an_error_at_the_gres_conf_line) {
  conf_dir dir;
  auto gres_conf = dir.write("gres.conf", "\nName=gpu File=/dev/nvidia[0-2]\n");
  auto slurm_conf = (dir.path / "slurm.conf").string();
  auto cfg = load(dir, "GresTypes=gpu\nNodeName=n1 Gres=gpu:4\n");
  BOOST_CHECK_EQUAL(error_of(cfg), gres_conf + ":2: node n1 has 3 gpu device(s) in gres.conf but " +
                                       "Gres=gpu:4 at " + slurm_conf + ":2");
  dir.write("gres.conf", "Name=gpu Type=v100 File=/dev/nvidia[0-1]\n");
  auto typed = load(dir, "GresTypes=gpu\nNodeName=n1 Gres=gpu:a100:2\n");
  BOOST_CHECK_EQUAL(error_of(typed), gres_conf + ":1: node n1 has 0 gpu:a100 device(s) in " +
                                         "gres.conf but Gres=gpu:a100:2 at " + slurm_conf + ":2");
  dir.write("gres.conf", "Name=gpu Count=3 File=/dev/nvidia[0-1]\n");
  auto count = load(dir, "GresTypes=gpu\nNodeName=n1 Gres=gpu:2\n");
  BOOST_CHECK_EQUAL(error_of(count), gres_conf + ":1: Invalid GRES record for gpu, count does " +
                                         "not match File value (Count=3, 2 files)");
  dir.write("gres.conf", "NodeName=n2 Name=gpu File=/dev/nvidia0\n");
  auto stray = load(dir, "GresTypes=gpu\nNodeName=n1 Gres=gpu:1\nNodeName=n2\n");
  BOOST_CHECK_EQUAL(error_of(stray), gres_conf + ":1: node n2 gets gpu devices here, but its " +
                                         "NodeName line (" + slurm_conf + ":3) has no Gres=gpu");
  dir.write("gres.conf", "Name=fpga File=/dev/fpga0\n");
  auto unknown = load(dir, "GresTypes=gpu\nNodeName=n1 Gres=gpu:1\n");
  BOOST_CHECK_EQUAL(error_of(unknown),
                    gres_conf + ":1: Invalid GRES record for fpga: GresTypes= does not list it");
}

BOOST_AUTO_TEST_CASE(autodetect_and_core_binding_keys_are_warnings) {
  conf_dir dir;
  auto gres_conf =
      dir.write("gres.conf", "AutoDetect=nvml\nName=gpu File=/dev/nvidia[0-1] Cores=0-3\n");
  auto cfg = load(dir, "GresTypes=gpu\nNodeName=n1 Gres=gpu:2\n");
  BOOST_REQUIRE_MESSAGE(cfg, error_of(cfg));
  BOOST_REQUIRE_EQUAL(cfg->warnings.size(), 2u);
  BOOST_CHECK_EQUAL(cfg->warnings[0], gres_conf + ":1: AutoDetect=nvml is not supported: list " +
                                          "each device with File= (ignored)");
}

BOOST_AUTO_TEST_CASE(gres_round_trips_through_render_config) {
  auto cfg = parse_config("GresTypes=gpu\nNodeName=n[1-2] Gres=gpu:tesla:2\nNodeName=n3\n",
                          "test.conf", "");
  BOOST_REQUIRE_MESSAGE(cfg, error_of(cfg));
  auto text = render_config(*cfg);
  BOOST_CHECK(text.find("NodeName=n[1-2] Gres=gpu:tesla:2\n") != std::string::npos);
  auto again = parse_config(text.substr(text.find('\n') + 1), "again.conf", "");
  BOOST_REQUIRE_MESSAGE(again, error_of(again));
  BOOST_CHECK(again->nodes[1].gres == cfg->nodes[1].gres);
  BOOST_CHECK(again->gres_types == cfg->gres_types);
}

BOOST_AUTO_TEST_SUITE_END()
