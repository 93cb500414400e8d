#pragma once

// --ntasks-per-core and --ntasks-per-socket (sbatch, srun, salloc): what the CLI can enforce of
// them. The request on the wire has no field for either, so the CLI turns them into the bound
// the controller already enforces, --ntasks-per-node: the fewest tasks any node the job may get
// takes under them, from each node's Sockets, CoresPerSocket and ThreadsPerCore.

#include "messages/errc.hpp"
#include "messages/types.hpp"
#include "tools/cli/job_options.hpp"
#include "tools/cli/session.hpp"

namespace shoal::cli {

/// Does nothing when neither option was given. Otherwise asks the controller for the nodes
/// (the partition's, less -x; a step's: its job's) and reads their layout from the config file
/// (NodeName= Sockets, CoresPerSocket, ThreadsPerCore; what a node reported where the file says
/// nothing), and sets req.workload.ntasks_per_node to the smallest tasks_per_node_limit among
/// them (or the --ntasks-per-node given, when smaller). Without -n, the task count stays
/// Slurm's default: one a node (-N), one for a new job, one a node of the job for a step.
/// Error: errc::unsatisfiable, "Requested node configuration is not available: ..." (Slurm's
/// words) when no node takes a task, when --ntasks-per-node asks more than the nodes take, or
/// when -n does not fit the nodes at that bound; a controller's refusal as it is.
shoal::error apply_task_density(session& s, const job_options& o, msg::job_request& req);

}  // namespace shoal::cli
