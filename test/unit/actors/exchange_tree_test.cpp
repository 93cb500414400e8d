// A step's all-gather along its shepherds' tree (actors/exchange_tree.hpp), played out between
// trees in memory as the shepherds would carry out each action: every node gets every blob in
// node order, an error anywhere ends the round everywhere at once, and a timeout or a lost peer
// never leaves a node waiting.

#include <boost/test/unit_test.hpp>

#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "actors/exchange_tree.hpp"

namespace {

using shoal::actors::exchange_tree;
using shoal::msg::step_exchange;

/// The step's shepherds, with the messages between them delivered in order.
struct step_tree {
  step_tree(uint32_t count, uint32_t fanout) : fanout(fanout) {
    for (uint32_t i = 0; i < count; ++i) nodes.emplace_back(9, 2, i, count, fanout);
    outcomes.resize(count);
  }

  /// Node `from` carries out `actions`: up to its parent, down to its children and itself.
  void carry_out(uint32_t from, std::vector<exchange_tree::action> actions) {
    for (auto& a : actions) {
      if (a.up)
        queue.push_back({exchange_tree::parent_of(from, fanout), from, true, a.message});
      else {
        outcomes[from].push_back(a.message);
        for (auto c : nodes[from].children()) queue.push_back({c, from, false, a.message});
      }
    }
  }

  void own_part(uint32_t node, uint32_t round, std::string blob, std::string error = {}) {
    step_exchange part;
    part.job_id = 9;
    part.step_id = 2;
    part.round = round;
    part.error = std::move(error);
    if (part.error.empty()) part.blobs.push_back({node, std::move(blob)});
    carry_out(node, nodes[node].join_local(part));
  }

  void run() {
    while (!queue.empty()) {
      auto m = queue.front();
      queue.pop_front();
      if (m.up)
        carry_out(m.to, nodes[m.to].join_child(m.from, m.message));
      else
        carry_out(m.to, nodes[m.to].outcome(m.message));
    }
  }

  struct in_flight {
    uint32_t to;
    uint32_t from;
    bool up;
    step_exchange message;
  };
  uint32_t fanout;
  std::vector<exchange_tree> nodes;
  std::vector<std::vector<step_exchange>> outcomes;
  std::deque<in_flight> queue;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(exchange_tree_rounds)

BOOST_AUTO_TEST_CASE(a_tree_gives_each_node_its_parent_and_children) {
  BOOST_TEST(exchange_tree::parent_of(0, 4) == 0u);
  BOOST_TEST(exchange_tree::parent_of(4, 4) == 0u);
  BOOST_TEST(exchange_tree::parent_of(5, 4) == 1u);
  exchange_tree one(1, 0, 1, 7, 4);
  BOOST_TEST(one.children() == (std::vector<uint32_t>{5, 6}));
  exchange_tree leaf(1, 0, 6, 7, 4);
  BOOST_TEST(leaf.children().empty());
}

BOOST_AUTO_TEST_CASE(a_single_node_step_gets_its_own_blob_back_at_once) {
  step_tree t(1, 16);
  t.own_part(0, 1, "kvs0");
  BOOST_REQUIRE_EQUAL(t.outcomes[0].size(), 1u);
  BOOST_TEST(t.outcomes[0][0].error.empty());
  BOOST_REQUIRE_EQUAL(t.outcomes[0][0].blobs.size(), 1u);
  BOOST_TEST(t.outcomes[0][0].blobs[0].data == "kvs0");
}

BOOST_AUTO_TEST_CASE(every_node_of_a_deep_tree_gets_every_blob_in_node_order) {
  // 40 nodes, 16 children a node: three levels.
  step_tree t(40, 16);
  for (uint32_t round = 1; round <= 3; ++round) {
    // Leaves first, then the rest backwards: parts reach parents before their own.
    for (uint32_t i = 40; i-- > 0;)
      t.own_part(i, round, "r" + std::to_string(round) + "n" + std::to_string(i));
    t.run();
  }
  for (uint32_t i = 0; i < 40; ++i) {
    BOOST_REQUIRE_EQUAL(t.outcomes[i].size(), 3u);
    for (uint32_t round = 1; round <= 3; ++round) {
      auto& o = t.outcomes[i][round - 1];
      BOOST_TEST(o.round == round);
      BOOST_TEST(o.error.empty());
      BOOST_REQUIRE_EQUAL(o.blobs.size(), 40u);
      for (uint32_t n = 0; n < 40; ++n) {
        BOOST_TEST(o.blobs[n].node == n);
        BOOST_TEST(o.blobs[n].data == "r" + std::to_string(round) + "n" + std::to_string(n));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_round_is_not_over_until_every_node_joined) {
  step_tree t(5, 2);
  for (uint32_t i = 0; i < 4; ++i) t.own_part(i, 1, "x");
  t.run();
  for (auto& o : t.outcomes) BOOST_TEST(o.empty());
  t.own_part(4, 1, "x");
  t.run();
  for (auto& o : t.outcomes) BOOST_TEST(o.size() == 1u);
}

BOOST_AUTO_TEST_CASE(an_error_on_one_node_ends_the_round_everywhere_without_waiting) {
  step_tree t(7, 2);
  // Node 6 (a leaf two levels down) fails; nobody else joined yet.
  t.own_part(6, 1, {}, "rank 11 exited with status 3 before the fence");
  t.run();
  for (uint32_t i = 0; i < 7; ++i) {
    // Only those on the path know yet: 6 -> 2 -> 0 and back down to 0's and 2's children.
    if (t.outcomes[i].empty()) continue;
    BOOST_TEST(t.outcomes[i][0].error == "rank 11 exited with status 3 before the fence");
  }
  BOOST_TEST(t.outcomes[0].size() == 1u);
  BOOST_TEST(t.outcomes[6].size() == 1u);
  BOOST_TEST(t.outcomes[1].size() == 1u);
  // The others' late parts change nothing.
  for (uint32_t i = 0; i < 6; ++i) t.own_part(i, 1, "late");
  t.run();
  for (uint32_t i = 0; i < 7; ++i) BOOST_TEST(t.outcomes[i].size() <= 1u);
}

BOOST_AUTO_TEST_CASE(the_root_timing_out_names_the_nodes_that_never_joined) {
  step_tree t(4, 16);
  t.own_part(0, 1, "a");
  t.own_part(2, 1, "c");
  t.run();
  t.carry_out(0, t.nodes[0].expire(1, "PMIxTimeout (5 s) passed"));
  t.run();
  BOOST_REQUIRE_EQUAL(t.outcomes[0].size(), 1u);
  BOOST_TEST(t.outcomes[0][0].error ==
             "PMIxTimeout (5 s) passed (no word from the step's node(s) 1,3)");
  BOOST_TEST(t.outcomes[2].size() == 1u);
  // A timer firing after the round ended does nothing.
  BOOST_TEST(t.nodes[0].expire(1, "late").empty());
}

BOOST_AUTO_TEST_CASE(a_lost_parent_fails_the_open_round_here_and_every_later_one) {
  exchange_tree leaf(9, 2, 3, 4, 16);
  step_exchange part;
  part.round = 1;
  part.blobs.push_back({3, "d"});
  auto up = leaf.join_local(part);
  BOOST_REQUIRE_EQUAL(up.size(), 1u);
  BOOST_TEST(up[0].up);
  auto lost = leaf.peer_lost(true, "node 0 went");
  BOOST_REQUIRE_EQUAL(lost.size(), 1u);
  BOOST_TEST(!lost[0].up);
  BOOST_TEST(lost[0].message.error == "node 0 went");
  part.round = 2;
  auto next = leaf.join_local(part);
  BOOST_REQUIRE_EQUAL(next.size(), 1u);
  BOOST_TEST(!next[0].up);
  BOOST_TEST(next[0].message.error == "node 0 went");
}

BOOST_AUTO_TEST_CASE(a_lost_child_fails_the_round_for_the_whole_step) {
  step_tree t(3, 16);
  t.own_part(0, 1, "a");
  t.own_part(1, 1, "b");
  t.run();
  t.carry_out(0, t.nodes[0].peer_lost(false, "node 2 went"));
  t.run();
  BOOST_REQUIRE_EQUAL(t.outcomes[0].size(), 1u);
  BOOST_TEST(t.outcomes[0][0].error == "node 2 went");
  BOOST_REQUIRE_EQUAL(t.outcomes[1].size(), 1u);
  BOOST_TEST(t.outcomes[1][0].error == "node 2 went");
}

BOOST_AUTO_TEST_SUITE_END()
