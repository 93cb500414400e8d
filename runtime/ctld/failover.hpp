#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/expected.hpp>

#include "config/config.hpp"
#include "messages/caf/error.hpp"
#include "metrics/registry.hpp"
#include "policy/access.hpp"
#include "runtime/bootstrap/reconfigure.hpp"

namespace shoal::runtime {

/// Which shoalctld this process is, and what it needs to run the controller.
struct failover_setup {
  config::cluster_config cfg;
  std::vector<config::controller_host> lines;  ///< the SlurmctldHost lines, primary first
  size_t self_index = 0;                       ///< this process's line in `lines`
  metrics::registry* meters = nullptr;  ///< outlives every controller; null: CollectMetrics=NO
  std::string bind_address;             ///< where the port listens; "" for every address
  std::string metrics_address;          ///< where /metrics listens
  bool cold_start = false;  ///< shoalctld -c: the first bring-up forgets the saved state
  /// Under auth/munge: the cluster's TLS identity (runtime/tls/cluster_identity.hpp), which the
  /// front door hands to node daemons that prove they run as a daemon user.
  std::string cluster_identity;
  /// Under AuthAltTypes=auth/jwt: the HS256 key (read when shoalctld starts).
  std::string jwt_key;
  /// Who may do what: the front door and every controller this process runs ask the same rules.
  policy::access_rules access;
  /// What `scontrol reconfigure` runs (front_door_setup::reconfigure); empty: refused.
  std::function<shoal::expected<reread>()> reconfigure;
};

/// Which of `lines` this shoalctld is: the line named `requested` (--controller NAME), else the
/// one whose NAME is the host's short or long name, else the only line. Error
/// (errc::invalid_request) naming the lines.
caf::expected<size_t> choose_controller_line(const std::vector<config::controller_host>& lines,
                                             const std::string& requested,
                                             const std::string& short_host,
                                             const std::string& long_host);

/// How often a shoalctld pings the controller lines before its own: a third of
/// SlurmctldTimeout, 1 to 10 seconds (as Slurm's backup does).
std::chrono::milliseconds ping_interval(const config::cluster_config& cfg);

/// Runs this shoalctld's part in the backup controller scheme (seed 001), on a thread of its
/// own, and returns the actor to hand to run_until_shutdown:
/// - The primary (line 0) asks every later line in control to hand control back and waits for
///   it (publishing a reclaiming standby meanwhile, at most SlurmctldTimeout + MessageTimeout),
///   then brings the controller up (bring_up_controller) and publishes it.
/// - A backup publishes a standby (actors/standby.hpp) and pings the lines before it every
///   ping_interval; when none has answered for SlurmctldTimeout it takes control the same way.
///   In control, it keeps pinging them: when one is back reclaiming control (or in control), it
///   makes its state durable (handover_atom), stops its controller, stands by again and tells
///   the reclaiming one (handback_atom).
/// A shutdown makes the state durable first. The actor ends with an error when the controller
/// fails or the port cannot be published (run_until_shutdown then returns 1).
caf::actor spawn_failover(caf::actor_system& sys, failover_setup setup);

}  // namespace shoal::runtime
