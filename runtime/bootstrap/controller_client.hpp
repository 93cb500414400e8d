#pragma once

#include <string>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/expected.hpp>

#include "config/config.hpp"

namespace shoal::runtime {

/// Where a process finds the cluster configuration: `explicit_path` (-f) when given, else
/// $SHOAL_CONF, else /etc/shoal/shoal.conf. A client with $SHOAL_CONTROLLER set and no config
/// file gets an empty configuration. Error: errc::invalid_config naming the file tried and how
/// to point at another one.
caf::expected<config::cluster_config> load_cluster_config(const std::string& explicit_path);

/// Host and port of the primary controller as the config gives them (SHOAL_CONTROLLER=host:port
/// overrides, for clients outside the cluster).
std::pair<std::string, uint16_t> controller_endpoint(const config::cluster_config& cfg);

/// Connects to the controller (blocking: for main() and the CLI only). CAF's handshake brings the
/// controller's wire version (msg::wire_interface), checked before any request. Errors:
/// errc::unreachable with "cannot reach the controller at HOST:PORT (...)" and a hint;
/// errc::incompatible_version naming both versions.
caf::expected<caf::actor> connect_controller(caf::actor_system& sys,
                                             const config::cluster_config& cfg);

/// As connect_controller, for the controller at `host`:`port`.
caf::expected<caf::actor> connect_controller_at(caf::actor_system& sys, const std::string& host,
                                                uint16_t port);

/// Publishes the controller on `port` (0: any) at `address` ("" for every address), announcing
/// this build's wire version as its interface (blocking: for shoalctld's main()). Returns the
/// port.
caf::expected<uint16_t> publish_controller(caf::actor_system& sys, const caf::actor& controller,
                                           uint16_t port, const std::string& address);

}  // namespace shoal::runtime
