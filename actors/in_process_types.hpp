#pragma once

// Values that travel in messages between actors of one process only (never on the wire), so
// CAF needs no serializer for them.

#include <caf/allowed_unsafe_message_type.hpp>

#include <memory>
#include <vector>

#include "config/config.hpp"
#include "policy/parsed_workload.hpp"
#include "state/records.hpp"

namespace shoal::actors {

/// Every partition as the controller has it now, shared with the actors it tells.
using partition_table = std::shared_ptr<const std::vector<config::partition_config>>;

}  // namespace shoal::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(shoal::policy::workload_ptr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(shoal::actors::partition_table)
// The state keeper's values, and what it hands its writer thread.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(shoal::state::value_ptr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(shoal::state::record_map)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<shoal::state::change>)
