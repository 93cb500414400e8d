#pragma once

#include <csignal>
#include <functional>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

namespace shoal::runtime {

/// SIGINT, SIGTERM and SIGHUP: the signals that end a daemon or a waiting command.
sigset_t shutdown_signals();

/// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread; call first thing in main(), before
/// any thread exists, so every thread inherits the mask and the signals wait for sigwait.
void block_shutdown_signals();

/// Blocks until `main_actor` terminates or SIGINT or SIGTERM arrives (then asks it to quit and
/// waits for it). SIGHUP calls `on_hangup` on the signal thread and goes on waiting (a daemon's
/// reconfigure, runtime/bootstrap/reconfigure.hpp); without one, SIGHUP ends it too. Returns the
/// process exit code: 0 for a requested shutdown, 1 when the actor stopped with an error.
int run_until_shutdown(caf::actor_system& sys, const caf::actor& main_actor,
                       std::function<void()> on_hangup = {});

}  // namespace shoal::runtime
