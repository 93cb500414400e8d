#pragma once

#include <cstdint>
#include <functional>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/error.hpp>
#include <caf/expected.hpp>
#include <caf/typed_actor.hpp>

#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "messages/types.hpp"

namespace shoal::actors {

/// How the controller proves itself to node daemons and checks that a registering daemon is
/// one of the cluster's (runtime/bootstrap/daemon_auth under AuthType=auth/munge). Both block
/// on munged.
struct daemon_credentials {
  /// Puts the controller's credential on a launch. On error the launch goes unsigned and its
  /// daemon refuses it, so the step fails with a launch error instead of never starting.
  std::function<shoal::error(msg::launch_request&)> sign_launch;
  /// The credential for a signal (job, step, signo). On error the signal goes without one and
  /// its daemon drops it.
  std::function<shoal::expected<std::string>(uint64_t, uint32_t, int32_t)> sign_signal;
  /// Checks (and removes) a registration's credential; an error refuses the registration.
  std::function<shoal::error(msg::machine_status&, const msg::node_report&)> check_registration;
};

/// The controller's side of daemon authentication: one detached actor between the node actors
/// and their daemons, so that no node actor waits on munged. Everything a node actor sends its
/// daemon passes through it when it exists, in the order sent, so a signal or release never
/// overtakes the launch it follows. The last element of each message names the daemon.
using daemon_gate_actor = caf::typed_actor<
    /// (request, sink, job, daemon): signed, then sent on as node_daemon_actor's launch.
    caf::reacts_to<msg::launch_atom, msg::launch_request, caf::actor, caf::actor, caf::actor>,
    /// (job, step, signo, daemon): signed, then sent on as node_daemon_actor's signal.
    caf::reacts_to<msg::signal_atom, uint64_t, uint32_t, int32_t, caf::actor>,
    /// (job, step, sink, daemon)
    caf::reacts_to<msg::attach_atom, uint64_t, uint32_t, caf::actor, caf::actor>,
    /// (job, daemon)
    caf::reacts_to<msg::release_atom, uint64_t, caf::actor>,
    /// (job, daemon): the job starts on the daemon's node, for its Prolog and Epilog (not
    /// signed: the daemon runs only its own config's scripts)
    caf::reacts_to<msg::prolog_atom, msg::launch_request, caf::actor>,
    /// (collector, host, port, daemon): where the daemon beats (not signed: docs/security.md)
    caf::reacts_to<msg::collector_atom, std::string, std::string, uint16_t, caf::actor>,
    /// A daemon's registration, before the controller takes it: ok, or why it is refused.
    caf::replies_to<msg::register_atom, msg::machine_status, msg::node_report>::with<caf::ok_atom>>;

daemon_gate_actor spawn_daemon_gate(caf::actor_system& sys, daemon_credentials credentials);

}  // namespace shoal::actors
