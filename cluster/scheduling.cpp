#include "cluster/scheduling.hpp"

#include "topology/task_layout.hpp"

namespace shoal::cluster {

std::vector<std::vector<uint32_t>> distribute_tasks(uint32_t ntasks, uint32_t nodes, bool cyclic) {
  // The counts come from the one function SLURM_TASKS_PER_NODE is computed from, so the
  // variable always describes the launch (dealing in turn gives the first nodes the extra
  // tasks too).
  std::vector<std::vector<uint32_t>> out(nodes);
  if (cyclic) {
    for (uint32_t rank = 0; rank < ntasks && nodes > 0; ++rank) out[rank % nodes].push_back(rank);
    return out;
  }
  auto counts = topology::block_task_counts(ntasks, nodes);
  uint32_t rank = 0;
  for (uint32_t n = 0; n < nodes; ++n)
    for (uint32_t i = 0; i < counts[n]; ++i) out[n].push_back(rank++);
  return out;
}

}  // namespace shoal::cluster
