#pragma once

// What each kind of request becomes: the message the controller answers, and how its answer
// fills the reply.

#include <cstdint>

#include "messages/front_door.hpp"
#include "runtime/ctld/front_door/door_state.hpp"

namespace shoal::runtime::door {

/// Serves `req`, its sender proven (auth.hpp), on the connection `serial` as its request
/// `number`: refuses what its sender may not do, and otherwise asks the target and answers. Does
/// nothing when the connection is gone.
void serve(door_self self, connection_handle hdl, uint64_t serial, uint64_t number,
           msg::client_request& req);

}  // namespace shoal::runtime::door
