#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace shoal::config {

/// The prolog and epilog family of slurm.conf (docs/operations.md, "Prolog and epilog"): the
/// programs run around a job on its nodes (as root), on the controller, and around each task
/// (as the job's user).
struct prolog_settings {
  std::string prolog;       ///< Prolog=: on each node of the job, as root, before its tasks
  std::string epilog;       ///< Epilog=: on each node of the job, as root, once it ended
  std::string prolog_ctld;  ///< PrologSlurmctld=: on the controller as the job starts
  std::string epilog_ctld;  ///< EpilogSlurmctld=: on the controller once the job ended
  std::string task_prolog;  ///< TaskProlog=: as the user before each task (its output shapes it)
  std::string task_epilog;  ///< TaskEpilog=: as the user after each task
  // -- PrologFlags= --
  bool alloc = false;    ///< Alloc: the Prolog runs at allocation on every node, not at the first
                         ///< step's launch there
  bool contain = false;  ///< Contain (implies Alloc): accepted; shoal starts no extern step
  bool no_hold = false;  ///< NoHold (with Alloc): accepted; launches wait on the node either way
  bool serial = false;   ///< Serial: a node runs one Prolog or Epilog at a time
  std::vector<std::string> flags;  ///< PrologFlags= words in Slurm's spelling, for show config
  /// PrologEpilogTimeout=: seconds a Prolog or Epilog (either side) may run before it is killed
  /// and counts as failed; 0: no limit (Slurm's default)
  int64_t timeout_s = 0;
};

/// Applies one of the family's keys (lower-cased) to `s`. Returns false when `lower_key` is not
/// one of them; otherwise true, with `error` set (no location) when the value is bad.
bool apply_prolog_key(prolog_settings& s, const std::string& lower_key, const std::string& value,
                      std::string& error);

/// The keys as `shoal control show config` prints them: (Key, value) pairs, the programs only
/// when set.
std::vector<std::pair<std::string, std::string>> render_prolog_keys(const prolog_settings& s);

}  // namespace shoal::config
