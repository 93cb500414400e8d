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

}  // namespace shoal::cluster
