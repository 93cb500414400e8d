#pragma once

// shoalrestd's UNIX socket (`unix:/PATH`, slurmrestd's rest_auth/local): the kernel names each
// caller's uid (SO_PEERCRED), so a request there needs no token. cpp-httplib 0.11 listens only on
// TCP; this listener accepts the connections itself and hands each one to the same server's
// request parser and routes.

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "messages/errc.hpp"

namespace shoal::restd {

/// The uid of the caller whose request this thread is answering on the UNIX socket; -1 on TCP.
/// Set by the listener around each connection (the handler runs on the accepting thread).
int64_t unix_peer_uid();

class unix_listener {
 public:
  /// Serves one accepted connection: `fd` is open and the peer's uid is unix_peer_uid().
  using connection_handler = std::function<void(int fd)>;

  unix_listener() = default;
  ~unix_listener();
  unix_listener(const unix_listener&) = delete;
  unix_listener& operator=(const unix_listener&) = delete;

  /// Binds and listens on `path`, replacing a socket left by a daemon that is gone (a live
  /// one, or a file that is no socket, is an error: errc::system_error naming the path).
  /// Mode 0666, as slurmrestd's: who may do what is decided per request by the caller's uid.
  shoal::error bind(const std::string& path);
  const std::string& path() const { return path_; }

  /// Starts `threads` accepting threads (each serves its connection to the end), returning at
  /// once; stop() ends them.
  void start(size_t threads, connection_handler handle);
  void stop();

 private:
  void accept_loop();

  std::string path_;
  int fd_ = -1;
  std::atomic<bool> stopping_{false};
  connection_handler handle_;
  std::vector<std::thread> threads_;
};

}  // namespace shoal::restd
