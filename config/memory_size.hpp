#pragma once

#include <cstdint>
#include <string_view>
#include "messages/errc.hpp"

namespace shoal::config {

/// Parses Slurm's memory sizes (--mem, --mem-per-cpu, RealMemory): a whole number with an
/// optional suffix K, M, G or T (case-insensitive, powers of 1024); no suffix means megabytes.
/// Returns megabytes, rounding kilobytes up. Error: errc::invalid_request naming `option`.
shoal::expected<uint64_t> parse_memory_mb(std::string_view text, std::string_view option);

}  // namespace shoal::config
