// Fuzz target for the front door's codec (messages/codec.hpp): the body of a client frame, after
// its 4-byte length, as an untrusted client sends it to shoalctld, and as the CLI reads a reply.
// The first input byte picks the type (even: client_request, odd: client_reply), the rest is the
// buffer. Any buffer decodes without throwing, or fails with malformed_message or
// incompatible_version; what decodes re-encodes to a buffer that decodes again, and to the same
// bytes the second time (test/fuzz/round_trip.hpp). Built as a libFuzzer binary with clang
// (scripts/fuzz.sh) and, with any compiler, into client_frame_fuzz_replay (mutation_driver.cpp),
// which ctest runs.
//
// The seeds in corpus/client_frame are encodings of wire version 1.3; after a major version
// change they only reach the version check, so regenerate them then.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "messages/types.hpp"
#include "test/fuzz/round_trip.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::vector<char> body(reinterpret_cast<const char*>(data) + 1,
                         reinterpret_cast<const char*>(data) + size);
  if (data[0] % 2 == 0)
    shoal::fuzz::check_round_trip<shoal::msg::client_request>("client frame", data, size, body);
  else
    shoal::fuzz::check_round_trip<shoal::msg::client_reply>("client frame", data, size, body);
  return 0;
}
