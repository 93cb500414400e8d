// `shoal start`: a whole cluster for one command, as `flux start --test-size=N`.

#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// `shoal start OPTIONS COMMAND`.
command_result start(const std::vector<std::string>& command,
                     const std::vector<std::string>& options = {"--test-size=2"}) {
  std::vector<std::string> argv{bin_path("shoal"), "start"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.insert(argv.end(), command.begin(), command.end());
  command_options opt;
  opt.timeout = 90s;
  return run_command(argv, opt);
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
  auto r = start({"sh", "-c", "exit 7"});
  BOOST_CHECK_MESSAGE(r.exit_code == 7, r.describe());
}

BOOST_AUTO_TEST_SUITE_END()
