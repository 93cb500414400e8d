#pragma once

// Values that travel in messages between actors of one process only (never on the wire), so
// CAF needs no serializer for them.

#include <caf/allowed_unsafe_message_type.hpp>

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "config/config.hpp"
#include "policy/parsed_workload.hpp"
#include "state/records.hpp"

namespace shoal::actors {

/// Every partition as the controller has it now, shared with the actors it tells, each at the
/// slot it was first given: a queued job keeps its partition's slot when partitions change, and
/// a deleted partition's slot stays empty (nothing is placed in it again).
using partition_table = std::shared_ptr<const std::vector<std::optional<config::partition_config>>>;

/// A configuration file as a reconfigure read it (runtime/bootstrap/reconfigure.hpp), whose nodes
/// and partitions the controller applies (actors/controller/layout.cpp).
using config_ptr = std::shared_ptr<const config::cluster_config>;

/// The table `parts` make, `slots` (name -> slot, kept by the caller across calls) giving each
/// its slot; a name not seen before takes the next one. The first call gives the config's order.
inline partition_table slotted(const std::vector<config::partition_config>& parts,
                               std::unordered_map<std::string, size_t>& slots) {
  for (auto& p : parts) slots.emplace(p.name, slots.size());
  std::vector<std::optional<config::partition_config>> table(slots.size());
  for (auto& p : parts) table[slots.at(p.name)] = p;
  return std::make_shared<const decltype(table)>(std::move(table));
}

}  // namespace shoal::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(shoal::policy::workload_ptr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(shoal::actors::partition_table)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(shoal::actors::config_ptr)
// The state keeper's values, and what it hands its writer thread.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(shoal::state::value_ptr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(shoal::state::record_map)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<shoal::state::change>)
