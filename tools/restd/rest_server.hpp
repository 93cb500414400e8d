#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "config/config.hpp"
#include "messages/errc.hpp"
#include "tools/restd/unix_listener.hpp"

namespace httplib {
class Server;
}

namespace shoal::restd {

/// How shoalrestd serves (its command line).
struct server_settings {
  size_t threads = 20;                ///< -t: requests served at once (slurmrestd's default)
  size_t max_body_bytes = 16u << 20;  ///< a larger body is refused with 413
  int read_timeout_s = 10;            ///< a request must arrive whole within this
  size_t keep_alive_max = 100;        ///< requests on one connection before it is closed
  int keep_alive_timeout_s = 5;       ///< an idle keep-alive connection is closed after this
  /// TCP connections accepted and waiting for a thread; beyond it the accepting thread serves
  /// one itself, so the rest wait in the kernel's backlog (bounded_pool.hpp).
  size_t max_queued = 64;
  std::string tls_cert;  ///< --tls-cert: PEM certificate (chain) for HTTPS on the TCP port
  std::string tls_key;   ///< --tls-key: its PEM private key
};

/// slurmrestd's endpoints under /slurm/v0.0.41/ (docs/rest.md): each request needs the
/// X-SLURM-USER-TOKEN header (an auth/jwt token, `shoal control token`) and becomes the
/// front-door request the CLI would send, with the token as its credential, so the controller
/// decides who may do what exactly as it does for the CLI. Blocking: a thread pool of
/// `settings.threads`, each with its own connection to the controller.
class rest_server {
 public:
  rest_server(config::cluster_config cfg, server_settings settings);
  ~rest_server();
  rest_server(const rest_server&) = delete;
  rest_server& operator=(const rest_server&) = delete;

  /// Binds `address`:`port` (0: any; the port bound is then port()). Error: errc::system_error
  /// "cannot listen on ADDRESS:PORT".
  shoal::error bind(const std::string& address, uint16_t port);
  uint16_t port() const { return port_; }

  /// Listens on the UNIX socket `path` too (slurmrestd's `unix:PATH`): there the kernel names
  /// the caller, so a request needs no token when the caller is this daemon's own user or root
  /// (slurmrestd's rest_auth/local); it is sent to the controller with this daemon's MUNGE
  /// credential. Another uid must bring a token. Error: errc::system_error naming the path.
  shoal::error bind_unix(const std::string& path);

  /// Serves until stop() (from a signal handler's thread or another). Returns at once when
  /// neither bind() nor bind_unix() succeeded.
  void serve();
  void stop();

 private:
  void serve_unix_connection(int fd);

  config::cluster_config cfg_;
  server_settings settings_;
  std::unique_ptr<httplib::Server> http_;
  unix_listener unix_;
  uint16_t port_ = 0;
  std::mutex stop_mutex_;
  std::condition_variable stopped_cv_;
  bool stopped_ = false;
};

}  // namespace shoal::restd
