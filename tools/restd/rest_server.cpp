#include "tools/restd/rest_server.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

#include <httplib.h>

#include "config/log.hpp"
#include "tools/restd/bounded_pool.hpp"
#include "tools/restd/endpoints.hpp"
#include "tools/restd/openapi.hpp"

namespace shoal::restd {

/// httplib's request parser and routes, reachable for a connection accepted elsewhere (the UNIX
/// socket's) on either kind of server: process_request is httplib::Server's protected member,
/// named through this derived class and applied to the server we hold (plain or TLS).
struct server_internals : httplib::Server {
  static bool serve_request(httplib::Server& s, httplib::Stream& stream, bool close_after,
                            bool& closed) {
    return (s.*&server_internals::process_request)(stream, close_after, closed, nullptr);
  }
};

namespace {

/// One accepted UNIX-socket connection as httplib reads and writes a stream: reads wait at most
/// the server's read timeout, so a silent client cannot hold a thread.
class unix_stream final : public httplib::Stream {
 public:
  unix_stream(int fd, int timeout_ms) : fd_(fd), timeout_ms_(timeout_ms) {}
  bool is_readable() const override { return wait_for(POLLIN); }
  bool is_writable() const override { return wait_for(POLLOUT); }
  ssize_t read(char* ptr, size_t size) override {
    if (!wait_for(POLLIN)) return -1;
    ssize_t n;
    while ((n = ::recv(fd_, ptr, size, 0)) < 0 && errno == EINTR) {
    }
    return n;
  }
  ssize_t write(const char* ptr, size_t size) override {
    if (!wait_for(POLLOUT)) return -1;
    ssize_t n;
    while ((n = ::send(fd_, ptr, size, MSG_NOSIGNAL)) < 0 && errno == EINTR) {
    }
    return n;
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    ip = "unix";
    port = 0;
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    ip = "unix";
    port = 0;
  }
  int socket() const override { return fd_; }

 private:
  bool wait_for(short events) const {
    pollfd p{fd_, events, 0};
    int n;
    while ((n = ::poll(&p, 1, timeout_ms_)) < 0 && errno == EINTR) {
    }
    return n > 0 && (p.revents & (events | POLLHUP)) != 0;
  }
  int fd_;
  int timeout_ms_;
};

/// "/job/{job_id}" as the pattern httplib matches: each {name} one path segment.
std::string path_pattern(const std::string& path) {
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] != '{') {
      out += path[i];
      continue;
    }
    auto close = path.find('}', i);
    out += "([^/]+)";
    i = close;
  }
  return out;
}

}  // namespace

rest_server::rest_server(config::cluster_config cfg, server_settings settings)
    : cfg_(std::move(cfg)), settings_(std::move(settings)) {
  if (settings_.tls_cert.empty())
    http_ = std::make_unique<httplib::Server>();
  else
    http_ =
        std::make_unique<httplib::SSLServer>(settings_.tls_cert.c_str(), settings_.tls_key.c_str());
  http_->new_task_queue = [this] {
    return new bounded_pool(settings_.threads, settings_.max_queued);
  };
  http_->set_payload_max_length(settings_.max_body_bytes);
  http_->set_read_timeout(settings_.read_timeout_s, 0);
  http_->set_keep_alive_max_count(settings_.keep_alive_max);
  http_->set_keep_alive_timeout(settings_.keep_alive_timeout_s);
  // httplib writes a response's headers and body apart: with Nagle's algorithm on, the body
  // waits for the client's delayed ACK (40 ms) on every keep-alive request.
  http_->set_tcp_nodelay(true);
  // Literal paths first: httplib takes the first pattern that matches, and /job/submit must not
  // be read as /job/{job_id}.
  auto table = endpoints();
  std::stable_partition(table.begin(), table.end(), [](const endpoint& e) {
    return std::string(e.path).find('{') == std::string::npos;
  });
  for (const auto& e : table) {
    auto serve = [this, handle = e.handle](const httplib::Request& in, httplib::Response& out) {
      exchange x{in, out, cfg_, {}, {}, {}};
      if (authenticate(x)) handle(x);
      config::log().info("rest: {} {} user={} status={}", in.method, in.path, x.who.user,
                         out.status);
    };
    auto pattern = path_pattern(served_path(e));
    std::string method = e.method;
    if (method == "GET")
      http_->Get(pattern, serve);
    else if (method == "POST")
      http_->Post(pattern, serve);
    else
      http_->Delete(pattern, serve);
  }
  // The document describes the API and holds nothing of the cluster's: no token needed.
  auto document = openapi_document().dump(2) + "\n";
  http_->Get("/openapi/v3", [document](const httplib::Request&, httplib::Response& out) {
    out.set_content(document, "application/json");
  });
  http_->set_error_handler([this](const httplib::Request& in, httplib::Response& out) {
    if (!out.body.empty()) return;
    exchange x{in, out, cfg_, {}, {}, {}};
    int status = out.status;
    x.errors.push_back({status == 404   ? "Unable to find endpoint " + in.path
                        : status == 413 ? "the body is larger than shoalrestd takes"
                                        : "HTTP error " + std::to_string(status),
                        0, "", in.path});
    send(x, status, nlohmann::json::object());
  });
}

rest_server::~rest_server() = default;

shoal::error rest_server::bind(const std::string& address, uint16_t port) {
  // httplib reads the certificate and key when the server is made and says only whether it could.
  if (!http_->is_valid())
    return shoal::error(errc::invalid_config,
                        "cannot load the TLS certificate " + settings_.tls_cert + " with the key " +
                            settings_.tls_key +
                            " (both PEM, the key unencrypted, readable by this user)");
  int bound = port == 0 ? http_->bind_to_any_port(address)
                        : (http_->bind_to_port(address, port) ? port : -1);
  if (bound <= 0)
    return shoal::error(errc::system_error,
                        "cannot listen on " + address + ":" + std::to_string(port));
  port_ = static_cast<uint16_t>(bound);
  return {};
}

shoal::error rest_server::bind_unix(const std::string& path) {
  return unix_.bind(path);
}

void rest_server::serve_unix_connection(int fd) {
  unix_stream stream(fd, static_cast<int>(settings_.read_timeout_s * 1000));
  // Keep-alive as httplib's own TCP loop: up to its count, while the client sends within the
  // keep-alive timeout.
  unix_stream idle(fd, static_cast<int>(settings_.keep_alive_timeout_s * 1000));
  auto most = settings_.keep_alive_max;
  for (size_t served = 0; served < most; ++served) {
    if (served > 0 && !idle.is_readable()) return;
    bool closed = false;
    if (!server_internals::serve_request(*http_, stream, served + 1 == most, closed) || closed)
      return;
  }
}

void rest_server::serve() {
  unix_.start(settings_.threads, [this](int fd) { serve_unix_connection(fd); });
  if (port_ != 0) {
    http_->listen_after_bind();
  } else if (!unix_.path().empty()) {
    std::unique_lock<std::mutex> lock(stop_mutex_);
    stopped_cv_.wait(lock, [this] { return stopped_; });
  }
  unix_.stop();
}

void rest_server::stop() {
  http_->stop();
  std::lock_guard<std::mutex> lock(stop_mutex_);
  stopped_ = true;
  stopped_cv_.notify_all();
}

}  // namespace shoal::restd
