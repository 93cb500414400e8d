#include "runtime/bootstrap/controller_client.hpp"

#include <cstdlib>

#include <caf/io/middleman.hpp>

#include "messages/errc.hpp"

namespace shoal::runtime {

caf::expected<config::cluster_config> load_cluster_config(const std::string& explicit_path) {
  std::string path = explicit_path;
  if (path.empty()) {
    const char* env = std::getenv("SHOAL_CONF");
    path = env != nullptr && *env != '\0' ? env : "/etc/shoal/shoal.conf";
  }
  auto cfg = config::load_config(path);
  const char* endpoint = std::getenv("SHOAL_CONTROLLER");
  if (!cfg && explicit_path.empty() && endpoint != nullptr && *endpoint != '\0')
    return config::cluster_config{};  // a client that only needs the controller's address
  if (!cfg && explicit_path.empty() && std::getenv("SHOAL_CONF") == nullptr)
    return make_error(errc::invalid_config,
                      describe(cfg.error()) +
                          " (set SHOAL_CONF or pass -f FILE; `shoal start` runs a local cluster)");
  return cfg;
}

std::pair<std::string, uint16_t> controller_endpoint(const config::cluster_config& cfg) {
  if (const char* env = std::getenv("SHOAL_CONTROLLER"); env != nullptr && *env != '\0') {
    std::string text{env};
    auto colon = text.rfind(':');
    if (colon != std::string::npos)
      return {text.substr(0, colon),
              static_cast<uint16_t>(std::strtoul(text.c_str() + colon + 1, nullptr, 10))};
    return {text, cfg.controller_port};
  }
  std::string host = cfg.controller_hosts.empty() ? "127.0.0.1" : cfg.controller_hosts.front();
  return {host, cfg.controller_port};
}

caf::expected<caf::actor> connect_controller(caf::actor_system& sys,
                                             const config::cluster_config& cfg) {
  auto [host, port] = controller_endpoint(cfg);
  auto ctl = sys.middleman().remote_actor(host, port);
  if (!ctl)
    return make_error(errc::unreachable, "cannot reach the controller at " + host + ":" +
                                             std::to_string(port) + " (" + sys.render(ctl.error()) +
                                             "); is shoalctld running there?");
  return std::move(*ctl);
}

}  // namespace shoal::runtime
