#pragma once

#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "config/config.hpp"
#include "metrics/registry.hpp"

namespace shoal::actors {

/// Owns the pending queue (jobs and the pending tasks of arrays), what runs where, and recent
/// outcomes; runs the pure policy (actors/policy: priority, dependencies, backfill, placement)
/// once per burst of events and every few seconds while jobs pend.
///
/// Messages:
/// - (enqueue_atom, uint64 id, job_request req, actor who): `req` is validated,
///   with partition, node count and time limit resolved by the controller. `who` is the job
///   actor, or for an array (req.workload.array set) the controller, which then gets each start.
/// - (cancel_atom, uint64 id): drop a pending job or all pending tasks of an array;
///   (cancel_atom, uint64 array, uint32 lo, uint32 hi) -> uint64 tasks removed.
/// - (release_atom, uint64 id): a started job gave its nodes back without ending (requeue).
/// - (ended_atom, uint64 id, bool ok, int64 start_time): a job ended; frees its nodes.
/// - (jobctl_atom, string op, uint64 id, uint32 uid, bool admin) -> ok_atom: hold, uhold,
///   release, top on a pending job or array.
/// - (pending_atom) -> vector<pending_detail>: reasons, expected starts and priority factors.
/// - (view_atom, node_info): a node's latest view (from the controller); a node turning IDLE
///   runs a pass.
/// - (map_atom) -> topology_view: the allocation map, for `shoal map`.
/// It owns the allocation map (which job holds which nodes and CPUs): a pass prepares the
/// eligible jobs and their priorities and places them in the same handler, no round trip.
/// It sends a job actor (start_atom, vector<string> nodes, vector<actor> node actors,
/// vector<uint32> cpus per node, string nodelist) and (view_atom, string reason, uint64
/// priority) when either changes; the controller (arraytask_atom, uint64 array, uint32 index,
/// uint64 task job id, nodes, node actors, cpus, string nodelist) to start an array task and
/// (view_atom, uint64 array, string reason, string folded pending tasks) when an array's pending
/// line changes ("" folded: none left).
/// Each pass's time goes to shoal_scheduler_cycle_seconds (and the last/max gauges), the queue
/// length it saw to shoal_scheduler_queue_jobs, in `meters` (null: not metered).
caf::actor spawn_scheduler(caf::actor_system& sys, const config::cluster_config& cfg,
                           std::vector<caf::actor> node_actors, caf::actor controller,
                           metrics::registry* meters);

}  // namespace shoal::actors
