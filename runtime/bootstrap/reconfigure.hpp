#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "config/config.hpp"
#include "messages/errc.hpp"

namespace shoal::runtime {

/// Which daemon reads its file again: each applies its own debug level key.
enum class daemon_role { controller, node };

/// What one read of the file found.
struct reread {
  /// "applied=KEYS restart_needed=KEYS" (each "none" when empty)
  std::string text;
  /// The controller's: the file as read, whose NodeName= and PartitionName= lines the
  /// controller applies while it runs (it compares them with what it has; see
  /// controller_actor's reconfig_atom). Null for a node daemon.
  std::shared_ptr<const config::cluster_config> fresh;
};

/// What a daemon does on SIGHUP, where slurmctld and slurmd reconfigure: reads its configuration
/// file again and applies what can change while it runs, its debug level (SlurmctldDebug or
/// SlurmdDebug) and DebugFlags; the controller also hands the nodes and partitions on (reread).
/// Every other change is logged as waiting for a restart, and a
/// file that does not parse is logged with its file:line while the configuration in force
/// stays. The daemon never stops for it (an admin's `kill -HUP` habit from Slurm). Runs on the
/// signal thread, or on a thread of its own for `scontrol reconfigure` (the front door's), never
/// on an actor: it reads a file. One at a time: both may share it.
class reconfigurer {
 public:
  reconfigurer(config::cluster_config in_force, daemon_role role);

  /// SIGHUP's: run() with its outcome logged only.
  void operator()();

  /// Reads the file again and applies what it can. Answers what it did; errc::invalid_config with
  /// the file:line of a file that does not parse (the configuration in force stays), or
  /// errc::invalid_request on the embedded default configuration (no file to read).
  shoal::expected<reread> run();

 private:
  std::mutex mutex_;
  config::cluster_config in_force_;
  daemon_role role_;
};

}  // namespace shoal::runtime
