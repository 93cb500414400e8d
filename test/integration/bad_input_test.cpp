// Bad input: each mistake fails with one error line naming the problem, the right exit code, and
// leaves the controller serving.

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "config/config.hpp"
#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// A bad request must fail on its own, not hang until the harness kills it.
command_options bounded() {
  command_options opt;
  opt.timeout = 20s;
  return opt;
}

/// The failure is one error line that mentions `needle`.
void check_one_error_line(const command_result& r, const std::string& needle) {
  BOOST_CHECK_MESSAGE(count_lines_with(r.err, "error") == 1, r.describe());
  BOOST_CHECK_MESSAGE(r.err.find(needle) != std::string::npos, "stderr does not name '"
                                                                   << needle << "':\n"
                                                                   << r.describe());
}

/// After bad input the controller answers the next command.
void check_still_serving(cluster_fixture& c) {
  auto r = c.run_cli({"info"}, bounded());
  BOOST_CHECK_MESSAGE(r.exit_code == 0 && r.out.find("debug") != std::string::npos, r.describe());
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(bad_input, two_nodes)

BOOST_AUTO_TEST_CASE(unknown_options_exit_2_with_one_error_line) {
  for (auto args :
       std::vector<std::vector<std::string>>{{"run", "--bogus", "true"}, {"queue", "--bogus"}}) {
    BOOST_TEST_CONTEXT("shoal " << args[0] << " --bogus") {
      auto r = run_cli(args, bounded());
      BOOST_CHECK_MESSAGE(r.exit_code == 2, r.describe());
      check_one_error_line(r, "--bogus");
    }
  }
  BOOST_CHECK_EQUAL(jobs().size(), 0u);
  check_still_serving(*this);
}

BOOST_AUTO_TEST_CASE(an_unknown_partition_is_rejected_by_name) {
  auto r = run_cli({"run", "-p", "nosuch", "true"}, bounded());
  BOOST_CHECK_MESSAGE(r.exit_code != 0 && !r.timed_out, r.describe());
  check_one_error_line(r, "nosuch");
  check_still_serving(*this);
}

BOOST_AUTO_TEST_CASE(more_nodes_than_exist_are_rejected) {
  // What is missing first, then srun's words for the refusal.
  auto r = run_cli({"run", "-N5", "true"}, bounded());
  BOOST_CHECK_MESSAGE(r.exit_code == 1 && !r.timed_out, r.describe());
  BOOST_CHECK_EQUAL(r.err,
                    "shoal: error: 5 nodes requested, partition debug has 2\n"
                    "shoal: error: Unable to allocate resources: Requested node configuration is "
                    "not available\n");
  BOOST_CHECK_EQUAL(jobs().size(), 0u);
  check_still_serving(*this);
}

BOOST_AUTO_TEST_CASE(a_bad_time_format_exits_2) {
  auto r = run_cli({"run", "-t", "abc", "true"}, bounded());
  BOOST_CHECK_MESSAGE(r.exit_code == 2, r.describe());
  check_one_error_line(r, "abc");
  BOOST_CHECK_EQUAL(jobs().size(), 0u);
  check_still_serving(*this);
}

BOOST_AUTO_TEST_CASE(an_unreachable_controller_fails_instead_of_hanging) {
  scratch_dir dir;
  // Nobody listens on a port that was free a moment ago. The CLI waits MessageTimeout for a
  // controller first: 1 s here.
  auto conf = write_file(dir.file("nobody.conf"),
                         shoal::config::default_config_text(1, free_port()) + "MessageTimeout=1\n");
  for (auto args : std::vector<std::vector<std::string>>{{"info"}, {"run", "true"}}) {
    BOOST_TEST_CONTEXT("shoal " << args[0]) {
      auto r = run_shoal(conf, args, bounded());
      BOOST_CHECK_MESSAGE(r.exit_code != 0 && !r.timed_out, r.describe());
      check_one_error_line(r, "cannot reach the controller");
    }
  }
  check_still_serving(*this);
}

BOOST_AUTO_TEST_SUITE_END()
