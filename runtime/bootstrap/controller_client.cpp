#include "runtime/bootstrap/controller_client.hpp"

#include <cstdlib>

#include <chrono>

#include <caf/io/middleman.hpp>
#include <caf/io/middleman_actor.hpp>
#include <caf/scoped_actor.hpp>

#include "messages/codec.hpp"
#include "messages/errc.hpp"
#include "messages/type_ids.hpp"

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
  return connect_controller_at(sys, host, port);
}

caf::expected<caf::actor> connect_controller_at(caf::actor_system& sys, const std::string& host,
                                                uint16_t port) {
  auto endpoint = host + ":" + std::to_string(port);
  caf::expected<caf::actor> out{caf::error{}};
  caf::scoped_actor self{sys};
  self->request(sys.middleman().actor_handle(), caf::infinite, caf::connect_atom::value, host, port)
      .receive(
          [&](const caf::node_id&, caf::strong_actor_ptr& ptr, const std::set<std::string>& ifs) {
            if (!ptr) {
              out = make_error(errc::unreachable, "nothing is published at " + endpoint +
                                                      "; is shoalctld running there?");
              return;
            }
            auto who = "the controller at " + endpoint;
            auto version = msg::version_of_interface(ifs, who);
            if (!version) {
              out = std::move(version.error());
              return;
            }
            if (auto err = msg::check_peer_version(*version, who)) {
              out = std::move(err);
              return;
            }
            out = caf::actor_cast<caf::actor>(std::move(ptr));
          },
          [&](caf::error& err) {
            out = make_error(errc::unreachable, "cannot reach the controller at " + endpoint +
                                                    " (" + sys.render(err) +
                                                    "); is shoalctld running there?");
          });
  return out;
}

caf::expected<uint16_t> publish_controller(caf::actor_system& sys, const caf::actor& controller,
                                           uint16_t port, const std::string& address) {
  caf::expected<uint16_t> out{caf::error{}};
  caf::scoped_actor self{sys};
  std::set<std::string> interface { msg::wire_interface() };
  self->request(sys.middleman().actor_handle(), caf::infinite, caf::publish_atom::value, port,
                caf::actor_cast<caf::strong_actor_ptr>(controller), std::move(interface), address,
                true)
      .receive([&](uint16_t actual) { out = actual; },
               [&](caf::error& err) { out = std::move(err); });
  return out;
}

}  // namespace shoal::runtime
