#include "config/mpi_type.hpp"

namespace shoal::config {

mpi_type_kind classify_mpi_type(std::string_view name) {
  if (name == "none" || name == "openmpi") return mpi_type_kind::runs;
  if (name == "pmi2") return mpi_type_kind::runs;
  if (name == "pmix" || name == "cray_shasta") return mpi_type_kind::not_serving;
  // pmix_v1 ... pmix_v5: the versioned names Slurm's pmix plugin is also installed under.
  if (name.size() == 7 && name.substr(0, 6) == "pmix_v" && name[6] >= '1' && name[6] <= '5')
    return mpi_type_kind::not_serving;
  return mpi_type_kind::unknown;
}

std::string mpi_type_list() {
  // Only what works: Slurm lists the plugins it could load, and a PMI server shoal does not run
  // is not one.
  return "MPI plugin types are...\n"
         "\tnone\n"
         "\tpmi2\n";
}

}  // namespace shoal::config
