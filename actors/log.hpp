#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include <spdlog/spdlog.h>

namespace shoal::actors {

/// The process-wide logger. runtime/ configures it (sink, level, pattern) before any actor runs;
/// actors only write to it, one stable `key=value` line per event (STYLE.md, Logging).
inline spdlog::logger& log() {
  return *spdlog::default_logger();
}

/// Wall-clock Unix seconds, for the timestamps users see in listings.
inline int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace shoal::actors
