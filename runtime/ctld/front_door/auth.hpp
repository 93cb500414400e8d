#pragma once

// Who sent a request: under auth/munge each request's credential is checked off the broker's
// thread, and the proven sender replaces whatever the request names.

#include <cstdint>

#include <caf/behavior.hpp>
#include <caf/event_based_actor.hpp>

#include "messages/front_door.hpp"
#include "runtime/ctld/front_door/door_state.hpp"

namespace shoal::runtime::door {

/// Checks credentials (auth/munge) on a thread of its own: munge_decode waits for munged, and
/// the door must not stop serving meanwhile. A node daemon's cluster_identity request gets its
/// answer here too, since sealing it waits for munged as well. Answers `(verify_atom, request)`
/// with the request, its sender proven and stamped, or the error that refuses it.
caf::behavior credential_checker(caf::event_based_actor*, const front_door_setup& setup);

/// Serves `req` once its sender is proven (auth/munge), or at once (auth/none). A request that
/// fails the check is answered with its refusal and logged with the peer.
void admit(door_self self, const reply_to& to, msg::client_request& req);

}  // namespace shoal::runtime::door
