#include "topology/task_layout.hpp"

namespace shoal::topology {

std::vector<uint32_t> block_task_counts(uint32_t ntasks, uint32_t nodes) {
  if (nodes == 0) return {};
  std::vector<uint32_t> counts(nodes, ntasks / nodes);
  for (uint32_t i = 0; i < ntasks % nodes; ++i) ++counts[i];
  return counts;
}

std::string compress_counts(const std::vector<uint32_t>& counts) {
  std::string out;
  for (size_t i = 0; i < counts.size();) {
    size_t run = 1;
    while (i + run < counts.size() && counts[i + run] == counts[i]) ++run;
    if (!out.empty()) out += ',';
    out += std::to_string(counts[i]);
    if (run > 1) out += "(x" + std::to_string(run) + ")";
    i += run;
  }
  return out;
}

}  // namespace shoal::topology
