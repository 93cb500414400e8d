// The running jobs a pass sees, kept as a vector: after any mix of starts, replacements and ends
// it holds what a map of the same events holds.

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "cluster/running_jobs.hpp"

using namespace shoal;

namespace {

/// One line per job, by id: what it holds and until when.
std::vector<std::string> described(std::vector<policy::running_job> jobs) {
  std::sort(jobs.begin(), jobs.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  std::vector<std::string> out;
  for (auto& j : jobs) {
    auto line = std::to_string(j.id) + " until " + std::to_string(j.end) + " on";
    for (auto& share : j.alloc) line += " " + std::to_string(share.node);
    out.push_back(std::move(line));
  }
  return out;
}

policy::running_job holding(uint64_t id, size_t node, int64_t end) {
  policy::running_job run;
  run.id = id;
  run.end = end;
  policy::node_share share;
  share.node = node;
  share.cpus = 1;
  run.alloc.push_back(share);
  return run;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(running_jobs_kept)

BOOST_AUTO_TEST_CASE(the_vector_holds_what_a_map_of_the_same_events_holds) {
  cluster::running_jobs kept;
  std::map<uint64_t, policy::running_job> expected;
  std::mt19937 rng(11);
  for (int step = 0; step < 2000; ++step) {
    uint64_t id = 1 + rng() % 64;
    auto what = rng() % 3;
    if (what == 0) {
      kept.erase(id);
      expected.erase(id);
    } else {
      // A start, or the same job again with other nodes (an array start given its task id).
      auto run = holding(id, rng() % 16, static_cast<int64_t>(rng() % 1000));
      kept.put(run);
      expected[id] = run;
    }
    std::vector<policy::running_job> from_map;
    for (auto& [job, run] : expected) from_map.push_back(run);
    BOOST_TEST(described(kept.all()) == described(from_map), boost::test_tools::per_element());
  }
}

BOOST_AUTO_TEST_CASE(erasing_what_does_not_run_changes_nothing) {
  cluster::running_jobs kept;
  kept.put(holding(1, 0, 10));
  kept.erase(2);
  BOOST_TEST(kept.all().size() == 1u);
  kept.erase(1);
  kept.erase(1);
  BOOST_TEST(kept.all().empty());
}

BOOST_AUTO_TEST_SUITE_END()
