#pragma once

#include <cstddef>
#include <string>

namespace shoal::bench {

/// The controller's recovery time (issue 13): `jobs` held batch jobs are written as saved state
/// (one snapshot, as a controller would leave it), then a local cluster of `nodes` daemons
/// starts on it. Prints how long loading took (shoalctld's own figure), the time from starting
/// shoalctld to its first answer that lists the last job, and shoalctld's RSS then. False when
/// the run is invalid (the state cannot be written, the cluster does not come up, a job is
/// missing).
bool run_recovery_bench(size_t jobs, unsigned nodes);

}  // namespace shoal::bench
