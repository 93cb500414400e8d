#include "tools/restd/rest_server.hpp"

#include <algorithm>

#include <httplib.h>

#include "config/log.hpp"
#include "tools/restd/endpoints.hpp"
#include "tools/restd/openapi.hpp"

namespace shoal::restd {

namespace {

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
    : cfg_(std::move(cfg)), settings_(settings), http_(std::make_unique<httplib::Server>()) {
  auto threads = settings_.threads;
  http_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  http_->set_payload_max_length(settings_.max_body_bytes);
  http_->set_read_timeout(settings_.read_timeout_s, 0);
  http_->set_keep_alive_max_count(100);
  const std::string base = std::string("/slurm/") + api_version;
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
    auto pattern = base + path_pattern(e.path);
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
  int bound = port == 0 ? http_->bind_to_any_port(address)
                        : (http_->bind_to_port(address, port) ? port : -1);
  if (bound <= 0)
    return shoal::error(errc::system_error,
                        "cannot listen on " + address + ":" + std::to_string(port));
  port_ = static_cast<uint16_t>(bound);
  return {};
}

void rest_server::serve() {
  if (port_ != 0) http_->listen_after_bind();
}

void rest_server::stop() {
  http_->stop();
}

}  // namespace shoal::restd
