#include "runtime/bootstrap/metrics_server.hpp"

#include <sys/socket.h>

#include <chrono>
#include <ctime>

#include <httplib.h>

#include "messages/errc.hpp"
#include "runtime/bootstrap/bind_failure.hpp"
#include "runtime/bootstrap/controller_client.hpp"

namespace shoal::runtime {

namespace {

/// cpp-httplib's default sets SO_REUSEPORT, with which a second process binds a port another
/// already listens on and the kernel splits the connections between them: three shoald on one
/// host all "served" 6921, each scrape answered by one at random. SO_REUSEADDR alone still
/// allows a restart while the previous process's connections linger in TIME_WAIT, and a bind
/// to a port some process listens on fails with EADDRINUSE.
void exclusive_port(int fd) {
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
}

}  // namespace

metrics_server::metrics_server(const metrics::registry& reg) : reg_(reg) {}

metrics_server::~metrics_server() {
  if (server_) server_->stop();
  if (thread_.joinable()) thread_.join();
}

shoal::error metrics_server::start(const std::string& address, uint16_t port) {
  server_ = std::make_unique<httplib::Server>();
  server_->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(reg_.render(), metrics::text_content_type);
  });
  server_->Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("shoal metrics: see /metrics\n", "text/plain");
  });
  server_->set_socket_options(exclusive_port);
  if (!server_->bind_to_port(address.c_str(), port))
    return shoal::error(errc::system_error,
                        "cannot listen on " + address + ":" + std::to_string(port) + ": " +
                            bind_failure(address, port).value_or("the port was busy a moment ago"));
  thread_ = std::thread{[this] {
    server_->listen_after_bind();
    listening_ended_ = true;
  }};
  // cpp-httplib's stop() does nothing until the serving thread has marked the server running,
  // and the thread would then serve forever: a daemon stopping (or a controller handing control
  // back) right after start hung in the destructor's join. Wait for it here, once.
  while (!server_->is_running() && !listening_ended_)
    std::this_thread::sleep_for(std::chrono::milliseconds{1});
  return {};
}

std::string metrics_bind_address(const config::cluster_config& cfg) {
  auto host = controller_endpoint(cfg).first;
  return host == "127.0.0.1" || host == "localhost" ? "127.0.0.1" : "0.0.0.0";
}

void record_process_start(metrics::registry& reg, const std::string& version) {
  reg.gauge_of("shoal_start_time_seconds", "When this daemon started (Unix seconds).")
      .set(static_cast<double>(std::time(nullptr)));
  reg.gauges("shoal_build_info", "Always 1; the labels say which shoal runs.", {"version"})
      .with({version})
      .set(1);
}

}  // namespace shoal::runtime
