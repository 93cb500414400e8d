// AccountingStorageEnforce=limits: which association and QOS limits a job counts against, in
// which order, and how a pass holds a job by them (its reason) and lets it go once room appears.

#include <boost/test/unit_test.hpp>

#include <memory>
#include <string>
#include <vector>

#include "policy/job_queue.hpp"
#include "policy/scheduling_pass.hpp"
#include "policy/usage_limits.hpp"
#include "test/unit/policy/pass_cases.hpp"

using namespace shoal::policy;
using namespace shoal::policy::test_cases;

namespace {

/// root -> physics -> {alice, bob}; chemistry -> carol. Indices: 0 root, 1 physics,
/// 2 chemistry, 3 alice, 4 bob, 5 carol.
std::shared_ptr<limit_rules> tree() {
  auto r = std::make_shared<limit_rules>();
  r->assocs.resize(6);
  r->assocs[1].parent = 0;
  r->assocs[2].parent = 0;
  r->assocs[3].parent = 1;
  r->assocs[4].parent = 1;
  r->assocs[5].parent = 2;
  r->users[{"alice", "physics", SIZE_MAX}] = 3;
  r->users[{"bob", "physics", SIZE_MAX}] = 4;
  r->users[{"carol", "chemistry", SIZE_MAX}] = 5;
  return r;
}

const std::string normal = "normal";
const std::string physics = "physics";
const std::string chemistry = "chemistry";

limited_job job_of(const std::string& user, const std::string& account, uint64_t cpus = 1,
                   const std::string* qos = &normal) {
  limited_job j;
  j.user = &user;
  j.account = &account;
  j.qos = qos;
  j.use = {cpus, 0, 1};
  return j;
}

const std::string alice = "alice";
const std::string bob = "bob";
const std::string carol = "carol";

/// What `counting` says of one more task of `job`: its reason, or "" when it fits.
std::string verdict(limit_counting& counting, const limited_job& job) {
  auto set = counting.set_of(job);
  auto limits = counting.finish();
  if (!limits) return "";
  std::vector<uint64_t> used;
  for (const auto& c : limits->counters) used.push_back(c.used);
  const char* reason = over_limits(*limits, used, set, job.use);
  return reason ? reason : "";
}

pending_job one_cpu_job(uint64_t id, int64_t prio, uint32_t limits) {
  pending_job j;
  j.id = id;
  j.priority = prio;
  j.request.min_nodes = 1;
  j.request.tasks = 1;
  j.time_limit = 100;
  j.limits = limits;
  return j;
}

/// A pass's settings with one counter and one set holding it (pending_job::limits 1).
pass_config one_counter(limit_counter counter) {
  auto limits = std::make_shared<usage_limits>();
  limits->counters.push_back(counter);
  limits->sets.push_back({0});
  pass_config config;
  config.resolution = 1;
  config.limits = limits;
  return config;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(association_limits)

BOOST_AUTO_TEST_CASE(a_group_limit_counts_the_whole_subtree) {
  auto rules = tree();
  rules->assocs[1].grp_jobs = 2;  // physics: 2 running jobs between alice and bob
  limit_counting counting{rules};
  counting.count_running(job_of(alice, physics));
  BOOST_TEST(verdict(counting, job_of(bob, physics)).empty());
  limit_counting full{rules};
  full.count_running(job_of(alice, physics));
  full.count_running(job_of(bob, physics));
  BOOST_TEST(verdict(full, job_of(bob, physics)) == "AssocGrpJobsLimit");
  // Chemistry is another subtree: carol is not held.
  limit_counting other{rules};
  other.count_running(job_of(alice, physics));
  other.count_running(job_of(bob, physics));
  BOOST_TEST(verdict(other, job_of(carol, chemistry)).empty());
}

BOOST_AUTO_TEST_CASE(grp_tres_counts_cpus_memory_and_nodes) {
  auto rules = tree();
  rules->assocs[0].grp_tres.cpus = 8;  // the root: the whole cluster
  rules->assocs[2].grp_tres.memory_mb = 1000;
  limit_counting counting{rules};
  counting.count_running(job_of(alice, physics, 6));
  BOOST_TEST(verdict(counting, job_of(carol, chemistry, 2)).empty());
  limit_counting more{rules};
  more.count_running(job_of(alice, physics, 6));
  BOOST_TEST(verdict(more, job_of(carol, chemistry, 3)) == "AssocGrpCpuLimit");
  limit_counting mem{rules};
  auto big = job_of(carol, chemistry, 1);
  big.use.memory_mb = 1200;
  BOOST_TEST(verdict(mem, big) == "AssocGrpMemLimit");
}

BOOST_AUTO_TEST_CASE(max_jobs_is_the_users_own_and_a_qos_limit_overrides_it) {
  auto rules = tree();
  rules->assocs[3].max_jobs = 1;
  limit_counting counting{rules};
  counting.count_running(job_of(alice, physics));
  BOOST_TEST(verdict(counting, job_of(alice, physics)) == "AssocMaxJobsLimit");
  // Bob's own association has no MaxJobs: alice's running job does not hold him.
  limit_counting for_bob{rules};
  for_bob.count_running(job_of(alice, physics));
  BOOST_TEST(verdict(for_bob, job_of(bob, physics)).empty());
  // A QOS that sets MaxJobsPerUser=2 replaces alice's MaxJobs=1.
  const std::string high = "high";
  rules->qos[high].max_jobs_per_user = 2;
  limit_counting with_qos{rules};
  with_qos.count_running(job_of(alice, physics, 1, &high));
  BOOST_TEST(verdict(with_qos, job_of(alice, physics, 1, &high)).empty());
  limit_counting two{rules};
  two.count_running(job_of(alice, physics, 1, &high));
  two.count_running(job_of(alice, physics, 1, &high));
  BOOST_TEST(verdict(two, job_of(alice, physics, 1, &high)) == "QOSMaxJobsPerUserLimit");
}

BOOST_AUTO_TEST_CASE(qos_limits_count_per_qos_per_user_and_per_account) {
  auto rules = tree();
  const std::string q = "short";
  rules->qos[q].grp_jobs = 3;
  rules->qos[q].max_tres_per_user.cpus = 4;
  rules->qos[q].max_jobs_per_account = 2;
  limit_counting counting{rules};
  counting.count_running(job_of(alice, physics, 3, &q));
  BOOST_TEST(verdict(counting, job_of(alice, physics, 2, &q)) == "QOSMaxCpuPerUserLimit");
  limit_counting per_account{rules};
  per_account.count_running(job_of(alice, physics, 1, &q));
  per_account.count_running(job_of(bob, physics, 1, &q));
  BOOST_TEST(verdict(per_account, job_of(bob, physics, 1, &q)) == "MaxJobsPerAccount");
  BOOST_TEST(verdict(per_account, job_of(carol, chemistry, 1, &q)).empty());
  limit_counting grp{rules};
  grp.count_running(job_of(alice, physics, 1, &q));
  grp.count_running(job_of(bob, physics, 1, &q));
  grp.count_running(job_of(carol, chemistry, 1, &q));
  BOOST_TEST(verdict(grp, job_of(carol, chemistry, 1, &q)) == "QOSGrpJobsLimit");
  // Jobs of another QOS do not count in this one's.
  limit_counting elsewhere{rules};
  elsewhere.count_running(job_of(alice, physics, 4));
  BOOST_TEST(verdict(elsewhere, job_of(alice, physics, 2, &q)).empty());
}

BOOST_AUTO_TEST_CASE(per_job_limits_hold_a_job_whatever_runs) {
  auto rules = tree();
  rules->assocs[3].max_tres_per_job.cpus = 4;
  rules->assocs[3].max_wall_s = 3600;
  limit_counting counting{rules};
  BOOST_TEST(counting.per_job_block(job_of(alice, physics, 4), 3600) == nullptr);
  BOOST_TEST(std::string{counting.per_job_block(job_of(alice, physics, 5), 60)} ==
             "AssocMaxCpuPerJobLimit");
  BOOST_TEST(std::string{counting.per_job_block(job_of(alice, physics, 1), 3601)} ==
             "AssocMaxWallDurationPerJobLimit");
  // No time limit at all is more than any MaxWall.
  BOOST_TEST(std::string{counting.per_job_block(job_of(alice, physics, 1), 0)} ==
             "AssocMaxWallDurationPerJobLimit");
  // The QOS's own limits come first and replace the association's of the same kind.
  const std::string q = "long";
  rules->qos[q].max_wall_s = 7200;
  rules->qos[q].max_tres_per_job.nodes = 1;
  limit_counting with_qos{rules};
  BOOST_TEST(with_qos.per_job_block(job_of(alice, physics, 1, &q), 7200) == nullptr);
  BOOST_TEST(std::string{with_qos.per_job_block(job_of(alice, physics, 1, &q), 7201)} ==
             "QOSMaxWallDurationPerJobLimit");
  auto two_nodes = job_of(alice, physics, 1, &q);
  two_nodes.use.nodes = 2;
  BOOST_TEST(std::string{with_qos.per_job_block(two_nodes, 60)} == "QOSMaxNodePerJobLimit");
  // Nobody without a limit is held.
  BOOST_TEST(with_qos.per_job_block(job_of(carol, chemistry, 64), 0) == nullptr);
}

BOOST_AUTO_TEST_CASE(jobs_with_the_same_limits_share_one_set) {
  auto rules = tree();
  rules->assocs[1].grp_jobs = 5;
  limit_counting counting{rules};
  auto a = counting.set_of(job_of(alice, physics));
  BOOST_TEST(a != 0u);
  BOOST_TEST(counting.set_of(job_of(alice, physics)) == a);
  BOOST_TEST(counting.set_of(job_of(bob, physics)) != a);
  BOOST_TEST(counting.set_of(job_of(carol, chemistry)) == 0u);  // no limit applies
}

BOOST_AUTO_TEST_CASE(a_pass_counts_its_own_starts_and_a_held_job_holds_nothing_back) {
  // One counter: GrpJobs=2, one job running. Jobs 1 and 2 (set 1) want it; job 3 (no limit),
  // lower, starts anyway; job 1 takes the last room, job 2 waits with the reason.
  auto config = one_counter({limit_kind::jobs, 2, 1, "AssocGrpJobsLimit"});
  auto res = schedule({one_cpu_job(1, 10, 1), one_cpu_job(2, 9, 1), one_cpu_job(3, 1, 0)}, {},
                      {partition_of_all(2)}, uniform_nodes(2), 0, config);
  BOOST_TEST(starts_of(res, 1) == 1u);
  BOOST_TEST(starts_of(res, 2) == 0u);
  BOOST_TEST(reason_in(res, 2) == "AssocGrpJobsLimit");
  BOOST_TEST(starts_of(res, 3) == 1u);
  BOOST_TEST(res.planned.empty());  // no reservation for a job a limit holds
}

BOOST_AUTO_TEST_CASE(an_arrays_tasks_each_count_as_a_job) {
  auto config = one_counter({limit_kind::cpus, 6, 0, "QOSGrpCpuLimit"});
  auto array = one_cpu_job(7, 10, 1);
  array.request.cpus_per_task = 2;
  array.task_count = 5;
  auto res = schedule({array}, {}, {partition_of_all(4)}, uniform_nodes(4), 0, config);
  BOOST_TEST(starts_of(res, 7) == 3u);  // 3 tasks x 2 CPUs = the cap of 6
  BOOST_TEST(reason_in(res, 7) == "QOSGrpCpuLimit");
}

BOOST_AUTO_TEST_CASE(the_queue_holds_a_job_by_its_limits_and_lets_it_go_when_one_ends) {
  auto rules = tree();
  rules->assocs[3].max_jobs = 1;
  rules->assocs[3].max_tres_per_job.cpus = 2;
  job_queue queue{priority_config{}, true};
  queue.set_limits(rules);
  auto job = [](uint64_t id, uint32_t cpus) {
    queued_job q;
    q.id = id;
    q.name = "j";
    q.user = "alice";
    q.account = "physics";
    q.submit_time = 100;
    q.pass.id = id;
    q.pass.request.min_nodes = 1;
    q.pass.request.tasks = 1;
    q.pass.request.cpus_per_task = cpus;
    q.pass.time_limit = 60;
    return q;
  };
  queue.enqueue(job(1, 1));
  queue.enqueue(job(2, 1));
  queue.enqueue(job(3, 4));  // more CPUs than MaxTRESPerJob: held whatever runs
  auto plan = queue.prepare(200, 256);
  bool three_blocked = false;
  for (auto& [id, reason] : plan.blocked)
    three_blocked = three_blocked || (id == 3 && reason == "AssocMaxCpuPerJobLimit");
  BOOST_TEST(three_blocked);
  BOOST_REQUIRE(plan.limits != nullptr);
  auto res = schedule(*plan.candidates, {}, {partition_of_all(2)}, uniform_nodes(2), 200, [&] {
    pass_config c;
    c.limits = plan.limits;
    return c;
  }());
  BOOST_TEST(starts_of(res, 1) == 1u);
  BOOST_TEST(reason_in(res, 2) == "AssocMaxJobsLimit");
  queue.start(res.started.front(), 200, 1);
  // The next pass counts job 1 as running: job 2 still waits; once job 1 ends, it may start.
  auto next = queue.prepare(210, 256);
  pass_config c;
  c.limits = next.limits;
  BOOST_TEST(
      reason_in(schedule(*next.candidates, {}, {partition_of_all(2)}, uniform_nodes(2), 210, c),
                2) == "AssocMaxJobsLimit");
  queue.ended(1, true, 200, 220);
  auto after = queue.prepare(230, 256);
  c.limits = after.limits;
  BOOST_TEST(
      starts_of(schedule(*after.candidates, {}, {partition_of_all(2)}, uniform_nodes(2), 230, c),
                2) == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
