#pragma once

// How a node daemon gets the cluster's TLS identity (runtime/tls/cluster_identity.hpp) without
// an admin copying a key file: it asks a controller's front door, with a MUNGE credential that
// proves its uid, and the answer is a MUNGE credential only that uid may decode, made by a uid
// the daemons trust. So the identity travels enciphered with the cluster's MUNGE key, and
// munge.key remains the one secret an admin installs on every host (as with Slurm).

#include <string>

#include "config/config.hpp"
#include "messages/errc.hpp"

namespace shoal::runtime {

/// Asks each controller line's front door in turn for the cluster's identity, once.
/// Errors: errc::unreachable when no line answered (try again later); errc::permission_denied
/// when this process's uid is not a daemon user; errc::authentication_failed when the answer
/// was not made by a daemon user, or does not decode; errc::invalid_config when it holds no
/// identity.
shoal::expected<std::string> identity_from_controller(const config::cluster_config& cfg);

}  // namespace shoal::runtime
