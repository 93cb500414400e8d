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

}  // namespace shoal::config
