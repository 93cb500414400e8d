#pragma once

#include <string>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "messages/types.hpp"

namespace shoal::actors {

/// Starts the tasks of one job step on this node and watches them to the end (seed 001's Job
/// Shepherd). Runs as a detached actor: fork/exec, pipe reads and waitpid block, so they never
/// run in a cooperative handler.
///
/// For each rank in `req.ranks` it forks a task in its own process group, with PR_SET_PDEATHSIG
/// so no task outlives a killed shoald, in `req.cwd` (falling back to $HOME, then /tmp), as
/// `req.uid`/`req.gid` when shoald runs as root and they differ, with `req.env` plus
/// SHOAL_JOB_ID, SHOAL_STEP_ID, SHOAL_PROCID (rank), SHOAL_NTASKS, SHOAL_NODEID (req.node_index),
/// SHOAL_LOCALID (index in req.ranks), SHOAL_NNODES, SHOAL_JOB_NODELIST, SHOAL_STEP_NODELIST,
/// SHOAL_SUBMIT_DIR (req.cwd), SHOAL_CPUS_PER_TASK, SHOAL_JOB_NAME, SHOAL_JOB_PARTITION,
/// SHOAL_NODENAME and SHOAL_CONF (when set in shoald's environment). argv[0] is looked up in PATH.
///
/// Batch (`req.batch`): one task (rank 0) runs `req.script` written to a private file (mode 0700)
/// under `spool_dir`, stdout to `req.stdout_path` and stderr to `req.stderr_path` (or stdout's
/// file when empty), both opened O_APPEND|O_CREAT as the job's user.
///
/// Otherwise output is sent as it arrives, in chunks of whole lines where possible (at most
/// 64 KiB), as `msg::task_output` to `sink` (skipped when `sink` is invalid).
///
/// Messages it handles while tasks run:
/// - `(msg::signal_atom, int32_t signo)`: sends signo to every task's process group.
/// When every task has exited it sends one `msg::step_exit` (one entry per rank) to `sink` and
/// to `job`, after all output; then it quits. If fork/exec of any task fails, the tasks already
/// started are killed and step_exit carries `launch_error` (e.g. "execvp(foo): No such file or
/// directory") with exit code 127 for ranks that never started, or 126 when not executable.
caf::actor spawn_shepherd(caf::actor_system& sys, msg::launch_request req, caf::actor sink,
                          caf::actor job, std::string node_name, std::string spool_dir);

}  // namespace shoal::actors
