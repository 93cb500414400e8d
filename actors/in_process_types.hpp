#pragma once

// Values that travel in messages between actors of one process only (never on the wire), so
// CAF needs no serializer for them.

#include <caf/allowed_unsafe_message_type.hpp>

#include "policy/parsed_workload.hpp"

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(shoal::policy::workload_ptr)
