#include "process/mpi_server.hpp"

namespace shoal::process {

shoal::expected<std::unique_ptr<mpi_server>> make_mpi_server(mpi_step step) {
  const auto& type = step.request->io.mpi;
  if (type.empty() || type == "none" || type == "openmpi") return std::unique_ptr<mpi_server>{};
  return shoal::error{shoal::errc::invalid_request,
                      "--mpi=" + type + ": shoal-stepd serves no such PMI (--mpi=list)"};
}

}  // namespace shoal::process
