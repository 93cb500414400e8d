#include "topology/node_selection.hpp"

#include <algorithm>
#include <stdexcept>

namespace shoal::topology {

namespace {

/// A maximal run of consecutive permitted nodes.
struct run {
  size_t start = 0;
  size_t length = 0;
};

std::vector<size_t> pick_linear(const std::vector<bool>& permitted, size_t count) {
  std::vector<size_t> chosen;
  chosen.reserve(count);
  for (size_t i = 0; i < permitted.size() && chosen.size() < count; ++i)
    if (permitted[i]) chosen.push_back(i);
  return chosen;
}

std::vector<size_t> pick_consecutive(const std::vector<bool>& permitted, size_t count) {
  std::vector<run> runs;
  for (size_t i = 0; i < permitted.size();) {
    if (!permitted[i]) {
      ++i;
      continue;
    }
    auto start = i;
    while (i < permitted.size() && permitted[i]) ++i;
    runs.push_back({start, i - start});
  }
  std::vector<size_t> chosen;
  chosen.reserve(count);
  // Best fit: the smallest run that holds the whole request leaves the larger runs for later
  // jobs. Strict '<' keeps the earliest run among equals.
  const run* best = nullptr;
  for (const auto& r : runs)
    if (r.length >= count && (best == nullptr || r.length < best->length)) best = &r;
  if (best != nullptr) {
    for (size_t k = 0; k < count; ++k) chosen.push_back(best->start + k);
    return chosen;
  }
  // No run fits: the fewest runs, so the largest first; stable_sort keeps the earliest first
  // among runs of equal length.
  std::stable_sort(runs.begin(), runs.end(),
                   [](const run& a, const run& b) { return a.length > b.length; });
  for (const auto& r : runs) {
    auto take = std::min(r.length, count - chosen.size());
    for (size_t k = 0; k < take; ++k) chosen.push_back(r.start + k);
    if (chosen.size() == count) break;
  }
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

}  // namespace

std::optional<std::vector<size_t>> select_nodes(selection_policy policy,
                                                const std::vector<bool>& available, size_t count,
                                                const std::vector<uint32_t>& weights) {
  if (!weights.empty() && weights.size() != available.size())
    throw std::invalid_argument("select_nodes: weights must be empty or one per node");
  if (count == 0) return std::vector<size_t>{};
  std::vector<uint32_t> candidate_weights;
  size_t total = 0;
  for (size_t i = 0; i < available.size(); ++i) {
    if (!available[i]) continue;
    ++total;
    if (!weights.empty()) candidate_weights.push_back(weights[i]);
  }
  if (total < count) return std::nullopt;
  // Trying the weight tiers one by one stops at the first tier whose nodes, together with all
  // lighter ones, number at least `count`: that tier's weight is the count-th smallest weight.
  // Finding it directly keeps the selection O(n) however many distinct weights there are.
  auto permitted = available;
  if (!weights.empty()) {
    auto nth = candidate_weights.begin() + static_cast<std::ptrdiff_t>(count - 1);
    std::nth_element(candidate_weights.begin(), nth, candidate_weights.end());
    auto limit = *nth;
    for (size_t i = 0; i < permitted.size(); ++i)
      if (permitted[i] && weights[i] > limit) permitted[i] = false;
  }
  switch (policy) {
    case selection_policy::linear:
      return pick_linear(permitted, count);
    case selection_policy::consecutive:
      return pick_consecutive(permitted, count);
  }
  return std::nullopt;
}

}  // namespace shoal::topology
