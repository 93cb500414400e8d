#pragma once

#include <string>

#include "config/config.hpp"
#include "messages/types.hpp"

namespace shoal::cluster {

/// Why a node that reports less than its configuration must not run jobs (seed 000: "Any node
/// with less resources ... will have the event logged and will not be configured for executing
/// user jobs"). Returns "" when the report satisfies the configuration, otherwise a Slurm-style
/// reason such as "Low RealMemory (reported 1024 < configured 2048)". Unset (0) fields pass.
std::string shortfall_reason(const config::node_config& cfg, const msg::machine_status& rep);

}  // namespace shoal::cluster

namespace shoal::cluster {

/// The facts a node's state is derived from; the node actor keeps these and never stores the
/// state itself, so no transition can leave it inconsistent.
struct node_flags {
  enum class liveness : uint8_t { unknown, up, down } life = liveness::unknown;
  bool drain = false;       ///< an admin or a resource shortfall asked that no job start here
  bool admin_down = false;  ///< DOWN set by an admin: a heartbeat does not bring it back
  size_t jobs = 0;          ///< jobs holding the node
  size_t completing = 0;    ///< of those, jobs whose tasks are being cleaned up
  bool partial = false;     ///< the jobs hold only some of its CPUs (shared nodes)
};

/// Slurm's precedence: DOWN, then drain (DRAINING while jobs remain, else DRAINED), then
/// UNKNOWN for never-heard-from nodes, COMPLETING, ALLOCATED (MIXED when partly held), IDLE.
msg::node_state derive_node_state(const node_flags& f);

}  // namespace shoal::cluster
