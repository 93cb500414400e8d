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

/// What a client asks (msg::client_request::op). Numbers are part of the wire format.
enum class client_op : uint8_t {
  ping = 1,                ///< -> status
  jobs = 2,                ///< include_finished -> jobs
  job = 3,                 ///< job_id -> jobs (one)
  nodes = 4,               ///< -> nodes
  partitions = 5,          ///< -> partitions
  config = 6,              ///< -> text (the running configuration, rendered)
  cancel = 7,              ///< target, signo, uid -> ok
  job_control = 8,         ///< control -> ok
  pending = 9,             ///< -> pending
  map = 10,                ///< -> map
  node_update = 11,        ///< update -> ok
  set_debug = 12,          ///< text (level), user -> text (the level now)
  debug_flags = 13,        ///< text (changes), user -> text (the flags now on)
  diag_reset = 14,         ///< uid -> ok
  submit = 15,             ///< submission -> jobs (the job)
  signal = 16,             ///< job_id, signo -> ok (the signal for the job's tasks; srun's Ctrl-C)
  run = 17,                ///< submission -> jobs (the job), and the job's stream (client_stream)
  attach = 18,             ///< job_id -> jobs (the job), and its stream from now on
  collectors = 19,         ///< -> collectors (`shoal control show collectors`)
  partition_summary = 20,  ///< -> summary (`shoal info`'s default view)
  partition_edit = 21,     ///< partition_change -> ok (update, create, delete partitionname=)
  test_only = 22,  ///< submission -> estimate (--test-only: when and where; nothing submitted)
  complete = 23,   ///< job_id, exit_code, signo -> ok (shoal alloc releases its allocation)
  /// -> text: the cluster's TLS identity in a MUNGE credential only the asking uid may decode
  /// (a node daemon, before it connects to the daemons' port; docs/security.md)
  cluster_identity = 24,
};

/// What a frame of a run or attach connection carries (msg::client_reply::stream).
enum class client_stream : uint8_t {
  reply = 0,      ///< the request's reply
  output = 1,     ///< output: what a task wrote
  step_exit = 2,  ///< exited: a node's tasks ended
  event = 3,      ///< event: queued, allocated, message, ended
};

/// A request of kind `op`.
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
