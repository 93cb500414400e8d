#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/allowed_unsafe_message_type.hpp>

#include "actors/scheduling.hpp"
#include "messages/types.hpp"
#include "runtime/config.hpp"
#include "topology/torus.hpp"

namespace shoal::actors {

/// One pending job as the scheduler hands it to the topology actor: node indices are in config
/// order (the scheduler's), the shape is the job's torus options.
struct pass_candidate {
  pending_job job;
  msg::job_shape shape;
};

/// A scheduling pass: the pending jobs (any order: the pass orders them by priority).
struct placement_request {
  std::vector<pass_candidate> jobs;
};

/// One job to start: node indices in config order, and its nodelist as users see it (box form
/// on a torus).
struct granted_job {
  uint64_t job = 0;
  std::vector<size_t> nodes;
  std::string nodelist;
};

/// The answer to one pass: the jobs placed (their nodes are now allocated to them) and the
/// reasons the others keep waiting.
struct placement_reply {
  std::vector<granted_job> started;
  std::vector<pending_reason> waiting;
};

/// Owns the allocation map of every select type (linear, consecutive, torus3d): which nodes are
/// usable (their node actor says IDLE) and which job holds each node.
///
/// Messages:
/// - (view_atom, node_info): a node's latest state (routed here by the controller). When a node
///   becomes usable the watcher gets (freed_atom).
/// - (watch_atom, actor): who to tell about freed nodes (the scheduler).
/// - (place_atom, placement_request) -> placement_reply: one pass, one round trip.
///   Linear/consecutive run schedule_pass (scheduling.cpp); torus3d runs schedule_torus_pass
///   (placement_torus.cpp) with each job's torus_request.
/// - (release_atom, uint64 job): the job's nodes are free again.
/// - (map_atom) -> topology_view: what `shoal map` draws.
/// Sends the controller (boxlist_atom, uint64 job, string nodelist) for each torus job it
/// places, so listings show the box form.
caf::actor spawn_topology(caf::actor_system& sys, const runtime::cluster_config& cfg,
                          caf::actor controller);

/// The torus request a job's shape and node count make (pure). Geometry, rotate and connection
/// type are taken as given (resolve_submission validated them); conn_type "" is torus.
topology::torus_request torus_request_of(const msg::job_shape& shape, uint32_t node_count);

}  // namespace shoal::actors

// The pass's request and answer never leave shoalctld: no wire format needed.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(shoal::actors::placement_request)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(shoal::actors::placement_reply)
