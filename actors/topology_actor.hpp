#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/allowed_unsafe_message_type.hpp>

#include <unordered_map>

#include "policy/scheduling_pass.hpp"
#include "messages/types.hpp"
#include "config/config.hpp"
#include "metrics/registry.hpp"
#include "topology/torus.hpp"

namespace shoal::actors {

/// One scheduling pass as the scheduler hands it over: the eligible pending jobs in any order
/// (the policy orders them), what runs now (allocations and expected ends), and the time.
struct placement_request {
  std::vector<policy::pending_job> candidates;
  /// The candidates that are job arrays: their starts get task ids from the scheduler
  /// afterwards (assign_atom), so the map can follow each task.
  std::vector<uint64_t> arrays;
  std::vector<policy::running_job> running;
  int64_t now = 0;
};

/// The pass's decisions (policy::schedule's result) and, for torus jobs, their nodelists in
/// box form, by job id.
struct placement_reply {
  policy::pass_result result;
  std::unordered_map<uint64_t, std::string> box_nodelists;
};

/// Owns the allocation map of every select type (linear, consecutive, cons_tres, torus3d): which
/// nodes are usable (from their node actors' views), what each holds, and the placement of each
/// pass, run with policy::schedule (backfill included). On a torus the policy's node picker is
/// topology::torus_map::place with the job's prism request.
///
/// Messages:
/// - (view_atom, node_info): a node's latest state (routed here by the controller). When a node
///   becomes usable the watcher gets (freed_atom).
/// - (watch_atom, actor): who to tell about freed nodes (the scheduler).
/// - (place_atom, placement_request) -> placement_reply: one pass, one round trip.
/// - (release_atom, uint64 job): the job's nodes are free again (kept for the map).
/// - (assign_atom, uint64 array, vector<uint64> task ids): the task ids the array's starts of the
///   last pass got, in the order of pass_result::started; 0: not started after all (free it).
/// - (map_atom) -> topology_view: what `shoal map` draws.
/// Sends the controller (boxlist_atom, uint64 job, string nodelist) for each torus job it
/// places, so listings show the box form.
caf::actor spawn_topology(caf::actor_system& sys, const config::cluster_config& cfg,
                          caf::actor controller, metrics::registry* meters = nullptr);

/// The torus request a job's shape and node count make (pure). Geometry, rotate and connection
/// type are taken as given (resolve_submission validated them); conn_type "" is torus.
topology::torus_request torus_request_of(const msg::job_shape& shape, uint32_t node_count);

}  // namespace shoal::actors

// The pass's request and answer never leave shoalctld: no wire format needed.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(shoal::actors::placement_request)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(shoal::actors::placement_reply)
