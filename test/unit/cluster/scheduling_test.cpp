#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <vector>

#include "cluster/scheduling.hpp"

using shoal::cluster::distribute_tasks;

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

BOOST_AUTO_TEST_CASE(cyclic_deals_ranks_to_the_nodes_in_turn) {
  BOOST_CHECK(distribute_tasks(4, 2, true) == (ranks{{0, 2}, {1, 3}}));
  BOOST_CHECK(distribute_tasks(7, 3, true) == (ranks{{0, 3, 6}, {1, 4}, {2, 5}}));
  BOOST_CHECK(distribute_tasks(2, 3, true) == (ranks{{0}, {1}, {}}));
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
