#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "policy/scheduling_pass.hpp"

using namespace shoal::policy;

namespace {

std::vector<node_capacity> reservation_test_nodes(size_t n) {
  return std::vector<node_capacity>(n, node_capacity{4, 4000, true});
}

std::vector<partition_info> reservation_test_partition(size_t n) {
  partition_info p;
  for (size_t i = 0; i < n; ++i) p.nodes.push_back(i);
  return {p};
}

pending_job whole_node_job(uint64_t id, int64_t prio, uint32_t nodes, int64_t limit) {
  pending_job j;
  j.id = id;
  j.priority = prio;
  j.request.min_nodes = nodes;
  j.request.tasks = nodes;
  j.request.exclusive = true;
  j.time_limit = limit;
  return j;
}

std::vector<size_t> nodes_of(const pass_result& r, uint64_t id) {
  std::vector<size_t> out;
  for (auto& d : r.started)
    if (d.job == id)
      for (auto& s : d.alloc) out.push_back(s.node);
  return out;
}

std::string reason_for(const pass_result& r, uint64_t id) {
  for (const auto& w : r.waiting)
    if (w.job == id) return w.reason;
  return "";
}

pass_config with_reservation(std::vector<size_t> nodes, int64_t start, int64_t end,
                             bool flex = false) {
  pass_config c;
  c.resolution = 1;
  c.reservations.push_back({std::move(nodes), start, end, flex});
  return c;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(reservation_pass)

BOOST_AUTO_TEST_CASE(a_job_that_would_still_run_at_the_start_stays_off_the_reserved_nodes) {
  // Nodes 0 and 1 reserved from t=160: a 120 s job at t=100 would still run then, a 30 s one not.
  auto nodes = reservation_test_nodes(2);
  auto config = with_reservation({0, 1}, 160, 1000);
  std::vector<pending_job> queue{whole_node_job(1, 10, 1, 120), whole_node_job(2, 5, 1, 30)};
  auto r = schedule(queue, {}, reservation_test_partition(2), nodes, 100, config);
  BOOST_TEST(nodes_of(r, 1).empty());
  BOOST_TEST(reason_for(r, 1) == "Resources");
  BOOST_TEST(nodes_of(r, 2).size() == 1u);
}

BOOST_AUTO_TEST_CASE(other_jobs_use_the_nodes_it_does_not_hold) {
  auto nodes = reservation_test_nodes(3);
  auto config = with_reservation({0, 1}, 100, 1000);
  std::vector<pending_job> queue{whole_node_job(1, 10, 1, 500)};
  auto r = schedule(queue, {}, reservation_test_partition(3), nodes, 100, config);
  BOOST_TEST(nodes_of(r, 1) == std::vector<size_t>{2});
  // Two nodes asked, one unheld: it waits, and its backfill plan starts after the end.
  queue = {whole_node_job(3, 10, 2, 500)};
  r = schedule(queue, {}, reservation_test_partition(3), nodes, 100, config);
  BOOST_TEST(nodes_of(r, 3).empty());
  BOOST_REQUIRE(r.planned.size() == 1u);
  BOOST_TEST(r.planned[0].start >= 1000);
}

BOOST_AUTO_TEST_CASE(a_job_in_the_reservation_runs_only_there_and_only_once_it_began) {
  auto nodes = reservation_test_nodes(4);
  auto config = with_reservation({2, 3}, 200, 1000);
  auto member = whole_node_job(1, 10, 1, 50);
  member.reservation = 1;
  auto early = schedule({member}, {}, reservation_test_partition(4), nodes, 100, config);
  BOOST_TEST(nodes_of(early, 1).empty());
  BOOST_TEST(reason_for(early, 1) == "Reservation");
  member.request.min_nodes = 2;
  member.request.tasks = 2;
  auto r = schedule({member}, {}, reservation_test_partition(4), nodes, 300, config);
  BOOST_TEST((nodes_of(r, 1) == std::vector<size_t>{2, 3}));
  // Three nodes do not fit in two: it waits without touching the others.
  member.request.min_nodes = 3;
  member.request.tasks = 3;
  r = schedule({member}, {}, reservation_test_partition(4), nodes, 300, config);
  BOOST_TEST(nodes_of(r, 1).empty());
  BOOST_TEST(reason_for(r, 1) == "Resources");
}

BOOST_AUTO_TEST_CASE(flex_lets_its_jobs_use_unheld_nodes_too) {
  auto nodes = reservation_test_nodes(4);
  auto config = with_reservation({2, 3}, 200, 1000, true);
  auto member = whole_node_job(1, 10, 3, 50);
  member.reservation = 1;
  auto r = schedule({member}, {}, reservation_test_partition(4), nodes, 300, config);
  BOOST_TEST(nodes_of(r, 1).size() == 3u);
}

BOOST_AUTO_TEST_CASE(a_job_whose_reservation_is_gone_waits_with_reservation) {
  auto nodes = reservation_test_nodes(2);
  pass_config config;
  auto member = whole_node_job(1, 10, 1, 50);
  member.reservation = no_reservation;
  auto r = schedule({member}, {}, reservation_test_partition(2), nodes, 300, config);
  BOOST_TEST(nodes_of(r, 1).empty());
  BOOST_TEST(reason_for(r, 1) == "Reservation");
}

BOOST_AUTO_TEST_CASE(a_waiting_reservation_job_does_not_hold_back_the_others) {
  auto nodes = reservation_test_nodes(3);
  pass_config config;
  config.resolution = 1;
  config.backfill = false;
  config.reservations.push_back({{0}, 500, 1000, false});
  auto member = whole_node_job(1, 10, 1, 50);
  member.reservation = 1;
  auto other = whole_node_job(2, 5, 1, 50);
  auto r = schedule({member, other}, {}, reservation_test_partition(3), nodes, 100, config);
  BOOST_TEST(reason_for(r, 1) == "Reservation");
  BOOST_TEST(nodes_of(r, 2).size() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
