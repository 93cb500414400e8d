#pragma once

#include <string>

#include <caf/error.hpp>

namespace shoal::runtime {

/// Points the process-wide spdlog logger at stderr (empty `file`) or at `file`, named after the
/// process, at a Slurm debug level ("quiet", "fatal", "error", "info", "verbose", "debug",
/// "debug2".."debug5", or 0-9). Error: errc::invalid_config for an unknown level or a log file
/// that cannot be opened.
caf::error setup_logging(const std::string& process, const std::string& level,
                         const std::string& file);

}  // namespace shoal::runtime
