#pragma once

#include <string>

#include "config/config.hpp"

namespace shoal::config {

/// True when two nodes can share one NodeName= line: everything but the name matches, and the
/// address is either the name for both or the same for both. Partition membership and where the
/// line was read are not settings of the node.
bool same_node_settings(const node_config& a, const node_config& b);

/// The PartitionName= line `show config` writes for `p` (where it was read left out).
std::string partition_line(const partition_config& p);

}  // namespace shoal::config
