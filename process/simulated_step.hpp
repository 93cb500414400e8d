#pragma once

#include <chrono>
#include <cstdint>

#include "messages/types.hpp"

namespace shoal::process {

/// How a step ends on a simulated node (`shoald --simulate`), which runs no process: every task
/// of the step ends together, after `runs_for`, with `exit_code`.
struct simulated_outcome {
  std::chrono::milliseconds runs_for{0};
  int32_t exit_code = 0;
};

/// The outcome of `req`'s command: `sleep N` (N seconds, fractions and Slurm's s/m/h/d suffixes
/// allowed, as coreutils' sleep reads them) ends after N with 0; `false` ends at once with 1;
/// anything else ends at once with 0. The command is argv, or for a batch script its first line
/// that is neither blank nor a comment. A path counts by its last part (`/bin/sleep 5`).
simulated_outcome simulate_step(const msg::launch_request& req);

/// Whether `signo` ends a task that does not catch it (SIGTERM, SIGKILL, SIGINT...), as opposed
/// to one that stops, continues or is ignored by default (0, SIGCONT, SIGSTOP, SIGCHLD...).
bool ends_a_task(int32_t signo);

}  // namespace shoal::process
