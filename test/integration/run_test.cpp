// `shoal run`: task placement, labels, the task environment and the exit code.

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

BOOST_FIXTURE_TEST_SUITE(run_command, two_nodes)

BOOST_AUTO_TEST_CASE(block_distribution_labels_each_rank_once) {
  auto r = run_cli(
      {"run", "-N2", "-n4", "-l", "sh", "-c", "echo rank $SHOAL_PROCID node $SHOAL_NODEID"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto lines = lines_of(r.out);
  std::sort(lines.begin(), lines.end());
  // Block distribution: ranks 0 and 1 on the first node, 2 and 3 on the second.
  std::vector<std::string> expected{"0: rank 0 node 0", "1: rank 1 node 0", "2: rank 2 node 1",
                                    "3: rank 3 node 1"};
  BOOST_TEST(lines == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(tasks_see_the_job_environment_and_the_callers_variables) {
  command_options opt;
  opt.env.push_back({"IT_CALLER_VARIABLE", "passed through"});
  auto r = run_cli({"run", "-N2", "-n2", "sh", "-c",
                    "echo \"job=$SHOAL_JOB_ID ntasks=$SHOAL_NTASKS nodes=$SHOAL_JOB_NODELIST "
                    "dir=$SHOAL_SUBMIT_DIR mine=$IT_CALLER_VARIABLE\""},
                   opt);
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto all = jobs();
  BOOST_REQUIRE_EQUAL(all.size(), 1u);
  auto id = all[0].value("job_id", uint64_t{0});
  auto dir = std::filesystem::canonical(scratch.path()).string();
  auto expected =
      "job=" + std::to_string(id) + " ntasks=2 nodes=node[1-2] dir=" + dir + " mine=passed through";
  auto lines = lines_of(r.out);
  BOOST_TEST(lines == std::vector<std::string>(2, expected), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(exit_code_is_the_highest_task_exit_code) {
  auto r = run_cli({"run", "-n3", "sh", "-c", "exit $SHOAL_PROCID"});
  BOOST_CHECK_MESSAGE(r.exit_code == 2, r.describe());
}

BOOST_AUTO_TEST_CASE(a_signalled_task_gives_128_plus_the_signal) {
  auto r = run_cli({"run", "-n1", "sh", "-c", "kill -9 $$"});
  BOOST_CHECK_MESSAGE(r.exit_code == 128 + 9, r.describe());
}

BOOST_AUTO_TEST_SUITE_END()
