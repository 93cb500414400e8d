#pragma once

#include <caf/actor_system_config.hpp>

namespace shoal::runtime {

/// Prepares an actor system config the same way in every shoal process: registers the message
/// type-ID block (so wire names match), loads the middleman, installs shoal's error renderer and
/// sizes the scheduler. Call before constructing the actor_system.
void configure_actor_system(caf::actor_system_config& cfg, unsigned max_threads);

/// The scheduler threads a daemon (shoalctld, shoald) runs its actors on: one per four cores,
/// at least one, at most four. The daemons' handlers are short, so a message between two of
/// their actors is handled soonest by the thread that sent it: with a second thread idle, each
/// such message woke it instead (a futex wake and a context switch: about an eighth of the
/// controller's CPU per job on two cores; docs/benchmarks.md). Blocking work has threads of its own (the
/// state writer, the I/O multiplexer, detached actors).
unsigned daemon_worker_threads();

}  // namespace shoal::runtime
