#pragma once

// Values that travel in messages between actors of one process only (never on the wire), so
// CAF needs no serializer for them.

#include <caf/allowed_unsafe_message_type.hpp>

#include "policy/parsed_workload.hpp"
#include "state/records.hpp"

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(shoal::policy::workload_ptr)
// The state keeper's values, and what it hands its writer thread.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(shoal::state::value_ptr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(shoal::state::record_map)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<shoal::state::change>)
