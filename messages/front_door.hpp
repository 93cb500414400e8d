#pragma once

// The framing of the CLI's front door (runtime/ctld/front_door.hpp): each frame is a
// little-endian uint32 byte count, then one msg::client_request or msg::client_reply in the shoal
// codec (version header, then Cap'n Proto).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "messages/codec.hpp"
#include "messages/types.hpp"

namespace shoal::msg {

/// A request of kind `op`. client_op and client_stream (what a frame of a run or attach connection
/// carries) are generated from messages/shoal.capnp's ClientOp and ClientStream, which document
/// each value.
inline client_request make_client_request(client_op op) {
  client_request r;
  r.op = static_cast<uint8_t>(op);
  return r;
}

/// A frame begun must be whole within this, either way through the front door: the door drops
/// a client slower than this, and a client gives up on a controller slower than this.
inline constexpr std::chrono::seconds frame_patience{10};

/// Bytes of the length in front of every frame.
constexpr size_t client_length_size = 4;

/// A reply's byte count may not exceed this (every job's line, about 1 KiB each).
constexpr uint32_t max_client_frame = 256u << 20;

/// A request's byte count may not exceed this (at most a batch script and an environment);
/// the front door drops a client announcing more.
constexpr uint32_t max_request_frame = 64u << 20;

/// The length announced by the 4 bytes at `p`.
inline uint32_t client_frame_length(const char* p) {
  auto b = reinterpret_cast<const unsigned char*>(p);
  return static_cast<uint32_t>(b[0]) | static_cast<uint32_t>(b[1]) << 8 |
         static_cast<uint32_t>(b[2]) << 16 | static_cast<uint32_t>(b[3]) << 24;
}

/// The bytes of one frame: its length, then the encoding of `x`.
template <class T>
std::string encode_client_frame(const T& x) {
  auto body = encode(x);
  auto n = static_cast<uint32_t>(body.size());
  std::string out;
  out.reserve(client_length_size + body.size());
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  out.append(body.data(), body.size());
  return out;
}

}  // namespace shoal::msg
