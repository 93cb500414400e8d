#include "policy/lending.hpp"

#include <algorithm>

namespace shoal::policy {

void lend(running_job& r, int64_t now, const std::function<uint64_t(size_t)>& node_memory) {
  if (!r.lent.empty()) return;
  r.remaining = r.end >= forever ? forever : std::max<int64_t>(0, r.end - now);
  r.end = forever;
  for (auto& kept : r.alloc) {
    node_share lent = kept;
    lent.gres.clear();
    lent.devices.clear();
    kept.cpus = 0;
    kept.tasks = 0;
    if (kept.memory_mb >= node_memory(kept.node))
      kept.memory_mb = 0;
    else
      lent.memory_mb = 0;
    r.lent.push_back(std::move(lent));
  }
}

void take_back(running_job& r, int64_t now) {
  if (r.lent.empty()) return;
  for (size_t i = 0; i < r.alloc.size() && i < r.lent.size(); ++i) {
    r.alloc[i].cpus = r.lent[i].cpus;
    r.alloc[i].tasks = r.lent[i].tasks;
    r.alloc[i].memory_mb += r.lent[i].memory_mb;
  }
  r.lent.clear();
  r.end = later(now, r.remaining);
  r.remaining = forever;
}

}  // namespace shoal::policy
