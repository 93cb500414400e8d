// The controller's node actor under CAF's test coordinator: registration, heartbeats straight from
// the daemon, the silence timeout on a virtual clock, and views published only on change.

#include <boost/test/unit_test.hpp>

#include "actors/node.hpp"
#include "messages/caf/error.hpp"
#include "test/unit/actors/coordinated.hpp"

namespace {

using namespace shoal;
using namespace std::chrono_literals;

/// The controller as the node actor sees it: it records views and node-down notices.
caf::behavior node_controller_double(caf::event_based_actor*, test::inbox<msg::node_info> views,
                                test::inbox<uint64_t> down_jobs,
                                test::inbox<msg::step_exit> step_exits) {
  return {
      [views](msg::view_atom, msg::node_info& info) { views->push_back(std::move(info)); },
      [down_jobs](msg::nodedown_atom, const std::string&, uint64_t job) {
        down_jobs->push_back(job);
      },
      [step_exits](msg::step_exit& ex) { step_exits->push_back(std::move(ex)); },
  };
}

/// A shoald: records launches.
caf::behavior daemon_double(caf::event_based_actor*, test::inbox<uint64_t> launches) {
  return {
      [launches](msg::launch_atom, msg::launch_request& req, caf::actor&, caf::actor&) {
        launches->push_back(req.job_id);
      },
      [](msg::signal_atom, uint64_t, uint32_t, int32_t, const std::string&) {},
      // sstat: what step `step` of `job` used here, as its shoal-stepd would sample it.
      [](msg::usage_atom, uint64_t job, uint32_t step) {
        msg::step_usage u;
        u.user_cpu_us = job * 1000 + step;
        u.tasks = 2;
        return u;
      },
  };
}

struct node_fixture : test::coordinated_fixture {
  test::inbox<msg::node_info> views = test::make_inbox<msg::node_info>();
  test::inbox<uint64_t> down_jobs = test::make_inbox<uint64_t>();
  test::inbox<uint64_t> launches = test::make_inbox<uint64_t>();
  test::inbox<msg::step_exit> step_exits = test::make_inbox<msg::step_exit>();
  caf::actor controller = keep(sys.spawn(node_controller_double, views, down_jobs, step_exits));
  caf::actor daemon = keep(sys.spawn(daemon_double, launches));
  actors::node_actor node;

  static constexpr int64_t timeout_ms = 10'000;
  static constexpr int64_t interval_ms = 1'000;

  /// ReturnToService=1 unless said: what the embedded default config sets.
  explicit node_fixture(bool trust_config = false, uint8_t return_to_service = 1) {
    config::node_config n;
    n.name = "n1";
    n.cpus = 4;
    n.real_memory_mb = 1000;
    n.trust_config = trust_config;
    n.return_to_service = return_to_service;
    node = actors::spawn_node(sys, n, controller, timeout_ms, interval_ms, nullptr);
    keep(caf::actor_cast<caf::actor>(node));
    sched.run();
  }

  msg::machine_status probe(uint32_t cpus = 4) {
    msg::machine_status s;
    s.node_name = "n1";
    s.hostname = "host1";
    s.cpus = cpus;
    s.real_memory_mb = 1000;
    s.daemon_pid = 4242;
    return s;
  }

  /// Registers the daemon; returns the handle the node actor answered with.
  caf::actor register_daemon(uint32_t cpus = 4) {
    caf::scoped_actor self{sys, true};
    auto handle = self->request(node, caf::infinite, msg::register_atom_v, probe(cpus), daemon);
    sched.run();
    caf::actor out;
    handle.receive([&](caf::actor& a) { out = std::move(a); },
                   [](caf::error& err) { BOOST_FAIL("register refused: " << to_string(err)); });
    return out;
  }

  /// Sends `who`'s registration (as pid `pid`); the caller runs the actors, then reads the
  /// answer with `answer`.
  auto send_registration(caf::scoped_actor& self, const caf::actor& who, int32_t pid) {
    auto status = probe();
    status.daemon_pid = pid;
    return self->request(node, caf::infinite, msg::register_atom_v, status, who);
  }

  /// The registration's answer: the node actor's handle, or the refusal.
  template <class Handle>
  static caf::expected<caf::actor> answer(Handle& handle) {
    caf::expected<caf::actor> out{caf::error{}};
    handle.receive([&](caf::actor& a) { out = std::move(a); },
                   [&](caf::error& err) { out = std::move(err); });
    return out;
  }

  /// Runs every actor but `silent`, which gets nothing done (a daemon whose host died without
  /// closing its connection).
  void run_all_but(const caf::actor& silent) {
    auto* muted = dynamic_cast<caf::resumable*>(caf::actor_cast<caf::abstract_actor*>(silent));
    sched.run_jobs_filtered([muted](caf::resumable* job) { return job != muted; });
  }

  /// Launches a step of job `id` on the node and runs the actors.
  void launch(uint64_t id) {
    msg::launch_request req;
    req.job_id = id;
    caf::anon_send(node, msg::launch_atom_v, req, caf::actor{}, controller);
    sched.run();
  }

  std::string state_text() const {
    BOOST_REQUIRE(!views->empty());
    return std::string{msg::to_string(views->back().state)};
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(node_actor, node_fixture)

BOOST_AUTO_TEST_CASE(registration_answers_with_the_node_actor_itself) {
  auto handle = register_daemon();
  BOOST_CHECK(handle == caf::actor_cast<caf::actor>(node));
  BOOST_TEST(state_text() == "IDLE");
  BOOST_TEST(views->back().reported.hostname == "host1");
}

BOOST_AUTO_TEST_CASE(silence_past_the_timeout_takes_the_node_down_on_the_virtual_clock) {
  register_daemon();
  advance(std::chrono::milliseconds{timeout_ms - 1});
  BOOST_TEST(state_text() == "IDLE");
  advance(2ms);
  BOOST_TEST(state_text() == "DOWN");
  BOOST_TEST(views->back().reason == "Not responding");
}

BOOST_AUTO_TEST_CASE(heartbeats_keep_the_node_up_past_the_timeout) {
  register_daemon();
  for (int i = 0; i < 30; ++i) {
    caf::anon_send(node, msg::heartbeat_atom_v);
    advance(std::chrono::milliseconds{interval_ms});
  }
  BOOST_TEST(state_text() == "IDLE");
}

BOOST_AUTO_TEST_CASE(a_heartbeat_that_changes_nothing_publishes_nothing) {
  register_daemon();
  auto published = views->size();
  for (int i = 0; i < 20; ++i) {
    caf::anon_send(node, msg::heartbeat_atom_v);
    advance(std::chrono::milliseconds{interval_ms});
  }
  BOOST_TEST(views->size() == published);
}

BOOST_AUTO_TEST_CASE(the_nodes_first_figures_publish_at_once_and_later_ones_ride_along) {
  register_daemon();
  auto published = views->size();
  msg::node_usage u;
  u.sampled_at = 100;
  u.load1 = 0.5;
  caf::anon_send(node, msg::usage_atom_v, u);
  sched.run();
  BOOST_REQUIRE_EQUAL(views->size(), published + 1);
  BOOST_TEST(views->back().usage.load1 == 0.5);
  // Moved figures alone are no news: they wait for the next view sent anyway.
  u.load1 = 2.0;
  caf::anon_send(node, msg::usage_atom_v, u);
  sched.run();
  BOOST_TEST(views->size() == published + 1);
  msg::node_update drain;
  drain.nodes = "n1";
  drain.state = "DRAIN";
  drain.reason = "disk";
  caf::anon_send(node, msg::nodeupd_atom_v, drain);
  sched.run();
  BOOST_REQUIRE_EQUAL(views->size(), published + 2);
  BOOST_TEST(views->back().usage.load1 == 2.0);
}

BOOST_AUTO_TEST_CASE(a_steps_usage_is_asked_of_the_daemon_and_refused_without_one) {
  caf::scoped_actor self{sys, true};
  auto none = self->request(node, caf::infinite, msg::usage_atom_v, uint64_t{7}, uint32_t{0});
  sched.run();
  none.receive([](msg::step_usage&) { BOOST_FAIL("answered without a daemon"); },
               [](caf::error& err) { BOOST_CHECK(err == errc::unreachable); });
  register_daemon();
  auto asked = self->request(node, caf::infinite, msg::usage_atom_v, uint64_t{7}, uint32_t{3});
  sched.run();
  asked.receive(
      [](msg::step_usage& u) {
        BOOST_TEST(u.user_cpu_us == 7003u);
        BOOST_TEST(u.tasks == 2u);
      },
      [](caf::error& err) { BOOST_FAIL("refused: " << to_string(err)); });
}

BOOST_AUTO_TEST_CASE(a_node_down_for_silence_comes_back_with_its_next_heartbeat) {
  register_daemon();
  advance(std::chrono::milliseconds{timeout_ms + 1});
  BOOST_REQUIRE(state_text() == "DOWN");
  caf::anon_send(node, msg::heartbeat_atom_v);
  sched.run();
  BOOST_TEST(state_text() == "IDLE");
  BOOST_TEST(views->back().reason.empty());
}

BOOST_AUTO_TEST_CASE(an_admins_down_stays_down_across_a_registration_under_1) {
  register_daemon();
  msg::node_update up;
  up.nodes = "n1";
  up.state = "down";
  up.reason = "bad fan";
  caf::scoped_actor self{sys, true};
  self->request(node, caf::infinite, msg::nodeupd_atom_v, up);
  sched.run();
  BOOST_REQUIRE(state_text() == "DOWN");
  register_daemon();
  caf::anon_send(node, msg::heartbeat_atom_v);
  sched.run();
  BOOST_TEST(state_text() == "DOWN");
  BOOST_TEST(views->back().reason == "bad fan");
}

struct never_returning_node : node_fixture {
  never_returning_node() : node_fixture(false, 0) {}
};

BOOST_FIXTURE_TEST_CASE(under_0_a_node_down_for_silence_stays_down_until_resumed,
                        never_returning_node) {
  register_daemon();
  advance(std::chrono::milliseconds{timeout_ms + 1});
  BOOST_REQUIRE(state_text() == "DOWN");
  caf::anon_send(node, msg::heartbeat_atom_v);
  sched.run();
  BOOST_TEST(state_text() == "DOWN");
  register_daemon();
  BOOST_TEST(state_text() == "DOWN");
  BOOST_TEST(views->back().reason == "Not responding");
  msg::node_update up;
  up.nodes = "n1";
  up.state = "resume";
  caf::scoped_actor self{sys, true};
  self->request(node, caf::infinite, msg::nodeupd_atom_v, up);
  sched.run();
  BOOST_TEST(state_text() == "IDLE");
}

struct always_returning_node : node_fixture {
  always_returning_node() : node_fixture(false, 2) {}
};

BOOST_FIXTURE_TEST_CASE(under_2_any_down_node_returns_at_registration_keeping_its_drain,
                        always_returning_node) {
  register_daemon();
  caf::scoped_actor self{sys, true};
  for (auto state : {"drain", "down"}) {
    msg::node_update up;
    up.nodes = "n1";
    up.state = state;
    up.reason = "bad fan";
    self->request(node, caf::infinite, msg::nodeupd_atom_v, up);
    sched.run();
  }
  BOOST_REQUIRE(state_text() == "DOWN");
  // A heartbeat is no registration: still DOWN.
  caf::anon_send(node, msg::heartbeat_atom_v);
  sched.run();
  BOOST_TEST(state_text() == "DOWN");
  register_daemon();
  BOOST_TEST(state_text() == "DRAINED");
  BOOST_TEST(views->back().reason == "bad fan");
}

BOOST_FIXTURE_TEST_CASE(under_2_a_registration_short_of_resources_does_not_return_the_node,
                        always_returning_node) {
  register_daemon();
  msg::node_update up;
  up.nodes = "n1";
  up.state = "down";
  up.reason = "bad fan";
  caf::scoped_actor self{sys, true};
  self->request(node, caf::infinite, msg::nodeupd_atom_v, up);
  sched.run();
  register_daemon(2);  // fewer CPUs than configured: not a valid configuration
  BOOST_TEST(state_text() == "DOWN");
}

BOOST_AUTO_TEST_CASE(a_node_going_down_names_each_job_it_held) {
  register_daemon();
  caf::anon_send(node, msg::start_atom_v, uint64_t{7}, uint32_t{0}, std::vector<msg::gres_held>{});
  caf::anon_send(node, msg::start_atom_v, uint64_t{8}, uint32_t{0}, std::vector<msg::gres_held>{});
  sched.run();
  BOOST_TEST(state_text() == "ALLOCATED");
  advance(std::chrono::milliseconds{timeout_ms + 1});
  BOOST_TEST(*down_jobs == std::vector<uint64_t>({7, 8}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(fewer_cpus_than_configured_drains_the_node_with_the_reason) {
  register_daemon(2);
  BOOST_TEST(state_text() == "DRAINED");
  BOOST_TEST(views->back().reason.find("Low CPUs") != std::string::npos, views->back().reason);
}

struct trusted_node_fixture : node_fixture {
  trusted_node_fixture() : node_fixture(true) {}
};

BOOST_FIXTURE_TEST_CASE(with_config_overrides_fewer_cpus_than_configured_leave_the_node_idle,
                        trusted_node_fixture) {
  register_daemon(2);
  BOOST_TEST(state_text() == "IDLE");
  BOOST_TEST(views->back().cpus == 4u);
}

BOOST_AUTO_TEST_CASE(a_resumed_low_resource_node_stays_up_until_it_registers_again) {
  register_daemon(2);
  BOOST_REQUIRE(state_text() == "DRAINED");
  msg::node_update up;
  up.nodes = "n1";
  up.state = "RESUME";
  caf::anon_send(node, msg::nodeupd_atom_v, up);
  sched.run();
  BOOST_REQUIRE(state_text() == "IDLE");
  // The probe is checked at registration only: heartbeats do not drain it again.
  for (int i = 0; i < 5; ++i) {
    caf::anon_send(node, msg::heartbeat_atom_v);
    advance(std::chrono::milliseconds{interval_ms});
  }
  BOOST_TEST(state_text() == "IDLE");
  register_daemon(2);
  BOOST_TEST(state_text() == "DRAINED");
}

BOOST_AUTO_TEST_CASE(draining_without_a_reason_is_refused) {
  register_daemon();
  msg::node_update up;
  up.nodes = "n1";
  up.state = "DRAIN";
  caf::scoped_actor self{sys, true};
  auto handle = self->request(node, caf::infinite, msg::nodeupd_atom_v, up);
  sched.run();
  bool refused = false;
  handle.receive([](caf::ok_atom) {}, [&](caf::error&) { refused = true; });
  BOOST_TEST(refused);
  BOOST_TEST(state_text() == "IDLE");
}

BOOST_AUTO_TEST_CASE(a_launch_goes_to_the_registered_daemon) {
  register_daemon();
  msg::launch_request req;
  req.job_id = 42;
  caf::anon_send(node, msg::launch_atom_v, req, caf::actor{}, controller);
  sched.run();
  BOOST_TEST(*launches == std::vector<uint64_t>({42}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(an_adopted_steps_exit_is_relayed_to_the_controller_and_acknowledged) {
  register_daemon();
  msg::step_exit ex;
  ex.job_id = 42;
  ex.step_id = 3;
  ex.node_name = "n1";
  ex.tasks = {{0, 3, 0}};
  caf::scoped_actor self{sys, true};
  auto handle = self->request(node, caf::infinite, ex);
  sched.run();
  bool acknowledged = false;
  handle.receive([&](caf::ok_atom) { acknowledged = true; },
                 [](caf::error& err) { BOOST_FAIL("refused: " << to_string(err)); });
  BOOST_TEST(acknowledged);
  BOOST_REQUIRE_EQUAL(step_exits->size(), 1u);
  BOOST_TEST(step_exits->front().job_id == 42u);
  BOOST_TEST(step_exits->front().tasks.at(0).exit_code == 3);
}

// -- one daemon per node
// ---------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(a_second_daemon_is_refused_while_the_first_answers_naming_the_first) {
  register_daemon();
  auto launches2 = test::make_inbox<uint64_t>();
  auto second = keep(sys.spawn(daemon_double, launches2));
  caf::scoped_actor self{sys, true};
  auto handle = send_registration(self, second, 777);
  sched.run();
  auto got = answer(handle);
  BOOST_REQUIRE(!got);
  BOOST_TEST(got.error().code() == static_cast<uint8_t>(errc::invalid_request));
  auto text = describe(got.error());
  BOOST_TEST(
      text.find("node n1 already has a live shoald (pid 4242 on host host1") != std::string::npos,
      text);
  // The node keeps its first daemon, undisturbed.
  BOOST_TEST(state_text() == "IDLE");
  BOOST_TEST(views->back().reported.daemon_pid == 4242);
  launch(42);
  BOOST_TEST(*launches == std::vector<uint64_t>({42}), boost::test_tools::per_element());
  BOOST_TEST(launches2->empty());
}

BOOST_AUTO_TEST_CASE(a_daemon_whose_connection_dropped_is_replaced_at_once) {
  register_daemon();
  caf::anon_send_exit(daemon, caf::exit_reason::kill);
  sched.run();
  auto launches2 = test::make_inbox<uint64_t>();
  auto second = keep(sys.spawn(daemon_double, launches2));
  caf::scoped_actor self{sys, true};
  auto handle = send_registration(self, second, 777);
  sched.run();
  auto got = answer(handle);
  BOOST_REQUIRE_MESSAGE(got, (got ? "" : describe(got.error())));
  BOOST_TEST(views->back().reported.daemon_pid == 777);
  launch(42);
  BOOST_TEST(*launches2 == std::vector<uint64_t>({42}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_daemon_killed_before_its_drop_was_seen_is_replaced) {
  register_daemon();
  // The restarted daemon's registration is in the node's mailbox before the old one's down
  // message: the liveness check finds the old one gone.
  auto launches2 = test::make_inbox<uint64_t>();
  auto second = keep(sys.spawn(daemon_double, launches2));
  caf::scoped_actor self{sys, true};
  auto handle = send_registration(self, second, 777);
  caf::anon_send_exit(daemon, caf::exit_reason::kill);
  sched.run();
  auto got = answer(handle);
  BOOST_REQUIRE_MESSAGE(got, (got ? "" : describe(got.error())));
  launch(42);
  BOOST_TEST(*launches2 == std::vector<uint64_t>({42}), boost::test_tools::per_element());
  BOOST_TEST(state_text() == "IDLE");
}

BOOST_AUTO_TEST_CASE(a_daemon_that_does_not_answer_is_replaced_after_three_seconds) {
  register_daemon();
  auto launches2 = test::make_inbox<uint64_t>();
  auto second = keep(sys.spawn(daemon_double, launches2));
  caf::scoped_actor self{sys, true};
  auto handle = send_registration(self, second, 777);
  run_all_but(daemon);
  sched.clock().advance_time(2900ms);
  run_all_but(daemon);
  // Still the first daemon's node while it may yet answer.
  BOOST_TEST(views->back().reported.daemon_pid == 4242);
  sched.clock().advance_time(200ms);
  run_all_but(daemon);
  auto got = answer(handle);
  BOOST_REQUIRE_MESSAGE(got, (got ? "" : describe(got.error())));
  BOOST_TEST(views->back().reported.daemon_pid == 777);
  // The old daemon's late answer changes nothing.
  sched.run();
  launch(42);
  BOOST_TEST(*launches2 == std::vector<uint64_t>({42}), boost::test_tools::per_element());
  BOOST_TEST(launches->empty());
}

BOOST_AUTO_TEST_CASE(the_same_daemon_registering_again_is_taken_again) {
  auto first = register_daemon();
  auto again = register_daemon();
  BOOST_CHECK(first == again);
  BOOST_TEST(state_text() == "IDLE");
}

BOOST_AUTO_TEST_SUITE_END()
