// Heartbeat fan-in as the controller counts it, under CAF's test coordinator (virtual clock):
// 100 real node actors, ten of them CollectorNodes with real collectors, and the real collector
// manager, metered into one registry as in shoalctld. The node daemons are stand-ins that beat
// where they were last told to, once per interval, as shoald does. Counting over a number of
// intervals on the virtual clock gives exact numbers, where the same check over wall-clock
// seconds could only bound them.

#include <boost/test/unit_test.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "actors/collector.hpp"
#include "actors/collector_manager.hpp"
#include "actors/node.hpp"
#include "metrics/registry.hpp"
#include "test/unit/actors/coordinated.hpp"
#include "test/unit/actors/gathered_nodes.hpp"

namespace {

using namespace shoal;
using namespace std::chrono_literals;

/// The controller as node actors see it.
/// Takes an unused argument: CAF 0.17 starts a function actor spawned with none through a null
/// shared_ptr<tuple<>>, which UBSan reports (the other doubles all take one).
caf::behavior fan_in_controller_double(caf::event_based_actor*, int) {
  return {
      [](msg::view_atom, msg::node_info&) {},
      [](msg::nodedown_atom, const std::string&, uint64_t) {},
  };
}

/// Outlives the actors, which count into it until they are gone (a base class is destroyed
/// after the fixture that kills them).
struct metered {
  metrics::registry meters;
};

struct fan_in_fixture : metered, test::coordinated_fixture {
  static constexpr int64_t interval_ms = 500;
  static constexpr int64_t timeout_ms = 5'000;
  static constexpr unsigned node_count = 100;
  static constexpr unsigned collector_count = 10;

  caf::actor controller = keep(sys.spawn(fan_in_controller_double, 0));
  std::vector<std::string> names;  ///< node1 .. node100
  std::map<std::string, actors::node_actor> nodes;
  std::map<std::string, std::shared_ptr<std::string>> told;  ///< node -> its daemon's collector
  std::map<std::string, caf::actor> collectors;              ///< node1, node11, ... node91
  actors::collector_manager_actor manager;

  fan_in_fixture() {
    actors::collector_manager_setup setup;
    for (unsigned i = 1; i <= node_count; ++i) {
      auto name = "node" + std::to_string(i);
      names.push_back(name);
      bool collector = i % (node_count / collector_count) == 1;
      (collector ? setup.collectors : setup.nodes).push_back(name);
      told[name] = std::make_shared<std::string>();
      auto node = test::spawn_registered_node(*this, name, controller, timeout_ms, interval_ms,
                                              &meters, told[name]);
      nodes.emplace(name, node);
      setup.node_actors.emplace(name, node);
    }
    for (auto& name : setup.collectors) {
      setup.hosts[name] = "127.0.0.1";
      collectors[name] =
          keep(caf::actor_cast<caf::actor>(actors::spawn_collector(sys, name, &meters)));
    }
    setup.heartbeat_interval_ms = interval_ms;
    setup.heartbeat_timeout_ms = timeout_ms;
    setup.meters = &meters;
    manager = actors::spawn_collector_manager(sys, setup);
    keep(caf::actor_cast<caf::actor>(manager));
    sched.run();
  }

  /// Every collector's shoald announces it; the last one makes the manager split the nodes.
  void announce_collectors() {
    for (auto& [name, collector] : collectors)
      caf::anon_send(manager, msg::collector_atom_v, name, uint16_t{7000}, collector);
    sched.run();
  }

  /// One interval passes and every daemon beats once, where it was last told to: to its
  /// collector, to its node actor when it has none, nowhere when it is its own collector (whose
  /// rounds vouch for it).
  void interval() {
    advance(std::chrono::milliseconds{interval_ms});
    for (auto& name : names) {
      auto& to = *told[name];
      if (to == name) continue;
      if (to.empty())
        caf::anon_send(nodes[name], msg::heartbeat_atom_v);
      else
        caf::anon_send(collectors[to], msg::heartbeat_atom_v, name);
    }
    sched.run();
  }

  /// What reached the controller's actors: one per heartbeat message, direct or a round report.
  uint64_t messages() { return meters.counter_of("shoal_heartbeat_messages_total", "").value(); }

  /// Node beats the collectors' rounds reported.
  uint64_t collected() {
    return meters.counter_of("shoal_heartbeat_collected_nodes_total", "").value();
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(collector_fan_in, fan_in_fixture)

BOOST_AUTO_TEST_CASE(the_controller_gets_one_message_per_collector_round_not_one_per_node) {
  // No collector has announced itself: every node beats to its node actor.
  auto m0 = messages();
  for (int i = 0; i < 4; ++i) interval();
  BOOST_TEST(messages() - m0 == 4u * node_count);
  BOOST_TEST(collected() == 0u);
  announce_collectors();
  for (auto& name : names) {
    bool collector = collectors.count(name) != 0;
    BOOST_TEST_REQUIRE(!told[name]->empty(), name << " was told no collector");
    BOOST_TEST((*told[name] == name) == collector, name << " beats to " << *told[name]);
  }
  // Per interval: one report from each of the ten collectors, which vouches for its own node,
  // against the 90 beats it gathered.
  auto m1 = messages();
  auto c1 = collected();
  for (int i = 0; i < 10; ++i) interval();
  BOOST_TEST(messages() - m1 == 10u * collector_count);
  BOOST_TEST(collected() - c1 == 10u * (node_count - collector_count));
}

BOOST_AUTO_TEST_SUITE_END()
