#pragma once

#include <caf/actor_system_config.hpp>

namespace shoal::runtime {

/// Prepares an actor system config the same way in every shoal process: registers the message
/// type-ID block (so wire names match), loads the middleman, installs shoal's error renderer and
/// sizes the scheduler. Call before constructing the actor_system.
void configure_actor_system(caf::actor_system_config& cfg, unsigned max_threads);

}  // namespace shoal::runtime
