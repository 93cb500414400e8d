#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

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

/// The SlurmctldHost lines a client tries, in order (the primary first): one line from
/// SHOAL_CONTROLLER=host[:port] when set (for clients outside the cluster), else the config's
/// lines, else 127.0.0.1 on SlurmctldPort.
std::vector<config::controller_host> controller_lines(const config::cluster_config& cfg);

/// The port of a controller line's front door (runtime/ctld/front_door.hpp): the one after the
/// line's port, as Slurm's SlurmctldPort=6817-6818 gives slurmctld two.
inline uint16_t front_door_port(const config::controller_host& line) {
  return static_cast<uint16_t>(line.port + 1);
}

/// Address and port of the first of controller_lines (the primary).
std::pair<std::string, uint16_t> controller_endpoint(const config::cluster_config& cfg);

/// "NAME at ADDRESS:PORT", as messages name a controller line.
std::string describe_line(const config::controller_host& line);

/// The role of controller line `index` of `count`, as scontrol ping names it: "primary", then
/// "backup" when there are two lines, else "backup1", "backup2", ...
std::string controller_role(size_t index, size_t count);

/// How long a client waits for a controller in control before it gives up: MessageTimeout, and
/// with a backup line at least 1.5 x SlurmctldTimeout, time for a takeover (Slurm's clients wait
/// as long).
std::chrono::seconds controller_patience(const config::cluster_config& cfg);

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
caf::expected<uint16_t> publish_controller(caf::actor_system& sys, const caf::actor& controller,
                                           uint16_t port, const std::string& address,
                                           bool standby = false);

}  // namespace shoal::runtime
