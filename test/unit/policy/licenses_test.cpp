#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "policy/licenses.hpp"
#include "policy/scheduling_pass.hpp"
#include "test/unit/policy/pass_cases.hpp"

using namespace shoal;
using namespace shoal::policy;
using namespace shoal::policy::test_cases;

namespace {

license_list lic(std::string_view text) {
  auto l = parse_licenses(text);
  BOOST_REQUIRE_MESSAGE(l, "bad list " << text);
  return *l;
}

pending_job one_node_job(uint64_t id, int64_t prio, const std::string& licenses,
                         int64_t limit = 100) {
  pending_job j;
  j.id = id;
  j.priority = prio;
  j.request.min_nodes = 1;
  j.request.tasks = 1;
  j.time_limit = limit;
  if (!licenses.empty()) j.licenses = lic(licenses);
  return j;
}

pass_config with_totals(const std::string& totals) {
  pass_config c;
  c.resolution = 1;
  c.licenses = lic(totals);
  return c;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(licenses)

BOOST_AUTO_TEST_CASE(the_syntax_is_slurms) {
  BOOST_CHECK(lic("") == license_list{});
  BOOST_CHECK(lic("fluent:30,ansys") == (license_list{{"fluent", 30}, {"ansys", 1}}));
  BOOST_CHECK(lic(" a*2 , b:1 ,a") == (license_list{{"a", 3}, {"b", 1}}));
  for (auto bad : {":2", "a:", "a:x", "a:0", "a,,b", "a:-1", "a b:2", "a:1x"}) {
    auto l = parse_licenses(bad);
    BOOST_CHECK_MESSAGE(!l, bad);
    if (!l) BOOST_CHECK_EQUAL(describe(l.error()), "Invalid license specification");
  }
  BOOST_CHECK_EQUAL(licenses_text(lic("a*2,b")), "a:2,b:1");
}

BOOST_AUTO_TEST_CASE(known_names_use_and_fit) {
  auto total = lic("a:3,b:1");
  BOOST_CHECK(licenses_known(lic("a:5"), total));
  BOOST_CHECK(!licenses_known(lic("a,c"), total));
  license_use use;
  count_licenses(use, lic("a:2"), 1);
  BOOST_CHECK(licenses_fit(lic("a:1,b"), total, use));
  BOOST_CHECK(!licenses_fit(lic("a:2"), total, use));
  BOOST_CHECK(!licenses_fit(lic("c"), total, use));
  count_licenses(use, lic("a:2"), -1);
  BOOST_CHECK(use.empty());
}

BOOST_AUTO_TEST_CASE(a_job_short_of_licenses_waits_with_licenses_and_holds_nothing_back) {
  auto n = uniform_nodes(2);
  std::vector<partition_info> parts{partition_of_all(2)};
  // Job 1 runs holding 2 of 3; job 2 wants 2 more: Licenses, though a node is free. Job 3,
  // lower, wants 1: it fits and starts (license-short jobs hold nothing back).
  running_job r;
  r.id = 1;
  r.end = 500;
  r.alloc.push_back({0, 4, 4000, 1});
  r.licenses = lic("sim:2");
  auto second = one_node_job(2, 10, "sim:2");
  auto third = one_node_job(3, 5, "sim:1");
  auto res = schedule({second, third}, {r}, parts, n, 0, with_totals("sim:3"));
  BOOST_CHECK(!(starts_of(res, 2) > 0));
  BOOST_CHECK_EQUAL(reason_in(res, 2), "Licenses");
  BOOST_CHECK((starts_of(res, 3) > 0));
  // Once job 1 is gone, job 2 starts.
  res = schedule({second}, {}, parts, n, 0, with_totals("sim:3"));
  BOOST_CHECK((starts_of(res, 2) > 0));
}

BOOST_AUTO_TEST_CASE(two_jobs_of_one_pass_share_the_pool) {
  auto n = uniform_nodes(2);
  auto res = schedule({one_node_job(1, 10, "sim:2"), one_node_job(2, 9, "sim:2")}, {},
                      {partition_of_all(2)}, n, 0, with_totals("sim:3"));
  BOOST_CHECK((starts_of(res, 1) > 0));
  BOOST_CHECK_EQUAL(reason_in(res, 2), "Licenses");
}

BOOST_AUTO_TEST_CASE(an_unknown_or_too_large_request_never_starts) {
  auto n = uniform_nodes(1);
  auto res = schedule({one_node_job(1, 10, "other:1"), one_node_job(2, 9, "sim:4")}, {},
                      {partition_of_all(1)}, n, 0, with_totals("sim:3"));
  BOOST_CHECK_EQUAL(reason_in(res, 1), "Licenses");
  BOOST_CHECK_EQUAL(reason_in(res, 2), "Licenses");
}

BOOST_AUTO_TEST_CASE(the_backfill_keeps_a_reservations_licenses) {
  // Partition 0 is nodes 0-1, partition 1 node 2. Node 1 is busy until 100, so job 1 (both nodes
  // of partition 0, 2 of the 3 licenses) is reserved at 100 for 50 s. On node 2, free, a job
  // that would still hold 2 licenses at 100 must wait; one that ends before, or holds none,
  // starts.
  auto n = uniform_nodes(3);
  partition_info first;
  first.nodes = {0, 1};
  partition_info second;
  second.nodes = {2};
  running_job busy;
  busy.id = 9;
  busy.end = 100;
  busy.alloc.push_back({1, 4, 4000, 1});
  pending_job top = one_node_job(1, 100, "sim:2", 50);
  top.request.min_nodes = 2;
  top.request.tasks = 2;
  auto in_second = [](pending_job j) {
    j.partition = 1;
    return j;
  };
  auto long_one = in_second(one_node_job(2, 50, "sim:2", 1000));
  auto res = schedule({top, long_one}, {busy}, {first, second}, n, 0, with_totals("sim:3"));
  BOOST_CHECK_EQUAL(reason_in(res, 1), "Resources");
  BOOST_CHECK_EQUAL(res.planned.size(), 1u);
  BOOST_CHECK(!(starts_of(res, 2) > 0));
  BOOST_CHECK_EQUAL(reason_in(res, 2), "Licenses");
  auto short_one = in_second(one_node_job(3, 50, "sim:2", 60));
  res = schedule({top, short_one}, {busy}, {first, second}, n, 0, with_totals("sim:3"));
  BOOST_CHECK((starts_of(res, 3) > 0));
  auto no_licenses = in_second(one_node_job(4, 50, "", 1000));
  res = schedule({top, no_licenses}, {busy}, {first, second}, n, 0, with_totals("sim:3"));
  BOOST_CHECK((starts_of(res, 4) > 0));
}

BOOST_AUTO_TEST_CASE(a_reservation_waits_for_licenses_held_by_running_jobs) {
  // A running job holds 3 of 3 until 200 on node 0; node 1 frees at 100. Job 1 wants one node and
  // a license: Licenses now (held), and nothing reserved for it, as Slurm 22.05.
  auto n = uniform_nodes(2);
  running_job holder;
  holder.id = 8;
  holder.end = 200;
  holder.alloc.push_back({0, 4, 4000, 1});
  holder.licenses = lic("sim:3");
  auto res = schedule({one_node_job(1, 10, "sim:1")}, {holder}, {partition_of_all(2)}, n, 0,
                      with_totals("sim:3"));
  BOOST_CHECK_EQUAL(reason_in(res, 1), "Licenses");
  BOOST_CHECK(res.planned.empty());
}

BOOST_AUTO_TEST_SUITE_END()
