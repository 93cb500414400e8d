#include "config/mpi_type.hpp"

namespace shoal::config {

mpi_type_kind classify_mpi_type(std::string_view name) {
  if (name == "none" || name == "openmpi") return mpi_type_kind::runs;
  // pmi2: shoal-stepd's PMI-1/PMI-2 server; its PMIx server is OpenPMIx 4
  // (process/pmix_server.hpp): pmix, and pmix_v4, the versioned name Slurm installs the same
  // plugin under.
  if (name == "pmi2" || name == "pmix" || name == "pmix_v4") return mpi_type_kind::runs;
  if (name == "cray_shasta") return mpi_type_kind::not_serving;
  // pmix_v1 ... pmix_v5: the versioned names Slurm's pmix plugin is also installed under.
  if (name.size() == 7 && name.substr(0, 6) == "pmix_v" && name[6] >= '1' && name[6] <= '5')
    return mpi_type_kind::not_serving;
  return mpi_type_kind::unknown;
}

std::string mpi_type_list() {
  // Only what works: Slurm lists the plugins it could load, and a PMI server shoal does not run
  // is not one.
  // The versioned pmix names come last on a line of their own, as Slurm's plugrack prints them.
  return "MPI plugin types are...\n"
         "\tnone\n"
         "\tpmi2\n"
         "\tpmix\n"
         "specific pmix plugin versions available: pmix_v4\n";
}

}  // namespace shoal::config
