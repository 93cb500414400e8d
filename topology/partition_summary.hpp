#pragma once

#include <functional>
#include <string>
#include <vector>

#include "messages/types.hpp"

namespace shoal::topology {

/// `shoal info`'s default grouping: for each partition, in order, one group per node state in
/// the order the partition's nodes first show it, each with its count and its nodes as a sorted
/// hostlist (compress_hostlist_sorted); a partition without nodes gets no group. The partitions
/// come back with their node lists emptied: the groups say it all. The controller runs it (its
/// reply is a few lines at any cluster size) and the CLI's tests hold it to the full listing.
/// `compress`, when given, prints each group's nodes instead (on a torus: the box form).
std::vector<msg::partition_summary> summarize_partitions(
    std::vector<msg::partition_info> parts,
    const std::function<msg::node_state(const std::string&)>& state_of,
    const std::function<std::string(const std::vector<std::string>&)>& compress = {});

}  // namespace shoal::topology
