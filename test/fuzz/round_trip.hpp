#pragma once

// The property every message decoder is fuzzed for (client_frame_fuzz, wire_messages_fuzz): any
// buffer decodes without throwing, or fails with malformed_message or incompatible_version; what
// decodes re-encodes to a buffer that decodes again, and to the same bytes the second time (a
// round trip neither loses nor alters a field). A violated property aborts with the input shown.

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "messages/codec.hpp"
#include "messages/errc.hpp"
#include "test/fuzz/violated.hpp"

namespace shoal::fuzz {

inline bool is_documented_decode_error(const shoal::error& err) {
  return err == errc::malformed_message || err == errc::incompatible_version;
}

/// Checks the property for `body` read as a `Message`; `target`, `data` and `size` name the
/// whole input in a report.
template <class Message>
void check_round_trip(const char* target, const uint8_t* data, size_t size,
                      const std::vector<char>& body) {
  std::string_view input{reinterpret_cast<const char*>(data), size};
  try {
    Message first;
    if (auto err = msg::decode(body, first)) {
      if (!is_documented_decode_error(err))
        violated(target, input, "decode fails with an undocumented error", describe(err));
      return;
    }
    auto encoded = msg::encode(first);
    Message second;
    if (auto err = msg::decode(encoded, second))
      violated(target, input, "the re-encoded value does not decode", describe(err));
    if (msg::encode(second) != encoded)
      violated(target, input, "a round trip changes the value", "");
  } catch (const std::exception& e) {
    violated(target, input, "the codec throws", e.what());
  } catch (...) {
    violated(target, input, "the codec throws", "(not a std::exception)");
  }
}

}  // namespace shoal::fuzz
