#pragma once

// A listing's coarse filter (ClientRequest.filter): the controller keeps only the jobs it
// lets through before it copies and encodes them, so `squeue -u alice -t R` after 10,000 jobs
// ships alice's running ones. The CLI's own filters still apply after, so this one may keep more
// than they do, never less.

#include "messages/types.hpp"

namespace shoal::msg {

/// Whether `job` passes: its state among filter.states, its owner among filter.users and its
/// partition among filter.partitions (names compared in any case), each empty list passing all.
bool passes(const job_filter& filter, const job_info& job);

/// Whether the filter keeps every job.
bool keeps_all(const job_filter& filter);

}  // namespace shoal::msg
