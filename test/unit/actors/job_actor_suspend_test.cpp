// The job actor suspended and resumed (scontrol suspend|resume), under CAF's test coordinator:
// SIGSTOP and SIGCONT to every node, the time limit's tick void while suspended and armed again
// on resume, Slurm's refusals.

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <csignal>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "actors/job.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "test/unit/actors/job_actor_fixture.hpp"

using namespace std::chrono_literals;
using namespace shoal;

BOOST_FIXTURE_TEST_SUITE(job_actor_suspend, test::job_actor_testing::job_fixture)

BOOST_AUTO_TEST_CASE(a_suspended_job_stops_its_tasks_and_its_time_limit_until_resumed) {
  spawn(setup());  // a 60 s limit
  place();
  advance(30s);
  BOOST_TEST(!ask(msg::jobctl_atom_v, std::string{"suspend"}, uint32_t{0}));
  BOOST_TEST(state() == "SUSPENDED");
  for (size_t i = 0; i < 2; ++i) BOOST_TEST(signals(i) == std::vector<int32_t>{SIGSTOP});
  BOOST_TEST(view().suspend_time != 0);
  // Far past the limit: the tick armed at the start means nothing while it is stopped.
  advance(120s);
  BOOST_TEST(state() == "SUSPENDED");
  BOOST_TEST(signals(0) == std::vector<int32_t>{SIGSTOP});
  BOOST_TEST(!ask(msg::jobctl_atom_v, std::string{"resume"}, uint32_t{0}));
  BOOST_TEST(state() == "RUNNING");
  for (size_t i = 0; i < 2; ++i) BOOST_TEST(signals(i) == (std::vector<int32_t>{SIGSTOP, SIGCONT}));
  // The limit runs again, for what is left of it (counted on the wall clock, which stood still
  // here), and ends the job as before.
  advance(61s);
  BOOST_TEST(state() == "COMPLETING");
  BOOST_TEST(view().reason == "TimeLimit");
  BOOST_TEST(signals(0) == (std::vector<int32_t>{SIGSTOP, SIGCONT, SIGTERM}));
}

BOOST_AUTO_TEST_CASE(suspend_and_resume_refuse_with_slurms_words) {
  spawn(setup());
  auto text = [&](const char* op) {
    auto err = ask(msg::jobctl_atom_v, std::string{op}, uint32_t{0});
    return err ? describe(err) : std::string{"ok"};
  };
  BOOST_TEST(text("suspend").find("Job is pending execution") != std::string::npos);
  place();
  BOOST_TEST(text("resume").find("Job is not suspended") != std::string::npos);
  BOOST_TEST(text("suspend") == "ok");
  BOOST_TEST(text("suspend").find("Job is not running") != std::string::npos);
  BOOST_TEST(text("resume") == "ok");
}

BOOST_AUTO_TEST_CASE(a_cancelled_suspended_job_gets_sigcont_before_sigterm) {
  spawn(setup());
  place();
  BOOST_TEST(!ask(msg::jobctl_atom_v, std::string{"suspend"}, uint32_t{0}));
  BOOST_TEST(!ask(msg::cancel_atom_v, int32_t{0}, uint32_t{0}));
  BOOST_TEST(state() == "COMPLETING");
  for (size_t i = 0; i < 2; ++i)
    BOOST_TEST(signals(i) == (std::vector<int32_t>{SIGSTOP, SIGCONT, SIGTERM}));
  report(0, 0, SIGTERM);
  report(1, 0, SIGTERM);
  BOOST_TEST(state() == "CANCELLED");
}

BOOST_AUTO_TEST_SUITE_END()
