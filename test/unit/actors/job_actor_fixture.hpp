#pragma once

// The job actor's test fixture (CAF's test coordinator): its peers (two node actors, the
// scheduler, the controller, the waiting client) are recorders that keep every message the job
// sends them; a test plays their side of the protocol with the real messages.

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

namespace shoal::test::job_actor_testing {

constexpr uint32_t all_steps = 0xffffffff;

/// Everything one peer received, in order.
using inbox = test::inbox<caf::message>;

inline caf::behavior recorder(caf::event_based_actor* self, inbox box) {
  self->set_default_handler(
      [box](caf::scheduled_actor*, caf::message_view& x) -> caf::result<caf::message> {
        box->push_back(x.copy_content_to_message());
        return caf::message{};
      });
  // Never matches (the default handler takes everything); an empty behavior would quit.
  return {[](msg::map_atom, msg::map_atom, msg::map_atom) {}};
}

struct job_fixture : test::coordinated_fixture {
  caf::scoped_actor self{sys, true};
  std::vector<inbox> node_box{test::make_inbox<caf::message>(), test::make_inbox<caf::message>()};
  inbox sched_box = test::make_inbox<caf::message>();
  inbox ctl_box = test::make_inbox<caf::message>();
  inbox client_box = test::make_inbox<caf::message>();
  std::vector<caf::actor> nodes;
  caf::actor scheduler;
  caf::actor controller;
  caf::actor client;
  actors::job_actor job;

  job_fixture() {
    for (auto& box : node_box) nodes.push_back(keep(sys.spawn(recorder, box)));
    scheduler = keep(sys.spawn(recorder, sched_box));
    controller = keep(sys.spawn(recorder, ctl_box));
    client = keep(sys.spawn(recorder, client_box));
    sched.run();
  }

  ~job_fixture() {
    // Pitfall 14: every actor is killed (the base does it), and no timer is left pending.
    for (auto& a : spawned) caf::anon_send_exit(a, caf::exit_reason::kill);
    sched.run();
    sched.clock().trigger_timeouts();
    sched.run();
  }

  /// Job 7 of alice: `true` on two nodes, 60 s limit, KillWait 30 s, a waiting client.
  actors::job_setup setup() {
    actors::job_setup s;
    s.id = 7;
    s.req.user = "alice";
    s.req.uid = 1000;
    s.req.partition = "debug";
    s.req.min_nodes = 2;
    s.req.argv = {"true"};
    s.req.cwd = "/tmp";
    s.req.time_limit_s = 60;
    s.kill_wait_s = 30;
    auto rules = std::make_shared<policy::access_rules>();
    rules->daemon_users = {500};
    s.access = std::move(rules);
    s.client = client;
    s.controller = controller;
    // The recorder takes whatever the job sends; the typed handle checks the job's side.
    s.scheduler = caf::actor_cast<actors::scheduler_actor>(scheduler);
    return s;
  }

  void spawn(actors::job_setup s) {
    job = actors::spawn_job(sys, std::move(s));
    keep(caf::actor_cast<caf::actor>(job));
    sched.run();
  }

  /// The scheduler places the job on n1 and n2.
  void place() {
    caf::anon_send(job, msg::start_atom_v, std::vector<std::string>{"n1", "n2"}, nodes,
                   std::vector<uint32_t>{1, 1}, std::string{"n[1-2]"},
                   std::vector<msg::gres_held>{});
    sched.run();
  }

  /// Node `i` reports its tasks of `step` (one task, rank i).
  void report(size_t i, int32_t exit_code, int32_t signal = 0, uint32_t step = 0) {
    msg::step_exit ex;
    ex.job_id = 7;
    ex.step_id = step;
    ex.node_name = "n" + std::to_string(i + 1);
    ex.tasks.push_back({static_cast<uint32_t>(i), exit_code, signal});
    caf::anon_send(job, std::move(ex));
    sched.run();
  }

  /// The job's last published listing view.
  msg::job_info view() const {
    msg::job_info last;
    for (auto& m : *ctl_box)
      if (m.match_elements<msg::view_atom, msg::job_info>()) last = m.get_as<msg::job_info>(1);
    return last;
  }

  /// Signals node `i` was asked to send to the job's tasks (every step), in order.
  std::vector<int32_t> signals(size_t i) const {
    std::vector<int32_t> out;
    for (auto& m : *node_box[i])
      if (m.match_elements<msg::signal_atom, uint64_t, uint32_t, int32_t>()) {
        BOOST_TEST(m.get_as<uint32_t>(2) == all_steps);
        out.push_back(m.get_as<int32_t>(3));
      }
    return out;
  }

  /// How many messages `box` got that start with atom A (and carry Ts...).
  template <class... Ts>
  static size_t count(const inbox& box) {
    size_t n = 0;
    for (auto& m : *box)
      if (m.match_elements<Ts...>()) ++n;
    return n;
  }

  /// The job_events the client got, as "kind:text".
  std::vector<std::string> client_events() const {
    std::vector<std::string> out;
    for (auto& m : *client_box)
      if (m.match_elements<msg::job_event>()) {
        auto& ev = m.get_as<msg::job_event>(0);
        out.push_back(ev.kind + ":" + ev.text);
      }
    return out;
  }

  /// (ended_atom, id, ok, started) the scheduler got: -1 none, 0 not ok, 1 ok.
  int ended_ok() const {
    int out = -1;
    for (auto& m : *sched_box)
      if (m.match_elements<msg::ended_atom, uint64_t, bool, int64_t>())
        out = m.get_as<bool>(2) ? 1 : 0;
    return out;
  }

  /// Sends a request to the job and waits for the answer: the error, or none when ok.
  template <class... Ts>
  caf::error ask(Ts... xs) {
    auto h = self->request(job, caf::infinite, xs...);
    sched.run();
    caf::error out;
    h.receive([](caf::ok_atom) {}, [&](caf::error& err) { out = std::move(err); });
    return out;
  }

  std::string state() const { return msg::to_string(view().state); }
};

using job_state = msg::job_state;

}  // namespace shoal::test::job_actor_testing
