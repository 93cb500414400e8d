#pragma once

#include <utility>

#include <caf/actor.hpp>
#include <caf/actor_cast.hpp>
#include <caf/send.hpp>

namespace shoal::actors {

/// Sends from a typed actor to a peer held as a dynamic caf::actor (a remote shoald, a CLI
/// client, an actor not yet typed). CAF 0.17 lets a typed actor send() only to typed actors;
/// this sends through the sender's own handle, so the receiver still sees it as the sender.
template <class Self, class... Ts>
void send_to(Self* self, const caf::actor& dest, Ts&&... xs) {
  caf::send_as(caf::actor_cast<caf::actor>(self), dest, std::forward<Ts>(xs)...);
}

}  // namespace shoal::actors
