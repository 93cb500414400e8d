#pragma once

// The cluster's TLS identity: one private key and its self-signed certificate, in PEM, that
// every daemon of the cluster holds. The node daemons' CAF port (SlurmctldPort) and the
// collectors' ports take a connection only from a peer that proves it holds the key
// (runtime/tls/tls_transport.hpp), so a crafted CAF peer cannot address the controller's actors.
// shoalctld keeps it in StateSaveLocation; a node daemon gets it from the controller's front door
// in a MUNGE credential only its own uid can decode (docs/security.md).

#include <string>

#include "messages/errc.hpp"

namespace shoal::runtime {

/// OpenSSL's queued error reasons, oldest first, joined by "; " ("" when none); empties the queue.
std::string openssl_reason();

/// The file name of the identity in StateSaveLocation.
inline constexpr const char* cluster_identity_file = "cluster_tls.pem";

/// A fresh identity: a P-256 key and a self-signed certificate for it (CN=shoal-cluster), both
/// PEM, the key first. Error: errc::system_error with OpenSSL's reason.
shoal::expected<std::string> make_cluster_identity();

/// Checks that `pem` holds a private key and a certificate for that key.
/// Error: errc::invalid_config naming what is missing or wrong.
shoal::error check_cluster_identity(const std::string& pem);

/// The identity in `directory`/cluster_tls.pem, made (mode 0600) when the file does not exist.
/// Errors: errc::system_error (cannot read or write it, with the path), errc::invalid_config when
/// the file is readable by others than its owner (with the fix: chmod 600) or does not hold an
/// identity.
shoal::expected<std::string> load_or_create_cluster_identity(const std::string& directory);

}  // namespace shoal::runtime
