#pragma once

// What each kind of request becomes: the check its sender must pass, the message the controller
// answers, and how its answer fills the reply.

#include "messages/front_door.hpp"
#include "runtime/ctld/front_door/door_state.hpp"

namespace shoal::runtime::door {

/// Serves `req`, its sender proven (auth.hpp): authorizes it (authorize.hpp), then asks the target
/// and answers, or refuses it when no target answers now (errc::not_in_control) or its kind is
/// unknown (errc::invalid_request). Does nothing when the connection is gone.
void serve(door_self self, const reply_to& to, msg::client_request& req);

/// Whether requests of `kind` have a handler of their own: false for client_op::unknown and any
/// number messages/shoal.capnp's ClientOp does not name, which serve refuses as unknown.
bool routed(msg::client_op kind);

}  // namespace shoal::runtime::door
