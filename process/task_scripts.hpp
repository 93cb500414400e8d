#pragma once

// TaskProlog= and TaskEpilog= (slurm.conf): run by shoal-stepd as the job's user around each
// task, with the task's environment. A TaskProlog's standard output shapes the task, as
// slurmstepd reads it: `export NAME=VALUE` sets a variable, `unset NAME` removes one, `print
// TEXT` writes TEXT to the task's standard output; other lines are ignored.

#include <chrono>
#include <string>
#include <vector>

#include "process/script_run.hpp"

namespace shoal::process {

/// The step's TaskProlog and TaskEpilog ("": none) and PrologEpilogTimeout (0: no limit).
struct task_scripts {
  std::string prolog;
  std::string epilog;
  std::chrono::seconds timeout{0};
};

/// Applies a TaskProlog's output to `env` (KEY=VALUE entries) as slurmstepd does, and returns
/// what its print lines write (each with its newline).
std::string apply_task_prolog_output(const std::string& output, std::vector<std::string>& env);

/// Runs `program` (TaskProlog or TaskEpilog, named by `label`) with `env`, as `uid`/`gid` with
/// `groups` when they differ from the caller's (root), in `cwd`; waits for it (shoal-stepd
/// is a process of its own, no actor). Its output is kept for apply_task_prolog_output.
script_result run_task_script(const std::string& label, const std::string& program,
                              std::vector<std::string> env, uid_t uid, gid_t gid,
                              std::vector<gid_t> groups, const std::string& cwd,
                              std::chrono::seconds timeout);

}  // namespace shoal::process
