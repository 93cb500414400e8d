#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "config/config.hpp"
#include "messages/errc.hpp"

namespace shoal::runtime {

/// Where a process finds the cluster configuration: `explicit_path` (-f) when given, else
/// $SHOAL_CONF, else /etc/shoal/shoal.conf. A client with $SHOAL_CONTROLLER set and no config
/// file gets an empty configuration. Error: errc::invalid_config naming the file tried and how
/// to point at another one. `client_only` (the CLI) reads it as config::load_client_config:
/// no nodes or partitions.
shoal::expected<config::cluster_config> load_cluster_config(const std::string& explicit_path,
                                                            bool client_only = false);

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

}  // namespace shoal::runtime
