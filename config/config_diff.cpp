#include "config/config_diff.hpp"

#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

#include "config/config_lines.hpp"

namespace shoal::config {

namespace {

/// render_config's text as the reconfigure compares it: `Key = Value` settings by key (a key
/// given several times, as SlurmctldHost, keeps every value in order) and the node and
/// partition lines as they stand.
struct rendered {
  std::map<std::string, std::string> settings;
  std::multiset<std::string> nodes;
  std::multiset<std::string> partitions;
};

rendered split(const cluster_config& cfg) {
  rendered out;
  std::istringstream in{render_config(cfg)};
  std::string line;
  std::getline(in, line);  // "Configuration data as of FILE": names the file, not a setting
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line.rfind("NodeName=", 0) == 0) {
      out.nodes.insert(line);
      continue;
    }
    if (line.rfind("PartitionName=", 0) == 0) {
      out.partitions.insert(line);
      continue;
    }
    auto eq = line.find(" = ");
    if (eq == std::string::npos) continue;
    auto key = line.substr(0, line.find_last_not_of(' ', eq) + 1);
    auto& value = out.settings[key];
    value += (value.empty() ? "" : "\n") + line.substr(eq + 3);
  }
  return out;
}

}  // namespace

std::vector<std::string> changed_keys(const cluster_config& before, const cluster_config& after) {
  auto a = split(before);
  auto b = split(after);
  std::set<std::string> keys;
  for (const auto& [key, value] : a.settings) {
    auto it = b.settings.find(key);
    if (it == b.settings.end() || it->second != value) keys.insert(key);
  }
  for (const auto& [key, value] : b.settings)
    if (a.settings.count(key) == 0) keys.insert(key);
  if (a.nodes != b.nodes) keys.insert("NodeName");
  if (a.partitions != b.partitions) keys.insert("PartitionName");
  return {keys.begin(), keys.end()};
}

node_changes compare_nodes(const std::vector<node_config>& in_force,
                           const std::vector<node_config>& fresh) {
  std::unordered_map<std::string, const node_config*> before;
  for (const auto& n : in_force) before.emplace(n.name, &n);
  node_changes out;
  std::unordered_map<std::string, bool> kept;
  for (const auto& n : fresh) {
    auto it = before.find(n.name);
    if (it == before.end()) {
      out.added.push_back(n);
      continue;
    }
    kept[n.name] = true;
    if (!same_node_settings(*it->second, n)) out.redefined.push_back(n.name);
  }
  for (const auto& n : in_force)
    if (kept.count(n.name) == 0) out.removed.push_back(n.name);
  return out;
}

}  // namespace shoal::config
