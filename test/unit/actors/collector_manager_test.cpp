// The collector manager with real node actors under CAF's test coordinator (virtual clock): the
// node daemons, the collectors and the controller are stand-ins that record what reaches them.

#include <boost/test/unit_test.hpp>

#include <map>
#include <optional>
#include <set>

#include "actors/collector_manager.hpp"
#include "actors/node.hpp"
#include "messages/caf/error.hpp"
#include "test/unit/actors/coordinated.hpp"
#include "test/unit/actors/gathered_nodes.hpp"

namespace {

using namespace shoal;
using namespace std::chrono_literals;

/// The controller as node actors see it: the latest view of each node.
caf::behavior manager_controller_double(caf::event_based_actor*,
                                std::shared_ptr<std::map<std::string, msg::node_info>> views) {
  return {
      [views](msg::view_atom, msg::node_info& info) { (*views)[info.name] = std::move(info); },
      [](msg::nodedown_atom, const std::string&, uint64_t) {},
  };
}

/// A collector: the lists it was sent.
caf::behavior collector_double(caf::event_based_actor*, test::inbox<msg::collector_list> lists) {
  return {
      [lists](msg::collector_atom, msg::collector_list& list, caf::actor&) {
        lists->push_back(std::move(list));
      },
  };
}

struct manager_fixture : test::coordinated_fixture {
  static constexpr int64_t interval_ms = 1'000;
  static constexpr int64_t timeout_ms = 5'000;

  std::shared_ptr<std::map<std::string, msg::node_info>> views =
      std::make_shared<std::map<std::string, msg::node_info>>();
  caf::actor controller = keep(sys.spawn(manager_controller_double, views));
  std::map<std::string, actors::node_actor> nodes;
  std::map<std::string, std::shared_ptr<std::string>> told;  ///< node -> its daemon's collector
  std::map<std::string, test::inbox<msg::collector_list>> lists;
  std::map<std::string, caf::actor> collectors;
  actors::collector_manager_actor manager;

  static constexpr int64_t settle_ms = 2'000;

  /// c1 and c2 are CollectorNodes; n1..n6 are gathered. `saved`: the lists a previous
  /// controller saved.
  explicit manager_fixture(std::optional<msg::collector_map_record> saved = std::nullopt) {
    actors::collector_manager_setup setup;
    setup.saved = std::move(saved);
    setup.settle_ms = settle_ms;
    setup.collectors = {"c1", "c2"};
    setup.hosts = {{"c1", "10.0.0.1"}, {"c2", "10.0.0.2"}};
    for (int i = 1; i <= 6; ++i) setup.nodes.push_back("n" + std::to_string(i));
    auto everyone = setup.nodes;
    everyone.insert(everyone.end(), setup.collectors.begin(), setup.collectors.end());
    for (auto& name : everyone) {
      told[name] = std::make_shared<std::string>();
      auto node = test::spawn_registered_node(*this, name, controller, timeout_ms, interval_ms,
                                              nullptr, told[name]);
      nodes.emplace(name, node);
      setup.node_actors.emplace(name, node);
    }
    for (auto& name : setup.collectors) {
      lists[name] = test::make_inbox<msg::collector_list>();
      collectors[name] = keep(sys.spawn(collector_double, lists[name]));
    }
    setup.heartbeat_interval_ms = interval_ms;
    setup.heartbeat_timeout_ms = timeout_ms;
    manager = actors::spawn_collector_manager(sys, setup);
    keep(caf::actor_cast<caf::actor>(manager));
    sched.run();
  }

  /// A collector's shoald announces it; true when the manager took it.
  bool announce(const std::string& name, uint16_t port = 7000) {
    caf::scoped_actor self{sys, true};
    auto handle = self->request(manager, caf::infinite, msg::collector_atom_v, name, port,
                                collectors.count(name) ? collectors[name] : caf::actor{});
    sched.run();
    bool ok = false;
    handle.receive([&](caf::ok_atom) { ok = true; }, [](caf::error&) {});
    return ok;
  }

  /// The collector's latest round: every node of its latest list beat except `silent`.
  void report(const std::string& name, std::vector<std::string> silent = {},
              std::optional<uint64_t> version = std::nullopt) {
    auto& list = lists[name]->back();
    msg::collector_report r;
    r.collector = name;
    r.version = version ? *version : list.version;
    r.answered = static_cast<uint32_t>(list.nodes.size() - silent.size());
    r.silent = std::move(silent);
    r.full = true;  // a stand-in names every silent node each round
    caf::anon_send(manager, msg::collect_atom_v, r);
    sched.run();
  }

  std::string state_of(const std::string& node) { return msg::to_string((*views)[node].state); }

  /// Moves the virtual clock in steps of one interval, `c1` and `c2` (when up) reporting with
  /// `silent` each step.
  void rounds(int count, const std::vector<std::string>& silent,
              const std::set<std::string>& reporting = {"c1", "c2"}) {
    for (int i = 0; i < count; ++i) {
      advance(std::chrono::milliseconds{interval_ms});
      for (auto& c : reporting) {
        std::vector<std::string> mine;
        for (auto& n : silent)
          for (auto& listed : lists[c]->back().nodes)
            if (listed == n) mine.push_back(n);
        report(c, mine);
      }
    }
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(collector_manager, manager_fixture)

BOOST_AUTO_TEST_CASE(nodes_are_split_evenly_once_every_collector_announced) {
  BOOST_REQUIRE(announce("c1"));
  BOOST_TEST(lists["c1"]->empty());  // the first split waits for c2
  BOOST_REQUIRE(announce("c2"));
  BOOST_REQUIRE_EQUAL(lists["c1"]->size(), 1u);
  auto& a = lists["c1"]->back().nodes;
  auto& b = lists["c2"]->back().nodes;
  BOOST_TEST(a.size() == 3u);
  BOOST_TEST(b.size() == 3u);
  std::set<std::string> all(a.begin(), a.end());
  all.insert(b.begin(), b.end());
  BOOST_TEST(all.size() == 6u);  // on one list each
  for (auto& n : a) BOOST_TEST(*told[n] == "c1");
  for (auto& n : b) BOOST_TEST(*told[n] == "c2");
  BOOST_TEST(lists["c2"]->back().interval_ms == interval_ms);
}

BOOST_AUTO_TEST_CASE(without_the_others_the_first_split_comes_after_the_settle_delay) {
  BOOST_REQUIRE(announce("c1"));
  advance(std::chrono::milliseconds{settle_ms});
  BOOST_REQUIRE_EQUAL(lists["c1"]->size(), 1u);
  BOOST_TEST(lists["c1"]->back().nodes.size() == 6u);
  // c2 comes later: it takes its share, and only its share moves.
  BOOST_REQUIRE(announce("c2"));
  BOOST_TEST(lists["c1"]->back().nodes.size() == 3u);
  BOOST_TEST(lists["c2"]->back().nodes.size() == 3u);
  int moved = 0;
  for (auto& [name, collector] : told) moved += *collector == "c2" ? 1 : 0;
  BOOST_TEST(moved == 4);  // three nodes and c2's own
}

BOOST_AUTO_TEST_CASE(a_restarted_controller_gives_each_collector_its_saved_list_back) {
  msg::collector_map_record saved;
  saved.collectors = {"c1", "c2"};
  saved.nodes = {"n[1,3,5]", "n[2,4,6]"};
  manager_fixture restarted{saved};
  // The node actors stop timing their nodes at once; nothing reaches a daemon before its
  // collector says where it listens.
  for (auto& [name, collector] : restarted.told) BOOST_TEST(collector->empty());
  BOOST_REQUIRE(restarted.announce("c1"));
  for (auto n : {"n1", "n3", "n5"}) BOOST_TEST(*restarted.told[n] == "c1");
  BOOST_REQUIRE(restarted.announce("c2"));
  BOOST_TEST(restarted.lists["c1"]->back().nodes == (std::vector<std::string>{"n1", "n3", "n5"}),
             boost::test_tools::per_element());
  BOOST_TEST(restarted.lists["c2"]->back().nodes == (std::vector<std::string>{"n2", "n4", "n6"}),
             boost::test_tools::per_element());
  restarted.rounds(8, {});
  for (auto& [name, node] : restarted.nodes) BOOST_TEST(restarted.state_of(name) == "IDLE");
}

BOOST_AUTO_TEST_CASE(saved_lists_wait_for_collectors_that_take_longer_than_the_settle_delay) {
  msg::collector_map_record saved;
  saved.collectors = {"c1", "c2"};
  saved.nodes = {"n[1,3,5]", "n[2,4,6]"};
  manager_fixture restarted{saved};
  // The daemons take longer than the settle delay to find the new controller (a takeover's
  // reconnect backoff), then announce close together.
  restarted.advance(std::chrono::milliseconds{settle_ms + interval_ms});
  BOOST_REQUIRE(restarted.announce("c1"));
  restarted.advance(std::chrono::milliseconds{interval_ms / 2});
  BOOST_REQUIRE(restarted.announce("c2"));
  // Each gets its saved list, once: no node moved.
  BOOST_REQUIRE_EQUAL(restarted.lists["c1"]->size(), 1u);
  BOOST_REQUIRE_EQUAL(restarted.lists["c2"]->size(), 1u);
  BOOST_TEST(restarted.lists["c1"]->back().nodes == (std::vector<std::string>{"n1", "n3", "n5"}),
             boost::test_tools::per_element());
  BOOST_TEST(restarted.lists["c2"]->back().nodes == (std::vector<std::string>{"n2", "n4", "n6"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(saved_lists_whose_collectors_never_return_are_timed_again) {
  msg::collector_map_record saved;
  saved.collectors = {"c1", "c2"};
  saved.nodes = {"n[1,3,5]", "n[2,4,6]"};
  manager_fixture restarted{saved};
  // No collector comes back, and no daemon beats: after HeartBeatTimeout the node actors time
  // their nodes again, and they go DOWN once that runs out.
  restarted.advance(std::chrono::milliseconds{timeout_ms});
  for (auto& [name, collector] : restarted.told) BOOST_TEST(collector->empty());
  restarted.advance(std::chrono::milliseconds{timeout_ms + interval_ms});
  BOOST_TEST(restarted.state_of("n1") == "DOWN");
}

BOOST_AUTO_TEST_CASE(a_node_that_is_not_a_collector_cannot_announce_one) {
  BOOST_TEST(!announce("n1"));
  BOOST_TEST(announce("c1"));
}

BOOST_AUTO_TEST_CASE(gathered_nodes_stay_up_on_reports_alone_and_go_down_when_silent) {
  BOOST_REQUIRE(announce("c1"));
  BOOST_REQUIRE(announce("c2"));
  // No heartbeat reaches the node actors: the reports keep every node up past the timeout.
  rounds(8, {});
  for (auto& [name, node] : nodes) BOOST_TEST(state_of(name) == "IDLE");
  // n2 stops beating: DOWN once silent for HeartBeatTimeout, not before.
  rounds(3, {"n2"});
  BOOST_TEST(state_of("n2") == "IDLE");
  rounds(3, {"n2"});
  BOOST_TEST(state_of("n2") == "DOWN");
  BOOST_TEST((*views)["n2"].reason == "Not responding");
  BOOST_TEST(state_of("n1") == "IDLE");
  // It beats again: back in service with the next round.
  rounds(1, {});
  BOOST_TEST(state_of("n2") == "IDLE");
}

BOOST_AUTO_TEST_CASE(a_report_against_an_older_list_says_nothing_about_nodes) {
  BOOST_REQUIRE(announce("c1"));
  advance(std::chrono::milliseconds{settle_ms});
  report("c1");
  auto old_version = lists["c1"]->back().version;
  BOOST_REQUIRE(announce("c2"));
  auto& c2_nodes = lists["c2"]->back().nodes;
  BOOST_REQUIRE((std::set<std::string>(c2_nodes.begin(), c2_nodes.end()) ==
                 std::set<std::string>{"n4", "n5", "n6"}));
  // c1 goes on reporting against its first list (all six), all of them silent, past the
  // timeout (each report full, as after a new list). Its word counts for none of them: c2's nodes
  // stay up on c2's rounds, and c1's own go DOWN, since no current round vouches for them.
  for (int i = 0; i < 7; ++i) {
    advance(std::chrono::milliseconds{interval_ms});
    report("c1", {"n1", "n2", "n3", "n4", "n5", "n6"}, old_version);
    report("c2");
  }
  for (auto n : {"n4", "n5", "n6"}) BOOST_TEST(state_of(n) == "IDLE");
  for (auto n : {"n1", "n2", "n3"}) BOOST_TEST(state_of(n) == "DOWN");
}

BOOST_AUTO_TEST_CASE(a_silent_collector_goes_down_and_its_nodes_move_without_going_down) {
  BOOST_REQUIRE(announce("c1"));
  BOOST_REQUIRE(announce("c2"));
  auto c1_nodes = lists["c1"]->back().nodes;
  // c1 falls silent; only c2 reports. Past HeartBeatTimeout c1 is DOWN and c2 takes all six.
  rounds(6, {}, {"c2"});
  BOOST_REQUIRE_GE(lists["c2"]->size(), 2u);
  BOOST_TEST(lists["c2"]->back().nodes.size() == 6u);
  for (auto& n : c1_nodes) BOOST_TEST(*told[n] == "c2");
  // Their silence counts from the move: a few more rounds, reported by c2, and none is DOWN.
  rounds(3, {}, {"c2"});
  for (auto& [name, node] : nodes) BOOST_TEST(state_of(name) == "IDLE");
  caf::scoped_actor self{sys, true};
  auto listing = self->request(manager, caf::infinite, msg::collectors_atom_v);
  sched.run();
  listing.receive(
      [&](std::vector<msg::collector_info>& v) {
        BOOST_REQUIRE_EQUAL(v.size(), 2u);
        BOOST_TEST(v[0].name == "c1");
        BOOST_TEST(v[0].state == "DOWN");
        BOOST_TEST(v[0].nodes == 0u);
        BOOST_TEST(v[1].state == "UP");
        BOOST_TEST(v[1].nodes == 6u);
      },
      [](caf::error& err) { BOOST_FAIL("collectors: " << to_string(err)); });
  // 9B: c1 returns and the nodes are split again.
  BOOST_REQUIRE(announce("c1"));
  BOOST_TEST(lists["c1"]->back().nodes.size() == 3u);
  BOOST_TEST(lists["c2"]->back().nodes.size() == 3u);
}

BOOST_AUTO_TEST_CASE(a_collector_node_is_vouched_for_by_its_own_rounds) {
  BOOST_REQUIRE(announce("c1"));
  BOOST_REQUIRE(announce("c2"));
  BOOST_TEST(*told["c1"] == "c1");  // its daemon beats nowhere
  rounds(8, {});
  BOOST_TEST(state_of("c1") == "IDLE");
  // c1 stops reporting: DOWN as a collector, then its node beats to its node actor again and
  // goes DOWN only when no beat comes there either.
  rounds(6, {}, {"c2"});
  BOOST_TEST(told["c1"]->empty());
  BOOST_TEST(state_of("c1") == "IDLE");
  rounds(6, {}, {"c2"});
  BOOST_TEST(state_of("c1") == "DOWN");
}

BOOST_AUTO_TEST_CASE(without_a_collector_up_the_node_actors_time_their_daemons_again) {
  BOOST_REQUIRE(announce("c1"));
  BOOST_REQUIRE(announce("c2"));
  rounds(2, {});
  BOOST_TEST(*told["n1"] == "c1");
  // Neither reports any more: both go DOWN, every node beats to its actor again.
  advance(std::chrono::milliseconds{timeout_ms});
  for (auto& [name, collector] : told) BOOST_TEST(collector->empty());
  // Their own timers run again: no beat comes, so they go DOWN after the timeout.
  advance(std::chrono::milliseconds{timeout_ms + interval_ms});
  for (auto& [name, node] : nodes) BOOST_TEST(state_of(name) == "DOWN");
}

BOOST_AUTO_TEST_SUITE_END()
