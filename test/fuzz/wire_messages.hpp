#pragma once

// The table wire_messages_fuzz and its seed writer share: every message type of
// messages/shoal.capnp, in SHOAL_WIRE_STRUCTS' order. An input's first byte picks the type (its
// index, modulo the count), so the seeds are written by the same build that reads them.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "messages/types.hpp"

namespace shoal::fuzz {

/// One message type: its name and the check of a buffer read as it.
struct wire_message_type {
  const char* name;
  void (*check)(const uint8_t* data, size_t size, const std::vector<char>& body);
};

/// Every type, in SHOAL_WIRE_STRUCTS' order.
const std::vector<wire_message_type>& wire_message_types();

}  // namespace shoal::fuzz
