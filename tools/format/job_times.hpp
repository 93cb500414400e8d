#pragma once

// A job's run time and expected end as every listing shows them (squeue's job_time_used and
// end_time, scontrol's RunTime, sacct's Elapsed): one definition, so that suspension is left out
// the same way everywhere.

#include <cstdint>

#include "messages/types.hpp"

namespace shoal::cli {

/// Whether a job in state `s` holds nodes (its listings show its node list, not a reason).
bool holds_nodes(msg::job_state s);

/// Seconds the job has run: from its start to its end (or `now`), without the time it spent
/// suspended (Slurm's tot_sus_time; a suspended job's clock stands at its suspend time). 0 before
/// it started.
int64_t run_seconds(const msg::job_info& j, int64_t now);

/// When the job ends: its end once it has one, else its start plus its time limit and the time
/// it spent suspended while it holds nodes (slurmctld sets it so); 0 before it started or
/// without a limit.
int64_t expected_end(const msg::job_info& j);

}  // namespace shoal::cli
