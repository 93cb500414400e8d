#include "actors/scheduling.hpp"

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
