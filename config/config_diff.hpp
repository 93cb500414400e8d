#pragma once

#include <string>
#include <vector>

#include "config/config.hpp"

namespace shoal::config {

/// The settings that differ between two configurations, by the key `show config` renders them
/// under ("SlurmctldDebug", "KillWait", ...), alphabetical; "NodeName" when any node's line
/// differs and "PartitionName" when any partition's does. What a reconfigure compares: the file
/// read again against the configuration in force.
std::vector<std::string> changed_keys(const cluster_config& before, const cluster_config& after);

/// How the NodeName= lines of a file read again differ from the nodes in force, by name: what
/// a reconfigure adds, removes, and leaves for a restart (a node whose settings changed).
struct node_changes {
  std::vector<node_config> added;      ///< in the fresh file's order
  std::vector<std::string> removed;    ///< in the order they were in force
  std::vector<std::string> redefined;  ///< same name, other settings (same_node_settings)
  bool empty() const { return added.empty() && removed.empty() && redefined.empty(); }
};
node_changes compare_nodes(const std::vector<node_config>& in_force,
                           const std::vector<node_config>& fresh);

}  // namespace shoal::config
