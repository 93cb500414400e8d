#include <boost/test/unit_test.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>

#include "interconnect/elan.hpp"
#include "interconnect/switch_node.hpp"
#include "messages/errc.hpp"
#include "runtime/bootstrap/temp_dir.hpp"

using namespace shoal;
using namespace shoal::interconnect;

namespace {

/// The error's text, or "" for a value (a check's message is built whether it fails or not).
template <class T>
std::string why(const shoal::expected<T>& x) {
  return x ? std::string{} : describe(x.error());
}

elan_settings four_nodes(uint32_t rails = 1) {
  elan_settings s;
  s.ids = {{"n0", 10}, {"n1", 11}, {"n2", 12}, {"n3", 13}};
  s.rails = rails;
  return s;
}

step_request step(uint64_t job, uint32_t id, std::vector<std::string> nodes, uint32_t per_node) {
  step_request req;
  req.job_id = job;
  req.step_id = id;
  req.nodes = std::move(nodes);
  req.tasks_per_node = per_node;
  return req;
}

elan_step_data allocated(elan_switch& sw, const step_request& req) {
  auto bytes = sw.allocate(req);
  BOOST_REQUIRE_MESSAGE(bytes, why(bytes));
  auto data = decode_elan_data(*bytes);
  BOOST_REQUIRE(data);
  return *data;
}

std::string error_of(std::string_view text) {
  auto map = parse_elan_map(text, "/etc/elanhosts");
  BOOST_REQUIRE(!map);
  BOOST_TEST((map.error() == errc::invalid_config));
  return describe(map.error());
}

/// A directory of its own under TMPDIR (runtime::make_temp_dir), removed with what it holds.
struct temp_dir {
  std::string path;
  temp_dir() {
    auto made = shoal::runtime::make_temp_dir("shoal-elan");
    if (made) path = *made;
  }
  ~temp_dir() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(elan)

BOOST_AUTO_TEST_CASE(the_map_gives_ids_by_name_and_hostlists_count_up) {
  auto map = parse_elan_map(
      "# genders: NODES ATTRS\n"
      "n[0-3] elanid=4,compute\n"
      "login1 elanid=100   # the login node\n"
      "\n"
      "n[0-3] rack=2\n"  // another attribute: no id, no conflict
      "mgmt compute,elanid=50\n",
      "m");
  BOOST_REQUIRE_MESSAGE(map, why(map));
  BOOST_TEST(map->size() == 6u);
  BOOST_TEST(map->at("n0") == 4u);
  BOOST_TEST(map->at("n3") == 7u);
  BOOST_TEST(map->at("login1") == 100u);
  BOOST_TEST(map->at("mgmt") == 50u);
}

BOOST_AUTO_TEST_CASE(bad_map_lines_are_named_by_file_and_line) {
  auto text = error_of("n0 elanid=0\nn1 elanid=x1\n");
  BOOST_TEST(text.find("/etc/elanhosts:2: elanid 'x1'") == 0u, text);
  text = error_of("n0 elanid=0\n\n# c\nn0 elanid=5\n");
  BOOST_TEST(text.find("/etc/elanhosts:4: node n0 has an elanid already") == 0u, text);
  text = error_of("n0 elanid=3\nn[1-2] elanid=2\n");
  BOOST_TEST(text.find("/etc/elanhosts:2: elanid 3 of n2 is n0's already") == 0u, text);
  text = error_of("n[1-  elanid=2\n");
  BOOST_TEST(text.find("/etc/elanhosts:1: ") == 0u, text);
  text = error_of("n1 elanid=2 extra\n");
  BOOST_TEST(text.find("/etc/elanhosts:1: expected 'NODES ATTR") == 0u, text);
  text = error_of("n1 elanid=\n");
  BOOST_TEST(text.find("/etc/elanhosts:1: elanid ''") == 0u, text);
}

BOOST_AUTO_TEST_CASE(parameters_need_a_map_and_name_what_is_wrong) {
  auto none = parse_elan_parameters("");
  BOOST_REQUIRE(!none);
  BOOST_TEST(describe(none.error()).find("elan_map=PATH") != std::string::npos);
  auto unknown = parse_elan_parameters("elan_map=/x,colour=red");
  BOOST_REQUIRE(!unknown);
  BOOST_TEST(describe(unknown.error()).find("'colour'") != std::string::npos);
  auto rails = parse_elan_parameters("elan_rails=9,elan_map=/x");
  BOOST_REQUIRE(!rails);
  BOOST_TEST(describe(rails.error()).find("elan_rails='9'") != std::string::npos);
  auto missing = parse_elan_parameters("elan_map=/nonexistent/elanhosts");
  BOOST_REQUIRE(!missing);
  BOOST_TEST(describe(missing.error()).find("/nonexistent/elanhosts") != std::string::npos);

  temp_dir dir;
  auto path = dir.path + "/elanhosts";
  std::ofstream{path} << "n[0-1] elanid=0\nn2 elanid=oops\n";
  auto bad = make_switch_manager("switch/elan", "elan_map=" + path);
  BOOST_REQUIRE(!bad);
  BOOST_TEST(describe(bad.error()).find(path + ":2: ") == 0u, describe(bad.error()));
  std::ofstream{path} << "n[0-1] elanid=0\n";
  auto good = make_switch_manager("switch/elan", "elan_map=" + path + ",elan_rails=2");
  BOOST_REQUIRE_MESSAGE(good, why(good));
  BOOST_TEST((*good)->name() == "elan");
  BOOST_TEST(prefers_consecutive_nodes("switch/elan"));
  BOOST_TEST(!prefers_consecutive_nodes("switch/none"));
}

BOOST_AUTO_TEST_CASE(a_step_gets_its_nodes_ids_a_fresh_program_and_a_keyed_capability_per_rail) {
  elan_switch sw{four_nodes(2)};
  auto a = allocated(sw, step(1, 0, {"n2", "n0", "n1"}, 4));
  BOOST_TEST(a.node_ids == (std::vector<uint32_t>{12, 10, 11}), boost::test_tools::per_element());
  BOOST_REQUIRE(a.capabilities.size() == 2u);
  for (auto& cap : a.capabilities) {
    BOOST_TEST(cap.low_id == 10u);
    BOOST_TEST(cap.high_id == 12u);
    BOOST_TEST(cap.low_context == elan_first_context);
    BOOST_TEST(cap.high_context == elan_first_context + 3);
  }
  auto b = allocated(sw, step(1, 1, {"n3"}, 1));
  auto c = allocated(sw, step(2, 0, {"n3"}, 1));
  BOOST_TEST(a.program != b.program);
  BOOST_TEST(b.program != c.program);
  BOOST_TEST(a.program != c.program);
  // Every key differs: between rails of a step and between steps.
  std::set<std::string> keys;
  for (auto* d : {&a, &b, &c})
    for (auto& cap : d->capabilities) keys.insert(key_hex(cap.key));
  BOOST_TEST(keys.size() == 6u);
  BOOST_TEST(key_hex(a.capabilities[0].key).size() == 32u);
  BOOST_TEST(b.capabilities[1].rail == 1u);
}

BOOST_AUTO_TEST_CASE(a_node_missing_from_the_map_fails_the_step) {
  elan_switch sw{four_nodes()};
  auto bytes = sw.allocate(step(1, 0, {"n0", "n9"}, 1));
  BOOST_REQUIRE(!bytes);
  BOOST_TEST(describe(bytes.error()).find("node n9 has no elanid") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(released_context_ranges_are_reused_and_exhaustion_is_an_error) {
  elan_switch sw{four_nodes()};
  auto a = allocated(sw, step(1, 0, {"n0"}, 8));
  auto b = allocated(sw, step(2, 0, {"n0"}, 8));
  BOOST_TEST(b.capabilities[0].low_context == a.capabilities[0].high_context + 1);
  sw.release(1, 0);
  sw.release(1, 0);  // twice, and an unknown step, are no error
  sw.release(7, 7);
  // The first free range again, for a step that fits in it ...
  auto c = allocated(sw, step(3, 0, {"n1"}, 4));
  BOOST_TEST(c.capabilities[0].low_context == elan_first_context);
  // ... and after the held ones for one that does not.
  auto d = allocated(sw, step(4, 0, {"n1"}, 6));
  BOOST_TEST(d.capabilities[0].low_context == b.capabilities[0].high_context + 1);
  auto e = allocated(sw, step(5, 0, {"n1"}, 4));
  BOOST_TEST(e.capabilities[0].low_context == elan_first_context + 4);
  auto huge = sw.allocate(step(6, 0, {"n2"}, elan_context_count));
  BOOST_REQUIRE(!huge);
  BOOST_TEST((huge.error() == errc::unsatisfiable));
  BOOST_TEST(describe(huge.error()).find("free hardware contexts") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(context_ranges_never_overlap_and_match_a_naive_first_fit) {
  // Random allocations and releases against a reference that scans every start in order.
  const uint32_t seed = 20261127;
  std::mt19937 rng{seed};
  BOOST_TEST_MESSAGE("seed " << seed);
  elan_switch sw{four_nodes()};
  std::map<uint64_t, std::pair<uint32_t, uint32_t>> held;  // job -> [low, low + width)
  auto reference = [&](uint32_t width) -> std::optional<uint32_t> {
    for (uint32_t low = elan_first_context; low + width <= elan_first_context + elan_context_count;
         ++low) {
      bool clear = true;
      for (auto& [job, r] : held) clear = clear && (low + width <= r.first || r.second <= low);
      if (clear) return low;
    }
    return std::nullopt;
  };
  for (uint64_t job = 1; job <= 3000; ++job) {
    if (!held.empty() && rng() % 3 == 0) {
      auto victim = std::next(held.begin(), static_cast<long>(rng() % held.size()));
      sw.release(victim->first, 0);
      held.erase(victim);
      continue;
    }
    auto width = 1 + rng() % 64;
    auto want = reference(width);
    auto got = sw.allocate(step(job, 0, {"n0"}, width));
    BOOST_REQUIRE_MESSAGE(got.has_value() == want.has_value(), "seed " << seed << " job " << job);
    if (!got) continue;
    auto low = decode_elan_data(*got)->capabilities[0].low_context;
    BOOST_REQUIRE_MESSAGE(low == *want, "seed " << seed << " job " << job);
    held[job] = {low, low + width};
  }
  for (auto& [job, r] : held) sw.release(job, 0);
  // Everything released: the whole range is free again.
  BOOST_TEST(allocated(sw, step(9999, 0, {"n0"}, elan_context_count)).capabilities[0].low_context ==
             elan_first_context);
}

BOOST_AUTO_TEST_CASE(the_saved_state_keeps_programs_unique_and_live_steps_ranges) {
  std::vector<std::vector<uint8_t>> saved;
  uint32_t last_program = 0;
  uint32_t live_low = 0;
  {
    elan_switch sw{four_nodes()};
    sw.set_state_sink([&](std::vector<uint8_t> state) { saved.push_back(std::move(state)); });
    allocated(sw, step(1, 0, {"n0"}, 2));
    auto live = allocated(sw, step(2, 0, {"n0"}, 2));
    live_low = live.capabilities[0].low_context;
    last_program = allocated(sw, step(3, 0, {"n0"}, 2)).program;
    BOOST_TEST(saved.size() == 3u);  // every allocate hands its state over
    sw.release(3, 0);
    BOOST_TEST(saved.size() == 4u);
  }
  // A new controller (restart or takeover): job 1 ended meanwhile, job 2 still runs.
  elan_switch again{four_nodes()};
  BOOST_REQUIRE(!again.restore_state(saved.back(), {{2, 0}}));
  BOOST_TEST(again.next_program() == last_program + 1);
  auto next = allocated(again, step(4, 0, {"n1"}, 2));
  BOOST_TEST(next.program > last_program);
  // Job 1's range is free again, job 2's is not.
  BOOST_TEST(next.capabilities[0].low_context == elan_first_context);
  auto after = allocated(again, step(5, 0, {"n1"}, 2));
  BOOST_TEST(after.capabilities[0].low_context == live_low + 2);
  BOOST_TEST((again.restore_state({1, 2, 3}, {}) == errc::malformed_message));
}

BOOST_AUTO_TEST_CASE(switch_data_round_trips_and_foreign_bytes_are_refused) {
  elan_step_data data;
  data.program = 77;
  data.node_ids = {3, 4};
  elan_capability cap;
  cap.key[0] = 0xab;
  cap.key[15] = 0x01;
  cap.rail = 1;
  cap.low_id = 3;
  cap.high_id = 4;
  cap.low_context = 1024;
  cap.high_context = 1025;
  data.capabilities = {cap};
  auto back = decode_elan_data(encode_elan_data(data));
  BOOST_REQUIRE(back);
  BOOST_TEST(back->program == 77u);
  BOOST_TEST(back->node_ids == data.node_ids, boost::test_tools::per_element());
  BOOST_TEST(key_hex(back->capabilities[0].key) == "ab000000000000000000000000000001");
  auto bytes = encode_elan_data(data);
  bytes.pop_back();
  BOOST_TEST(!decode_elan_data(bytes));
  BOOST_TEST(!decode_elan_data({'E', 'L', 'A', 'N', 9, 0, 0, 0}));
}

BOOST_AUTO_TEST_CASE(the_node_side_sets_the_environment_writes_the_file_and_removes_it) {
  elan_switch sw{four_nodes(2)};
  auto bytes = sw.allocate(step(5, 2, {"n1", "n3"}, 2));
  BOOST_REQUIRE(bytes);
  auto data = *decode_elan_data(*bytes);
  temp_dir dir;
  node_step ns;
  ns.job_id = 5;
  ns.step_id = 2;
  ns.node_name = "n3";
  ns.node_index = 1;
  ns.uid = static_cast<uint32_t>(::getuid());
  ns.gid = static_cast<uint32_t>(::getgid());
  ns.dir = switch_dir(dir.path + "/n3/");
  BOOST_TEST(ns.dir == dir.path + "/n3.switch");
  auto grant = apply_switch_data(ns, *bytes);
  BOOST_REQUIRE_MESSAGE(grant, why(grant));
  std::map<std::string, std::string> env{grant->env.begin(), grant->env.end()};
  BOOST_TEST(env["SHOAL_SWITCH_TYPE"] == "elan");
  BOOST_TEST(env["SHOAL_SWITCH_FILE"] == ns.dir + "/job5.step2");
  BOOST_TEST(grant->file == env["SHOAL_SWITCH_FILE"]);
  BOOST_TEST(env["SHOAL_ELAN_PROGRAM"] == std::to_string(data.program));
  BOOST_TEST(env["SHOAL_ELAN_NODE_ID"] == "13");
  BOOST_TEST(env["SHOAL_ELAN_NODE_IDS"] == "11,13");
  BOOST_TEST(env["SHOAL_ELAN_RAILS"] == "2");
  BOOST_TEST(env["SHOAL_ELAN_CAP1"] == key_hex(data.capabilities[1].key) + ":11-13:1024-1025");
  struct stat st;
  BOOST_REQUIRE(::stat(grant->file.c_str(), &st) == 0);
  BOOST_TEST((st.st_mode & 0777) == 0400u);
  BOOST_REQUIRE(::stat(ns.dir.c_str(), &st) == 0);
  BOOST_TEST((st.st_mode & 0777) == 0711u);
  std::ifstream in{grant->file};
  std::stringstream text;
  text << in.rdbuf();
  BOOST_TEST(text.str().find("SHOAL_SWITCH_TYPE=elan\n") == 0u, text.str());
  BOOST_TEST(text.str().find("\nSHOAL_ELAN_CAP0=" + key_hex(data.capabilities[0].key) +
                             ":11-13:1024-1025\n") != std::string::npos,
             text.str());
  // Applying again (a second stepd for the same step) replaces the read-only file.
  BOOST_REQUIRE(apply_switch_data(ns, *bytes));
  release_switch_data(ns, *bytes);
  BOOST_TEST(::access(grant->file.c_str(), F_OK) != 0);
  // switch/none's empty data grants nothing; bytes of no plugin are refused.
  auto nothing = apply_switch_data(ns, {});
  BOOST_REQUIRE(nothing);
  BOOST_TEST(nothing->env.empty());
  BOOST_TEST(!apply_switch_data(ns, {'I', 'B', 0}));
  ns.node_index = 2;
  BOOST_TEST(!apply_switch_data(ns, *bytes));
}

BOOST_AUTO_TEST_SUITE_END()
