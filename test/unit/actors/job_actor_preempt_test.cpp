// The job actor preempted by the scheduler, under CAF's test coordinator: GraceTime's timer on
// the virtual clock (SIGCONT and SIGTERM at once, SIGKILL once the grace time is over).

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <csignal>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "actors/job.hpp"
#include "messages/caf/type_ids.hpp"
#include "policy/preemption.hpp"
#include "test/unit/actors/job_actor_fixture.hpp"

using namespace std::chrono_literals;
using namespace shoal;

namespace {

uint8_t mode(policy::preempt_mode m) {
  return static_cast<uint8_t>(m);
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(job_actor_preemption, test::job_actor_testing::job_fixture)

BOOST_AUTO_TEST_CASE(a_preempted_job_gets_sigterm_and_sigkill_only_after_its_grace_time) {
  spawn(setup());
  place();
  caf::anon_send(job, msg::preempt_atom_v, mode(policy::preempt_mode::cancel), int64_t{20});
  sched.run();
  // RUNNING through its grace time, as Slurm shows it; its nodes are not told it ends yet.
  BOOST_TEST(state() == "RUNNING");
  BOOST_TEST(view().preempt_time != 0);
  for (size_t i = 0; i < 2; ++i) {
    BOOST_TEST(signals(i) == (std::vector<int32_t>{SIGCONT, SIGTERM}));
    BOOST_TEST((count<msg::done_atom, uint64_t>(node_box[i])) == 0u);
  }
  // KillWait (30 s) is not what counts: the grace time (20 s) is.
  advance(19s);
  BOOST_TEST(signals(0) == (std::vector<int32_t>{SIGCONT, SIGTERM}));
  advance(1s);
  BOOST_TEST(state() == "COMPLETING");
  for (size_t i = 0; i < 2; ++i) {
    BOOST_TEST(signals(i) == (std::vector<int32_t>{SIGCONT, SIGTERM, SIGKILL}));
    BOOST_TEST((count<msg::done_atom, uint64_t>(node_box[i])) == 1u);
  }
  report(0, 0, SIGKILL);
  report(1, 0, SIGKILL);
  BOOST_TEST(state() == "PREEMPTED");
  BOOST_TEST(ended_ok() == 0);
  BOOST_TEST(client_events().back() == "ended:PREEMPTED");
}

BOOST_AUTO_TEST_CASE(a_preempted_batch_job_under_requeue_is_queued_again) {
  auto s = setup();
  s.req.batch = true;
  s.req.script = "#!/bin/sh\ntrue\n";
  s.client = nullptr;
  spawn(std::move(s));
  place();
  caf::anon_send(job, msg::preempt_atom_v, mode(policy::preempt_mode::requeue), int64_t{0});
  sched.run();
  BOOST_TEST(signals(0) == std::vector<int32_t>{SIGKILL});  // no grace time: killed at once
  report(0, 0, SIGKILL, msg::batch_step_id);
  BOOST_TEST(state() == "PENDING");
  BOOST_TEST(view().reason == "Requeued");
  BOOST_TEST(view().requeue_count == 1u);
}

BOOST_AUTO_TEST_CASE(a_job_that_is_not_running_ignores_a_preemption) {
  spawn(setup());
  caf::anon_send(job, msg::preempt_atom_v, mode(policy::preempt_mode::cancel), int64_t{5});
  sched.run();
  BOOST_TEST(state() == "PENDING");
}

BOOST_AUTO_TEST_CASE(under_suspend_the_job_stops_lends_its_cpus_and_the_scheduler_resumes_it) {
  spawn(setup());
  place();
  caf::anon_send(job, msg::preempt_atom_v, mode(policy::preempt_mode::suspend), int64_t{20});
  sched.run();
  BOOST_TEST(state() == "SUSPENDED");
  BOOST_TEST(view().preempt_time != 0);
  for (size_t i = 0; i < 2; ++i) BOOST_TEST(signals(i) == std::vector<int32_t>{SIGSTOP});
  BOOST_TEST((count<msg::lent_atom, uint64_t>(sched_box)) == 1u);
  // No grace time runs out on a stopped job, and no admin resumes it.
  advance(60s);
  BOOST_TEST(state() == "SUSPENDED");
  auto refused = ask(msg::jobctl_atom_v, std::string{"resume"}, uint32_t{0});
  BOOST_TEST(describe(refused).find("preempting job") != std::string::npos);
  caf::anon_send(job, msg::resume_atom_v);
  sched.run();
  BOOST_TEST(state() == "RUNNING");
  BOOST_TEST(signals(0) == (std::vector<int32_t>{SIGSTOP, SIGCONT}));
  // Resumed once: the scheduler's second word changes nothing.
  caf::anon_send(job, msg::resume_atom_v);
  sched.run();
  BOOST_TEST(signals(0) == (std::vector<int32_t>{SIGSTOP, SIGCONT}));
}

BOOST_AUTO_TEST_SUITE_END()
