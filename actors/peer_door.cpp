#include "actors/peer_door.hpp"

#include <caf/event_based_actor.hpp>

#include "actors/unexpected.hpp"

namespace shoal::actors {

caf::actor spawn_peer_door(caf::actor_system& sys) {
  return sys.spawn([](caf::event_based_actor* self) -> caf::behavior {
    tolerate_strays(self);
    // An empty behavior would end the actor at once; this one only waits to be connected to.
    return {[](caf::ok_atom) {}};
  });
}

}  // namespace shoal::actors
