#pragma once

// CAF's own transport (BASP) between shoal's daemons, carried in TLS 1.3 with both sides proving
// they hold the cluster's identity (runtime/tls/cluster_identity.hpp). A peer without it, such
// as a crafted CAF client, fails the handshake before one byte of BASP is read: it can neither
// look up a published actor nor address any other by id. Refusals are logged with the peer.
//
// Debian's libcaf_openssl is not used: in CAF 0.17.6 a server-side write before the handshake
// ends (BASP's server handshake, at once) makes the multiplexer spin until the client speaks
// (CAF issue 1060), so an idle connection would burn a core of shoalctld. This transport holds
// such writes until the handshake ends instead.

#include <string>

#include <caf/actor_system.hpp>
#include <caf/error.hpp>

namespace shoal::runtime {

/// Makes the TLS transport the daemons' transport in `sys` (actors/daemon_transport.hpp finds
/// it): every later publish and connect through it speaks TLS with `identity_pem`. Once per
/// actor system, before the first publish or connect. Error: errc::invalid_config when the
/// identity does not hold a key and its certificate, with OpenSSL's reason.
caf::error start_tls_transport(caf::actor_system& sys, const std::string& identity_pem);

}  // namespace shoal::runtime
