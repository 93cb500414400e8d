#pragma once

// The programs an admin configures for the controller to run (MailProg, SuspendProgram,
// ResumeProgram, ResumeFailProgram): each in a detached actor of its own, so no handler ever
// waits on a process, killed after its timeout, its failure logged with its exit status.

#include <chrono>
#include <string>
#include <vector>

#include <caf/fwd.hpp>

namespace shoal::actors {

struct admin_program {
  std::string label;  ///< the key that names it ("MailProg", "ResumeProgram"), for the log
  std::vector<std::string> argv;
  std::vector<std::string> env;  ///< KEY=VALUE: its whole environment
  std::chrono::seconds timeout{60};
  /// The text of a file made for this run (ResumeProgram's SLURM_RESUME_FILE): written to a
  /// private temporary file in the program's own thread, named in its environment by each of
  /// `file_env`, removed once the program ended. Empty: no file.
  std::string file_text;
  std::vector<std::string> file_env;
};

/// Starts `program` with its output to /dev/null and returns at once. It is killed (SIGKILL)
/// when it outlives its timeout; a start failure, a nonzero exit and a kill are logged as errors
/// naming the program and its status.
void run_admin_program(caf::actor_system& sys, admin_program program);

/// The controller's own environment as KEY=VALUE, for programs that inherit it.
std::vector<std::string> inherited_environment();

}  // namespace shoal::actors
