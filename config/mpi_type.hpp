#pragma once

#include <string>
#include <string_view>

namespace shoal::config {

/// What shoal does with one of Slurm 22.05's MPI plugin types (`srun --mpi=TYPE`, `MpiDefault=`,
/// `SLURM_MPI_TYPE`).
enum class mpi_type_kind {
  unknown,      ///< not a name Slurm has
  runs,         ///< shoal starts the step with it: none (and openmpi, Slurm's old alias of none),
                ///< pmi2 (shoal-stepd serves PMI-1 and PMI-2), pmix and pmix_v4 (its PMIx server)
  not_serving,  ///< Slurm's name for a PMI server shoal does not run (pmix_v1 to v3, pmix_v5,
                ///< cray_shasta): ranks started directly would each be a singleton of size 1
};

/// Classifies `name` as Slurm spells it (case matters, as in Slurm's plugin lookup): none,
/// openmpi, pmi2, pmix, pmix_v1 to pmix_v5, cray_shasta.
mpi_type_kind classify_mpi_type(std::string_view name);

/// `srun --mpi=list`'s text, as Slurm 22.05 prints it: "MPI plugin types are...", then a tab and
/// each type shoal can start a step with, one a line, then the versioned pmix names
/// ("specific pmix plugin versions available: pmix_v4").
std::string mpi_type_list();

}  // namespace shoal::config
