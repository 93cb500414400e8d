// Fuzz target for the front door's codec (messages/codec.hpp): the body of a client frame, after
// its 4-byte length, as an untrusted client sends it to shoalctld, and as the CLI reads a reply.
// The first input byte picks the type (even: client_request, odd: client_reply), the rest is the
// buffer. Any buffer decodes without throwing, or fails with malformed_message or
// incompatible_version; what decodes re-encodes to a buffer that decodes again, and to the same
// bytes the second time (a round trip neither loses nor alters a field). A violated property
// aborts with the input shown (bytes escaped). Built as a libFuzzer binary with clang
// (scripts/fuzz.sh) and, with any compiler, into client_frame_fuzz_replay (mutation_driver.cpp),
// which ctest runs.
//
// The seeds in corpus/client_frame are encodings of wire version 1.3; after a major version
// change they only reach the version check, so regenerate them then.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "messages/codec.hpp"
#include "messages/errc.hpp"
#include "messages/types.hpp"
#include "test/fuzz/violated.hpp"

namespace {

[[noreturn]] void violated(const uint8_t* data, size_t size, const char* what,
                           const std::string& detail) {
  shoal::fuzz::violated("client frame", {reinterpret_cast<const char*>(data), size}, what, detail);
}

bool is_documented_decode_error(const shoal::error& err) {
  return err == shoal::errc::malformed_message || err == shoal::errc::incompatible_version;
}

template <class Message>
void check_round_trip(const uint8_t* data, size_t size, const std::vector<char>& body) {
  try {
    Message first;
    if (auto err = shoal::msg::decode(body, first)) {
      if (!is_documented_decode_error(err))
        violated(data, size, "decode fails with an undocumented error", shoal::describe(err));
      return;
    }
    auto encoded = shoal::msg::encode(first);
    Message second;
    if (auto err = shoal::msg::decode(encoded, second))
      violated(data, size, "the re-encoded value does not decode", shoal::describe(err));
    if (shoal::msg::encode(second) != encoded)
      violated(data, size, "a round trip changes the value", "");
  } catch (const std::exception& e) {
    violated(data, size, "the codec throws", e.what());
  } catch (...) {
    violated(data, size, "the codec throws", "(not a std::exception)");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::vector<char> body(reinterpret_cast<const char*>(data) + 1,
                         reinterpret_cast<const char*>(data) + size);
  if (data[0] % 2 == 0)
    check_round_trip<shoal::msg::client_request>(data, size, body);
  else
    check_round_trip<shoal::msg::client_reply>(data, size, body);
  return 0;
}
