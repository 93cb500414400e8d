#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "topology/node_selection.hpp"
#include "topology/torus.hpp"

namespace shoal::policy {

/// SelectType: whole nodes (select/linear, select/consecutive) or consumable CPUs and memory
/// (select/cons_tres: jobs share nodes; a node partly used is MIXED).
enum class select_type : uint8_t { linear, consecutive, cons_tres };

/// One node as configured (CPUs=, RealMemory=) and whether jobs may start on it now.
struct node_capacity {
  uint32_t cpus = 1;
  uint64_t memory_mb = 0;
  bool usable = true;  ///< false when DOWN, DRAINED, or not responding
};

/// What a job asks for (sbatch -N, -n, -c, --mem, --mem-per-cpu, --exclusive, -w, -x).
struct resource_request {
  uint32_t min_nodes = 1;        ///< -N MIN
  uint32_t max_nodes = 0;        ///< -N MIN-MAX; 0 = no upper bound
  uint32_t tasks = 1;            ///< -n; at least min_nodes (one task per node at least)
  uint32_t cpus_per_task = 1;    ///< -c
  uint64_t mem_per_node_mb = 0;  ///< --mem; 0 = not asked
  uint64_t mem_per_cpu_mb = 0;   ///< --mem-per-cpu; 0 = not asked (at most one of the two is set)
  bool exclusive = false;        ///< --exclusive: whole nodes even under cons_tres
  std::vector<size_t> required;  ///< -w, node indices
  std::vector<size_t> excluded;  ///< -x, node indices
  /// SelectType=select/torus3d: the job's prism request (--geometry, rotate, conn-type), for
  /// the picker; unset elsewhere.
  std::optional<topology::torus_request> torus;

  uint64_t total_cpus() const { return uint64_t{std::max(tasks, min_nodes)} * cpus_per_task; }
};

/// What a job holds on one node. A whole-node allocation holds all of the node's CPUs and memory.
struct node_share {
  size_t node = 0;
  uint32_t cpus = 0;
  uint64_t memory_mb = 0;
  uint32_t tasks = 0;  ///< tasks placed here (block distribution)
};

/// A job's nodes, ascending by node index.
using allocation = std::vector<node_share>;

/// Free resources per node (index = node), as seen at some time.
struct free_view {
  const std::vector<uint32_t>& cpus;
  const std::vector<uint64_t>& memory_mb;
};

/// Picks `count` nodes for `req` among `available` (positions in `members`, node indices); the
/// hook where a topology-aware allocator (the 3-D torus) replaces topology::select_nodes for
/// whole-node jobs. It may return more than `count` (a prism's volume).
using node_picker = std::function<std::optional<std::vector<size_t>>(
    const resource_request& req, const std::vector<size_t>& members,
    const std::vector<bool>& available, size_t count, const std::vector<uint32_t>& weights)>;

/// How to place: the SelectType, node weights (Weight=, one per node or empty) and an optional
/// picker overriding select_nodes (linear or consecutive as `select` says).
struct placement_options {
  select_type select = select_type::linear;
  std::vector<uint32_t> weights;
  node_picker picker;
};

/// Places `req` on `members` (a partition's nodes, config order) given what is free. Whole-node
/// jobs (linear, consecutive, or --exclusive under cons_tres) need nodes with nothing allocated;
/// they take at least min_nodes and more only while the CPUs fall short of tasks x cpus_per_task
/// (up to max_nodes). cons_tres jobs take CPUs and memory: the fewest nodes in weight order that
/// hold the tasks, at least min_nodes, one task per node at least, tasks filling nodes in order.
/// Never allocates more than `free` shows. Returns nullopt when the job does not fit.
std::optional<allocation> place(const resource_request& req, const std::vector<size_t>& members,
                                const std::vector<node_capacity>& nodes, free_view free,
                                const placement_options& options);

/// How much of a node jobs hold, for the node state sinfo shows (IDLE, MIXED, ALLOCATED).
enum class node_use : uint8_t { idle, mixed, allocated };

/// MIXED when some but not all CPUs are allocated (or only memory is); ALLOCATED when every CPU
/// is (a whole-node job always is).
inline node_use usage_of(const node_capacity& cap, uint32_t cpus_allocated,
                         uint64_t memory_allocated) {
  if (cpus_allocated >= cap.cpus && cap.cpus > 0) return node_use::allocated;
  if (cpus_allocated > 0 || memory_allocated > 0) return node_use::mixed;
  return node_use::idle;
}

/// Whether a node is idle in `free` (all CPUs and memory free): a whole-node job may take it.
inline bool idle(const node_capacity& cap, free_view free, size_t n) {
  return free.cpus[n] == cap.cpus && free.memory_mb[n] == cap.memory_mb;
}

}  // namespace shoal::policy
