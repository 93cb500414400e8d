#pragma once

// The PMIx server of a step (--mpi=pmix, pmix_v4), on OpenPMIx's server library (Debian's
// libpmix-dev, PMIx 4): what an Open MPI rank started directly by shoal-stepd connects to, as it
// would to Slurm's mpi/pmix plugin in slurmstepd. The step's namespace and its local ranks are
// registered before any task starts; fences collect the ranks' data across the step's nodes
// through step_exchange; a rank that ends before PMIx_Finalize raises PMIX_ERR_PROC_ABORTED in
// the namespace and fails the step's fence on every node.
//
// PMIx runs a progress thread of its own and calls the server's module from it. Those callbacks
// only queue what they were told and wake shoal-stepd's poll loop through an eventfd; everything
// that reaches the rest of shoal-stepd (the exchange, report, abort) happens in handle_fds.

#include "process/mpi_server.hpp"

namespace shoal::process {

/// Starts the PMIx server of `step` (PMIx_server_init, the namespace, its local clients).
/// errc::system_error naming the PMIx call that failed, or when this process ran a PMIx server
/// already: the library cannot be initialized twice in one process (see pmix_server_has_run).
shoal::expected<std::unique_ptr<mpi_server>> make_pmix_server(mpi_step step);

/// True once this process started a PMIx server. PMIx_server_finalize does not leave the
/// library able to serve another PMIx_server_init reliably (its frameworks, progress thread and
/// static state are not all torn down), so a step daemon that ran one ends after its step
/// instead of serving the next (runtime/stepd_main.cpp).
bool pmix_server_has_run();

}  // namespace shoal::process
