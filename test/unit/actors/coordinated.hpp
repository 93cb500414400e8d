#pragma once

// A deterministic actor system for actor tests: CAF's test coordinator runs every message in one
// thread, in order, and time moves only when a test advances the virtual clock. No sleeps.

#include <memory>
#include <vector>

#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>

#include "messages/caf/type_ids.hpp"

namespace shoal::test {

struct coordinated_config : caf::actor_system_config {
  coordinated_config() {
    set("scheduler.policy", caf::atom("testing"));
    add_message_types<caf::id_block::shoal>();
  }
};

struct coordinated_fixture {
  coordinated_config cfg;
  caf::actor_system sys{cfg};
  caf::scheduler::test_coordinator& sched =
      dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler());
  /// Every actor a test spawned: killed at the end, so no pending timer keeps the system alive.
  std::vector<caf::actor> spawned;

  ~coordinated_fixture() {
    for (auto& a : spawned) caf::anon_send_exit(a, caf::exit_reason::kill);
    sched.run();
  }

  caf::actor keep(caf::actor a) {
    spawned.push_back(a);
    return a;
  }

  /// Delivers every message now due; then moves the clock by `d` and delivers what came due.
  void advance(caf::timespan d) {
    sched.run();
    sched.clock().advance_time(d);
    sched.run();
  }
};

/// What a stand-in peer received, in order: the real messages of the protocol under test.
template <class T>
using inbox = std::shared_ptr<std::vector<T>>;

template <class T>
inbox<T> make_inbox() {
  return std::make_shared<std::vector<T>>();
}

}  // namespace shoal::test
