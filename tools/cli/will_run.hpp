#pragma once

#include <string>

#include "messages/types.hpp"
#include "tools/cli/session.hpp"

namespace shoal::cli {

/// --test-only (sbatch, srun): asks the controller when and where `req` would start (op
/// test_only: the scheduler places it against what runs now, without starting or queueing
/// anything) and prints Slurm's line on stderr, `PROGRAM: Job N to start at
/// YYYY-MM-DDTHH:MM:SS using C processors on nodes LIST in partition P` (local time, as
/// slurm_make_time_str). Returns 0, or refuse_estimate's 1 when the controller refuses the job
/// or finds no start.
int print_start_estimate(session& s, msg::job_request req, const std::string& program);

/// Slurm's answer when --test-only finds no start (slurm_perror("allocation failure")):
/// "allocation failure: TEXT" on stderr, TEXT the last line of `err` (Slurm's error text, without
/// the explanation before it) and no program name. Returns 1.
int refuse_estimate(const shoal::error& err);

/// Slurm's time format (slurm_make_time_str's default): local time, `2026-11-26T07:00:00`.
std::string slurm_time(int64_t unix_seconds);

}  // namespace shoal::cli
