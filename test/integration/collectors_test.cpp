// Heartbeat fan-in through CollectorNodes (seed 000, steps 3 to 9B; actors/collector_manager.hpp):
// real shoald processes, two of them collectors. Heartbeats every half second; a node or a
// collector silent for 3 s is DOWN.

#include <signal.h>

#include <boost/test/unit_test.hpp>

#include <map>
#include <set>
#include <string>
#include <thread>

#include "messages/errc.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

constexpr const char* fast_heartbeats = "HeartBeatInterval=0.5\nSlurmdTimeout=3\n";

/// node1 and node2 gather the heartbeats of node3..node6.
struct two_collectors : cluster_fixture {
  two_collectors()
      : cluster_fixture(6, std::string{fast_heartbeats} + "CollectorNodes=node[1-2]\n") {}

  /// `control show collectors --json`, by name: (state, nodes).
  std::map<std::string, std::pair<std::string, unsigned>> collectors() {
    std::map<std::string, std::pair<std::string, unsigned>> out;
    auto doc = parse_json(run_cli({"control", "show", "collectors", "--json"}).out);
    if (doc.is_object())
      for (auto& c : doc.value("collectors", nlohmann::json::array()))
        out[c.value("name", "")] = {c.value("state", ""), c.value("nodes", 0u)};
    return out;
  }

  /// True once each named collector is in its state with its count of nodes.
  bool wait_collectors(const std::map<std::string, std::pair<std::string, unsigned>>& want,
                       millis timeout = 20s) {
    std::map<std::string, std::pair<std::string, unsigned>> last;
    bool ok = wait_until(
        [&] {
          last = collectors();
          return last == want;
        },
        timeout);
    if (!ok) {
      std::string seen;
      for (auto& [name, c] : last)
        seen += name + "=" + c.first + "/" + std::to_string(c.second) + " ";
      BOOST_TEST_MESSAGE("collectors seen: " << seen);
    }
    return ok;
  }

  /// The nodes `info -N --json` shows in a state other than IDLE.
  std::set<std::string> not_idle(const std::set<std::string>& among) {
    std::set<std::string> out;
    for (auto& n : nodes()) {
      auto name = n.value("name", "");
      if (among.count(name) != 0 && n.value("state", "") != "IDLE") out.insert(name);
    }
    return out;
  }

  const std::set<std::string> collected{"node3", "node4", "node5", "node6"};
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(collectors, two_collectors)

BOOST_AUTO_TEST_CASE(the_other_nodes_are_split_evenly_and_stay_idle) {
  BOOST_REQUIRE(wait_collectors({{"node1", {"UP", 2}}, {"node2", {"UP", 2}}}));
  // Their node actors no longer time them: the collectors' rounds keep them up.
  for (int i = 0; i < 8; ++i) {
    BOOST_CHECK(not_idle(collected).empty());
    std::this_thread::sleep_for(500ms);
  }
  auto table = run_cli({"control", "show", "collectors"});
  BOOST_CHECK_EQUAL(table.exit_code, 0);
  BOOST_CHECK(table.out.find("COLLECTOR STATE NODES LAST_REPORT") == 0);
  BOOST_CHECK_EQUAL(count_lines_with(table.out, " UP "), 2u);
  auto reported = metric_value(cluster.metrics_port(), "shoal_heartbeat_collected_nodes_total");
  BOOST_REQUIRE(reported);
  BOOST_CHECK_GT(*reported, 0.0);
}

BOOST_AUTO_TEST_CASE(a_killed_collector_hands_its_nodes_over_before_they_time_out) {
  BOOST_REQUIRE(wait_collectors({{"node1", {"UP", 2}}, {"node2", {"UP", 2}}}));
  cluster.signal_node(1, SIGKILL);
  BOOST_CHECK(wait_collectors({{"node1", {"DOWN", 0}}, {"node2", {"UP", 4}}}));
  // Two timeouts later, none of the four was ever reported DOWN; the collector itself is.
  std::set<std::string> ever;
  wait_until(
      [&] {
        for (auto& n : not_idle(collected)) ever.insert(n);
        return false;
      },
      6s);
  BOOST_CHECK_MESSAGE(ever.empty(), "reported not IDLE: " << *ever.begin());
  BOOST_CHECK(wait_node_state("node1", "DOWN", 15s));
  // 9B: the collector comes back, the lists are split again, no node on two lists.
  BOOST_REQUIRE(!cluster.restart_node(1));
  BOOST_CHECK(wait_collectors({{"node1", {"UP", 2}}, {"node2", {"UP", 2}}}));
  BOOST_CHECK(wait_node_state("node1", "IDLE", 15s));
  ever.clear();
  wait_until(
      [&] {
        for (auto& n : not_idle(collected)) ever.insert(n);
        return false;
      },
      4s);
  BOOST_CHECK(ever.empty());
}

BOOST_AUTO_TEST_CASE(a_killed_node_goes_down_and_returns_when_its_daemon_does) {
  BOOST_REQUIRE(wait_collectors({{"node1", {"UP", 2}}, {"node2", {"UP", 2}}}));
  cluster.signal_node(5, SIGKILL);
  BOOST_CHECK(wait_node_state("node5", "DOWN", 15s));
  auto node5 = node("node5");
  BOOST_CHECK_EQUAL(node5.value("reason", ""), "Not responding");
  BOOST_CHECK(not_idle({"node3", "node4", "node6"}).empty());
  BOOST_REQUIRE(!cluster.restart_node(5));
  BOOST_CHECK(wait_node_state("node5", "IDLE", 15s));
  // It beats through its collector again: it stays up past a timeout.
  std::this_thread::sleep_for(4s);
  BOOST_CHECK(not_idle(collected).empty());
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

/// 100 simulated nodes in two front ends, ten of them collectors (node1, node11, ... node91).
struct many_collected_nodes : simulated_cluster_fixture {
  many_collected_nodes()
      : simulated_cluster_fixture(
            100, 2, fast_heartbeats + shoal::runtime::local_cluster::spread_collectors(100, 10)) {}
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(collector_fan_in, many_collected_nodes)

BOOST_AUTO_TEST_CASE(the_controller_gets_one_message_per_collector_round_not_one_per_node) {
  auto lists = [&] {
    auto doc = parse_json(
        run_shoal(cluster.config_path(), {"control", "show", "collectors", "--json"}).out);
    unsigned up = 0, nodes = 0;
    if (doc.is_object())
      for (auto& c : doc.value("collectors", nlohmann::json::array())) {
        up += c.value("state", "") == "UP" ? 1 : 0;
        nodes += c.value("nodes", 0u);
      }
    return up == 10 && nodes == 90;
  };
  BOOST_REQUIRE(wait_until(lists, 20s));
  auto messages = [&] {
    return metric_value(cluster.metrics_port(), "shoal_heartbeat_messages_total").value_or(-1);
  };
  auto collected = [&] {
    return metric_value(cluster.metrics_port(), "shoal_heartbeat_collected_nodes_total")
        .value_or(-1);
  };
  // Counted in gathered beats, not in seconds (collector_fan_in in unit_actors checks the exact
  // count per round on a virtual clock): first two rounds' worth, while the last daemons learn
  // where to beat and still beat to their node actors; then ten rounds' worth, counted.
  auto gathered_since = [&](double from, double beats) {
    return wait_until([&] { return collected() - from >= beats; }, 60s);
  };
  BOOST_REQUIRE(gathered_since(collected(), 90 * 2));
  auto m0 = messages();
  auto c0 = collected();
  BOOST_REQUIRE(m0 >= 0 && c0 >= 0);
  BOOST_REQUIRE(gathered_since(c0, 90 * 10));
  auto m1 = messages();
  auto c1 = collected();
  // Per round: one report from each of the 10 collectors, which vouches for its own node too,
  // against 90 node beats gathered. Without collectors it would be one message per beat of
  // each of the 100.
  BOOST_TEST_MESSAGE("heartbeat messages " << m1 - m0 << ", node beats gathered " << c1 - c0);
  BOOST_CHECK_LT((m1 - m0) * 5, c1 - c0);
}

BOOST_AUTO_TEST_SUITE_END()
