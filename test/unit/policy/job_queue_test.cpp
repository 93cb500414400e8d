// The scheduler's pending queue as a pass sees it: what each job is, eligible or blocked and why.

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "policy/dependency.hpp"
#include "policy/job_queue.hpp"

namespace {

using namespace shoal::policy;

queued_job one_node_job(uint64_t id, hold_kind hold = hold_kind::none) {
  queued_job q;
  q.id = id;
  q.name = "job" + std::to_string(id);
  q.user = "alice";
  q.uid = 1000;
  q.submit_time = 100;
  q.hold = hold;
  q.pass.id = id;
  q.pass.request.min_nodes = 1;
  q.pass.request.tasks = 1;
  return q;
}

bool is_candidate(const pass_plan& plan, uint64_t id) {
  return std::any_of(plan.candidates->begin(), plan.candidates->end(),
                     [&](const pending_job& c) { return c.id == id && c.task_count > 0; });
}

const std::string* reason_of(const pass_plan& plan, uint64_t id) {
  for (auto& [job, reason] : plan.blocked)
    if (job == id) return &reason;
  return nullptr;
}

/// Array `id` with tasks `lo`..`hi` pending, `max_running` at a time (0: any), registered.
void enqueue_array(job_queue& queue, uint64_t id, uint32_t lo, uint32_t hi, uint32_t max_running) {
  auto q = one_node_job(id);
  q.is_array = true;
  q.max_running = max_running;
  q.pending.insert(index_range{lo, hi, 1});
  queue.add_array(id, {{lo, hi, 1}}, max_running);
  queue.enqueue(q);
}

/// A task of array `array_id` pending as job `id` of its own.
queued_job detached_task(uint64_t id, uint64_t array_id, uint32_t index) {
  auto q = one_node_job(id);
  q.array_id = array_id;
  q.array_index = index;
  return q;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(job_queue_pass)

BOOST_AUTO_TEST_CASE(a_held_job_is_blocked_until_told_then_passed_over_until_released) {
  job_queue queue{priority_config{}, true};
  queue.enqueue(one_node_job(1, hold_kind::user));
  queue.enqueue(one_node_job(2));
  auto first = queue.prepare(200, 256);
  BOOST_TEST(is_candidate(first, 2));
  BOOST_TEST(!is_candidate(first, 1));
  BOOST_REQUIRE(reason_of(first, 1) != nullptr);
  BOOST_TEST(*reason_of(first, 1) == "JobHeldUser");
  // The scheduler tells the job its reason (listings show it) ...
  queue.find(1)->reason = "JobHeldUser";
  // ... and from then on a pass has nothing to work out for it.
  auto second = queue.prepare(300, 256);
  BOOST_TEST(reason_of(second, 1) == nullptr);
  BOOST_TEST(!is_candidate(second, 1));
  BOOST_TEST(is_candidate(second, 2));
  // An admin hold over a user hold is a new reason to tell.
  BOOST_TEST(queue.hold(1, hold_kind::admin).empty());
  auto third = queue.prepare(400, 256);
  BOOST_REQUIRE(reason_of(third, 1) != nullptr);
  BOOST_TEST(*reason_of(third, 1) == "JobHeldAdmin");
  queue.find(1)->reason = "JobHeldAdmin";
  BOOST_TEST(queue.release(1, true).empty());
  auto released = queue.prepare(500, 256);
  BOOST_TEST(is_candidate(released, 1));
}

BOOST_AUTO_TEST_CASE(a_job_held_after_a_pass_gets_priority_zero_before_it_is_passed_over) {
  job_queue queue{priority_config{}, true};
  queue.enqueue(one_node_job(1));
  auto pending = queue.prepare(200, 256);
  BOOST_TEST(is_candidate(pending, 1));
  BOOST_TEST(queue.find(1)->factors.total > 0);
  // Held, as the scheduler does it: the reason is told at once, the priority it last had with it.
  BOOST_TEST(queue.hold(1, hold_kind::user).empty());
  auto* q = queue.find(1);
  q->reason = "JobHeldUser";
  q->told_priority = static_cast<uint64_t>(q->factors.total);
  auto held = queue.prepare(300, 256);
  BOOST_REQUIRE(reason_of(held, 1) != nullptr);  // still worked out: its priority becomes 0
  BOOST_TEST(queue.find(1)->factors.total == 0);
  queue.find(1)->told_priority = 0;  // told
  BOOST_TEST(reason_of(queue.prepare(400, 256), 1) == nullptr);
}

BOOST_AUTO_TEST_CASE(a_detached_array_task_obeys_the_throttle_and_counts_in_the_array) {
  job_queue queue{priority_config{}, true};
  enqueue_array(queue, 10, 1, 3, 1);
  auto dependent = one_node_job(20);
  dependent.dependency = *parse_dependency("afterany:10");
  queue.enqueue(dependent);
  // Task 2 (ordinal 1: job 12) leaves the array's pending tasks, once.
  BOOST_TEST(queue.detach(10, 2).value_or(0) == 12u);
  BOOST_TEST(!queue.detach(10, 2).has_value());
  BOOST_TEST(!queue.detach(10, 9).has_value());
  BOOST_TEST(!queue.find(10)->pending.contains(2));
  start_decision d;
  d.job = 10;
  queue.prepare(200, 256);
  auto first = queue.start(d, 210);
  BOOST_TEST(first.first == 11u);
  BOOST_TEST(first.second == 1u);
  queue.cancel(10, 0, UINT32_MAX, 220);  // task 3 never starts
  // On its way, task 2 still pends in the array: the dependent job waits.
  auto waiting = queue.prepare(230, 256);
  BOOST_REQUIRE(reason_of(waiting, 20) != nullptr);
  BOOST_TEST(*reason_of(waiting, 20) == "Dependency");
  // Queued as its own job, it waits for the array's one running task (%1).
  queue.enqueue(detached_task(12, 10, 2));
  auto throttled = queue.prepare(240, 256);
  BOOST_REQUIRE(reason_of(throttled, 12) != nullptr);
  BOOST_TEST(*reason_of(throttled, 12) == "JobArrayTaskLimit");
  queue.ended(11, true, 210, 250);
  auto free = queue.prepare(260, 256);
  BOOST_TEST(is_candidate(free, 12));
  BOOST_TEST(*reason_of(free, 20) == "Dependency");
  d.job = 12;
  BOOST_TEST(queue.start(d, 270).first == 12u);
  BOOST_TEST(queue.running().at(12).array_id == 10u);
  BOOST_TEST(*reason_of(queue.prepare(280, 256), 20) == "Dependency");
  queue.ended(12, true, 270, 290);
  BOOST_TEST(is_candidate(queue.prepare(300, 256), 20));
}

BOOST_AUTO_TEST_CASE(a_detached_task_keeps_its_arrays_hold_and_counts_failed_if_cancelled) {
  job_queue queue{priority_config{}, true};
  enqueue_array(queue, 30, 1, 1, 0);
  BOOST_TEST(queue.hold(30, hold_kind::admin).empty());
  BOOST_TEST(queue.detach(30, 1).value_or(0) == 31u);
  BOOST_TEST(queue.find(30) == nullptr);  // nothing pends in the array's record
  queue.enqueue(detached_task(31, 30, 1));
  BOOST_TEST((queue.find(31)->hold == hold_kind::admin));
  auto ok = one_node_job(40);
  ok.dependency = *parse_dependency("afterok:30");
  queue.enqueue(ok);
  BOOST_TEST(*reason_of(queue.prepare(200, 256), 40) == "Dependency");
  // Queued again (an update): still one detached task, not two.
  queue.enqueue(detached_task(31, 30, 1));
  queue.cancel(31, 0, UINT32_MAX, 210);
  // Its one task failed (cancelled): afterok can never be met.
  auto plan = queue.prepare(220, 256);
  BOOST_REQUIRE(reason_of(plan, 40) != nullptr);
  BOOST_TEST(*reason_of(plan, 40) == "DependencyNeverSatisfied");
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

/// What a pass offers, entry by entry, in list order (the offered entries only).
std::vector<std::string> offered_entries(const pass_plan& plan) {
  std::vector<std::string> out;
  for (auto& c : *plan.candidates) {
    if (c.task_count == 0) continue;
    out.push_back(std::to_string(c.id) + " prio " + std::to_string(c.priority) + " tasks " +
                  std::to_string(c.task_count) + " part " + std::to_string(c.partition) +
                  " limit " + std::to_string(c.time_limit) + " nodes " +
                  std::to_string(c.request.min_nodes) + " cpus " +
                  std::to_string(c.request.total_cpus()));
  }
  return out;
}

std::vector<std::string> blocked_entries(const pass_plan& plan) {
  std::vector<std::string> out;
  for (auto& [id, reason] : plan.blocked) out.push_back(std::to_string(id) + " " + reason);
  return out;
}

/// The pass `queue` prepares at `now` and the one a copy of it (which builds its candidate list
/// afresh) prepares are the same; returns the queue's.
pass_plan prepare_checked(job_queue& queue, int64_t now) {
  job_queue fresh{queue};
  auto expected = fresh.prepare(now, 4);
  auto plan = queue.prepare(now, 4);
  BOOST_TEST(offered_entries(plan) == offered_entries(expected), boost::test_tools::per_element());
  BOOST_TEST(blocked_entries(plan) == blocked_entries(expected), boost::test_tools::per_element());
  BOOST_TEST(plan.offered == expected.offered);
  BOOST_TEST(plan.offered == offered_entries(plan).size());
  BOOST_TEST(plan.arrays == expected.arrays, boost::test_tools::per_element());
  BOOST_TEST(plan.to_cancel == expected.to_cancel, boost::test_tools::per_element());
  BOOST_TEST(plan.next_wakeup == expected.next_wakeup);
  BOOST_TEST(
      std::is_sorted(plan.candidates->begin(), plan.candidates->end(),
                     [](const pending_job& a, const pending_job& b) { return a.id < b.id; }));
  // The scheduler tells each blocked job its reason (what lets a held job be passed over).
  for (auto& [id, reason] : plan.blocked) {
    auto* q = queue.find(id);
    BOOST_REQUIRE(q != nullptr);
    q->reason = reason;
    q->told_priority = static_cast<uint64_t>(std::max<int64_t>(0, q->factors.total));
  }
  return plan;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(job_queue_kept_candidates)

BOOST_AUTO_TEST_CASE(the_kept_list_follows_events_as_a_fresh_build_would) {
  job_queue queue{priority_config{}, true};
  priority_scale scale;
  scale.cluster_nodes = 16;
  scale.cluster_cpus = 64;
  scale.max_partition_job_factor = 4;
  queue.set_scale(scale, {1, 4});
  std::mt19937 rng(7);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  uint64_t next_id = 1000;
  std::vector<uint64_t> started;  // jobs and tasks running, to end later
  std::vector<uint64_t> gone;     // ids no longer queued, to queue again (a requeue)
  int64_t now = 1000;
  auto new_job = [&](uint64_t id) {
    auto q = one_node_job(id, pick(8) == 0 ? hold_kind::user : hold_kind::none);
    q.name = "job" + std::to_string(pick(4));  // shared names: singletons wait for each other
    q.submit_time = now - static_cast<int64_t>(pick(5000));
    q.pass.partition = pick(2);
    q.pass.time_limit = 60 * static_cast<int64_t>(1 + pick(30));
    q.pass.request.min_nodes = static_cast<uint32_t>(1 + pick(4));
    q.pass.request.tasks = q.pass.request.min_nodes;
    q.nice = static_cast<int32_t>(pick(3));
    if (pick(6) == 0) q.begin_time = now + static_cast<int64_t>(pick(300));
    if (pick(6) == 0 && next_id > 1010) {
      dependency dep;
      dependency_term term;
      term.kind = pick(2) == 0 ? dependency_kind::afterok : dependency_kind::singleton;
      term.job = 1000 + pick(next_id - 1000);
      dep.terms.push_back(term);
      q.dependency = dep;
      q.kill_on_invalid_dep = pick(2) == 0;
    }
    return q;
  };
  pass_plan lent;  // a pass still out at the topology actor: its list must not change
  std::vector<std::string> lent_as_sent;
  for (int step = 0; step < 600; ++step) {
    now += static_cast<int64_t>(pick(20));
    auto& queued = queue.queue();
    std::vector<uint64_t> ids;
    for (auto& [id, q] : queued) ids.push_back(id);
    switch (pick(12)) {
      case 0:
      case 1: {  // a job queues
        queue.enqueue(new_job(next_id));
        next_id += 1 + pick(3);
        break;
      }
      case 2: {  // an array queues: its tasks take the ids after its own
        auto q = new_job(next_id);
        uint32_t tasks = static_cast<uint32_t>(2 + pick(6));
        q.is_array = true;
        q.max_running = static_cast<uint32_t>(pick(3));
        q.pending.insert({0, tasks - 1, 1});
        queue.add_array(next_id, {{0, tasks - 1, 1}});
        queue.enqueue(std::move(q));
        next_id += tasks + 1;
        break;
      }
      case 3: {  // a job gone from the queue comes back (requeue): an id below the newest
        if (gone.empty()) break;
        auto at = pick(gone.size());
        auto q = new_job(gone[at]);
        gone.erase(gone.begin() + static_cast<long>(at));
        if (queued.count(q.id) == 0) queue.enqueue(std::move(q));
        break;
      }
      case 4: {  // a queued job queues again with another request
        if (ids.empty()) break;
        auto q = new_job(ids[pick(ids.size())]);
        if (queue.is_array(q.id)) break;
        queue.enqueue(std::move(q));
        break;
      }
      case 5: {  // cancelled: a job, or some tasks of an array
        if (ids.empty()) break;
        auto id = ids[pick(ids.size())];
        auto removed = pick(2) == 0 ? queue.cancel(id, 0, UINT32_MAX, now)
                                    : queue.cancel(id, 0, static_cast<uint32_t>(pick(3)), now);
        if (removed > 0 && queue.find(id) == nullptr && !queue.is_array(id)) gone.push_back(id);
        break;
      }
      case 6: {  // held, released, or moved to the top
        if (ids.empty()) break;
        auto id = ids[pick(ids.size())];
        auto op = pick(4);
        if (op == 0) queue.hold(id, hold_kind::user);
        if (op == 1) queue.hold(id, hold_kind::admin);
        if (op == 2) queue.release(id, true);
        if (op == 3) queue.top(id);
        break;
      }
      case 7: {  // a running job ends, or gives its nodes back
        if (started.empty()) break;
        auto at = pick(started.size());
        if (pick(3) == 0)
          queue.release(started[at]);
        else
          queue.ended(started[at], pick(2) == 0, now - 10, now);
        started.erase(started.begin() + static_cast<long>(at));
        break;
      }
      case 8: {  // the pass out at the topology actor comes back; its list must not have moved
        if (lent.candidates) BOOST_TEST(offered_entries(lent) == lent_as_sent);
        lent = pass_plan{};
        break;
      }
      default: {  // a pass, starting some of what it offers
        auto plan = prepare_checked(queue, now);
        std::vector<uint64_t> offered;
        for (auto& c : *plan.candidates)
          if (c.task_count > 0) offered.push_back(c.id);
        for (size_t n = pick(4); n > 0 && !offered.empty(); --n) {
          auto id = offered[pick(offered.size())];
          auto* q = queue.find(id);
          if (q == nullptr || (q->is_array && q->pending.empty())) continue;
          start_decision d;
          d.job = id;
          d.end = now + 600;
          auto [job_id, index] = queue.start(d, now);
          started.push_back(job_id);
          if (queue.find(id) == nullptr && !queue.is_array(id)) gone.push_back(id);
        }
        if (!lent.candidates && pick(2) == 0) {
          lent = plan;
          lent_as_sent = offered_entries(plan);
        }
        break;
      }
    }
    // find() answers from the list's index: it agrees with the queue, job for job, wherever
    // it is told to look first.
    for (uint64_t id = 1000; id < next_id; ++id) {
      auto it = queued.find(id);
      auto* expected = it == queued.end() ? nullptr : &it->second;
      BOOST_TEST((queue.find(id) == expected));
      BOOST_TEST((queue.find(id, id - 1000) == expected));
      BOOST_TEST((queue.find(id, pick(queued.size() + 1)) == expected));
    }
  }
  prepare_checked(queue, now + 1);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(job_queue_fairshare)

// Two equal jobs: the one whose association used less recently (the higher fair-share factor)
// gets the higher priority, whatever their ids; the QOS factor adds its weight the same way.
BOOST_AUTO_TEST_CASE(the_user_with_less_usage_gets_the_higher_priority) {
  priority_config prio;
  prio.weight_age = 0;
  prio.weight_job_size = 0;
  prio.weight_partition = 0;
  prio.weight_fairshare = 10000;
  prio.weight_qos = 1000;
  job_queue queue{prio, true};
  auto heavy = one_node_job(1);
  heavy.user = "heavy";
  heavy.account = "a";
  auto light = one_node_job(2);
  light.user = "light";
  light.account = "b";
  light.qos = "high";
  queue.enqueue(heavy);
  queue.enqueue(light);
  auto shares = std::make_shared<priority_shares>();
  shares->fairshare[{"heavy", "a"}] = 0.25;
  shares->fairshare[{"light", "b"}] = 1.0;
  shares->qos["normal"] = 0.0;
  shares->qos["high"] = 1.0;
  queue.set_shares(shares);
  auto plan = queue.prepare(200, 256);
  BOOST_TEST(queue.find(1)->factors.fairshare == 2500);
  BOOST_TEST(queue.find(1)->factors.qos == 0);
  BOOST_TEST(queue.find(2)->factors.fairshare == 10000);
  BOOST_TEST(queue.find(2)->factors.qos == 1000);
  BOOST_TEST(queue.find(2)->factors.total > queue.find(1)->factors.total);
  // Without the factors (no associations), both are equal again.
  queue.set_shares(nullptr);
  queue.prepare(300, 256);
  BOOST_TEST(queue.find(1)->factors.total == queue.find(2)->factors.total);
}

// A started job keeps its account and CPUs until it ends, for the usage it is charged.
BOOST_AUTO_TEST_CASE(a_started_job_keeps_its_account_and_cpus) {
  job_queue queue{priority_config{}, true};
  auto q = one_node_job(7);
  q.account = "physics";
  queue.enqueue(q);
  queue.prepare(200, 256);
  start_decision d;
  d.job = 7;
  queue.start(d, 250, 8);
  auto& run = queue.running().at(7);
  BOOST_TEST(run.account == "physics");
  BOOST_TEST(run.cpus == 8u);
  BOOST_TEST(run.start == 250);
}

BOOST_AUTO_TEST_SUITE_END()
