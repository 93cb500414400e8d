#pragma once

// A node's state as Slurm's commands print it, power saving's marks included (the Cloud
// Scheduling Guide's symbols: POWERING_UP #, POWERING_DOWN %, POWERED_DOWN ~, POWER_DOWN !).

#include <string>

#include "messages/types.hpp"

namespace shoal::cli {

/// The guide's symbol for the node's power state ("" when it has none), in Slurm's precedence.
const char* power_mark(const msg::node_info& n);

/// Slurm's NOT_RESPONDING (sinfo -d): never heard from since the controller started, or down
/// because its heartbeats stopped ("Not responding"); a node an admin set down still answers.
bool not_responding(const msg::node_info& n);

/// sinfo %t: "idle~", "alloc#", "idle%", "mix!"; under `scontrol reboot` "boot" (asked) and
/// "boot^" (issued) for a node without jobs, "alloc@", "drng@" for one with (Slurm 22.05's
/// node_state_string_compact).
std::string compact_state(const msg::node_info& n);

/// sinfo %T: "idle~", "allocated#", "reboot^", "draining@" (lower case, as sinfo prints it).
std::string long_state(const msg::node_info& n);

/// The flags node_state_string_complete adds after the base state, in Slurm's order:
/// "+CLOUD+POWERED_DOWN", "+POWER_DOWN", "+REBOOT_REQUESTED", "" for none.
std::string power_flags(const msg::node_info& n);

/// A CLOUD node powered down and holding no job: listings leave it out (the guide: a cloud node
/// is listed once allocated); `show node NAME` still shows it.
bool hidden_cloud_node(const msg::node_info& n);

}  // namespace shoal::cli
