#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "policy/feature_constraint.hpp"
#include "topology/node_selection.hpp"
#include "topology/torus.hpp"

namespace shoal::policy {

/// SelectType: whole nodes (select/linear, select/consecutive) or consumable CPUs and memory
/// (select/cons_tres: jobs share nodes; a node partly used is MIXED).
enum class select_type : uint8_t { linear, consecutive, cons_tres };

/// One node as configured (CPUs=, RealMemory=, Gres=) and whether jobs may start on it now.
struct node_capacity {
  uint32_t cpus = 1;
  uint64_t memory_mb = 0;
  bool usable = true;  ///< false when DOWN, DRAINED, or not responding
  /// Generic resources: devices of each kind (an index into the cluster's table of configured
  /// name and type pairs); empty when the node has none.
  std::vector<uint32_t> gres{};
};

/// What a job needs of one generic resource on each node it uses (--gres=gpu:2): `count`
/// devices of any of `kinds` (gpu: every type of gpu; gpu:tesla: that type only).
struct gres_need {
  std::vector<uint32_t> kinds;
  uint32_t count = 0;

  friend bool operator==(const gres_need& a, const gres_need& b) {
    return a.count == b.count && a.kinds == b.kinds;
  }
};

/// How a job takes part in a partition's OverSubscribe (sbatch -s/--oversubscribe, --exclusive).
enum class share_request : uint8_t {
  as_partition,   ///< neither: shares only under OverSubscribe=FORCE
  oversubscribe,  ///< -s: shares under OverSubscribe=YES or FORCE
  exclusive,      ///< --exclusive: never shares, whatever the partition says
};

/// What a job asks for (sbatch -N, -n, -c, --mem, --mem-per-cpu, --ntasks-per-node, --mincpus,
/// --exclusive, -w, -x).
struct resource_request {
  uint32_t min_nodes = 1;        ///< -N MIN
  uint32_t max_nodes = 0;        ///< -N MIN-MAX; 0 = no upper bound
  uint32_t tasks = 1;            ///< -n; at least min_nodes (one task per node at least)
  uint32_t cpus_per_task = 1;    ///< -c
  uint64_t mem_per_node_mb = 0;  ///< --mem; 0 = not asked
  uint64_t mem_per_cpu_mb = 0;   ///< --mem-per-cpu; 0 = not asked (at most one of the two is set)
  uint32_t tasks_per_node = 0;   ///< --ntasks-per-node: at most this many on a node; 0 = any
  uint32_t min_cpus = 0;         ///< --mincpus: nodes with fewer CPUs are not used; 0 = any
  bool exclusive = false;        ///< whole nodes even under cons_tres (--exclusive, or
                                 ///< a whole-node SelectType)
  share_request sharing = share_request::as_partition;
  /// Jobs that may hold each of its CPUs (its nodes, for whole-node jobs) at once, itself
  /// included: the partition's OverSubscribe count when this job shares, else 1. The pass sets
  /// it; the caller leaves it at 1.
  uint32_t shared_by = 1;
  std::vector<size_t> required;  ///< -w, node indices
  std::vector<size_t> excluded;  ///< -x, node indices
  std::vector<gres_need> gres;   ///< --gres, per node; empty: none (the job gets no device)
  /// SelectType=select/torus3d: the job's prism request (--geometry, rotate, conn-type), for
  /// the picker; unset elsewhere.
  std::optional<topology::torus_request> torus;
  /// -C/--constraint resolved against the nodes (resolve_constraint): the job places under the
  /// first of these choices that fits. Null: any node.
  std::shared_ptr<const std::vector<feature_choice>> features;

  uint64_t total_cpus() const { return uint64_t{std::max(tasks, min_nodes)} * cpus_per_task; }
};

/// What a job holds on one node. A whole-node allocation holds all of the node's CPUs and memory.
struct node_share {
  size_t node = 0;
  uint32_t cpus = 0;
  uint64_t memory_mb = 0;
  uint32_t tasks = 0;  ///< tasks placed here (block distribution)
  /// OverSubscribe: up to this many jobs hold these CPUs at once (1: this job alone).
  uint32_t shared_by = 1;
  /// Generic resources: devices taken of each kind (node_capacity::gres); empty: none.
  std::vector<uint32_t> gres{};
  /// Which devices: positions in the node's device list, ascending. place() leaves it empty;
  /// the allocation map picks them when the job starts.
  std::vector<uint32_t> devices{};
};

/// A job's nodes, ascending by node index.
using allocation = std::vector<node_share>;

/// Free resources per node (index = node), as seen at some time. CPUs are counted in units of
/// 1/units_per_cpu CPU so that a job sharing its CPUs with up to N jobs (OverSubscribe) takes
/// 1/N of each; memory is never shared.
struct free_view {
  const std::vector<uint32_t>& cpus;
  const std::vector<uint64_t>& memory_mb;
  uint32_t units_per_cpu = 1;
  /// Where jobs may share (else null): units held by sharing jobs and by the others. A node
  /// holds one kind at a time, so CPUs are never both shared and someone's alone.
  const std::vector<uint32_t>* shared_units = nullptr;
  const std::vector<uint32_t>* sole_units = nullptr;
  /// Free devices of each generic resource kind: entry node * gres_kinds + kind (null: no node
  /// has any).
  const std::vector<uint32_t>* gres = nullptr;
  uint32_t gres_kinds = 0;
};

/// The devices of each kind that `needs` take on node n out of what `free` shows, kinds in
/// table order; nullopt when they are not all free. Empty needs take nothing (an empty vector).
std::optional<std::vector<uint32_t>> take_gres(const std::vector<gres_need>& needs, free_view free,
                                               size_t n);

/// The CPU units (see free_view) that `cpus` CPUs held together with up to `shared_by` jobs
/// take, rounded up.
inline uint64_t cpu_units(uint64_t cpus, uint32_t shared_by, uint32_t units_per_cpu) {
  uint32_t by = std::max<uint32_t>(1, shared_by);
  return (cpus * units_per_cpu + by - 1) / by;
}

/// The CPU units a share takes out of its node.
inline uint32_t units_of(const node_share& share, uint32_t units_per_cpu) {
  return static_cast<uint32_t>(cpu_units(share.cpus, share.shared_by, units_per_cpu));
}

/// How many jobs may hold each of the request's CPUs at once, itself included (1: none else).
inline uint32_t share_count(const resource_request& req) {
  return std::max<uint32_t>(1, req.shared_by);
}

/// Whether `req` takes whole nodes under `select` (a whole-node SelectType, or --exclusive).
inline bool takes_whole_nodes(const resource_request& req, select_type select) {
  return select != select_type::cons_tres || req.exclusive;
}

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
  /// Whole nodes by consecutive best fit whatever `select` says (an interconnect that wants its
  /// jobs on a contiguous range: switch/elan), --exclusive jobs under cons_tres included.
  bool consecutive_nodes = false;
  std::vector<uint32_t> weights;
  node_picker picker;
};

/// Whether node n can take a job that shares (`sharing`) or one that does not: a node holds
/// one kind at a time (always true where nothing shares).
inline bool kind_allows(free_view free, size_t n, bool sharing) {
  if (free.shared_units == nullptr) return true;
  return sharing ? (*free.sole_units)[n] == 0 : (*free.shared_units)[n] == 0;
}

/// Places `req` on `members` (a partition's nodes, config order) given what is free. Whole-node
/// jobs (linear, consecutive, or --exclusive under cons_tres) need nodes with nothing allocated;
/// they take at least min_nodes and more only while the CPUs fall short of tasks x cpus_per_task
/// (up to max_nodes). cons_tres jobs take CPUs and memory: the fewest nodes in weight order that
/// hold the tasks, at least min_nodes, one task per node at least, tasks filling nodes in order.
/// A job with shared_by = N > 1 (OverSubscribe) takes 1/N of each CPU it holds (1/N of each
/// whole node: CPUs and memory) on nodes holding only sharing jobs, and no CPU twice. On either
/// path a node is used only when the request's generic resources are free there; each share
/// takes them (node_share::gres), nothing more, even on a whole node. With a --constraint
/// (`req.features`) only eligible nodes are used, under the first choice that fits; each count
/// takes its nodes first, in weight order, then the rest are placed as usual.
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
  return free.cpus[n] == uint64_t{cap.cpus} * free.units_per_cpu &&
         free.memory_mb[n] == cap.memory_mb;
}

}  // namespace shoal::policy
