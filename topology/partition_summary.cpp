#include "topology/partition_summary.hpp"

#include <algorithm>

#include "topology/hostlist.hpp"

namespace shoal::topology {

std::vector<msg::partition_summary> summarize_partitions(
    std::vector<msg::partition_info> parts,
    const std::function<msg::node_state(const std::string&)>& state_of,
    const std::function<std::string(const std::vector<std::string>&)>& compress) {
  std::vector<msg::partition_summary> out;
  out.reserve(parts.size());
  for (auto& p : parts) {
    std::vector<std::pair<msg::node_state, std::vector<std::string>>> groups;
    for (auto& name : p.nodes) {
      auto state = state_of(name);
      auto g = std::find_if(groups.begin(), groups.end(),
                            [&](const auto& group) { return group.first == state; });
      if (g == groups.end()) {
        groups.emplace_back(state, std::vector<std::string>{});
        g = groups.end() - 1;
      }
      g->second.push_back(name);
    }
    msg::partition_summary s;
    for (auto& [state, names] : groups) {
      msg::state_group group;
      group.state = state;
      group.count = static_cast<uint32_t>(names.size());
      group.nodes = compress ? compress(names) : compress_hostlist_sorted(names);
      s.groups.push_back(std::move(group));
    }
    p.nodes.clear();
    s.partition = std::move(p);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace shoal::topology
