// The job actor under CAF's test coordinator: one thread, a virtual clock, no sleeps. Its peers
// (two node actors, the scheduler, the controller, the waiting client) are recorders that keep
// every message the job sends them; the test plays their side of the protocol with the real
// messages.

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <csignal>
#include <memory>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "actors/job.hpp"
#include "cluster/clock.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "policy/job_lifecycle.hpp"
#include "test/unit/actors/coordinated.hpp"
#include "test/unit/actors/job_actor_fixture.hpp"

using namespace std::chrono_literals;
using namespace shoal;

namespace {

using job_case = test::job_actor_testing::job_fixture;
using test::job_actor_testing::all_steps;
using job_state = msg::job_state;

}  // namespace

BOOST_FIXTURE_TEST_SUITE(job_actor, job_case)

BOOST_AUTO_TEST_CASE(a_new_job_queues_itself_and_starts_when_placed) {
  spawn(setup());
  BOOST_TEST(state() == "PENDING");
  BOOST_TEST((count<msg::enqueue_atom, uint64_t, msg::job_request, policy::workload_ptr, caf::actor,
                    int64_t>(sched_box)) == 1u);
  place();
  BOOST_TEST(state() == "RUNNING");
  BOOST_TEST(view().nodelist == "n[1-2]");
  for (auto& box : node_box) {
    BOOST_TEST((count<msg::start_atom, uint64_t, uint32_t, std::vector<msg::gres_held>>(box)) ==
               1u);
    BOOST_TEST((count<msg::launch_atom, msg::launch_request, caf::actor, caf::actor>(box)) == 1u);
  }
  BOOST_TEST(client_events() == std::vector<std::string>{"allocated:"});
  // The main step ended everywhere with exit code 0: COMPLETED, nodes released.
  report(0, 0);
  BOOST_TEST(state() == "RUNNING");
  report(1, 0);
  BOOST_TEST(state() == "COMPLETED");
  BOOST_TEST(ended_ok() == 1);
  for (auto& box : node_box) BOOST_TEST((count<msg::release_atom, uint64_t>(box)) == 1u);
  BOOST_TEST(client_events().back() == "ended:COMPLETED");
}

// The controller stamps the submit time once; the job's views carry it, not a time of their own
// (an array task's is its array's).
BOOST_AUTO_TEST_CASE(sstat_asks_only_the_nodes_still_running_a_step_and_adds_what_ended) {
  spawn(setup());
  place();
  // Node 1's part of the main step ended with its figures; node 2's still runs.
  msg::step_exit ex;
  ex.job_id = 7;
  ex.step_id = 0;
  ex.node_name = "n1";
  ex.tasks.push_back({0, 0, 0});
  ex.usage.user_cpu_us = 3'000'000;
  ex.usage.max_rss_bytes = 5000;
  ex.usage.tasks = 1;
  caf::anon_send(job, std::move(ex));
  sched.run();
  auto h = self->request(job, caf::infinite, msg::usage_atom_v, all_steps);
  sched.run();
  msg::accounted_job got;
  h.receive([&](msg::accounted_job& a) { got = std::move(a); },
            [](caf::error& err) { BOOST_FAIL("refused: " << to_string(err)); });
  BOOST_TEST(got.info.job_id == 7u);
  BOOST_REQUIRE_EQUAL(got.steps.size(), 1u);
  BOOST_TEST(got.steps[0].step_id == 0u);
  BOOST_TEST(got.steps[0].state == "RUNNING");
  BOOST_TEST(got.steps[0].nodelist == "n[1-2]");
  // The recording node 2 answers nothing a step's use is made of: n1's final figures alone.
  BOOST_TEST(got.steps[0].usage.user_cpu_us == 3'000'000u);
  BOOST_TEST(got.steps[0].usage.max_rss_node == "n1");
  BOOST_TEST((count<msg::usage_atom, uint64_t, uint32_t>(node_box[0])) == 0u);
  BOOST_TEST((count<msg::usage_atom, uint64_t, uint32_t>(node_box[1])) == 1u);
  // A step that does not run: the job, and no steps.
  auto other = self->request(job, caf::infinite, msg::usage_atom_v, uint32_t{5});
  sched.run();
  other.receive([](msg::accounted_job& a) { BOOST_TEST(a.steps.empty()); },
                [](caf::error& err) { BOOST_FAIL("refused: " << to_string(err)); });
}

BOOST_AUTO_TEST_CASE(the_job_shows_the_submit_time_its_controller_stamped) {
  auto s = setup();
  s.submit_time = 1'700'000'123;
  BOOST_TEST(actors::initial_job_info(s).submit_time == 1'700'000'123);
  spawn(std::move(s));
  BOOST_TEST(view().submit_time == 1'700'000'123);
  // The scheduler's queue ages the job from the same stamp, not one of its own.
  size_t enqueued = 0;
  for (auto& m : *sched_box)
    if (m.match_elements<msg::enqueue_atom, uint64_t, msg::job_request, policy::workload_ptr,
                         caf::actor, int64_t>()) {
      ++enqueued;
      BOOST_TEST(m.get_as<int64_t>(5) == 1'700'000'123);
    }
  BOOST_TEST(enqueued == 1u);
  place();
  BOOST_TEST(view().submit_time == 1'700'000'123);
}

BOOST_AUTO_TEST_CASE(the_time_limit_sends_sigterm_then_sigkill_after_kill_wait_then_timeout) {
  spawn(setup());
  place();
  advance(59s);
  BOOST_TEST(state() == "RUNNING");
  BOOST_TEST(signals(0).empty());
  advance(1s);
  BOOST_TEST(state() == "COMPLETING");
  BOOST_TEST(view().reason == "TimeLimit");
  for (size_t i = 0; i < 2; ++i) {
    BOOST_TEST(signals(i) == std::vector<int32_t>{SIGTERM});
    BOOST_TEST((count<msg::done_atom, uint64_t>(node_box[i])) == 1u);
  }
  BOOST_TEST(client_events().back() == "message:*** JOB 7 CANCELLED DUE TO TIME LIMIT ***");
  advance(29s);
  BOOST_TEST(signals(0) == std::vector<int32_t>{SIGTERM});
  advance(1s);  // KillWait
  for (size_t i = 0; i < 2; ++i) BOOST_TEST(signals(i) == (std::vector<int32_t>{SIGTERM, SIGKILL}));
  BOOST_TEST(ended_ok() == -1);
  report(0, 0, SIGKILL);
  report(1, 0, SIGKILL);
  BOOST_TEST(state() == "TIMEOUT");
  BOOST_TEST(view().exit_code == 128 + SIGKILL);
  BOOST_TEST(ended_ok() == 0);
  BOOST_TEST(client_events().back() == "ended:TIMEOUT");
}

BOOST_AUTO_TEST_CASE(a_cancelled_job_ends_cancelled_once_every_node_reported) {
  spawn(setup());
  place();
  BOOST_TEST(!ask(msg::cancel_atom_v, int32_t{0}, uint32_t{1000}));
  BOOST_TEST(state() == "COMPLETING");
  BOOST_TEST(signals(0) == std::vector<int32_t>{SIGTERM});
  BOOST_TEST(signals(1) == std::vector<int32_t>{SIGTERM});
  report(0, 0, SIGTERM);
  BOOST_TEST(state() == "COMPLETING");
  BOOST_TEST(ended_ok() == -1);
  BOOST_TEST((count<msg::release_atom, uint64_t>(node_box[0])) == 0u);
  report(1, 0, SIGTERM);
  BOOST_TEST(state() == "CANCELLED");
  BOOST_TEST(ended_ok() == 0);
  for (auto& box : node_box) BOOST_TEST((count<msg::release_atom, uint64_t>(box)) == 1u);
  BOOST_TEST(client_events().back() == "ended:CANCELLED");
  // No SIGKILL once it ended: the KillWait tick finds no tasks.
  advance(30s);
  BOOST_TEST(signals(0) == std::vector<int32_t>{SIGTERM});
}

BOOST_AUTO_TEST_CASE(only_the_owner_or_an_admin_may_cancel) {
  spawn(setup());
  auto err = ask(msg::cancel_atom_v, int32_t{0}, uint32_t{1001});
  BOOST_CHECK(err == errc::permission_denied);
  BOOST_TEST(state() == "PENDING");
  BOOST_TEST(!ask(msg::cancel_atom_v, int32_t{0}, uint32_t{500}));  // the admin
  BOOST_TEST(state() == "CANCELLED");
  // A pending job leaves the queue and its outcome is recorded (dependencies on it).
  BOOST_TEST((count<msg::cancel_atom, uint64_t>(sched_box)) == 1u);
  BOOST_TEST(ended_ok() == 0);
}

// An AdminUsers member is an admin here as at the front door (policy/access.hpp): the job asks
// the same rules, not a uid of its own.
BOOST_AUTO_TEST_CASE(an_admin_users_member_may_cancel_as_the_front_door_lets_it) {
  auto s = setup();
  auto rules = std::make_shared<policy::access_rules>();
  rules->daemon_users = {500};
  rules->admins = {600};
  s.access = std::move(rules);
  spawn(std::move(s));
  BOOST_CHECK(ask(msg::cancel_atom_v, int32_t{0}, uint32_t{1001}) == errc::permission_denied);
  BOOST_TEST(!ask(msg::cancel_atom_v, int32_t{0}, uint32_t{600}));
  BOOST_TEST(state() == "CANCELLED");
}

BOOST_AUTO_TEST_CASE(a_node_failure_ends_the_job_node_fail) {
  spawn(setup());
  place();
  caf::anon_send(job, msg::nodedown_atom_v, std::string{"n2"});
  sched.run();
  BOOST_TEST(state() == "COMPLETING");
  BOOST_TEST(view().reason == "NodeFail: n2");
  BOOST_TEST(signals(0) == std::vector<int32_t>{SIGKILL});
  BOOST_TEST(client_events().back() == "message:node n2 failed; the job is ending");
  report(0, 0, SIGKILL);  // n2 never reports
  BOOST_TEST(state() == "NODE_FAIL");
  BOOST_TEST(ended_ok() == 0);
  BOOST_TEST((count<msg::enqueue_atom, uint64_t, msg::job_request, policy::workload_ptr, caf::actor,
                    int64_t>(sched_box)) == 1u);
}

BOOST_AUTO_TEST_CASE(a_node_failure_with_requeue_sends_the_job_back_to_pending) {
  auto s = setup();
  s.req.requeue = true;
  spawn(std::move(s));
  place();
  advance(30s);
  caf::anon_send(job, msg::nodedown_atom_v, std::string{"n1"});
  sched.run();
  BOOST_TEST(state() == "COMPLETING");
  msg::step_exit ex;
  ex.job_id = 7;
  ex.node_name = "n2";
  ex.tasks.push_back({1, 0, SIGKILL});
  ex.usage.user_cpu_us = 1'000'000;
  caf::anon_send(job, std::move(ex));
  sched.run();
  BOOST_TEST(state() == "PENDING");
  // What the first run's steps used is not the next run's (show job's totals start again).
  BOOST_TEST(view().usage.user_cpu_us == 0u);
  BOOST_TEST(view().reason == "NodeFail");
  BOOST_TEST(view().requeue_count == 1u);
  BOOST_TEST(view().nodelist == "");
  BOOST_TEST(ended_ok() == -1);  // not ended: freed and queued again
  BOOST_TEST((count<msg::release_atom, uint64_t>(sched_box)) == 1u);
  BOOST_TEST((count<msg::enqueue_atom, uint64_t, msg::job_request, policy::workload_ptr, caf::actor,
                    int64_t>(sched_box)) == 2u);
  // Placed again, it runs again with a time limit of its own: the first run's tick is stale.
  place();
  BOOST_TEST(state() == "RUNNING");
  advance(30s);
  BOOST_TEST(state() == "RUNNING");
  advance(30s);
  BOOST_TEST(state() == "COMPLETING");
  BOOST_TEST(view().reason == "TimeLimit");
}

BOOST_AUTO_TEST_CASE(a_step_exiting_nonzero_fails_the_job) {
  spawn(setup());
  place();
  report(0, 0);
  report(1, 3);
  BOOST_TEST(state() == "FAILED");
  BOOST_TEST(view().exit_code == 3);
  BOOST_TEST(ended_ok() == 0);
  auto& last = client_box->back().get_as<msg::job_event>(0);
  BOOST_TEST(last.kind == "ended");
  BOOST_TEST(last.exit_code == 3);
  BOOST_TEST(last.node_count == 2u);
}

BOOST_AUTO_TEST_CASE(a_node_over_its_memory_limit_ends_the_job_out_of_memory) {
  spawn(setup());
  place();
  report(0, 0);
  msg::step_exit ex;
  ex.job_id = 7;
  ex.node_name = "n2";
  ex.tasks.push_back({1, 0, SIGKILL});
  ex.out_of_memory = true;
  caf::anon_send(job, ex);
  sched.run();
  BOOST_TEST(state() == "OUT_OF_MEMORY");
  BOOST_TEST(view().reason == "OutOfMemory: over the memory limit on n2");
}

BOOST_AUTO_TEST_CASE(hold_and_release_while_pending_change_only_the_reason) {
  auto s = setup();
  s.req.workload.hold = true;
  spawn(std::move(s));
  BOOST_TEST(state() == "PENDING");
  BOOST_TEST(view().reason == "JobHeldUser");
  auto published = ctl_box->size();
  caf::anon_send(job, msg::view_atom_v, std::string{"JobHeldUser"},
                 uint64_t{0});  // the scheduler agrees
  sched.run();
  BOOST_TEST(ctl_box->size() == published);
  caf::anon_send(job, msg::view_atom_v, std::string{"JobHeldUser"}, uint64_t{40});  // re-ranked
  sched.run();
  BOOST_TEST(ctl_box->size() == published + 1);
  BOOST_TEST(view().priority == 40u);
  caf::anon_send(job, msg::view_atom_v, std::string{"Resources"}, uint64_t{0});  // released
  sched.run();
  BOOST_TEST(state() == "PENDING");
  BOOST_TEST(view().reason == "Resources");
  BOOST_TEST(client_events() == std::vector<std::string>{"queued:Resources"});
  caf::anon_send(job, msg::view_atom_v, std::string{"JobHeldAdmin"}, uint64_t{0});
  sched.run();
  BOOST_TEST(view().reason == "JobHeldAdmin");
  caf::anon_send(job, msg::view_atom_v, std::string{"Priority"}, uint64_t{0});
  sched.run();
  BOOST_TEST(view().reason == "Priority");
  BOOST_TEST(client_events().size() == 1u);  // "queued" is told once
  for (auto& box : node_box) BOOST_TEST(box->empty());
}

BOOST_AUTO_TEST_CASE(a_never_satisfiable_dependency_pends_until_cancelled) {
  spawn(setup());
  caf::anon_send(job, msg::view_atom_v, std::string{"DependencyNeverSatisfied"}, uint64_t{0});
  sched.run();
  BOOST_TEST(state() == "PENDING");
  BOOST_TEST(view().reason == "DependencyNeverSatisfied");
  // --kill-on-invalid-dep: the scheduler cancels it through the controller, as root.
  BOOST_TEST(!ask(msg::cancel_atom_v, int32_t{0}, uint32_t{0}));
  BOOST_TEST(state() == "CANCELLED");
  BOOST_TEST(ended_ok() == 0);
}

BOOST_AUTO_TEST_CASE(signals_reach_the_tasks_only_while_running) {
  spawn(setup());
  auto err = ask(msg::cancel_atom_v, int32_t{SIGUSR1}, uint32_t{1000});
  BOOST_CHECK(err == errc::invalid_request);
  place();
  BOOST_TEST(!ask(msg::cancel_atom_v, int32_t{SIGUSR1}, uint32_t{1000}));
  caf::anon_send(job, msg::signal_atom_v, int32_t{SIGINT});
  sched.run();
  BOOST_TEST(signals(0) == (std::vector<int32_t>{SIGUSR1, SIGINT}));
  BOOST_TEST(state() == "RUNNING");
}

BOOST_AUTO_TEST_CASE(an_admin_requeue_kills_a_batch_job_and_queues_it_again) {
  auto s = setup();
  s.req.batch = true;
  s.req.script = "#!/bin/sh\ntrue\n";
  s.client = nullptr;
  spawn(std::move(s));
  BOOST_TEST(!ask(msg::jobctl_atom_v, std::string{"requeue"}, uint32_t{0}));  // pending: ok
  place();
  BOOST_TEST((count<msg::launch_atom, msg::launch_request, caf::actor, caf::actor>(node_box[1])) ==
             0u);  // a batch script runs on the first node only
  BOOST_TEST(!ask(msg::jobctl_atom_v, std::string{"requeue"}, uint32_t{0}));
  BOOST_TEST(state() == "COMPLETING");
  BOOST_TEST(signals(0) == std::vector<int32_t>{SIGTERM});
  auto err = ask(msg::jobctl_atom_v, std::string{"requeue"}, uint32_t{0});
  BOOST_CHECK(err == errc::invalid_request);  // already on its way out
  report(0, 0, SIGTERM, msg::batch_step_id);
  BOOST_TEST(state() == "PENDING");
  BOOST_TEST(view().reason == "Requeued");
  BOOST_TEST(view().requeue_count == 1u);
}

BOOST_AUTO_TEST_CASE(the_client_going_away_cancels_the_job) {
  spawn(setup());
  place();
  caf::anon_send_exit(client, caf::exit_reason::kill);
  sched.run();
  BOOST_TEST(state() == "COMPLETING");
  BOOST_TEST(view().reason == "ClientGone");
  BOOST_TEST(signals(0) == std::vector<int32_t>{SIGTERM});
  report(0, 0, SIGTERM);
  report(1, 0, SIGTERM);
  BOOST_TEST(state() == "CANCELLED");
}

BOOST_AUTO_TEST_CASE(the_signal_warning_reaches_the_steps_its_time_before_the_limit) {
  auto s = setup();
  s.req.workload.warn_signal = SIGUSR1;
  s.req.workload.warn_time_s = 20;
  spawn(std::move(s));
  place();
  // (signal, step) pairs node 0 was asked for.
  auto sent = [this] {
    std::vector<std::pair<int32_t, uint32_t>> out;
    for (auto& m : *node_box[0])
      if (m.match_elements<msg::signal_atom, uint64_t, uint32_t, int32_t>())
        out.emplace_back(m.get_as<int32_t>(3), m.get_as<uint32_t>(2));
    return out;
  };
  advance(39s);
  BOOST_TEST(sent().empty());
  advance(1s);
  // SIGCONT first, as Slurm; the run's own step (no batch shell here).
  using sig_step = std::vector<std::pair<int32_t, uint32_t>>;
  BOOST_TEST((sent() == sig_step{{SIGCONT, 0u}, {SIGUSR1, 0u}}));
  BOOST_TEST(state() == "RUNNING");
  advance(20s);  // the limit itself: SIGTERM to everything, no second warning
  BOOST_TEST((sent() == sig_step{{SIGCONT, 0u}, {SIGUSR1, 0u}, {SIGTERM, all_steps}}));
}

BOOST_AUTO_TEST_CASE(the_b_warning_reaches_only_the_batch_shell) {
  auto s = setup();
  s.req.batch = true;
  s.req.script = "#!/bin/sh\ntrue\n";
  s.client = nullptr;
  s.req.workload.warn_signal = SIGUSR2;
  s.req.workload.warn_time_s = 60;  // the whole limit: at once
  s.req.workload.warn_batch_only = true;
  spawn(std::move(s));
  place();
  advance(1s);
  std::vector<std::pair<int32_t, uint32_t>> sent;
  for (auto& m : *node_box[0])
    if (m.match_elements<msg::signal_atom, uint64_t, uint32_t, int32_t>())
      sent.emplace_back(m.get_as<int32_t>(3), m.get_as<uint32_t>(2));
  BOOST_TEST((sent == std::vector<std::pair<int32_t, uint32_t>>{{SIGCONT, msg::batch_step_id},
                                                                {SIGUSR2, msg::batch_step_id}}));
}

BOOST_AUTO_TEST_CASE(an_allocation_runs_nothing_until_steps_come_and_ends_when_released) {
  auto s = setup();
  s.req.workload.allocation = true;
  spawn(std::move(s));
  place();
  BOOST_TEST(state() == "RUNNING");
  for (auto& box : node_box) {
    BOOST_TEST((count<msg::start_atom, uint64_t, uint32_t, std::vector<msg::gres_held>>(box)) ==
               1u);
    BOOST_TEST((count<msg::launch_atom, msg::launch_request, caf::actor, caf::actor>(box)) == 0u);
  }
  BOOST_TEST(client_events() == std::vector<std::string>{"allocated:"});
  // srun inside: step 0 on both nodes. Its end does not end the allocation.
  msg::job_request step;
  step.job_id = 7;
  step.argv = {"hostname"};
  step.uid = 1000;
  auto h = self->request(job, caf::infinite, msg::step_atom_v, step, client);
  sched.run();
  h.receive([](msg::job_event& ev) { BOOST_TEST(ev.step_id == 0u); },
            [](caf::error& err) { BOOST_FAIL("step refused: " << describe(err)); });
  for (auto& box : node_box)
    BOOST_TEST((count<msg::launch_atom, msg::launch_request, caf::actor, caf::actor>(box)) == 1u);
  report(0, 0);
  report(1, 0);
  BOOST_TEST(state() == "RUNNING");
  // Only the owner releases it; then it ends with the command's status.
  BOOST_CHECK(ask(msg::complete_atom_v, int32_t{0}, int32_t{0}, uint32_t{4242}) ==
              errc::permission_denied);
  BOOST_TEST(!ask(msg::complete_atom_v, int32_t{0}, int32_t{0}, uint32_t{1000}));
  BOOST_TEST(state() == "COMPLETED");
  BOOST_TEST(ended_ok() == 1);
  BOOST_TEST(client_events().back() == "ended:COMPLETED");
}

BOOST_AUTO_TEST_CASE(a_released_allocation_kills_its_steps_and_fails_with_the_status) {
  auto s = setup();
  s.req.workload.allocation = true;
  spawn(std::move(s));
  place();
  msg::job_request step;
  step.job_id = 7;
  step.argv = {"sleep", "100"};
  step.uid = 1000;
  auto h = self->request(job, caf::infinite, msg::step_atom_v, step, client);
  sched.run();
  h.receive([](msg::job_event&) {}, [](caf::error& err) { BOOST_FAIL(describe(err)); });
  BOOST_TEST(!ask(msg::complete_atom_v, int32_t{3}, int32_t{0}, uint32_t{1000}));
  BOOST_TEST(state() == "COMPLETING");
  BOOST_TEST(signals(0) == std::vector<int32_t>{SIGKILL});
  report(0, 0, SIGKILL);
  report(1, 0, SIGKILL);
  BOOST_TEST(state() == "FAILED");
  BOOST_TEST(view().exit_code == 3);
  // A job that is not an allocation cannot be released.
  auto other = setup();
  other.id = 8;
  spawn(std::move(other));
  place();
  BOOST_CHECK(ask(msg::complete_atom_v, int32_t{0}, int32_t{0}, uint32_t{1000}) ==
              errc::invalid_request);
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

/// A step a saved record says is running on `nodes` (indices), not reported by `waiting`.
msg::step_record running_step(uint32_t id, std::vector<uint32_t> nodes,
                              std::vector<std::string> waiting) {
  msg::step_record step;
  step.step_id = id;
  step.nodes = std::move(nodes);
  step.waiting = std::move(waiting);
  return step;
}

/// An interconnect plugin that records the job actor's calls; `refuse` makes allocate fail as an
/// exhausted switch would.
struct recording_switch final : interconnect::switch_manager {
  std::vector<interconnect::step_request> allocated;
  std::vector<std::pair<uint64_t, uint32_t>> released;
  bool refuse = false;
  std::string name() const override { return "recording"; }
  shoal::expected<std::vector<uint8_t>> allocate(const interconnect::step_request& req) override {
    if (refuse) return shoal::error(errc::unsatisfiable, "no switch windows left");
    allocated.push_back(req);
    return std::vector<uint8_t>{0x5a, static_cast<uint8_t>(req.step_id)};
  }
  void release(uint64_t job, uint32_t step) override { released.emplace_back(job, step); }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(job_actor_interconnect, job_case)

BOOST_AUTO_TEST_CASE(every_step_allocates_switch_data_that_reaches_each_node_and_is_released) {
  auto sw = std::make_shared<recording_switch>();
  auto s = setup();
  s.interconnect = sw;
  spawn(std::move(s));
  place();
  BOOST_REQUIRE_EQUAL(sw->allocated.size(), 1u);
  BOOST_TEST(sw->allocated[0].job_id == 7u);
  BOOST_TEST(sw->allocated[0].nodes == std::vector<std::string>({"n1", "n2"}),
             boost::test_tools::per_element());
  for (auto& box : node_box) {
    bool carried = false;
    for (auto& m : *box)
      if (m.match_elements<msg::launch_atom, msg::launch_request, caf::actor, caf::actor>())
        carried = m.get_as<msg::launch_request>(1).switch_data == std::vector<uint8_t>{0x5a, 0};
    BOOST_TEST(carried);
  }
  BOOST_TEST(sw->released.empty());
  report(0, 0);
  report(1, 0);
  BOOST_REQUIRE_EQUAL(sw->released.size(), 1u);
  BOOST_TEST(sw->released[0].first == 7u);
  BOOST_TEST(state() == "COMPLETED");
}

BOOST_AUTO_TEST_CASE(a_refused_switch_allocation_fails_the_step_with_the_reason) {
  auto sw = std::make_shared<recording_switch>();
  sw->refuse = true;
  auto s = setup();
  s.interconnect = sw;
  spawn(std::move(s));
  place();
  for (auto& box : node_box)
    BOOST_TEST((count<msg::launch_atom, msg::launch_request, caf::actor, caf::actor>(box)) == 0u);
  BOOST_TEST(state() == "FAILED");
  BOOST_TEST(view().reason.find("interconnect: no switch windows left") != std::string::npos,
             view().reason);
}

BOOST_AUTO_TEST_SUITE_END()

// -- recovery: a job resumed from its saved record ------------------------------------------------

namespace {

/// Job 7 as a controller saved it while RUNNING on n1 and n2, its main step 0 waiting on both.
actors::job_setup recovered(policy::lifecycle_state state, bool with_step) {
  actors::job_setup s;
  s.id = 7;
  s.req.user = "alice";
  s.req.uid = 1000;
  s.req.partition = "debug";
  s.req.min_nodes = 2;
  s.req.argv = {"true"};
  s.req.cwd = "/tmp";
  s.req.time_limit_s = 600;
  msg::job_record rec;
  rec.request = s.req;
  rec.info = actors::initial_job_info(s);
  rec.info.state = policy::to_job_state(state);
  rec.info.nodelist = "n[1-2]";
  rec.info.start_time = 1;  // long ago: only its time limit's remainder matters
  rec.info.time_limit_s = 0;
  rec.life_state = static_cast<uint32_t>(state);
  rec.nodes = {"n1", "n2"};
  rec.gres = {{1, "gpu", {1}}};  // GPU 1 of n2
  rec.next_step = 1;
  if (with_step) rec.steps = {running_step(0, {0, 1}, {"n1", "n2"})};
  s.restored = std::move(rec);
  return s;
}

}  // namespace

namespace {

/// The fixture, spawning job 7 recovered in `state` (see recovered()) on its two node recorders.
struct recovery_fixture : job_case {
  void spawn_recovered(policy::lifecycle_state state, bool with_step) {
    auto s = recovered(state, with_step);
    s.controller = controller;
    s.scheduler = caf::actor_cast<actors::scheduler_actor>(scheduler);
    s.start_node_actors = nodes;
    spawn(std::move(s));
  }

  /// Job 7 recovered as a running batch job: its script on n1, and step 0 (a `shoal run` in the
  /// script, whose client was streaming through the controller that stopped) on both nodes.
  void spawn_recovered_batch_with_step() {
    auto s = recovered(policy::lifecycle_state::running, false);
    auto& rec = *s.restored;
    rec.request.batch = true;
    rec.main_step = msg::batch_step_id;
    rec.steps = {running_step(msg::batch_step_id, {0}, {"n1"}),
                 running_step(0, {0, 1}, {"n1", "n2"})};
    s.controller = controller;
    s.scheduler = caf::actor_cast<actors::scheduler_actor>(scheduler);
    s.start_node_actors = nodes;
    spawn(std::move(s));
  }

  /// The step's client attaches again: the error, or none when the job answered its view.
  caf::error attach_step(uint32_t step) {
    auto h = self->request(job, caf::infinite, msg::attach_atom_v, step, client);
    sched.run();
    caf::error out;
    h.receive([](msg::job_info& info) { BOOST_TEST(info.job_id == 7u); },
              [&](caf::error& err) { out = std::move(err); });
    return out;
  }

  /// The `ended` events the client got.
  std::vector<msg::job_event> client_ends() const {
    std::vector<msg::job_event> out;
    for (auto& m : *client_box)
      if (m.match_elements<msg::job_event>() && m.get_as<msg::job_event>(0).kind == "ended")
        out.push_back(m.get_as<msg::job_event>(0));
    return out;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(job_actor_recovery, recovery_fixture)

BOOST_AUTO_TEST_CASE(a_recovered_running_job_takes_its_nodes_back_and_ends_with_its_steps) {
  spawn_recovered(policy::lifecycle_state::running, true);
  BOOST_TEST((count<msg::adopt_atom, uint64_t, msg::job_request, policy::workload_ptr,
                    std::vector<std::string>, std::vector<uint32_t>, int64_t, uint64_t, uint32_t,
                    std::vector<msg::gres_held>>(sched_box)) == 1u);
  BOOST_TEST((count<msg::enqueue_atom, uint64_t, msg::job_request, policy::workload_ptr, caf::actor,
                    int64_t>(sched_box)) == 0u);
  for (auto& box : node_box) {
    BOOST_TEST((count<msg::start_atom, uint64_t, uint32_t, std::vector<msg::gres_held>>(box)) ==
               1u);
    BOOST_TEST((count<msg::launch_atom, msg::launch_request, caf::actor, caf::actor>(box)) ==
               0u);  // its step already runs there
  }
  // Its devices come back with it: to the scheduler, and each node its own.
  for (auto& m : *sched_box)
    if (m.match_elements<msg::adopt_atom, uint64_t, msg::job_request, policy::workload_ptr,
                         std::vector<std::string>, std::vector<uint32_t>, int64_t, uint64_t,
                         uint32_t, std::vector<msg::gres_held>>()) {
      const auto& gres = m.get_as<std::vector<msg::gres_held>>(9);
      BOOST_REQUIRE_EQUAL(gres.size(), 1u);
      BOOST_TEST(gres[0].node == 1u);
      BOOST_TEST((gres[0].indices == std::vector<uint32_t>{1}));
    }
  for (size_t i = 0; i < node_box.size(); ++i)
    for (auto& m : *node_box[i])
      if (m.match_elements<msg::start_atom, uint64_t, uint32_t, std::vector<msg::gres_held>>())
        BOOST_TEST(m.get_as<std::vector<msg::gres_held>>(3).size() == i);  // n1 none, n2 one
  report(0, 0);
  report(1, 3);
  BOOST_TEST(msg::to_string(view().state) == "FAILED");
  BOOST_TEST(view().exit_code == 3);
}

BOOST_AUTO_TEST_CASE(a_recovered_step_its_node_no_longer_runs_is_lost) {
  spawn_recovered(policy::lifecycle_state::running, true);
  // n2 still runs step 0 and later reports it; n1 came back without it.
  caf::anon_send(job, msg::adopt_atom_v, std::string{"n2"}, std::vector<uint32_t>{0});
  caf::anon_send(job, msg::adopt_atom_v, std::string{"n1"}, std::vector<uint32_t>{});
  sched.run();
  BOOST_TEST(msg::to_string(view().state) != "FAILED");  // n2's tasks have not reported yet
  report(1, 0);
  BOOST_TEST(msg::to_string(view().state) == "FAILED");
  BOOST_TEST(view().exit_code == 1);
}

BOOST_AUTO_TEST_CASE(a_step_a_restarted_daemon_no_longer_runs_is_lost) {
  spawn(setup());
  place();  // step 0 launched on n1 and n2 (no keeper: at once)
  auto since = cluster::steady_ns();
  // n1's shoald registered again, its report taken after the launch, without step 0 (it died
  // with the previous daemon); n2's still runs it.
  caf::anon_send(job, msg::adopt_atom_v, std::string{"n1"}, std::vector<uint32_t>{}, since);
  caf::anon_send(job, msg::adopt_atom_v, std::string{"n2"}, std::vector<uint32_t>{0}, since);
  sched.run();
  BOOST_TEST(state() == "RUNNING");  // n2's tasks have not reported yet
  report(1, 0);
  BOOST_TEST(state() == "FAILED");
  BOOST_TEST(view().exit_code == 1);
}

BOOST_AUTO_TEST_CASE(
    a_recovered_step_a_daemon_restarted_after_the_recovery_no_longer_runs_is_lost) {
  spawn_recovered(policy::lifecycle_state::running, true);
  // After the controller's restart both nodes confirm step 0; then n1's shoald is killed and
  // registers again without it (the chaos test's primary kill followed by a front end's).
  caf::anon_send(job, msg::adopt_atom_v, std::string{"n1"}, std::vector<uint32_t>{0});
  caf::anon_send(job, msg::adopt_atom_v, std::string{"n2"}, std::vector<uint32_t>{0});
  sched.run();
  caf::anon_send(job, msg::adopt_atom_v, std::string{"n1"}, std::vector<uint32_t>{},
                 cluster::steady_ns());
  sched.run();
  BOOST_TEST(msg::to_string(view().state) != "FAILED");  // n2's tasks have not reported yet
  report(1, 0);
  BOOST_TEST(msg::to_string(view().state) == "FAILED");
  BOOST_TEST(view().exit_code == 1);
}

BOOST_AUTO_TEST_CASE(a_daemon_report_older_than_the_launch_loses_nothing) {
  auto before = cluster::steady_ns();
  spawn(setup());
  place();
  // The report was taken before the launch was sent: it cannot know the step.
  caf::anon_send(job, msg::adopt_atom_v, std::string{"n1"}, std::vector<uint32_t>{}, before);
  sched.run();
  report(0, 0);
  report(1, 0);
  BOOST_TEST(state() == "COMPLETED");
}

BOOST_AUTO_TEST_CASE(a_steps_client_attaches_again_and_hears_the_steps_output_and_end) {
  spawn_recovered_batch_with_step();
  BOOST_TEST(!attach_step(0));
  // Each node of the step sends the step's output to the client from now on.
  for (auto& box : node_box) {
    BOOST_REQUIRE((count<msg::attach_atom, uint64_t, uint32_t, caf::actor>(box)) == 1u);
    for (auto& m : *box)
      if (m.match_elements<msg::attach_atom, uint64_t, uint32_t, caf::actor>()) {
        BOOST_TEST(m.get_as<uint64_t>(1) == 7u);
        BOOST_TEST(m.get_as<uint32_t>(2) == 0u);
        BOOST_CHECK(m.get_as<caf::actor>(3) == client);
      }
  }
  report(0, 0);
  BOOST_TEST(client_ends().empty());
  report(1, 3);
  auto ends = client_ends();
  BOOST_REQUIRE_EQUAL(ends.size(), 1u);
  BOOST_TEST(ends[0].step_id == 0u);
  BOOST_TEST(ends[0].exit_code == 3);
  BOOST_TEST(ends[0].node_count == 2u);
  BOOST_TEST(ended_ok() == -1);  // the script runs on
}

BOOST_AUTO_TEST_CASE(a_step_that_ended_before_its_client_came_back_is_told_at_once) {
  spawn_recovered_batch_with_step();
  // The nodes report step 0 ended while its client was still looking for the controller.
  report(0, 0);
  report(1, 5);
  BOOST_TEST(client_ends().empty());
  BOOST_TEST(!attach_step(0));
  auto ends = client_ends();
  BOOST_REQUIRE_EQUAL(ends.size(), 1u);
  BOOST_TEST(ends[0].exit_code == 5);
  BOOST_TEST(ends[0].node_count == 0u);  // no node reports to this client: nothing to wait for
  for (auto& box : node_box)
    BOOST_TEST((count<msg::attach_atom, uint64_t, uint32_t, caf::actor>(box)) == 0u);
  // Told once.
  BOOST_CHECK(attach_step(0) == errc::unknown_job);
}

BOOST_AUTO_TEST_CASE(a_step_the_job_does_not_know_refuses_the_attach) {
  spawn_recovered_batch_with_step();
  BOOST_CHECK(attach_step(9) == errc::unknown_job);
  // Nor is the batch script a step a client may take over.
  BOOST_CHECK(attach_step(msg::batch_step_id) == errc::unknown_job);
}

BOOST_AUTO_TEST_CASE(a_recovered_job_placed_but_never_launched_queues_again) {
  spawn_recovered(policy::lifecycle_state::configuring, false);
  BOOST_TEST((count<msg::enqueue_atom, uint64_t, msg::job_request, policy::workload_ptr, caf::actor,
                    int64_t>(sched_box)) == 1u);
  BOOST_TEST(
      (count<msg::adopt_atom, uint64_t, msg::job_request, std::vector<std::string>,
             std::vector<uint32_t>, int64_t, uint64_t, uint32_t, std::vector<msg::gres_held>>(
          sched_box)) == 0u);
  for (auto& box : node_box)
    BOOST_TEST((count<msg::launch_atom, msg::launch_request, caf::actor, caf::actor>(box)) == 0u);
  BOOST_TEST(msg::to_string(view().state) == "PENDING");
}

BOOST_AUTO_TEST_SUITE_END()
