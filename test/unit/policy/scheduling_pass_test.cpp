#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "policy/scheduling_pass.hpp"

using namespace shoal::policy;

namespace {

std::vector<node_capacity> uniform_nodes(size_t n, uint32_t cpus = 4, uint64_t mem = 4000) {
  return std::vector<node_capacity>(n, node_capacity{cpus, mem, true});
}

partition_info all_nodes(size_t n) {
  partition_info p;
  for (size_t i = 0; i < n; ++i) p.nodes.push_back(i);
  return p;
}

pending_job job(uint64_t id, int64_t prio, uint32_t nodes, int64_t limit = 100) {
  pending_job j;
  j.id = id;
  j.priority = prio;
  j.request.min_nodes = nodes;
  j.request.tasks = nodes;
  j.time_limit = limit;
  return j;
}

running_job holding(uint64_t id, std::vector<size_t> on, int64_t end,
                    const std::vector<node_capacity>& nodes) {
  running_job r;
  r.id = id;
  r.end = end;
  for (auto n : on) r.alloc.push_back({n, nodes[n].cpus, nodes[n].memory_mb, 1});
  return r;
}

std::string reason_of(const pass_result& r, uint64_t id) {
  for (const auto& w : r.waiting)
    if (w.job == id) return w.reason;
  return "";
}

bool started(const pass_result& r, uint64_t id) {
  return std::any_of(r.started.begin(), r.started.end(),
                     [&](const start_decision& d) { return d.job == id; });
}

pass_config easy() {
  pass_config c;
  c.resolution = 1;
  return c;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(scheduling_pass)

BOOST_AUTO_TEST_CASE(reasons_use_slurm_names) {
  auto nodes = uniform_nodes(4);
  nodes[3].usable = false;
  std::vector<partition_info> parts{all_nodes(4), all_nodes(4)};
  parts[0].max_time = 50;
  parts[1].up = false;
  std::vector<running_job> running{holding(100, {0, 1}, 1000, nodes)};
  auto big = job(1, 10, 2);
  big.time_limit = 40;
  auto too_long = job(2, 9, 1, 60);
  auto down = job(3, 8, 1);
  down.partition = 1;
  auto on_down_node = job(4, 7, 1, 10);
  on_down_node.request.required = {3};
  auto behind = job(5, 6, 2, 10);
  for (bool backfill : {false, true}) {
    auto config = easy();
    config.backfill = backfill;
    std::vector<pending_job> queue{big, too_long, down, on_down_node, behind};
    auto r = schedule(queue, running, parts, nodes, 0, config);
    for (auto& w : r.waiting) BOOST_TEST(queue.at(w.position).id == w.job);
    BOOST_TEST(r.started.empty());
    BOOST_TEST(reason_of(r, 1) == "Resources");
    BOOST_TEST(reason_of(r, 2) == "PartitionTimeLimit");
    BOOST_TEST(reason_of(r, 3) == "PartitionDown");
    BOOST_TEST(reason_of(r, 4) == "ReqNodeNotAvail");
    BOOST_TEST(reason_of(r, 5) == "Priority");
  }
}

BOOST_AUTO_TEST_CASE(a_job_with_no_task_to_start_is_passed_over_as_if_absent) {
  // A kept candidate list offers its held and blocked jobs with task_count 0.
  auto nodes = uniform_nodes(2);
  std::vector<partition_info> parts{all_nodes(2)};
  auto top = job(1, 10, 2);
  top.task_count = 0;
  auto blocked_big = job(2, 9, 3);
  blocked_big.task_count = 0;
  auto next = job(3, 5, 1);
  for (bool backfill : {false, true}) {
    auto config = easy();
    config.backfill = backfill;
    config.max_job_test = 1;
    auto with = schedule({top, blocked_big, next}, {}, parts, nodes, 0, config);
    auto without = schedule({next}, {}, parts, nodes, 0, config);
    BOOST_TEST(with.started.size() == without.started.size());
    BOOST_TEST(started(with, 3));
    BOOST_TEST(!started(with, 1));
    BOOST_TEST(with.waiting.size() == without.waiting.size());
    BOOST_TEST(with.planned.size() == without.planned.size());
    BOOST_TEST(with.tested == without.tested);
  }
}

BOOST_AUTO_TEST_CASE(easy_backfill_starts_a_short_job_but_not_one_that_would_delay_the_top) {
  auto nodes = uniform_nodes(4);
  std::vector<partition_info> parts{all_nodes(4)};
  std::vector<running_job> running{holding(100, {0, 1, 2}, 100, nodes)};
  // Top job wants all 4 nodes: reserved at t=100. Node 3 is free until then.
  auto top = job(1, 10, 4, 50);
  auto short_one = job(2, 5, 1, 100);  // ends at 100: fits before the reservation
  auto long_one = job(3, 4, 1, 101);   // would end after 100 on a reserved node
  auto r = schedule({top, long_one, short_one}, running, parts, nodes, 0, easy());
  BOOST_TEST(started(r, 2));
  BOOST_TEST(!started(r, 3));
  BOOST_TEST(reason_of(r, 1) == "Resources");
  BOOST_TEST(reason_of(r, 3) == "Priority");
  BOOST_REQUIRE(r.planned.size() == 1u);
  BOOST_TEST(r.planned[0].job == 1u);
  BOOST_TEST(r.planned[0].start == 100);
  // Without backfill the short job waits behind the top one.
  auto strict = easy();
  strict.backfill = false;
  auto s = schedule({top, long_one, short_one}, running, parts, nodes, 0, strict);
  BOOST_TEST(s.started.empty());
  BOOST_TEST(s.planned.empty());
}

BOOST_AUTO_TEST_CASE(conservative_reserves_for_every_blocked_job) {
  auto nodes = uniform_nodes(4);
  std::vector<partition_info> parts{all_nodes(4)};
  std::vector<running_job> running{holding(100, {0, 1, 2, 3}, 100, nodes)};
  auto config = easy();
  config.mode = backfill_mode::conservative;
  auto r = schedule({job(1, 10, 4, 50), job(2, 9, 2, 30), job(3, 8, 2, 30)}, running, parts, nodes,
                    0, config);
  BOOST_REQUIRE(r.planned.size() == 3u);
  BOOST_TEST(r.planned[0].start == 100);
  BOOST_TEST(r.planned[1].start == 150);
  BOOST_TEST(r.planned[2].start == 150);
  auto e = schedule({job(1, 10, 4, 50), job(2, 9, 2, 30), job(3, 8, 2, 30)}, running, parts, nodes,
                    0, easy());
  BOOST_TEST(e.planned.size() == 1u);
}

BOOST_AUTO_TEST_CASE(cons_tres_shares_nodes_by_cpus_and_memory) {
  auto nodes = uniform_nodes(2, 8, 8000);
  std::vector<partition_info> parts{all_nodes(2)};
  auto config = easy();
  config.placement.select = select_type::cons_tres;
  auto a = job(1, 10, 1);
  a.request.tasks = 3;
  a.request.mem_per_cpu_mb = 1000;
  auto b = job(2, 9, 1);
  b.request.tasks = 5;
  b.request.mem_per_node_mb = 2000;
  auto c = job(3, 8, 1);
  c.request.tasks = 4;
  c.request.cpus_per_task = 2;  // a whole node's CPUs: node 1
  auto d = job(4, 7, 1);
  d.request.tasks = 1;  // nothing left
  auto r = schedule({a, b, c, d}, {}, parts, nodes, 0, config);
  BOOST_REQUIRE(r.started.size() == 3u);
  BOOST_TEST(r.started[0].alloc[0].node == 0u);
  BOOST_TEST(r.started[0].alloc[0].cpus == 3u);
  BOOST_TEST(r.started[0].alloc[0].memory_mb == 3000u);
  BOOST_TEST(r.started[1].alloc[0].node == 0u);  // shares node 0: MIXED, then full
  BOOST_TEST(r.started[1].alloc[0].cpus == 5u);
  BOOST_TEST(r.started[1].alloc[0].memory_mb == 2000u);
  BOOST_TEST(r.started[2].alloc[0].node == 1u);
  BOOST_TEST(r.started[2].alloc[0].cpus == 8u);
  BOOST_TEST(reason_of(r, 4) == "Resources");
}

BOOST_AUTO_TEST_CASE(a_node_partly_held_is_mixed) {
  node_capacity cap{8, 8000, true};
  BOOST_TEST((usage_of(cap, 0, 0) == node_use::idle));
  BOOST_TEST((usage_of(cap, 3, 3000) == node_use::mixed));
  BOOST_TEST((usage_of(cap, 0, 100) == node_use::mixed));
  BOOST_TEST((usage_of(cap, 8, 8000) == node_use::allocated));
}

BOOST_AUTO_TEST_CASE(exclusive_and_memory_keep_jobs_apart) {
  auto nodes = uniform_nodes(2, 8, 8000);
  std::vector<partition_info> parts{all_nodes(2)};
  auto config = easy();
  config.placement.select = select_type::cons_tres;
  auto small = job(1, 10, 1);
  auto whole = job(2, 9, 2);
  whole.request.exclusive = true;
  auto hungry = job(3, 8, 1);
  hungry.request.mem_per_node_mb = 7500;  // node 0 has 8000 free, node 1 too
  auto r = schedule({small, whole, hungry}, {}, parts, nodes, 0, config);
  BOOST_TEST(started(r, 1));
  BOOST_TEST(!started(r, 2));
  BOOST_TEST(started(r, 3));
  // OverSubscribe=EXCLUSIVE gives every job whole nodes.
  parts[0].exclusive = true;
  auto x = schedule({job(1, 10, 1), job(2, 9, 1), job(3, 8, 1)}, {}, parts, nodes, 0, config);
  BOOST_TEST(x.started.size() == 2u);
  BOOST_TEST(x.started[0].alloc[0].cpus == 8u);
}

BOOST_AUTO_TEST_CASE(oversubscribe_follows_slurms_table) {
  partition_info no, yes, force, excl;
  yes.oversubscribe = 3;
  force.oversubscribe = 2;
  force.force = true;
  excl.exclusive = true;
  BOOST_TEST(shared_by(no, share_request::oversubscribe) == 1u);
  BOOST_TEST(shared_by(yes, share_request::as_partition) == 1u);
  BOOST_TEST(shared_by(yes, share_request::oversubscribe) == 3u);
  BOOST_TEST(shared_by(yes, share_request::exclusive) == 1u);
  BOOST_TEST(shared_by(force, share_request::as_partition) == 2u);
  BOOST_TEST(shared_by(force, share_request::exclusive) == 1u);
  BOOST_TEST(shared_by(excl, share_request::oversubscribe) == 1u);
}

BOOST_AUTO_TEST_CASE(force_shares_whole_nodes_up_to_its_count) {
  // select/linear, OverSubscribe=FORCE:2 on one node: two jobs hold it at once, a third waits,
  // and an --exclusive job waits for the node to be idle.
  auto nodes = uniform_nodes(1, 4, 4000);
  std::vector<partition_info> parts{all_nodes(1)};
  parts[0].oversubscribe = 2;
  parts[0].force = true;
  auto first = schedule({job(1, 10, 1), job(2, 9, 1), job(3, 8, 1)}, {}, parts, nodes, 0, easy());
  BOOST_REQUIRE(first.started.size() == 2u);
  for (const auto& d : first.started) {
    BOOST_TEST(d.alloc[0].node == 0u);
    BOOST_TEST(d.alloc[0].shared_by == 2u);
    BOOST_TEST(d.alloc[0].cpus == 4u);
    BOOST_TEST(d.alloc[0].memory_mb == 2000u);
  }
  BOOST_TEST(reason_of(first, 3) == "Resources");
  std::vector<running_job> one{{1, first.started[0].alloc, 100, {}}};
  auto alone = job(4, 20, 1);
  alone.request.sharing = share_request::exclusive;
  auto second =
      schedule({alone, job(5, 9, 1, 150), job(6, 8, 1, 100)}, one, parts, nodes, 0, easy());
  BOOST_TEST(!started(second, 4));
  BOOST_TEST(!started(second, 5));  // would delay the exclusive job's reservation at 100
  BOOST_TEST(started(second, 6));   // shares the node until then
  BOOST_REQUIRE(second.planned.size() == 1u);
  BOOST_TEST(second.planned[0].start == 100);
}

BOOST_AUTO_TEST_CASE(yes_shares_cpus_only_among_jobs_that_ask) {
  // cons_tres, OverSubscribe=YES:2, two 4-CPU nodes.
  auto nodes = uniform_nodes(2, 4, 8000);
  std::vector<partition_info> parts{all_nodes(2)};
  parts[0].oversubscribe = 2;
  auto config = easy();
  config.placement.select = select_type::cons_tres;
  auto sharing = [](uint64_t id, uint32_t tasks) {
    auto j = job(id, 10 - int64_t(id), 1);
    j.request.tasks = tasks;
    j.request.max_nodes = 1;
    j.request.sharing = share_request::oversubscribe;
    return j;
  };
  auto plain = job(9, 1, 1);
  plain.request.tasks = 2;
  // Three sharing 3-CPU jobs: two fit on node 0 (6 of 8 shares), the third on node 1; then
  // the plain job finds no node without sharing jobs.
  auto r =
      schedule({sharing(1, 3), sharing(2, 3), sharing(3, 3), plain}, {}, parts, nodes, 0, config);
  BOOST_REQUIRE(r.started.size() == 3u);
  BOOST_TEST(r.started[0].alloc[0].node == 0u);
  BOOST_TEST(r.started[1].alloc[0].node == 0u);
  BOOST_TEST(r.started[2].alloc[0].node == 1u);
  for (const auto& d : r.started) {
    BOOST_TEST(d.alloc[0].shared_by == 2u);
    BOOST_TEST(d.alloc[0].cpus == 3u);
  }
  BOOST_TEST(reason_of(r, 9) == "Resources");
  // A sharing job never holds one CPU twice: 5 tasks on a 4-CPU node need two nodes.
  auto wide = sharing(1, 5);
  wide.request.max_nodes = 1;
  auto w = schedule({wide}, {}, parts, nodes, 0, config);
  BOOST_TEST(!started(w, 1));
  // A plain job first keeps its node to plain jobs: the sharing job goes to the other node.
  plain.priority = 50;
  auto p = schedule({plain, sharing(1, 1)}, {}, parts, nodes, 0, config);
  BOOST_REQUIRE(p.started.size() == 2u);
  BOOST_TEST(p.started[0].alloc[0].shared_by == 1u);
  BOOST_TEST(p.started[1].alloc[0].node != p.started[0].alloc[0].node);
}

BOOST_AUTO_TEST_CASE(an_array_starts_as_many_tasks_as_fit) {
  auto nodes = uniform_nodes(3);
  std::vector<partition_info> parts{all_nodes(3)};
  auto arr = job(7, 10, 1);
  arr.task_count = 5;
  auto r = schedule({arr}, {}, parts, nodes, 0, easy());
  BOOST_TEST(r.started.size() == 3u);
  BOOST_TEST(r.started[2].copy == 2u);
  BOOST_TEST(reason_of(r, 7) == "Resources");
}

BOOST_AUTO_TEST_CASE(the_node_picker_hook_replaces_select_nodes_for_whole_nodes) {
  auto nodes = uniform_nodes(4);
  std::vector<partition_info> parts{all_nodes(4)};
  auto config = easy();
  int calls = 0;
  config.placement.picker =
      [&](const resource_request&, const std::vector<size_t>&, const std::vector<bool>& avail,
          size_t count, const std::vector<uint32_t>&) -> std::optional<std::vector<size_t>> {
    ++calls;
    std::vector<size_t> out;
    for (size_t i = avail.size(); i-- > 0 && out.size() < count;)
      if (avail[i]) out.push_back(i);
    if (out.size() < count) return std::nullopt;
    std::sort(out.begin(), out.end());
    return out;
  };
  auto r = schedule({job(1, 1, 2)}, {}, parts, nodes, 0, config);
  BOOST_REQUIRE(r.started.size() == 1u);
  BOOST_TEST(r.started[0].alloc[0].node == 2u);
  BOOST_TEST(r.started[0].alloc[1].node == 3u);
  BOOST_TEST(calls == 1);
}

BOOST_AUTO_TEST_CASE(the_test_budget_bounds_the_work_per_pass) {
  auto nodes = uniform_nodes(4);
  std::vector<partition_info> parts{all_nodes(4)};
  auto config = easy();
  config.max_job_test = 2;
  std::vector<pending_job> q;
  // Priorities rise with the id: the queue's order is not the pass's.
  for (uint64_t i = 1; i <= 10; ++i) q.push_back(job(i, int64_t(i), 1));
  auto r = schedule(q, {}, parts, nodes, 0, config);
  BOOST_TEST(r.tested == 2u);
  BOOST_TEST(r.started.size() == 2u);
  BOOST_TEST(r.waiting.size() == 8u);
  for (auto& w : r.waiting) BOOST_TEST(q.at(w.position).id == w.job);
}

BOOST_AUTO_TEST_SUITE_END()
