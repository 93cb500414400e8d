#pragma once

// How a step's tasks spread over its nodes, counted per node, and those counts as Slurm writes
// them (SLURM_TASKS_PER_NODE).

#include <cstdint>
#include <string>
#include <vector>

namespace shoal::topology {

/// Tasks per node under the block distribution shoal launches with (cluster::distribute_tasks):
/// `ntasks / nodes` each, and one more on each of the first `ntasks % nodes` nodes. `nodes`
/// entries, zeros included when there are fewer tasks than nodes; empty when `nodes` is 0.
///
/// On nodes that all fit their share this is what Slurm's block layout gives too. Slurm weighs
/// its layout by each node's CPUs (a node with more CPUs takes more of the remainder); shoal's
/// launch does not, and these counts describe what shoal launches.
std::vector<uint32_t> block_task_counts(uint32_t ntasks, uint32_t nodes);

/// `counts` in Slurm's compressed form (src/common/env.c, uint16_array_to_str): a run of N > 1
/// equal values is written `V(xN)`, a single value `V`, runs joined by commas: {2, 2, 2, 1} ->
/// "2(x3),1", {1, 2, 1} -> "1,2,1". Empty for no counts.
std::string compress_counts(const std::vector<uint32_t>& counts);

}  // namespace shoal::topology
