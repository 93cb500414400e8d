#pragma once

#include <string>

namespace shoal::cli {

/// `shoal control ping` (scontrol ping): asks each SlurmctldHost line whether its shoalctld
/// answers and prints one line per controller, as Slurm 22.05's scontrol does:
/// "shoalctld(primary) at NAME is UP|DOWN", then "backup" (or "backup1", "backup2", ... with more
/// than two lines). As root, a DOWN controller adds scontrol's "RESTORE ... TO SERVICE" banner.
/// Returns 0 when any controller is UP, else 1 (a config that cannot be read: 1 with an error).
int ping_controllers(const std::string& conf_path);

}  // namespace shoal::cli
