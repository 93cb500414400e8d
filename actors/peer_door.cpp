#include "actors/peer_door.hpp"

#include <caf/event_based_actor.hpp>

#include "actors/unexpected.hpp"

namespace shoal::actors {

caf::actor spawn_peer_door(caf::actor_system& sys) {
  // The unused argument: CAF 0.17 keeps a function actor's arguments in a shared tuple that is
  // null when there are none, and dereferences it all the same (UBSan reports the binding).
  return sys.spawn(
      [](caf::event_based_actor* self, int) -> caf::behavior {
        tolerate_strays(self);
        // An empty behavior would end the actor at once; this one only waits to be connected to.
        return {[](caf::ok_atom) {}};
      },
      0);
}

}  // namespace shoal::actors
