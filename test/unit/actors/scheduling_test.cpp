#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "actors/scheduling.hpp"
#include "topology/node_selection.hpp"

using namespace shoal::actors;
using shoal::topology::select_nodes;
using shoal::topology::selection_policy;
using indices = std::vector<size_t>;

namespace {

pending_job job(uint64_t id, uint32_t nodes, size_t partition = 0, int64_t priority = 0,
                indices required = {}, indices excluded = {}) {
  pending_job j;
  j.id = id;
  j.priority = priority;
  j.nodes = nodes;
  j.partition = partition;
  j.required = std::move(required);
  j.excluded = std::move(excluded);
  return j;
}

partition_slot slot(indices nodes, bool up = true) {
  partition_slot p;
  p.up = up;
  p.nodes = std::move(nodes);
  return p;
}

indices iota(size_t first, size_t count) {
  indices out(count);
  for (size_t k = 0; k < count; ++k) out[k] = first + k;
  return out;
}

std::vector<uint64_t> started_ids(const pass_result& r) {
  std::vector<uint64_t> out;
  for (auto& p : r.started) out.push_back(p.job);
  return out;
}

const placement* started(const pass_result& r, uint64_t id) {
  for (auto& p : r.started)
    if (p.job == id) return &p;
  return nullptr;
}

std::optional<std::string> reason(const pass_result& r, uint64_t id) {
  for (auto& w : r.waiting)
    if (w.job == id) return w.reason;
  return std::nullopt;
}

indices nodes_of(const pass_result& r, uint64_t id) {
  auto p = started(r, id);
  BOOST_REQUIRE_MESSAGE(p != nullptr, "job " << id << " did not start");
  return p->nodes;
}

std::string show(const indices& xs) {
  std::ostringstream out;
  out << '{';
  for (size_t i = 0; i < xs.size(); ++i) out << (i ? "," : "") << xs[i];
  return out.str() + '}';
}

}  // namespace

BOOST_AUTO_TEST_SUITE(schedule_pass_rules)

BOOST_AUTO_TEST_CASE(jobs_start_in_priority_order_then_submit_order) {
  std::vector<bool> free_nodes(4, true);
  // Handed over in no particular order: 3 and 2 share the top priority, 2 is older.
  auto r = schedule_pass({job(3, 2, 0, 5), job(1, 2, 0, 0), job(2, 2, 0, 5)}, free_nodes,
                         {slot(iota(0, 4))}, {}, selection_policy::linear);
  BOOST_TEST(started_ids(r) == (std::vector<uint64_t>{2, 3}), boost::test_tools::per_element());
  BOOST_TEST(nodes_of(r, 2) == indices({0, 1}), boost::test_tools::per_element());
  BOOST_TEST(nodes_of(r, 3) == indices({2, 3}), boost::test_tools::per_element());
  BOOST_TEST(reason(r, 1).value_or("-") == "Resources");
  BOOST_TEST(r.waiting.size() == 1u);
}

BOOST_AUTO_TEST_CASE(negative_priorities_order_below_zero) {
  std::vector<bool> free_nodes(1, true);
  auto r = schedule_pass({job(1, 1, 0, -3), job(2, 1, 0, 0)}, free_nodes, {slot({0})}, {},
                         selection_policy::linear);
  BOOST_TEST(started_ids(r) == std::vector<uint64_t>{2}, boost::test_tools::per_element());
  BOOST_TEST(reason(r, 1).value_or("-") == "Resources");
}

BOOST_AUTO_TEST_CASE(a_blocked_job_holds_back_later_jobs_of_its_partition_only) {
  // Partition 0 = nodes 0-3, partition 1 = nodes 4-5.
  std::vector<bool> free_nodes(6, true);
  auto r = schedule_pass(
      {job(1, 3, 0, 10), job(2, 2, 0, 5), job(3, 1, 0, 1), job(4, 2, 1, 0), job(5, 1, 0, 0)},
      free_nodes, {slot(iota(0, 4)), slot(iota(4, 2))}, {}, selection_policy::linear);
  BOOST_TEST(nodes_of(r, 1) == indices({0, 1, 2}), boost::test_tools::per_element());
  BOOST_TEST(reason(r, 2).value_or("-") == "Resources");
  // Job 3 would fit on node 3, but job 2 came first.
  BOOST_TEST(reason(r, 3).value_or("-") == "Priority");
  BOOST_TEST(reason(r, 5).value_or("-") == "Priority");
  BOOST_TEST(nodes_of(r, 4) == indices({4, 5}), boost::test_tools::per_element());
  BOOST_TEST(free_nodes[3]);
}

BOOST_AUTO_TEST_CASE(a_blocked_partition_does_not_block_a_partition_sharing_its_nodes) {
  // Partition 0 = nodes 0-3, partition 1 = nodes 2-3: 1's job may use what 0's job waits for.
  std::vector<bool> free_nodes{false, true, true, true};
  auto r = schedule_pass({job(1, 4, 0, 9), job(2, 2, 1, 0)}, free_nodes,
                         {slot(iota(0, 4)), slot({2, 3})}, {}, selection_policy::linear);
  BOOST_TEST(reason(r, 1).value_or("-") == "Resources");
  BOOST_TEST(nodes_of(r, 2) == indices({2, 3}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_down_partition_starts_nothing_and_blocks_nothing_else) {
  std::vector<bool> free_nodes(4, true);
  auto r = schedule_pass({job(1, 1, 0, 9), job(2, 1, 0, 0), job(3, 2, 1, 0)}, free_nodes,
                         {slot({0, 1}, false), slot({2, 3})}, {}, selection_policy::linear);
  BOOST_TEST(reason(r, 1).value_or("-") == "PartitionDown");
  BOOST_TEST(reason(r, 2).value_or("-") == "PartitionDown");
  BOOST_TEST(nodes_of(r, 3) == indices({2, 3}), boost::test_tools::per_element());
  BOOST_TEST(free_nodes[0]);
  BOOST_TEST(free_nodes[1]);
}

BOOST_AUTO_TEST_CASE(required_nodes_are_part_of_the_placement) {
  std::vector<bool> free_nodes(6, true);
  auto r = schedule_pass({job(1, 3, 0, 0, {4})}, free_nodes, {slot(iota(0, 6))}, {},
                         selection_policy::linear);
  BOOST_TEST(nodes_of(r, 1) == indices({0, 1, 4}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(only_required_nodes_when_they_are_all_the_job_asks_for) {
  std::vector<bool> free_nodes(6, true);
  auto r = schedule_pass({job(1, 2, 0, 0, {5, 3})}, free_nodes, {slot(iota(0, 6))}, {},
                         selection_policy::consecutive);
  BOOST_TEST(nodes_of(r, 1) == indices({3, 5}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_busy_required_node_is_req_node_not_avail_and_blocks_nobody) {
  std::vector<bool> free_nodes{true, true, false, true};
  auto r = schedule_pass({job(1, 2, 0, 9, {1, 2}), job(2, 3, 0, 0)}, free_nodes, {slot(iota(0, 4))},
                         {}, selection_policy::linear);
  BOOST_TEST(reason(r, 1).value_or("-") == "ReqNodeNotAvail");
  BOOST_TEST(nodes_of(r, 2) == indices({0, 1, 3}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_required_node_taken_earlier_in_the_pass_is_req_node_not_avail) {
  std::vector<bool> free_nodes(4, true);
  auto r = schedule_pass({job(1, 2, 0, 9), job(2, 1, 0, 0, {0})}, free_nodes, {slot(iota(0, 4))},
                         {}, selection_policy::linear);
  BOOST_TEST(nodes_of(r, 1) == indices({0, 1}), boost::test_tools::per_element());
  BOOST_TEST(reason(r, 2).value_or("-") == "ReqNodeNotAvail");
}

BOOST_AUTO_TEST_CASE(more_required_nodes_than_the_job_asks_for_is_bad_constraints) {
  std::vector<bool> free_nodes(4, true);
  auto r = schedule_pass({job(1, 1, 0, 0, {0, 1}), job(2, 4, 0, 0)}, free_nodes, {slot(iota(0, 4))},
                         {}, selection_policy::linear);
  BOOST_TEST(reason(r, 1).value_or("-") == "BadConstraints");
  BOOST_TEST(nodes_of(r, 2) == iota(0, 4), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_node_required_twice_is_placed_once) {
  // What the scheduler actor builds from `-w node1,node1` (resolve_submission keeps the
  // duplicate and asks for 2 nodes).
  std::vector<bool> free_nodes(4, true);
  auto r = schedule_pass({job(1, 2, 0, 0, {0, 0})}, free_nodes, {slot(iota(0, 4))}, {},
                         selection_policy::linear);
  auto p = started(r, 1);
  BOOST_REQUIRE(p != nullptr);
  bool repeats = std::adjacent_find(p->nodes.begin(), p->nodes.end()) != p->nodes.end();
  if (repeats)
    BOOST_TEST_MESSAGE(
        "PRODUCT BUG: schedule_pass places a job whose required list repeats a "
        "node on that node twice: "
        << show(p->nodes));
  BOOST_TEST(!repeats, "placement " << show(p->nodes) << " repeats a node");
  BOOST_TEST(p->nodes.size() == 2u);
}

BOOST_AUTO_TEST_CASE(excluded_nodes_are_never_used) {
  std::vector<bool> free_nodes(4, true);
  auto r = schedule_pass({job(1, 2, 0, 0, {}, {0, 2})}, free_nodes, {slot(iota(0, 4))}, {},
                         selection_policy::linear);
  BOOST_TEST(nodes_of(r, 1) == indices({1, 3}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(exclusions_that_leave_too_few_nodes_are_resources) {
  std::vector<bool> free_nodes(4, true);
  auto r = schedule_pass({job(1, 3, 0, 0, {}, {1, 2})}, free_nodes, {slot(iota(0, 4))}, {},
                         selection_policy::linear);
  BOOST_TEST(reason(r, 1).value_or("-") == "Resources");
  BOOST_TEST(std::count(free_nodes.begin(), free_nodes.end(), true) == 4);
}

BOOST_AUTO_TEST_CASE(nodes_outside_the_partition_are_never_used) {
  std::vector<bool> free_nodes(6, true);
  auto r = schedule_pass({job(1, 3)}, free_nodes, {slot({1, 3, 5})}, {}, selection_policy::linear);
  BOOST_TEST(nodes_of(r, 1) == indices({1, 3, 5}), boost::test_tools::per_element());
  auto again =
      schedule_pass({job(2, 1)}, free_nodes, {slot({1, 3, 5})}, {}, selection_policy::linear);
  BOOST_TEST(reason(again, 2).value_or("-") == "Resources");
}

BOOST_AUTO_TEST_CASE(free_nodes_are_cleared_for_every_placement_and_nothing_else) {
  std::vector<bool> free_nodes{true, false, true, true, true, false, true};
  auto before = free_nodes;
  auto r = schedule_pass({job(1, 2), job(2, 1), job(3, 9)}, free_nodes, {slot(iota(0, 7))}, {},
                         selection_policy::linear);
  BOOST_TEST(nodes_of(r, 1) == indices({0, 2}), boost::test_tools::per_element());
  BOOST_TEST(nodes_of(r, 2) == indices({3}), boost::test_tools::per_element());
  auto expected = before;
  expected[0] = expected[2] = expected[3] = false;
  BOOST_TEST(free_nodes == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(an_empty_queue_changes_nothing) {
  std::vector<bool> free_nodes{true, false};
  auto r = schedule_pass({}, free_nodes, {slot({0, 1})}, {}, selection_policy::consecutive);
  BOOST_TEST(r.started.empty());
  BOOST_TEST(r.waiting.empty());
  BOOST_TEST(free_nodes == (std::vector<bool>{true, false}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(consecutive_picks_the_best_fitting_run) {
  // Free runs: 0-3 (4 nodes), 5-6 (2), 8-9 (2). A 2-node job fits the first 2-node run exactly.
  std::vector<bool> pattern{true, true, true, true, false, true, true, false, true, true};
  auto free_nodes = pattern;
  auto r = schedule_pass({job(1, 2)}, free_nodes, {slot(iota(0, 10))}, {},
                         selection_policy::consecutive);
  BOOST_TEST(nodes_of(r, 1) == indices({5, 6}), boost::test_tools::per_element());
  free_nodes = pattern;
  auto linear =
      schedule_pass({job(1, 2)}, free_nodes, {slot(iota(0, 10))}, {}, selection_policy::linear);
  BOOST_TEST(nodes_of(linear, 1) == indices({0, 1}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(placements_follow_select_nodes_over_the_partition_members) {
  // Members are not contiguous cluster indices: the pass maps select_nodes' member positions
  // back to node indices, weights included.
  const indices members{1, 2, 4, 5, 6, 8, 9, 11};
  std::vector<bool> free_nodes(12, true);
  free_nodes[4] = false;
  std::vector<uint32_t> weights(12, 1);
  weights[1] = weights[2] = 5;  // heavier: used last
  for (auto policy : {selection_policy::linear, selection_policy::consecutive}) {
    for (uint32_t count = 1; count <= 7; ++count) {
      auto nodes = free_nodes;
      auto r = schedule_pass({job(1, count)}, nodes, {slot(members)}, weights, policy);
      std::vector<bool> avail;
      std::vector<uint32_t> member_weights;
      for (auto m : members) {
        avail.push_back(free_nodes[m]);
        member_weights.push_back(weights[m]);
      }
      auto picked = select_nodes(policy, avail, count, member_weights);
      BOOST_REQUIRE(picked.has_value());
      indices expected;
      for (auto i : *picked) expected.push_back(members[i]);
      BOOST_TEST_CONTEXT("policy " << static_cast<int>(policy) << " count " << count) {
        BOOST_TEST(nodes_of(r, 1) == expected, boost::test_tools::per_element());
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(lighter_nodes_are_used_first) {
  std::vector<bool> free_nodes(4, true);
  auto r = schedule_pass({job(1, 2)}, free_nodes, {slot(iota(0, 4))}, {3, 1, 2, 1},
                         selection_policy::linear);
  BOOST_TEST(nodes_of(r, 1) == indices({1, 3}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()

// -- property test ------------------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(schedule_pass_properties)

BOOST_AUTO_TEST_CASE(random_queues_keep_every_invariant) {
  const uint32_t seed = 31'337;
  std::mt19937 rng{seed};
  auto chance = [&](double p) { return std::bernoulli_distribution{p}(rng); };
  auto uniform = [&](size_t lo, size_t hi) {
    return std::uniform_int_distribution<size_t>{lo, hi}(rng);
  };
  for (int round = 0; round < 3000; ++round) {
    auto where = "seed " + std::to_string(seed) + " round " + std::to_string(round);
    // A random cluster: overlapping partitions, some down, some nodes busy, maybe weights.
    size_t n = uniform(1, 24);
    std::vector<partition_slot> parts(uniform(1, 3));
    for (auto& p : parts) {
      p.up = chance(0.85);
      for (size_t i = 0; i < n; ++i)
        if (chance(0.6)) p.nodes.push_back(i);
    }
    std::vector<bool> free_before(n);
    for (size_t i = 0; i < n; ++i) free_before[i] = chance(0.7);
    std::vector<uint32_t> weights;
    if (chance(0.5))
      for (size_t i = 0; i < n; ++i) weights.push_back(static_cast<uint32_t>(uniform(1, 3)));
    auto policy = chance(0.5) ? selection_policy::linear : selection_policy::consecutive;
    std::vector<pending_job> queue;
    for (size_t k = uniform(0, 12); k > 0; --k) {
      pending_job j;
      j.id = queue.size() + 1;
      j.priority = static_cast<int64_t>(uniform(0, 3));
      j.nodes = static_cast<uint32_t>(uniform(1, 5));
      j.partition = uniform(0, parts.size() - 1);
      auto members = parts[j.partition].nodes;
      std::shuffle(members.begin(), members.end(), rng);
      size_t pos = 0;
      if (chance(0.25))
        for (size_t r = uniform(1, 2); r > 0 && pos < members.size(); --r)
          j.required.push_back(members[pos++]);
      if (chance(0.25))
        for (size_t x = uniform(1, 3); x > 0 && pos < members.size(); --x)
          j.excluded.push_back(members[pos++]);
      queue.push_back(std::move(j));
    }
    std::shuffle(queue.begin(), queue.end(), rng);

    auto free_nodes = free_before;
    auto result = schedule_pass(queue, free_nodes, parts, weights, policy);

    // Every job is decided exactly once.
    std::map<uint64_t, int> seen;
    for (auto& p : result.started) ++seen[p.job];
    for (auto& w : result.waiting) ++seen[w.job];
    BOOST_REQUIRE_MESSAGE(seen.size() == queue.size(), where << ": jobs lost or invented");
    for (auto& [id, count] : seen)
      BOOST_REQUIRE_MESSAGE(count == 1, where << ": job " << id << " decided " << count << "x");

    // Placements: exact count, ascending, no overlap, only free members, never excluded.
    std::map<uint64_t, const pending_job*> by_id;
    for (auto& j : queue) by_id[j.id] = &j;
    std::vector<bool> used(n, false);
    size_t used_count = 0;
    for (auto& p : result.started) {
      auto& j = *by_id.at(p.job);
      auto what = where + " job " + std::to_string(p.job) + " on " + show(p.nodes);
      BOOST_REQUIRE_MESSAGE(p.nodes.size() == j.nodes, what << ": wanted " << j.nodes);
      BOOST_REQUIRE_MESSAGE(std::is_sorted(p.nodes.begin(), p.nodes.end()), what);
      BOOST_REQUIRE_MESSAGE(parts[j.partition].up, what << ": partition is down");
      for (auto node : p.nodes) {
        BOOST_REQUIRE_MESSAGE(node < n, what);
        BOOST_REQUIRE_MESSAGE(!used[node], what << ": node " << node << " used twice");
        BOOST_REQUIRE_MESSAGE(free_before[node], what << ": node " << node << " was busy");
        auto& members = parts[j.partition].nodes;
        BOOST_REQUIRE_MESSAGE(std::count(members.begin(), members.end(), node) == 1,
                              what << ": node " << node << " is not in the partition");
        BOOST_REQUIRE_MESSAGE(std::count(j.excluded.begin(), j.excluded.end(), node) == 0,
                              what << ": node " << node << " is excluded");
        used[node] = true;
        ++used_count;
      }
      for (auto req : j.required)
        BOOST_REQUIRE_MESSAGE(std::count(p.nodes.begin(), p.nodes.end(), req) == 1,
                              what << ": required node " << req << " missing");
    }

    // free_nodes: the placements cleared, nothing else touched; free + used == free before.
    size_t free_after = 0;
    for (size_t i = 0; i < n; ++i) {
      BOOST_REQUIRE_MESSAGE(free_nodes[i] == (free_before[i] && !used[i]),
                            where << ": free_nodes[" << i << "] wrong");
      free_after += free_nodes[i] ? 1 : 0;
    }
    BOOST_REQUIRE_MESSAGE(
        free_after + used_count == size_t(std::count(free_before.begin(), free_before.end(), true)),
        where);

    // Replay in priority/submit order against a naive model of the rules: every reason is the
    // right one, and with the linear policy and no weights each placement is the first nodes.
    auto order = queue;
    std::sort(order.begin(), order.end(), [](const pending_job& a, const pending_job& b) {
      return a.priority != b.priority ? a.priority > b.priority : a.id < b.id;
    });
    auto sim = free_before;
    std::vector<bool> blocked(parts.size(), false);
    size_t next_started = 0, next_waiting = 0;
    for (auto& j : order) {
      auto what = where + " job " + std::to_string(j.id);
      auto& part = parts[j.partition];
      std::string expect;
      indices eligible;
      if (!part.up) {
        expect = "PartitionDown";
      } else if (blocked[j.partition]) {
        expect = "Priority";
      } else if (std::any_of(j.required.begin(), j.required.end(),
                             [&](size_t r) { return !sim[r]; })) {
        expect = "ReqNodeNotAvail";
      } else if (j.required.size() > j.nodes) {
        expect = "BadConstraints";
      } else {
        for (auto m : part.nodes)
          if (sim[m] && std::count(j.excluded.begin(), j.excluded.end(), m) == 0 &&
              std::count(j.required.begin(), j.required.end(), m) == 0)
            eligible.push_back(m);
        if (eligible.size() < j.nodes - j.required.size()) {
          expect = "Resources";
          blocked[j.partition] = true;
        }
      }
      if (!expect.empty()) {
        BOOST_REQUIRE_MESSAGE(
            next_waiting < result.waiting.size() && result.waiting[next_waiting].job == j.id,
            what << ": expected waiting (" << expect << ") at this place");
        BOOST_REQUIRE_MESSAGE(
            result.waiting[next_waiting].reason == expect,
            what << ": reason " << result.waiting[next_waiting].reason << ", expected " << expect);
        ++next_waiting;
        continue;
      }
      BOOST_REQUIRE_MESSAGE(
          next_started < result.started.size() && result.started[next_started].job == j.id,
          what << ": expected to start at this place");
      auto& nodes = result.started[next_started++].nodes;
      if (policy == selection_policy::linear && weights.empty()) {
        indices expected = j.required;
        expected.insert(expected.end(), eligible.begin(),
                        eligible.begin() + (j.nodes - j.required.size()));
        std::sort(expected.begin(), expected.end());
        BOOST_REQUIRE_MESSAGE(nodes == expected,
                              what << ": got " << show(nodes) << ", expected " << show(expected));
      }
      for (auto node : nodes) sim[node] = false;
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

// -- task distribution --------------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(task_distribution)

using ranks = std::vector<std::vector<uint32_t>>;

BOOST_AUTO_TEST_CASE(even_tasks_split_in_blocks) {
  BOOST_CHECK(distribute_tasks(4, 2) == (ranks{{0, 1}, {2, 3}}));
}

BOOST_AUTO_TEST_CASE(the_first_nodes_take_the_remainder) {
  BOOST_CHECK(distribute_tasks(5, 2) == (ranks{{0, 1, 2}, {3, 4}}));
  BOOST_CHECK(distribute_tasks(7, 3) == (ranks{{0, 1, 2}, {3, 4}, {5, 6}}));
}

BOOST_AUTO_TEST_CASE(nodes_beyond_the_task_count_get_none) {
  BOOST_CHECK(distribute_tasks(1, 3) == (ranks{{0}, {}, {}}));
  BOOST_CHECK(distribute_tasks(0, 2) == (ranks{{}, {}}));
}

BOOST_AUTO_TEST_CASE(no_nodes_gives_no_lists) {
  BOOST_CHECK(distribute_tasks(3, 0).empty());
}

BOOST_AUTO_TEST_CASE(every_rank_appears_once_in_order) {
  for (uint32_t nodes = 1; nodes <= 9; ++nodes) {
    for (uint32_t ntasks = 0; ntasks <= 40; ++ntasks) {
      auto lists = distribute_tasks(ntasks, nodes);
      BOOST_REQUIRE(lists.size() == nodes);
      uint32_t next = 0;
      size_t largest = 0, smallest = ntasks + 1;
      for (auto& l : lists) {
        for (auto r : l) BOOST_REQUIRE_MESSAGE(r == next++, ntasks << " on " << nodes);
        largest = std::max(largest, l.size());
        smallest = std::min(smallest, l.size());
      }
      BOOST_REQUIRE(next == ntasks);
      BOOST_REQUIRE_MESSAGE(largest - smallest <= 1, ntasks << " on " << nodes);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
