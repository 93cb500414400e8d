#pragma once

// The step socket's framing, shared by shoal-stepd and the shepherd in shoald: each frame is a
// little-endian uint32 byte count followed by one msg::stepd_frame in the shoal codec
// (messages/codec.hpp: version header, then Cap'n Proto).

#include <cstddef>
#include <cstdint>
#include <string>

#include "messages/codec.hpp"
#include "messages/errc.hpp"
#include "messages/types.hpp"

namespace shoal::process {

/// What a frame carries (msg::stepd_frame::kind). stepd -> shoald: hello, output, exit,
/// input_taken, usage; shoald -> stepd: attach, signal, kill, ack, input, usage_request.
enum class frame_kind : uint8_t {
  hello = 1,        ///< first frame on every connection: the step and whether its tasks still run
  output = 2,       ///< a task_output chunk
  exit = 3,         ///< the step_exit; repeated on every new connection until acknowledged
  signal = 4,       ///< send `signo` to every task's process group
  kill = 5,         ///< SIGKILL every task (shutdown); ranks not started yet report signal 9
  ack = 6,          ///< the step_exit is in shoald's hands: stepd removes its socket and exits
  attach = 7,       ///< report to this connection (a connection that never attaches is a probe)
  input = 8,        ///< standard input for the step's input tasks (`input`)
  input_taken = 9,  ///< one input frame's data is in the tasks' pipes (or dropped)
  /// This node's blob for the step's all-gather round `exchange.round` (or its error instead).
  exchange_join = 10,
  /// The round's outcome: every node's blob, or the error that ended it.
  exchange_result = 11,
  /// A rank aborted the step here (MPI_Abort, or a rank lost outside a fence): the step's other
  /// nodes must end their tasks too. `exchange.error` says why.
  step_aborted = 12,
  /// shoald asks what the step used so far: stepd samples now and answers with a `usage` frame
  /// (only when asked: nothing travels for a step nobody looks at).
  usage_request = 13,
  /// The step's use on this node now (`usage`), answering a usage_request.
  usage = 14,
};

/// A frame holding only its kind (and `signo` for signal).
msg::stepd_frame make_frame(frame_kind kind, int32_t signo = 0);

/// The frame's kind.
inline frame_kind kind_of(const msg::stepd_frame& f) {
  return static_cast<frame_kind>(f.kind);
}

/// A frame's byte count may not exceed this (a hello holds a batch script and an environment).
constexpr uint32_t max_frame_size = 64u << 20;

/// The bytes of one frame: its length prefix, then its encoding.
std::string encode_frame(const msg::stepd_frame& frame);

/// Cuts a byte stream into frames. Feed it what the socket gave, then take frames until none is
/// complete.
class frame_reader {
 public:
  /// Appends bytes as read.
  void feed(const char* data, size_t size);

  /// Takes the next whole frame into `out`: true when there was one, false when more bytes are
  /// needed. Error: errc::malformed_message for a length over max_frame_size or a frame that
  /// does not decode (the stream cannot be trusted after that).
  shoal::expected<bool> next(msg::stepd_frame& out);

  /// Bytes held that do not make a whole frame yet.
  size_t pending() const { return buf_.size() - pos_; }

 private:
  std::string buf_;
  size_t pos_ = 0;
};

/// Writes all of `data` to a blocking socket or pipe (EINTR retried, no SIGPIPE). Returns 0 or
/// the errno.
int write_all(int fd, const char* data, size_t size);

/// Blocks until `reader` holds a whole frame read from `fd`, for at most `timeout_ms` (-1: no
/// limit). Errors: errc::unreachable when the peer closed the connection (or `timeout_ms`
/// passed), errc::system_error when read fails, errc::malformed_message as frame_reader::next.
shoal::expected<msg::stepd_frame> read_frame(int fd, frame_reader& reader, int timeout_ms = -1);

}  // namespace shoal::process
