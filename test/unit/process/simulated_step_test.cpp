// How a step ends on a simulated node (shoald --simulate): process::simulate_step reads the
// command as sleep, false or anything else, from argv or from a batch script's first command.

#include <boost/test/unit_test.hpp>

#include <signal.h>

#include <chrono>
#include <string>
#include <vector>

#include "process/simulated_step.hpp"

using namespace std::chrono_literals;
using shoal::process::ends_a_task;
using shoal::process::simulate_step;

namespace {

shoal::msg::launch_request step(std::vector<std::string> argv) {
  shoal::msg::launch_request req;
  req.argv = std::move(argv);
  return req;
}

shoal::msg::launch_request script(const std::string& text) {
  shoal::msg::launch_request req;
  req.batch = true;
  req.script = text;
  return req;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(simulated_step)

BOOST_AUTO_TEST_CASE(sleep_takes_its_time_and_succeeds) {
  auto out = simulate_step(step({"sleep", "5"}));
  BOOST_TEST(out.runs_for.count() == 5000);
  BOOST_TEST(out.exit_code == 0);
  BOOST_TEST(simulate_step(step({"/bin/sleep", "0.25"})).runs_for.count() == 250);
  BOOST_TEST(simulate_step(step({"sleep", "2m", "1"})).runs_for.count() == 121000);
  BOOST_TEST(simulate_step(step({"sleep", "1h"})).runs_for.count() == 3600000);
}

BOOST_AUTO_TEST_CASE(a_bad_interval_fails_at_once_as_sleep_does) {
  for (auto bad : {"x", "-1", "5y", ""}) {
    auto out = simulate_step(step({"sleep", bad}));
    BOOST_TEST(out.runs_for.count() == 0, bad);
    BOOST_TEST(out.exit_code == 1, bad);
  }
}

BOOST_AUTO_TEST_CASE(false_fails_and_everything_else_succeeds_at_once) {
  BOOST_TEST(simulate_step(step({"false"})).exit_code == 1);
  BOOST_TEST(simulate_step(step({"/usr/bin/false"})).exit_code == 1);
  for (auto argv : std::vector<std::vector<std::string>>{{"hostname"}, {"true"}, {"sleep"}, {}}) {
    auto out = simulate_step(step(argv));
    BOOST_TEST(out.runs_for.count() == 0);
    BOOST_TEST(out.exit_code == 0);
  }
}

BOOST_AUTO_TEST_CASE(a_batch_script_counts_by_its_first_command) {
  auto out = simulate_step(script("#!/bin/sh\n#SBATCH -N 2\n\n  sleep 30\nfalse\n"));
  BOOST_TEST(out.runs_for.count() == 30000);
  BOOST_TEST(out.exit_code == 0);
  BOOST_TEST(simulate_step(script("#!/bin/sh\nfalse\n")).exit_code == 1);
  BOOST_TEST(simulate_step(script("#!/bin/sh\n# nothing\n")).runs_for.count() == 0);
}

BOOST_AUTO_TEST_CASE(only_signals_that_end_a_task_end_a_simulated_one) {
  for (auto signo : {SIGTERM, SIGKILL, SIGINT, SIGHUP, SIGUSR1})
    BOOST_TEST(ends_a_task(signo), signo);
  for (auto signo : {0, SIGCONT, SIGSTOP, SIGTSTP, SIGCHLD, SIGWINCH, -1, 4096})
    BOOST_TEST(!ends_a_task(signo), signo);
}

BOOST_AUTO_TEST_SUITE_END()
