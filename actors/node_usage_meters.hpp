#pragma once

// A node's own figures in its shoald's /metrics: load by period, CPU time by mode, memory by
// kind, each labelled with the node's name.

#include <optional>
#include <string>

#include "messages/types.hpp"
#include "metrics/registry.hpp"

namespace shoal::actors {

struct node_usage_gauges {
  metrics::gauge* load[3] = {};
  metrics::gauge* cpu[3] = {};
  metrics::gauge* memory[2] = {};
  /// Sets every series from one reading.
  void set(const msg::node_usage& now);
};

/// The series of `node` in `meters` (nullopt when not metered).
std::optional<node_usage_gauges> make_node_usage_gauges(metrics::registry* meters,
                                                        const std::string& node);

}  // namespace shoal::actors
