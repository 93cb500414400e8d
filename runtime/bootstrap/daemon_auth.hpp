#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "messages/errc.hpp"
#include "messages/types.hpp"
#include "policy/access.hpp"

namespace shoal::runtime {

/// The uids whose MUNGE credential may speak for the cluster's daemons: root, the user this
/// process runs as, and SlurmUser (when it names a user of this host).
std::vector<uint32_t> daemon_uids(const config::cluster_config& cfg);

/// Who may do what in this cluster (policy/access.hpp), resolved once per process: the daemon
/// users as daemon_uids, AdminUsers by name, PrivateData=jobs. A name that is no user of this
/// host is logged as a warning and ignored.
policy::access_rules access_rules_of(const config::cluster_config& cfg);

/// Under auth/munge, puts the controller's credential on `req`: a MUNGE credential whose payload
/// is the digest of the launch's encoding (credential empty), so it vouches for this launch
/// alone. Does nothing under auth/none. Blocks for one round trip to munged.
/// Error: errc::system_error (munged unreachable).
shoal::error sign_launch(const config::auth_settings& auth, msg::launch_request& req);

/// Checks that `req` came from the controller, and empties its credential: under auth/munge, a
/// genuine, fresh, first-seen credential made by one of `trusted` for exactly this launch.
/// Always fine under auth/none. Blocks for one round trip to munged.
/// Error: errc::authentication_failed naming what is wrong, errc::system_error (munged).
shoal::error verify_launch(const config::auth_settings& auth, const std::vector<uint32_t>& trusted,
                           msg::launch_request& req);

/// The controller's credential for signalling step `step` of `job` (0xffffffff: every step)
/// with `signo` on a node daemon; "" under auth/none. Blocks for one round trip to munged.
/// Error: errc::system_error (munged unreachable).
shoal::expected<std::string> sign_signal(const config::auth_settings& auth, uint64_t job,
                                         uint32_t step, int32_t signo);

/// Checks `credential` was made by one of `trusted` for exactly this signal (as verify_launch).
shoal::error verify_signal(const config::auth_settings& auth, const std::vector<uint32_t>& trusted,
                           uint64_t job, uint32_t step, int32_t signo,
                           const std::string& credential);

/// As sign_launch, for a node daemon's registration: the digest covers its machine status and
/// the steps it reports.
shoal::error sign_registration(const config::auth_settings& auth, msg::machine_status& status,
                               const msg::node_report& report);

/// As verify_launch, for a node daemon's registration.
shoal::error verify_registration(const config::auth_settings& auth,
                                 const std::vector<uint32_t>& trusted, msg::machine_status& status,
                                 const msg::node_report& report);

}  // namespace shoal::runtime
