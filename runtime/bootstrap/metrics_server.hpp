#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "config/config.hpp"
#include "messages/errc.hpp"
#include "metrics/registry.hpp"

namespace httplib {
class Server;
}

namespace shoal::runtime {

/// Serves a registry as Prometheus text (format 0.0.4) at http://ADDRESS:PORT/metrics, with
/// cpp-httplib on a thread of its own. A scrape only renders the registry (atomic reads and the
/// registry's family mutexes): it never sends to or waits for an actor.
class metrics_server {
 public:
  explicit metrics_server(const metrics::registry& reg);
  /// Stops listening and joins the thread.
  ~metrics_server();
  metrics_server(const metrics_server&) = delete;
  metrics_server& operator=(const metrics_server&) = delete;

  /// Binds `address`:`port` and starts serving. The port is this process's alone: a port another
  /// process listens on fails here rather than being shared with it. Error
  /// (errc::system_error): "cannot listen on ADDRESS:PORT: REASON" (e.g. "Address already in
  /// use"); the caller names the key that set the port. Call once.
  shoal::error start(const std::string& address, uint16_t port);

 private:
  const metrics::registry& reg_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  std::atomic<bool> listening_ended_{false};  ///< the serving thread returned
};

/// Where a daemon's endpoint listens: 127.0.0.1 when the controller is on loopback (a local
/// cluster), else every address.
std::string metrics_bind_address(const config::cluster_config& cfg);

/// Sets shoal_start_time_seconds (the process start, Unix seconds) and
/// shoal_build_info{version}.
void record_process_start(metrics::registry& reg, const std::string& version);

}  // namespace shoal::runtime
