#pragma once

// How the daemons' actor systems reach each other: CAF's middleman actor, or the TLS transport
// runtime/tls/tls_transport.hpp puts in its place (under AuthType=auth/munge). Every publish and
// connect between daemons goes through daemon_transport, so none bypasses TLS by mistake.

#include <caf/actor_system.hpp>
#include <caf/atom.hpp>
#include <caf/io/middleman.hpp>
#include <caf/io/middleman_actor.hpp>

namespace shoal::actors {

/// The registry key the TLS transport is found under.
inline constexpr caf::atom_value daemon_transport_key = caf::atom("shoaltls");

/// The middleman actor to publish on and connect through.
inline caf::io::middleman_actor daemon_transport(caf::actor_system& sys) {
  if (auto tls = sys.registry().get<caf::io::middleman_actor>(daemon_transport_key)) return tls;
  return sys.middleman().actor_handle();
}

}  // namespace shoal::actors
