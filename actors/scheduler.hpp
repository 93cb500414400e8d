#pragma once

#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "runtime/config.hpp"
#include "runtime/metrics/registry.hpp"

namespace shoal::actors {

/// Owns the pending queue and which nodes are free, and starts jobs in priority order.
///
/// Messages:
/// - (enqueue_atom, uint64 id, job_request req, int64 priority, actor job): `req` is validated,
///   with partition and min_nodes resolved by the controller.
/// - (cancel_atom, uint64 id): drop a pending job.
/// - (release_atom, uint64 id): the job's nodes are free again (once their node actors say IDLE).
/// - (view_atom, node_info): a node's latest state (forwarded by the controller).
/// A pass runs once per burst of events. For each job it starts, it sends the job actor
/// (start_atom, vector<string> node names, vector<actor> node actors); for each job that keeps
/// waiting with a new reason, (view_atom, string reason).
/// Each pass's time goes to shoal_scheduler_cycle_seconds (and the last/max gauges), the queue
/// length it saw to shoal_scheduler_queue_jobs, in `meters` (null: not metered).
caf::actor spawn_scheduler(caf::actor_system& sys, const runtime::cluster_config& cfg,
                           std::vector<caf::actor> node_actors, metrics::registry* meters);

}  // namespace shoal::actors
