#pragma once

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "config/config.hpp"
#include "metrics/registry.hpp"

namespace shoal::actors {

/// One compute node in the controller: its configuration, latest report and state machine, and
/// the handle of the shoald that speaks for it (launches and signals pass through here).
///
/// Messages:
/// - (register_atom, machine_status, actor daemon) -> actor: a shoald (re)registers with its
///   static machine probe (sent once per registration) and gets this actor's handle back.
/// - (heartbeat_atom): the daemon is alive; sent straight here, never through the controller.
/// - (start_atom | done_atom | release_atom, uint64 job): a job takes, finishes with
///   (COMPLETING) or frees the node.
/// - (launch_atom, launch_request, actor sink, actor job): relayed to the shoald; without one
///   the job gets a step_exit with a launch_error.
/// - (signal_atom, uint64 job, uint32 step, int32 signo): relayed to the shoald.
/// - (nodeupd_atom, node_update) -> ok_atom | error: `shoal control update`.
/// Sends (view_atom, node_info) to `controller` only when something users see changes (and at
/// most once a minute to refresh LastResponse), and
/// (nodedown_atom, string node, uint64 job) for each job on it when it goes DOWN.
/// Each heartbeat later than `heartbeat_interval_ms` after the previous one adds its lateness to
/// shoal_heartbeat_lag_seconds{collector="shoalctld"} in `meters` (null: not metered).
caf::actor spawn_node(caf::actor_system& sys, config::node_config cfg, caf::actor controller,
                      int64_t heartbeat_timeout_ms, int64_t heartbeat_interval_ms,
                      metrics::registry* meters);

}  // namespace shoal::actors
