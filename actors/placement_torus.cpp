#include "actors/placement_torus.hpp"

#include <algorithm>

namespace shoal::actors {

namespace {

/// The map a job may use: free base partitions of its partition, minus its exclusions. The
/// common case (a partition of the whole grid, nothing excluded) uses `map` as it is.
const topology::torus_map& usable_map(const torus_candidate& c, const topology::torus_map& map,
                                      const partition_slot& part, topology::torus_map& scratch) {
  if (part.nodes.size() == map.size() && c.job.excluded.empty()) return map;
  scratch = topology::torus_map{map.dims()};
  for (size_t i = 0; i < map.size(); ++i) scratch.set_available(i, false);
  for (auto n : part.nodes) scratch.set_available(n, map.available(n));
  for (auto n : c.job.excluded) scratch.set_available(n, false);
  return scratch;
}

}  // namespace

torus_pass_result schedule_torus_pass(std::vector<torus_candidate> queue, topology::torus_map& map,
                                      const std::vector<partition_slot>& partitions) {
  std::stable_sort(queue.begin(), queue.end(), [](const auto& a, const auto& b) {
    return a.job.priority != b.job.priority ? a.job.priority > b.job.priority : a.job.id < b.job.id;
  });
  torus_pass_result result;
  std::vector<bool> blocked(partitions.size(), false);
  size_t free_count = 0;
  for (size_t i = 0; i < map.size(); ++i) free_count += map.available(i) ? 1 : 0;
  topology::torus_map scratch{map.dims()};
  for (auto& c : queue) {
    const auto& part = partitions[c.job.partition];
    if (!part.up) {
      result.waiting.push_back({c.job.id, "PartitionDown"});
      continue;
    }
    if (blocked[c.job.partition]) {
      result.waiting.push_back({c.job.id, "Priority"});
      continue;
    }
    std::optional<topology::torus_allocation> where;
    if (free_count > 0) where = usable_map(c, map, part, scratch).place(c.shape);
    if (!where) {
      blocked[c.job.partition] = true;
      result.waiting.push_back({c.job.id, "Resources"});
      continue;
    }
    auto nodes = map.nodes_of(*where);
    for (auto n : nodes) map.set_available(n, false);
    free_count -= nodes.size();
    result.started.push_back({c.job.id, *where, std::move(nodes)});
  }
  return result;
}

}  // namespace shoal::actors
