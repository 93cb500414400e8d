// `shoal start`: a whole cluster for one command, as `flux start --test-size=N`.

#include <boost/test/unit_test.hpp>

#include <string>

#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

command_result start(const std::vector<std::string>& command) {
  std::vector<std::string> argv{bin_path("shoal"), "start", "--test-size=2"};
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

BOOST_AUTO_TEST_CASE(start_returns_the_commands_exit_code) {
  auto r = start({"sh", "-c", "exit 7"});
  BOOST_CHECK_MESSAGE(r.exit_code == 7, r.describe());
}

BOOST_AUTO_TEST_SUITE_END()
