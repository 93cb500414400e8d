#pragma once

#include <memory>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "config/config.hpp"
#include "interconnect/switch_manager.hpp"
#include "metrics/registry.hpp"

namespace shoal::actors {

/// The controller's front door (seed 001's ControlDaemon): spawns one actor per node, partition
/// and job plus the scheduler and the topology actor, routes requests to them, validates
/// submissions and serves listings from the views its actors publish.
///
/// Requests (from the CLI and shoald, over the network):
/// - (register_atom, machine_status, actor daemon) -> ok_atom; (heartbeat_atom, machine_status)
/// - (submit_atom, job_request, actor client) -> job_info: a new job (job_id 0), or a step in
///   a running job's allocation (job_id set) -> job_event "launched".
/// - (jobs_atom) -> vector<job_info>, finished jobs included (kept MinJobAge);
///   (jobs_atom, bool include_finished) -> vector<job_info>; (jobs_atom, uint64 id) -> job_info
/// - (nodes_atom) -> vector<node_info>; (parts_atom) -> vector<partition_info>
/// - (config_atom) -> string: the running configuration
/// - (cancel_atom, string job, int32 signo, uint32 uid) -> ok_atom: job is 12, 12_4 (an array
///   task) or 12_[1-5]; (cancel_atom, uint64 id, int32 signo, uint32 uid) as "id"
/// - (jobctl_atom, job_control) -> ok_atom: hold, uhold, release, top, requeue
/// - (pending_atom) -> vector<pending_detail>: the scheduler's view of pending jobs
/// - (signal_atom, uint64 id, int32 signo): Ctrl-C forwarded by `shoal run`
/// - (map_atom) -> topology_view: the topology actor's allocation map (`shoal map`)
/// - (nodeupd_atom, node_update) -> ok_atom
/// - (diagreset_atom, uint32 uid) -> ok_atom: `shoal diag --reset` (root or the controller's
///   user only): zeroes the RPC, scheduler-cycle and job-count metrics (diag_reset_prefixes)
/// A bad request is answered with an error; it never takes the controller down.
/// Its actors meter themselves into `meters` (see metering.hpp and docs/metrics.md); null meters
/// nothing (CollectMetrics=NO). The registry must outlive the actors.
caf::actor spawn_controller(caf::actor_system& sys, config::cluster_config cfg,
                            metrics::registry* meters = nullptr);

}  // namespace shoal::actors
