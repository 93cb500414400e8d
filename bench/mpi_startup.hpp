#pragma once

#include <string>
#include <vector>

namespace shoal::bench {

struct mpi_startup_options {
  std::vector<unsigned> ranks = {2, 8, 32, 64};
  unsigned runs = 5;   ///< pairs (shoal, mpirun) per rank count, alternated
  unsigned nodes = 4;  ///< the local cluster's nodes; each declares CPUs=16 (SlurmdParameters=
                       ///< config_overrides) so that 64 ranks fit
  std::string mpi = "pmix";
  bool keep = false;
};

/// Time from the command's start until every rank is past MPI_Init, for `shoal run -N<nodes>
/// -n<R> --mpi=<mpi>` on a local cluster against Open MPI's own `mpirun -n<R>` on this host, the
/// two alternated, for each rank count. The program is compiled with mpicc.openmpi; each rank
/// prints the wall clock right after MPI_Init. Invalid (false) when Open MPI is missing or a run
/// fails.
bool run_mpi_startup_bench(const mpi_startup_options& opt);

}  // namespace shoal::bench
