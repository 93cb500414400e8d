#include <boost/test/unit_test.hpp>

#include <random>

#include "policy/cpu_ids.hpp"

using shoal::policy::cpu_occupancy;
using cpus = std::vector<uint32_t>;

BOOST_AUTO_TEST_SUITE(cpu_ids_tests)

BOOST_AUTO_TEST_CASE(jobs_get_free_cpus_lowest_first) {
  cpu_occupancy node{8};
  BOOST_TEST(node.take(3) == (cpus{0, 1, 2}), boost::test_tools::per_element());
  BOOST_TEST(node.take(2) == (cpus{3, 4}), boost::test_tools::per_element());
  node.give_back({0, 1, 2});
  // Freed CPUs are reused before anything is shared.
  BOOST_TEST(node.take(4) == (cpus{0, 1, 2, 5}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_job_asking_more_than_the_node_gets_nothing) {
  cpu_occupancy node{4};
  BOOST_TEST(node.take(5).empty());
  BOOST_TEST(node.take(0).empty());
  BOOST_TEST(node.holders(0) == 0u);
}

BOOST_AUTO_TEST_CASE(oversubscribed_cpus_are_shared_evenly) {
  cpu_occupancy node{4};
  node.take(4);
  BOOST_TEST(node.take(2) == (cpus{0, 1}), boost::test_tools::per_element());
  BOOST_TEST(node.take(2) == (cpus{2, 3}), boost::test_tools::per_element());
  for (uint32_t c = 0; c < 4; ++c) BOOST_TEST(node.holders(c) == 2u);
}

// Property: as long as the jobs on the node ask for no more than its CPUs in total, no CPU is
// ever held twice, whatever the order of starts and ends.
BOOST_AUTO_TEST_CASE(within_capacity_no_cpu_is_held_twice) {
  std::mt19937 rng{7};
  for (int round = 0; round < 200; ++round) {
    uint32_t size = 1 + rng() % 16;
    cpu_occupancy node{size};
    std::vector<cpus> held;
    uint32_t used = 0;
    for (int step = 0; step < 50; ++step) {
      if (!held.empty() && rng() % 2 == 0) {
        auto i = rng() % held.size();
        used -= static_cast<uint32_t>(held[i].size());
        node.give_back(held[i]);
        held.erase(held.begin() + static_cast<long>(i));
        continue;
      }
      if (used == size) continue;
      uint32_t want = 1 + rng() % (size - used);
      auto got = node.take(want);
      BOOST_REQUIRE(got.size() == want);
      used += want;
      held.push_back(got);
      for (uint32_t c = 0; c < size; ++c) BOOST_REQUIRE(node.holders(c) <= 1u);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_node_that_grows_or_shrinks_keeps_its_holders) {
  cpu_occupancy node{2};
  auto a = node.take(2);
  node.resize(4);
  BOOST_TEST(node.take(2) == (cpus{2, 3}), boost::test_tools::per_element());
  node.resize(1);
  BOOST_TEST(node.size() == 1u);
  node.give_back(a);  // CPU 1 is gone: ignored
  BOOST_TEST(node.holders(0) == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
