#pragma once

// How the shoald processes of one step's nodes reach each other without the controller. CAF
// routes a message along a direct connection between two actor systems when one exists, and
// through the system it learned the handle from otherwise: a shepherd learns its peers' handles
// from the job actor in shoalctld, so without a direct connection every round of a PMI fence
// would pass through the controller's process. Each shoald publishes a door on a port of its
// node's address; a shepherd connects to its parent's door before its first round goes up, and
// from then on the two processes speak directly (both ways: a connection serves both ends).

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

namespace shoal::actors {

/// The actor published as the door. It answers nothing: connecting is all a peer wants of it,
/// and any message sent to it is dropped (logged).
caf::actor spawn_peer_door(caf::actor_system& sys);

}  // namespace shoal::actors
