// Fuzz target for every message decoder (messages/codec.hpp): what CAF hands shoal's inspect to
// decode when a peer on SlurmctldPort, a node daemon or a collector sends a message
// (messages/caf/inspect.hpp), what shoal-stepd and shoald read from each other, and what the
// state keeper reads back from disk. The first input byte picks the type (wire_messages.hpp),
// the rest is the buffer; the property is test/fuzz/round_trip.hpp's. Built as a libFuzzer
// binary with clang (scripts/fuzz.sh --target wire_messages) and, with any compiler, into
// wire_messages_fuzz_replay, which ctest runs on seeds the build writes
// (wire_messages_seeds.cpp: one encoding of each type, every field set where the message
// tests have a sample).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "test/fuzz/round_trip.hpp"
#include "test/fuzz/wire_messages.hpp"

namespace shoal::fuzz {

const std::vector<wire_message_type>& wire_message_types() {
#define SHOAL_FUZZ_TYPE(type, wire_type)                                                          \
  wire_message_type{#type, [](const uint8_t* data, size_t size, const std::vector<char>& body) {  \
                      check_round_trip<msg::type>("wire messages (" #type ")", data, size, body); \
                    }},
  static const std::vector<wire_message_type> types{SHOAL_WIRE_STRUCTS(SHOAL_FUZZ_TYPE)};
#undef SHOAL_FUZZ_TYPE
  return types;
}

}  // namespace shoal::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto& types = shoal::fuzz::wire_message_types();
  std::vector<char> body(reinterpret_cast<const char*>(data) + 1,
                         reinterpret_cast<const char*>(data) + size);
  types[data[0] % types.size()].check(data, size, body);
  return 0;
}
