#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <set>
#include <vector>

#include "policy/lending.hpp"
#include "policy/scheduling_pass.hpp"

using namespace shoal::policy;

namespace {

constexpr size_t scavenger = 0;  // tier 1, PreemptMode=CANCEL
constexpr size_t urgent = 1;     // tier 2, the same nodes

std::vector<node_capacity> preempt_nodes(size_t n) {
  return std::vector<node_capacity>(n, node_capacity{4, 4000, true});
}

std::vector<partition_info> preempt_partitions(size_t n) {
  std::vector<partition_info> parts(2);
  for (size_t i = 0; i < n; ++i) {
    parts[scavenger].nodes.push_back(i);
    parts[urgent].nodes.push_back(i);
  }
  parts[scavenger].priority_tier = 1;
  parts[scavenger].preempt = preempt_mode::cancel;
  parts[scavenger].grace_time = 30;
  parts[urgent].priority_tier = 2;
  return parts;
}

/// A scavenger job of `priority` started at `start`, holding `cpus` CPUs of each node `on`.
running_job scavenging(uint64_t id, int64_t priority, std::vector<size_t> on, int64_t start = 0,
                       uint32_t cpus = 4) {
  running_job r;
  r.id = id;
  r.end = 100'000;
  r.partition = scavenger;
  r.priority = priority;
  r.start = start;
  for (auto n : on) r.alloc.push_back({n, cpus, 1000u * cpus, 1});
  return r;
}

pending_job urgent_job(uint64_t id, uint32_t nodes) {
  pending_job j;
  j.id = id;
  j.priority = 1;
  j.partition = urgent;
  j.request.min_nodes = nodes;
  j.request.tasks = nodes;
  j.time_limit = 100;
  return j;
}

pass_config preempting() {
  pass_config c;
  c.resolution = 1;
  c.preempt = true;
  return c;
}

std::set<uint64_t> victims(const pass_result& r, uint64_t for_job) {
  std::set<uint64_t> out;
  for (const auto& p : r.preempted)
    if (p.for_job == for_job) out.insert(p.job);
  return out;
}

std::string reason_for(const pass_result& r, uint64_t id) {
  for (const auto& w : r.waiting)
    if (w.job == id) return w.reason;
  return "";
}

const int64_t now = 1000;

}  // namespace

BOOST_AUTO_TEST_SUITE(preemption)

BOOST_AUTO_TEST_CASE(the_lowest_priority_job_of_a_lower_tier_is_preempted) {
  auto nodes = preempt_nodes(2);
  std::vector<running_job> running{scavenging(10, 50, {0}), scavenging(11, 5, {1})};
  auto r = schedule({urgent_job(1, 1)}, running, preempt_partitions(2), nodes, now, preempting());
  BOOST_TEST(victims(r, 1) == std::set<uint64_t>{11});
  BOOST_REQUIRE_EQUAL(r.preempted.size(), 1u);
  BOOST_CHECK(r.preempted[0].mode == preempt_mode::cancel);
  BOOST_TEST(r.preempted[0].grace_time == 30);
  // The waiter stays pending until the preempted job let go of its node.
  BOOST_TEST(r.started.empty());
  BOOST_TEST(reason_for(r, 1) == "Resources");
}

BOOST_AUTO_TEST_CASE(as_many_jobs_as_the_waiter_needs_and_no_more) {
  auto nodes = preempt_nodes(3);
  std::vector<running_job> running{scavenging(10, 3, {0}), scavenging(11, 1, {1}),
                                   scavenging(12, 2, {2})};
  auto r = schedule({urgent_job(1, 2)}, running, preempt_partitions(3), nodes, now, preempting());
  BOOST_TEST(victims(r, 1) == (std::set<uint64_t>{11, 12}));
}

BOOST_AUTO_TEST_CASE(a_job_the_waiter_can_do_without_is_left_running) {
  auto nodes = preempt_nodes(2);
  // The waiter needs node 1: the lower-priority job on node 0 would free nothing it can use.
  std::vector<running_job> running{scavenging(10, 1, {0}), scavenging(11, 9, {1})};
  auto waiter = urgent_job(1, 1);
  waiter.request.required = {1};
  auto r = schedule({waiter}, running, preempt_partitions(2), nodes, now, preempting());
  BOOST_TEST(victims(r, 1) == std::set<uint64_t>{11});
}

BOOST_AUTO_TEST_CASE(one_job_that_frees_a_node_beats_two_of_lower_priority) {
  auto nodes = preempt_nodes(2);
  auto config = preempting();
  config.placement.select = select_type::cons_tres;
  // Node 0 holds two small jobs of the least priority, node 1 one job that fills it.
  std::vector<running_job> running{scavenging(10, 1, {0}, 0, 2), scavenging(11, 2, {0}, 0, 2),
                                   scavenging(12, 3, {1})};
  auto waiter = urgent_job(1, 1);
  waiter.request.tasks = 4;
  waiter.request.max_nodes = 1;
  auto r = schedule({waiter}, running, preempt_partitions(2), nodes, now, config);
  BOOST_TEST(victims(r, 1) == std::set<uint64_t>{12});
}

BOOST_AUTO_TEST_CASE(nothing_is_preempted_when_even_all_would_not_do) {
  auto nodes = preempt_nodes(2);
  std::vector<running_job> running{scavenging(10, 1, {0}), scavenging(11, 2, {1})};
  auto r = schedule({urgent_job(1, 3)}, running, preempt_partitions(2), nodes, now, preempting());
  BOOST_TEST(r.preempted.empty());
}

BOOST_AUTO_TEST_CASE(only_lower_tiers_with_a_preempt_mode_are_preempted) {
  auto nodes = preempt_nodes(2);
  std::vector<running_job> running{scavenging(10, 1, {0}), scavenging(11, 2, {1})};
  auto parts = preempt_partitions(2);
  // The same tier: never.
  auto equal = parts;
  equal[scavenger].priority_tier = 2;
  BOOST_TEST(
      schedule({urgent_job(1, 1)}, running, equal, nodes, now, preempting()).preempted.empty());
  // PreemptMode=OFF: never.
  auto off = parts;
  off[scavenger].preempt = preempt_mode::off;
  BOOST_TEST(
      schedule({urgent_job(1, 1)}, running, off, nodes, now, preempting()).preempted.empty());
  // PreemptType=preempt/none: never.
  auto none = preempting();
  none.preempt = false;
  BOOST_TEST(schedule({urgent_job(1, 1)}, running, parts, nodes, now, none).preempted.empty());
}

BOOST_AUTO_TEST_CASE(a_job_younger_than_the_exempt_time_keeps_running) {
  auto nodes = preempt_nodes(2);
  auto config = preempting();
  config.preempt_exempt = 60;
  // The young one has the lower priority, yet the old one goes.
  std::vector<running_job> running{scavenging(10, 1, {0}, now - 10),
                                   scavenging(11, 5, {1}, now - 600)};
  auto r = schedule({urgent_job(1, 1)}, running, preempt_partitions(2), nodes, now, config);
  BOOST_TEST(victims(r, 1) == std::set<uint64_t>{11});
  running.pop_back();
  BOOST_TEST(schedule({urgent_job(1, 1)}, running, preempt_partitions(2), nodes, now, config)
                 .preempted.empty());
}

BOOST_AUTO_TEST_CASE(a_waiter_already_served_waits_without_preempting_again) {
  auto nodes = preempt_nodes(2);
  std::vector<running_job> running{scavenging(10, 1, {0}), scavenging(11, 2, {1})};
  running[0].preempted_for = 1;  // still ending (its grace time)
  auto r = schedule({urgent_job(1, 1)}, running, preempt_partitions(2), nodes, now, preempting());
  BOOST_TEST(r.preempted.empty());
  BOOST_TEST(reason_for(r, 1) == "Resources");
  // Needing one more node, it takes only the one more.
  r = schedule({urgent_job(1, 2)}, running, preempt_partitions(2), nodes, now, preempting());
  BOOST_TEST(victims(r, 1) == std::set<uint64_t>{11});
}

BOOST_AUTO_TEST_CASE(jobs_preempted_for_one_waiter_are_not_taken_for_another) {
  auto nodes = preempt_nodes(2);
  std::vector<running_job> running{scavenging(10, 1, {0}), scavenging(11, 2, {1})};
  running[0].preempted_for = 7;
  auto seven = urgent_job(7, 1);  // still waiting for it
  seven.priority = 0;
  auto r =
      schedule({urgent_job(1, 1), seven}, running, preempt_partitions(2), nodes, now, preempting());
  BOOST_TEST(victims(r, 1) == std::set<uint64_t>{11});
  BOOST_TEST(victims(r, 7).empty());
  // In one pass: two waiters get different jobs.
  running[0].preempted_for = 0;
  r = schedule({urgent_job(1, 1), urgent_job(2, 1)}, running, preempt_partitions(2), nodes, now,
               preempting());
  BOOST_TEST(victims(r, 1) == std::set<uint64_t>{10});
  BOOST_TEST(victims(r, 2) == std::set<uint64_t>{11});
}

BOOST_AUTO_TEST_CASE(a_job_preempted_for_a_waiter_that_left_the_queue_may_be_taken_again) {
  auto nodes = preempt_nodes(1);
  std::vector<running_job> running{scavenging(10, 1, {0})};
  running[0].preempted_for = 7;  // job 7 was cancelled before the job was told
  auto r = schedule({urgent_job(1, 1)}, running, preempt_partitions(1), nodes, now, preempting());
  BOOST_TEST(victims(r, 1) == std::set<uint64_t>{10});
  // While job 7 still waits, it is its own.
  auto seven = urgent_job(7, 1);
  seven.priority = 0;
  r = schedule({urgent_job(1, 1), seven}, running, preempt_partitions(1), nodes, now, preempting());
  BOOST_TEST(victims(r, 1).empty());
}

BOOST_AUTO_TEST_CASE(preempt_modes_parse_as_slurm_spells_them) {
  BOOST_CHECK(parse_preempt_mode("requeue") == preempt_mode::requeue);
  BOOST_CHECK(parse_preempt_mode("CANCEL") == preempt_mode::cancel);
  BOOST_CHECK(parse_preempt_mode("Off") == preempt_mode::off);
  BOOST_CHECK(!parse_preempt_mode("kill"));
  BOOST_TEST(to_string(preempt_mode::suspend) == std::string{"SUSPEND"});
}

// -- PreemptMode=SUSPEND ------------------------------------------------------------------------

namespace {

std::vector<partition_info> suspending_partitions(size_t n) {
  auto parts = preempt_partitions(n);
  parts[scavenger].preempt = preempt_mode::suspend;
  return parts;
}

/// `r` as the topology actor keeps it once its job is suspended at `at` (4,000 MB nodes).
running_job suspended(running_job r, int64_t at = now) {
  lend(r, at, [](size_t) { return uint64_t{4000}; });
  return r;
}

running_job urgent_running(uint64_t id, std::vector<size_t> on, int64_t end) {
  running_job r;
  r.id = id;
  r.end = end;
  r.partition = urgent;
  r.priority = 1;
  r.start = now;
  for (auto n : on) r.alloc.push_back({n, 4, 4000, 1});
  return r;
}

bool has(const std::vector<uint64_t>& ids, uint64_t id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

}  // namespace

BOOST_AUTO_TEST_CASE(under_suspend_the_waiter_starts_once_the_victim_lends_its_cpus) {
  auto nodes = preempt_nodes(2);
  auto parts = suspending_partitions(2);
  std::vector<running_job> running{scavenging(10, 50, {0}), scavenging(11, 5, {1})};
  auto r = schedule({urgent_job(1, 1)}, running, parts, nodes, now, preempting());
  BOOST_TEST(victims(r, 1) == std::set<uint64_t>{11});
  BOOST_REQUIRE_EQUAL(r.preempted.size(), 1u);
  BOOST_CHECK(r.preempted[0].mode == preempt_mode::suspend);
  BOOST_TEST(r.started.empty());  // until the job is stopped and lends them
  running[1].preempted_for = 1;
  running[1] = suspended(running[1]);
  r = schedule({urgent_job(1, 1)}, running, parts, nodes, now + 1, preempting());
  BOOST_REQUIRE_EQUAL(r.started.size(), 1u);
  BOOST_TEST(r.started[0].job == 1u);
  BOOST_TEST(r.started[0].alloc.front().node == 1u);
  BOOST_TEST(r.preempted.empty());
  BOOST_TEST(r.resumed.empty());  // its CPUs are the waiter's now
}

BOOST_AUTO_TEST_CASE(a_suspended_job_resumes_before_lower_jobs_once_its_cpus_are_free) {
  auto nodes = preempt_nodes(2);
  auto parts = suspending_partitions(2);
  auto stopped = suspended(scavenging(11, 5, {1}, 0));
  // The preemptor still runs there: the suspended job waits, and a scavenger job of a higher
  // priority that could run after the preemptor does not take its place.
  auto later = urgent_job(3, 1);
  later.partition = scavenger;
  later.priority = 100;
  std::vector<running_job> running{scavenging(10, 50, {0}), stopped,
                                   urgent_running(1, {1}, now + 50)};
  auto r = schedule({later}, running, parts, nodes, now, preempting());
  BOOST_TEST(r.resumed.empty());
  BOOST_TEST(r.started.empty());
  // Not on node 1 when the preemptor ends: that is the suspended job's; node 0 at its job's end.
  BOOST_REQUIRE(!r.planned.empty());
  for (const auto& plan : r.planned) BOOST_TEST(plan.start >= 100'000);
  // The preemptor ended: the suspended job is resumed, and the scavenger job keeps waiting.
  running.pop_back();
  r = schedule({later}, running, parts, nodes, now + 60, preempting());
  BOOST_TEST(r.resumed == std::vector<uint64_t>{11});
  BOOST_TEST(r.started.empty());
  BOOST_TEST(reason_for(r, 3) == "Resources");
}

BOOST_AUTO_TEST_CASE(a_higher_tier_job_goes_before_a_suspended_one) {
  auto nodes = preempt_nodes(1);
  auto parts = suspending_partitions(1);
  std::vector<running_job> running{suspended(scavenging(11, 5, {0}))};
  auto r = schedule({urgent_job(2, 1)}, running, parts, nodes, now, preempting());
  BOOST_REQUIRE_EQUAL(r.started.size(), 1u);
  BOOST_TEST(r.resumed.empty());
  // Nor is a suspended job taken again: with the node busy, nobody is preempted.
  running.push_back(urgent_running(2, {0}, now + 100));
  r = schedule({urgent_job(4, 1)}, running, parts, nodes, now, preempting());
  BOOST_TEST(r.preempted.empty());
  BOOST_TEST(!has(r.resumed, 11));
}

BOOST_AUTO_TEST_CASE(a_suspended_job_keeps_the_memory_it_asked_for_and_its_devices) {
  running_job r;
  r.id = 5;
  r.end = now + 300;
  r.alloc.push_back({0, 2, 1500, 2});          // asked for 1,500 MB of a 4,000 MB node
  r.alloc.push_back({1, 4, 4000, 4, 1, {1}});  // a whole node, with a device
  lend(r, now + 100, [](size_t) { return uint64_t{4000}; });
  BOOST_REQUIRE_EQUAL(r.lent.size(), 2u);
  BOOST_TEST(r.end == forever);
  BOOST_TEST(r.remaining == 200);
  BOOST_TEST(r.alloc[0].cpus == 0u);
  BOOST_TEST(r.alloc[0].memory_mb == 1500u);  // kept
  BOOST_TEST(r.lent[0].cpus == 2u);
  BOOST_TEST(r.lent[0].memory_mb == 0u);
  BOOST_TEST(r.alloc[1].memory_mb == 0u);  // a whole node's memory is lent
  BOOST_TEST(r.lent[1].memory_mb == 4000u);
  BOOST_TEST(r.alloc[1].gres == std::vector<uint32_t>{1});  // devices are kept
  BOOST_TEST(r.lent[1].gres.empty());
  lend(r, now + 150, [](size_t) { return uint64_t{4000}; });  // lends once
  BOOST_TEST(r.remaining == 200);
  take_back(r, now + 1000);
  BOOST_TEST(r.lent.empty());
  BOOST_TEST(r.end == now + 1200);  // its time left runs from the resume
  BOOST_TEST(r.alloc[0].cpus == 2u);
  BOOST_TEST(r.alloc[0].memory_mb == 1500u);
  BOOST_TEST(r.alloc[1].memory_mb == 4000u);
  BOOST_TEST(r.alloc[1].cpus == 4u);
}

BOOST_AUTO_TEST_CASE(a_waiter_needing_memory_a_suspended_job_kept_does_not_fit_beside_it) {
  auto nodes = preempt_nodes(1);
  auto parts = suspending_partitions(1);
  auto small = scavenging(11, 5, {0}, 0, 2);
  small.alloc[0].memory_mb = 3000;  // asked for 3,000 MB
  std::vector<running_job> running{suspended(small)};
  auto waiter = urgent_job(2, 1);
  waiter.request.mem_per_node_mb = 2000;
  auto config = preempting();
  config.placement.select = select_type::cons_tres;
  auto r = schedule({waiter}, running, parts, nodes, now, config);
  BOOST_TEST(r.started.empty());
  waiter.request.mem_per_node_mb = 1000;
  r = schedule({waiter}, running, parts, nodes, now, config);
  BOOST_TEST(r.started.size() == 1u);
}

BOOST_AUTO_TEST_CASE(nothing_is_suspended_for_a_waiter_that_needs_the_devices_it_keeps) {
  std::vector<node_capacity> nodes{node_capacity{4, 4000, true, {1}}};  // one GPU
  auto parts = suspending_partitions(1);
  auto holder = scavenging(11, 5, {0});
  holder.alloc[0].gres = {1};
  auto waiter = urgent_job(2, 1);
  waiter.request.gres = {gres_need{{0}, 1}};
  auto r = schedule({waiter}, {holder}, parts, nodes, now, preempting());
  BOOST_TEST(r.preempted.empty());
  // Under CANCEL the GPU comes free with the job: it is preempted.
  parts[scavenger].preempt = preempt_mode::cancel;
  r = schedule({waiter}, {holder}, parts, nodes, now, preempting());
  BOOST_TEST(victims(r, 2) == std::set<uint64_t>{11});
}

// -- PreemptType=preempt/qos --------------------------------------------------------------------

namespace {

constexpr uint32_t low_qos = 1, normal_qos = 2, high_qos = 3;

/// high preempts low (its PreemptMode REQUEUE, GraceTime 20); nothing preempts normal.
pass_config by_qos() {
  auto c = preempting();
  c.preempt_by_qos = true;
  c.cluster_preempt = preempt_mode::cancel;
  auto rules = std::make_shared<std::vector<qos_preemption>>(3);
  (*rules)[low_qos - 1].mode = preempt_mode::requeue;
  (*rules)[low_qos - 1].grace_time = 20;
  (*rules)[high_qos - 1].preempts = {low_qos};
  (*rules)[high_qos - 1].priority = 100;
  c.qos = rules;
  return c;
}

running_job with_qos(running_job r, uint32_t qos) {
  r.qos = qos;
  return r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(under_preempt_qos_a_qos_preempts_the_qos_it_names_whatever_the_tiers) {
  auto nodes = preempt_nodes(2);
  auto parts = preempt_partitions(2);
  // Both run in the urgent partition (the higher tier), one under each QOS.
  auto normal_job = with_qos(scavenging(10, 1, {0}), normal_qos);
  normal_job.partition = urgent;
  auto low_job = with_qos(scavenging(11, 50, {1}), low_qos);
  low_job.partition = urgent;
  auto waiter = urgent_job(1, 1);
  waiter.partition = scavenger;  // a lower tier than theirs
  waiter.qos = high_qos;
  auto r = schedule({waiter}, {normal_job, low_job}, parts, nodes, now, by_qos());
  BOOST_TEST(victims(r, 1) == std::set<uint64_t>{11});
  BOOST_REQUIRE_EQUAL(r.preempted.size(), 1u);
  BOOST_CHECK(r.preempted[0].mode == preempt_mode::requeue);  // low's own PreemptMode
  BOOST_TEST(r.preempted[0].grace_time == 20);                // and GraceTime
  // A waiter of a QOS that names none preempts nothing, its tier notwithstanding.
  auto plain = urgent_job(2, 1);
  plain.qos = normal_qos;
  BOOST_TEST(
      schedule({plain}, {normal_job, low_job}, parts, nodes, now, by_qos()).preempted.empty());
  // Nor does a job with no QOS known.
  plain.qos = 0;
  BOOST_TEST(
      schedule({plain}, {normal_job, low_job}, parts, nodes, now, by_qos()).preempted.empty());
}

BOOST_AUTO_TEST_CASE(under_preempt_qos_the_cluster_mode_serves_a_qos_without_one) {
  auto nodes = preempt_nodes(1);
  auto config = by_qos();
  auto rules = std::make_shared<std::vector<qos_preemption>>(*config.qos);
  (*rules)[high_qos - 1].preempts = {low_qos, normal_qos};
  config.qos = rules;
  auto waiter = urgent_job(1, 1);
  waiter.qos = high_qos;
  auto r = schedule({waiter}, {with_qos(scavenging(10, 1, {0}), normal_qos)}, preempt_partitions(1),
                    nodes, now, config);
  BOOST_REQUIRE_EQUAL(r.preempted.size(), 1u);
  BOOST_CHECK(r.preempted[0].mode == preempt_mode::cancel);
  BOOST_TEST(r.preempted[0].grace_time == 0);
  // PreemptMode=OFF on the cluster: a QOS without its own mode is never preempted.
  config.cluster_preempt = preempt_mode::off;
  BOOST_TEST(schedule({waiter}, {with_qos(scavenging(10, 1, {0}), normal_qos)},
                      preempt_partitions(1), nodes, now, config)
                 .preempted.empty());
}

BOOST_AUTO_TEST_CASE(under_preempt_qos_a_preemptor_goes_before_the_jobs_of_the_qos_it_preempts) {
  auto nodes = preempt_nodes(1);
  auto config = by_qos();
  auto rules = std::make_shared<std::vector<qos_preemption>>(*config.qos);
  (*rules)[high_qos - 1].rank = 1;
  config.qos = rules;
  // The job it preempted, queued again with a higher priority and a lower id, would otherwise
  // take the node back.
  auto requeued = urgent_job(1, 1);
  requeued.qos = low_qos;
  requeued.priority = 100;
  auto preemptor = urgent_job(2, 1);
  preemptor.qos = high_qos;
  auto r = schedule({requeued, preemptor}, {}, preempt_partitions(1), nodes, now, config);
  BOOST_REQUIRE_EQUAL(r.started.size(), 1u);
  BOOST_TEST(r.started[0].job == 2u);
}

BOOST_AUTO_TEST_CASE(under_preempt_qos_a_suspended_job_waits_for_its_preemptor_of_the_same_tier) {
  auto nodes = preempt_nodes(1);
  auto config = by_qos();
  auto rules = std::make_shared<std::vector<qos_preemption>>(*config.qos);
  (*rules)[low_qos - 1].mode = preempt_mode::suspend;
  (*rules)[high_qos - 1].rank = 1;
  config.qos = rules;
  auto stopped = with_qos(scavenging(10, 50, {0}), low_qos);
  stopped.partition = urgent;  // the preemptor's partition, its tier
  stopped.preempted_for = 2;
  stopped = suspended(stopped);
  auto preemptor = urgent_job(2, 1);
  preemptor.qos = high_qos;
  auto r = schedule({preemptor}, {stopped}, preempt_partitions(1), nodes, now, config);
  BOOST_REQUIRE_EQUAL(r.started.size(), 1u);
  BOOST_TEST(r.started[0].job == 2u);
  BOOST_TEST(r.resumed.empty());
  // With nobody waiting for them, its CPUs are its own again.
  r = schedule({}, {stopped}, preempt_partitions(1), nodes, now, config);
  BOOST_TEST(r.resumed == std::vector<uint64_t>{10});
}

BOOST_AUTO_TEST_SUITE_END()
