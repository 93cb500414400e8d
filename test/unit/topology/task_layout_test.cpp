#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "topology/task_layout.hpp"

using namespace shoal::topology;

using counts = std::vector<uint32_t>;

BOOST_AUTO_TEST_SUITE(task_layout)

BOOST_AUTO_TEST_CASE(counts_compress_as_slurms_uint16_array_to_str) {
  // The example in Slurm's src/common/env.c, and the forms SLURM_TASKS_PER_NODE shows.
  BOOST_TEST(compress_counts({1, 2, 1, 1, 1, 3, 2}) == "1,2,1(x3),3,2");
  BOOST_TEST(compress_counts({2, 2, 2, 1}) == "2(x3),1");
  BOOST_TEST(compress_counts({4, 4}) == "4(x2)");
  BOOST_TEST(compress_counts({1}) == "1");
  BOOST_TEST(compress_counts({3, 1, 3}) == "3,1,3");
  BOOST_TEST(compress_counts({0, 0}) == "0(x2)");
  BOOST_TEST(compress_counts({65536, 65536, 7}) == "65536(x2),7");
  BOOST_TEST(compress_counts({}) == "");
}

BOOST_AUTO_TEST_CASE(block_counts_give_the_first_nodes_the_remainder) {
  BOOST_TEST(block_task_counts(7, 3) == (counts{3, 2, 2}));
  BOOST_TEST(block_task_counts(8, 4) == (counts{2, 2, 2, 2}));
  BOOST_TEST(block_task_counts(2, 4) == (counts{1, 1, 0, 0}));
  BOOST_TEST(block_task_counts(1, 1) == (counts{1}));
  BOOST_TEST(block_task_counts(5, 0).empty());
  BOOST_TEST(compress_counts(block_task_counts(7, 4)) == "2(x3),1");
  BOOST_TEST(compress_counts(block_task_counts(10, 4)) == "3(x2),2(x2)");
}

BOOST_AUTO_TEST_CASE(block_counts_hold_every_task_and_differ_by_at_most_one) {
  for (uint32_t nodes = 1; nodes <= 17; ++nodes) {
    for (uint32_t ntasks = 0; ntasks <= 60; ++ntasks) {
      auto c = block_task_counts(ntasks, nodes);
      BOOST_REQUIRE_EQUAL(c.size(), nodes);
      BOOST_TEST(std::accumulate(c.begin(), c.end(), 0u) == ntasks);
      for (size_t i = 1; i < c.size(); ++i) {
        BOOST_TEST(c[i] <= c[i - 1]);
        BOOST_TEST(c[0] - c[i] <= 1u);
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
