// `shoal start`: a whole cluster for one command, as `flux start --test-size=N`.

#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <cctype>
#include <csignal>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// `shoal start OPTIONS COMMAND`, its cluster's directory made under `tmpdir` when one is given.
command_result start(const std::vector<std::string>& command,
                     const std::vector<std::string>& options = {"--test-size=2"},
                     const std::string& tmpdir = "") {
  std::vector<std::string> argv{bin_path("shoal"), "start"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.insert(argv.end(), command.begin(), command.end());
  command_options opt;
  opt.timeout = 90s;
  if (!tmpdir.empty()) opt.env.emplace_back("TMPDIR", tmpdir);
  return run_command(argv, opt);
}

/// The keys `conf` (config text) sets more than once; NodeName=/PartitionName= lines aside.
std::set<std::string> keys_set_twice(const std::string& conf) {
  std::set<std::string> seen;
  std::set<std::string> twice;
  for (const auto& line : lines_of(conf)) {
    auto eq = line.find('=');
    if (line.empty() || line[0] == '#' || eq == std::string::npos) continue;
    std::string key;
    for (char c : line.substr(0, eq)) key += static_cast<char>(std::tolower(c));
    if (key == "nodename" || key == "partitionname") continue;
    if (!seen.insert(key).second) twice.insert(key);
  }
  return twice;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(local_start)

BOOST_AUTO_TEST_CASE(start_runs_a_command_across_its_nodes) {
  auto r = start({bin_path("shoal"), "run", "-N2", "true"});
  BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
}

BOOST_AUTO_TEST_CASE(the_command_finds_this_shoal_on_path_and_its_cluster_in_shoal_conf) {
  auto r = start({"sh", "-c", "command -v shoal; shoal info >/dev/null && echo reached"});
  BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
  auto lines = lines_of(r.out);
  BOOST_REQUIRE_MESSAGE(lines.size() == 2u, r.describe());
  BOOST_TEST(lines[0] == bin_path("shoal"));
  BOOST_TEST(lines[1] == "reached");
}

BOOST_AUTO_TEST_CASE(slurms_srun_runs_across_the_nodes_of_the_started_cluster) {
  // `srun` is found on the PATH start gives the command (the build's slurm-names links).
  auto r = start({"srun", "-N2", "hostname"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  BOOST_TEST(lines_of(r.out) == std::vector<std::string>(2, host),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_simulated_cluster_runs_no_process_yet_takes_each_sleep) {
  auto r = start({"sh", "-c", "shoal run -N40 sleep 1 && shoal run -N40 hostname"},
                 {"--simulate=40", "--front-ends=2"});
  BOOST_CHECK_MESSAGE(r.exit_code == 0 && r.out.empty(), r.describe());
  BOOST_CHECK(r.elapsed.count() >= 1.0);
}

BOOST_AUTO_TEST_CASE(start_returns_the_commands_exit_code) {
  scratch_dir tmp;  // the failed command's cluster directory is kept: here, not in /tmp
  auto r = start({"sh", "-c", "exit 7"}, {"--test-size=2"}, tmp.path());
  BOOST_CHECK_MESSAGE(r.exit_code == 7, r.describe());
}

BOOST_AUTO_TEST_CASE(a_cluster_stopped_with_ctrl_c_keeps_its_logs_and_sets_each_key_once) {
  scratch_dir tmp;
  auto out = tmp.file("start.out");
  auto err = tmp.file("start.err");
  command_options opt;
  opt.timeout = 90s;
  opt.env.emplace_back("TMPDIR", tmp.path());
  // Through a file, so the test can read what start printed while it still runs.
  child_process shoal_start(
      {"sh", "-c", "exec \"$0\" start --test-size=2 >\"$1\" 2>\"$2\"", bin_path("shoal"), out, err},
      opt);
  const std::string marker = "export SHOAL_CONF=";
  std::string conf;
  BOOST_REQUIRE(wait_until(
      [&] {
        auto text = read_file(out);
        auto at = text.find(marker);
        auto end = at == std::string::npos ? at : text.find('\n', at);
        if (end == std::string::npos) return false;
        conf = text.substr(at + marker.size(), end - at - marker.size());
        return true;
      },
      60s));
  ::kill(shoal_start.pid(), SIGINT);
  auto r = shoal_start.finish();
  r.out = read_file(out);
  r.err = read_file(err);
  BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
  auto dir = std::filesystem::path(conf).parent_path().string();
  BOOST_CHECK_MESSAGE(r.err.find("shoal: logs kept in " + dir + "\n") != std::string::npos,
                      r.describe());
  for (auto log : {"shoalctld.log", "shoald-node1.log", "shoald-node2.log"})
    BOOST_CHECK_MESSAGE(!read_file(dir + "/" + log).empty(), log << " is gone or empty");
  auto text = read_file(conf);
  BOOST_REQUIRE(!text.empty());
  BOOST_CHECK(keys_set_twice(text).empty());
  BOOST_CHECK(text.find("StateSaveLocation=" + dir + "/state\n") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_failed_command_keeps_the_clusters_logs_a_successful_one_leaves_none) {
  scratch_dir tmp;
  const std::vector<std::string> size{"--test-size=1"};
  auto failed = start({"sh", "-c", "echo \"$SHOAL_CONF\"; exit 3"}, size, tmp.path());
  BOOST_REQUIRE_MESSAGE(failed.exit_code == 3 && lines_of(failed.out).size() == 1u,
                        failed.describe());
  auto dir = std::filesystem::path(lines_of(failed.out)[0]).parent_path().string();
  BOOST_CHECK(!read_file(dir + "/shoalctld.log").empty());
  BOOST_CHECK_MESSAGE(failed.err.find("shoal: logs kept in " + dir) != std::string::npos,
                      failed.describe());

  auto kept = start({"sh", "-c", "echo \"$SHOAL_CONF\""}, {"--test-size=1", "--keep"}, tmp.path());
  BOOST_REQUIRE_MESSAGE(kept.exit_code == 0 && lines_of(kept.out).size() == 1u, kept.describe());
  BOOST_CHECK(path_exists(lines_of(kept.out)[0]));

  auto passed = start({"sh", "-c", "echo \"$SHOAL_CONF\""}, size, tmp.path());
  BOOST_REQUIRE_MESSAGE(passed.exit_code == 0 && lines_of(passed.out).size() == 1u,
                        passed.describe());
  BOOST_CHECK(!path_exists(std::filesystem::path(lines_of(passed.out)[0]).parent_path()));
  BOOST_CHECK_MESSAGE(passed.err.find("logs kept") == std::string::npos, passed.describe());
}

BOOST_AUTO_TEST_SUITE_END()
