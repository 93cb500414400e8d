#include "policy/cpu_ids.hpp"

#include <algorithm>
#include <numeric>

namespace shoal::policy {

std::vector<uint32_t> cpu_occupancy::take(uint32_t count) {
  if (count == 0 || count > holders_.size()) return {};
  std::vector<uint32_t> order(holders_.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return holders_[a] < holders_[b]; });
  order.resize(count);
  std::sort(order.begin(), order.end());
  for (auto cpu : order) ++holders_[cpu];
  return order;
}

void cpu_occupancy::give_back(const std::vector<uint32_t>& cpus) {
  for (auto cpu : cpus)
    if (cpu < holders_.size() && holders_[cpu] > 0) --holders_[cpu];
}

void cpu_occupancy::resize(uint32_t cpus) {
  holders_.resize(cpus, 0);
}

}  // namespace shoal::policy
