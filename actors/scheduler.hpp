#pragma once

#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "runtime/config.hpp"

namespace shoal::actors {

/// Owns the pending queue and starts jobs in priority order; where they go is the topology
/// actor's decision (it owns the allocation map).
///
/// Messages:
/// - (enqueue_atom, uint64 id, job_request req, int64 priority, actor job): `req` is validated,
///   with partition and min_nodes resolved by the controller.
/// - (cancel_atom, uint64 id): drop a pending job.
/// - (release_atom, uint64 id): the job's nodes are free again (forwarded to the topology actor).
/// - (freed_atom): the topology actor saw a node become usable.
/// A pass runs once per burst of events and is one round trip to the topology actor
/// (place_atom with every pending job). For each job it starts, it sends the job actor
/// (start_atom, vector<string> node names, vector<actor> node actors); for each job that keeps
/// waiting with a new reason, (view_atom, string reason).
caf::actor spawn_scheduler(caf::actor_system& sys, const runtime::cluster_config& cfg,
                           std::vector<caf::actor> node_actors, caf::actor topology);

}  // namespace shoal::actors
