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
  /// Power saving expects no daemon now (powered down, powering up or down): its silence is not
  /// DOWN, and a node never heard from is IDLE (the guide: a cloud node starts IDLE~).
  bool power_off = false;
};

/// Slurm's precedence: DOWN, then drain (DRAINING while jobs remain, else DRAINED), then
/// UNKNOWN for never-heard-from nodes, COMPLETING, ALLOCATED (MIXED when partly held), IDLE.
msg::node_state derive_node_state(const node_flags& f);

/// The state placement goes by: the node's, except that a node POWERING_DOWN or asked to power
/// down (POWER_DOWN) takes no new job (DRAINED for the allocation map). A POWERED_DOWN idle node
/// does: placing a job there resumes it.
msg::node_state placement_state(const msg::node_info& info);

}  // namespace shoal::cluster
