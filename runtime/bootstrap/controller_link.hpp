#pragma once

// The controller over CAF's own transport: what shoalctld publishes and node daemons (and
// benchmarks) connect to. Kept apart from controller_client.hpp so the CLI, which reaches the
// controller through its front door, links none of CAF's network layer.

#include <cstdint>
#include <set>
#include <string>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/expected.hpp>

#include "config/config.hpp"
#include "messages/caf/error.hpp"

namespace shoal::runtime {

/// Connects to the first controller line in control, trying each once (blocking: for main() and
/// the CLI only). CAF's handshake brings the controller's wire version (msg::wire_interface),
/// checked before any request. Errors: errc::unreachable or errc::not_in_control naming every
/// line and why it failed ("cannot reach the controller at HOST:PORT (...)"; a hint with one
/// line); errc::incompatible_version naming both versions.
caf::expected<caf::actor> connect_controller(caf::actor_system& sys,
                                             const config::cluster_config& cfg);

/// As connect_controller, for the shoalctld at `host`:`port`. One that is not in control is
/// errc::not_in_control unless `accept_standby` (for pings). On failure `reason`, when given,
/// gets a few words for a status line, such as "not in control" or "connection refused".
caf::expected<caf::actor> connect_controller_at(caf::actor_system& sys, const std::string& host,
                                                uint16_t port, bool accept_standby = false,
                                                std::string* reason = nullptr);

/// Publishes the controller on `port` (0: any) at `address` ("" for every address), announcing
/// this build's wire version as its interface, plus standby_interface when `standby` (blocking:
/// for shoalctld's main()). Returns the port.
/// Publishes `whom` on `port` (0: any) at `address` ("" for every address) through the daemons'
/// transport (TLS under auth/munge: actors/daemon_transport.hpp), announcing `interface`
/// (blocking: for main()). Returns the port.
caf::expected<uint16_t> publish_daemon_actor(caf::actor_system& sys, const caf::actor& whom,
                                             uint16_t port, const std::string& address,
                                             std::set<std::string> interface = {});

caf::expected<uint16_t> publish_controller(caf::actor_system& sys, const caf::actor& controller,
                                           uint16_t port, const std::string& address,
                                           bool standby = false);

}  // namespace shoal::runtime
