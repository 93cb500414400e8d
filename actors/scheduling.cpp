#include "actors/scheduling.hpp"

#include <algorithm>

namespace shoal::actors {

namespace {

/// Picks nodes for one job among the free members of its partition, or explains why not.
std::optional<std::vector<size_t>> place(const pending_job& job,
                                         const std::vector<bool>& free_nodes,
                                         const partition_slot& part,
                                         const std::vector<uint32_t>& weights,
                                         topology::selection_policy policy, std::string& reason) {
  std::vector<size_t> required = job.required;
  std::sort(required.begin(), required.end());
  required.erase(std::unique(required.begin(), required.end()), required.end());
  for (auto r : required) {
    if (!free_nodes[r]) {
      reason = "ReqNodeNotAvail";
      return std::nullopt;
    }
  }
  if (required.size() > job.nodes) {
    reason = "BadConstraints";
    return std::nullopt;
  }
  // The selection runs over the partition's members only, in config order.
  std::vector<bool> avail(part.nodes.size());
  std::vector<uint32_t> member_weights;
  if (!weights.empty()) member_weights.resize(part.nodes.size());
  for (size_t i = 0; i < part.nodes.size(); ++i) {
    auto n = part.nodes[i];
    avail[i] = free_nodes[n] &&
               std::find(job.excluded.begin(), job.excluded.end(), n) == job.excluded.end() &&
               std::find(job.required.begin(), job.required.end(), n) == job.required.end();
    if (!weights.empty()) member_weights[i] = weights[n];
  }
  auto wanted = job.nodes - required.size();
  auto picked = topology::select_nodes(policy, avail, wanted, member_weights);
  if (!picked) {
    reason = "Resources";
    return std::nullopt;
  }
  std::vector<size_t> nodes = required;
  for (auto i : *picked) nodes.push_back(part.nodes[i]);
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  return nodes;
}

}  // namespace

pass_result schedule_pass(std::vector<pending_job> queue, std::vector<bool>& free_nodes,
                          const std::vector<partition_slot>& partitions,
                          const std::vector<uint32_t>& weights, topology::selection_policy policy) {
  std::sort(queue.begin(), queue.end(), [](const pending_job& a, const pending_job& b) {
    return a.priority != b.priority ? a.priority > b.priority : a.id < b.id;
  });
  pass_result result;
  std::vector<bool> blocked(partitions.size(), false);
  auto free_count = static_cast<size_t>(std::count(free_nodes.begin(), free_nodes.end(), true));
  for (auto& job : queue) {
    const auto& part = partitions[job.partition];
    if (!part.up) {
      result.waiting.push_back({job.id, "PartitionDown"});
      continue;
    }
    if (blocked[job.partition]) {
      result.waiting.push_back({job.id, "Priority"});
      continue;
    }
    std::string reason;
    if (free_count == 0 && job.required.empty()) {
      // Nothing is free: skip the placement work, the answer is known.
      blocked[job.partition] = true;
      result.waiting.push_back({job.id, "Resources"});
      continue;
    }
    auto nodes = place(job, free_nodes, part, weights, policy, reason);
    if (!nodes) {
      // A job waiting for specific nodes does not hold back the rest of its partition.
      if (reason == "Resources") blocked[job.partition] = true;
      result.waiting.push_back({job.id, reason});
      continue;
    }
    for (auto n : *nodes) free_nodes[n] = false;
    free_count -= nodes->size();
    result.started.push_back({job.id, std::move(*nodes)});
  }
  return result;
}

}  // namespace shoal::actors

namespace shoal::actors {

std::vector<std::vector<uint32_t>> distribute_tasks(uint32_t ntasks, uint32_t nodes) {
  std::vector<std::vector<uint32_t>> out(nodes);
  if (nodes == 0) return out;
  uint32_t base = ntasks / nodes;
  uint32_t extra = ntasks % nodes;
  uint32_t rank = 0;
  for (uint32_t n = 0; n < nodes; ++n) {
    uint32_t count = base + (n < extra ? 1 : 0);
    for (uint32_t i = 0; i < count; ++i) out[n].push_back(rank++);
  }
  return out;
}

}  // namespace shoal::actors
