#pragma once

#include "config/config.hpp"

namespace shoal::runtime {

/// Which daemon reads its file again: each applies its own debug level key.
enum class daemon_role { controller, node };

/// What a daemon does on SIGHUP, where slurmctld and slurmd reconfigure: reads its configuration
/// file again and applies what can change while it runs, its debug level (SlurmctldDebug or
/// SlurmdDebug) and DebugFlags. Every other change is logged as waiting for a restart, and a
/// file that does not parse is logged with its file:line while the configuration in force
/// stays. The daemon never stops for it (an admin's `kill -HUP` habit from Slurm). Runs on the
/// signal thread, never on an actor: it reads a file.
class reconfigurer {
 public:
  reconfigurer(config::cluster_config in_force, daemon_role role);

  void operator()();

 private:
  config::cluster_config in_force_;
  daemon_role role_;
};

}  // namespace shoal::runtime
