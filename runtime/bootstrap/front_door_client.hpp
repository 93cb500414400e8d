#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "messages/errc.hpp"
#include "messages/types.hpp"

namespace shoal::runtime {

/// How long a client gives a TCP connection to a front door to open (a controller that is up
/// accepts at once; the rest of the wait is for answers, MessageTimeout).
inline constexpr std::chrono::seconds connect_patience{2};

/// A client's connection to one shoalctld's front door (runtime/ctld/front_door.hpp): blocking,
/// one request at a time, no actor system. Moves, does not copy; closes on destruction.
class front_door_client {
 public:
  front_door_client() = default;
  front_door_client(front_door_client&& other) noexcept;
  front_door_client& operator=(front_door_client&& other) noexcept;
  front_door_client(const front_door_client&) = delete;
  front_door_client& operator=(const front_door_client&) = delete;
  ~front_door_client();

  /// Connects to `host`:`port` within `timeout`. Errors: errc::unreachable with a few words on
  /// why ("connection refused", "timed out"), errc::system_error for a name that does not
  /// resolve.
  static shoal::expected<front_door_client> connect(const std::string& host, uint16_t port,
                                                    std::chrono::milliseconds timeout);

  /// Sends `req` and waits up to `timeout` for its reply. Errors: errc::unreachable when the
  /// connection closes or the time runs out (the connection is then unusable),
  /// errc::malformed_message or errc::incompatible_version for a reply that does not decode.
  /// A refusal by the controller is a reply (its error_code set), not an error here.
  shoal::expected<msg::client_reply> call(const msg::client_request& req,
                                          std::chrono::milliseconds timeout);

  /// The halves of call, for a connection that streams (run, attach): sends `req` within
  /// `timeout`; receives the next frame within `timeout` (errors as call's).
  shoal::error send(const msg::client_request& req, std::chrono::milliseconds timeout);
  shoal::expected<msg::client_reply> receive(std::chrono::milliseconds timeout);

  bool connected() const { return fd_ >= 0; }

  /// The socket, to wait for it with poll() beside other descriptors; -1 when not connected.
  int fd() const { return fd_; }

 private:
  explicit front_door_client(int fd) : fd_(fd) {}
  void close();
  int fd_ = -1;
};

}  // namespace shoal::runtime
