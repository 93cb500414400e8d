// The scheduler's pending queue as a pass sees it: what each job is, eligible or blocked and why.

#include <boost/test/unit_test.hpp>

#include <algorithm>

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
  return std::any_of(plan.candidates.begin(), plan.candidates.end(),
                     [&](const pending_job& c) { return c.id == id; });
}

const std::string* reason_of(const pass_plan& plan, uint64_t id) {
  for (auto& [job, reason] : plan.blocked)
    if (job == id) return &reason;
  return nullptr;
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

BOOST_AUTO_TEST_SUITE_END()
