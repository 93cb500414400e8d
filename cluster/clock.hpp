#pragma once

#include <chrono>
#include <cstdint>

namespace shoal::cluster {

/// Wall-clock Unix seconds, for the timestamps users see in listings.
inline int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// Steady-clock nanoseconds, for ordering events inside one process (never shown, never saved).
inline int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace shoal::cluster
