#include "process/mpi_server.hpp"

#include "process/pmi2_server.hpp"
#include "process/pmix_server.hpp"

namespace shoal::process {

bool wants_pmi_server(const std::string& type) {
  return !type.empty() && type != "none" && type != "openmpi";
}

shoal::expected<std::unique_ptr<mpi_server>> make_mpi_server(mpi_step step) {
  const auto& type = step.request->io.mpi;
  if (!wants_pmi_server(type)) return std::unique_ptr<mpi_server>{};
  if (type == "pmi2")
    return std::unique_ptr<mpi_server>{std::make_unique<pmi2_server>(std::move(step))};
  if (type == "pmix" || type == "pmix_v4") return make_pmix_server(std::move(step));
  return shoal::error{shoal::errc::invalid_request,
                      "--mpi=" + type + ": shoal-stepd serves no such PMI (--mpi=list)"};
}

}  // namespace shoal::process
