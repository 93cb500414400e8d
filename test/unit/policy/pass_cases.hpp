#pragma once

// Builders and readers the pure-pass test cases share: uniform nodes, a partition of all of them,
// and what a pass_result says of one job.

#include <string>
#include <vector>

#include "policy/scheduling_pass.hpp"

namespace shoal::policy::test_cases {

/// `n` usable nodes of 4 CPUs and 4,000 MB each.
inline std::vector<node_capacity> uniform_nodes(size_t n) {
  return std::vector<node_capacity>(n, node_capacity{4, 4000, true});
}

/// A partition holding nodes 0..n-1.
inline partition_info partition_of_all(size_t n) {
  partition_info p;
  for (size_t i = 0; i < n; ++i) p.nodes.push_back(i);
  return p;
}

/// The reason job `id` waits with ("" when it does not wait).
inline std::string reason_in(const pass_result& r, uint64_t id) {
  for (const auto& w : r.waiting)
    if (w.job == id) return w.reason;
  return "";
}

/// How many starts (tasks) job `id` got.
inline size_t starts_of(const pass_result& r, uint64_t id) {
  size_t n = 0;
  for (const auto& d : r.started) n += d.job == id;
  return n;
}

}  // namespace shoal::policy::test_cases
