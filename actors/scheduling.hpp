#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "topology/node_selection.hpp"

namespace shoal::actors {

/// A pending job as the scheduling pass sees it. Node references are indices into the cluster's
/// node list (config order).
struct pending_job {
  uint64_t id = 0;
  int64_t priority = 0;          ///< higher runs first; ties go to the lower (older) id
  uint32_t nodes = 1;            ///< whole nodes wanted
  size_t partition = 0;          ///< index into the partition list
  std::vector<size_t> required;  ///< nodes the job must get (-w)
  std::vector<size_t> excluded;  ///< nodes the job must not get (-x)
};

struct partition_slot {
  bool up = true;             ///< State=UP: jobs may start
  std::vector<size_t> nodes;  ///< member nodes, config order
};

/// One decision of a pass: start `job` on `nodes` (ascending indices).
struct placement {
  uint64_t job = 0;
  std::vector<size_t> nodes;
};

/// Why a job stays pending after a pass (Slurm's reason names).
struct pending_reason {
  uint64_t job = 0;
  std::string reason;  ///< Resources, Priority, PartitionDown, ReqNodeNotAvail
};

struct pass_result {
  std::vector<placement> started;
  std::vector<pending_reason> waiting;
};

/// One FCFS/priority pass (Programmer's Guide: "start jobs in priority order"): jobs are taken
/// in priority order, then submit order; the first job of a partition that cannot start holds
/// back the jobs behind it in that partition (reason Priority) so big jobs are not starved.
/// `free_nodes` (one flag per node) is updated for every placement. Pure: no actors, no clock.
pass_result schedule_pass(std::vector<pending_job> queue, std::vector<bool>& free_nodes,
                          const std::vector<partition_slot>& partitions,
                          const std::vector<uint32_t>& weights, topology::selection_policy policy);

}  // namespace shoal::actors

namespace shoal::actors {

/// Slurm's default "block" distribution: ranks 0..k-1 on the first node, and so on; when tasks
/// do not divide evenly the first nodes get one more. Returns one rank list per node; nodes
/// beyond `ntasks` get none.
std::vector<std::vector<uint32_t>> distribute_tasks(uint32_t ntasks, uint32_t nodes);

}  // namespace shoal::actors
