#pragma once

// The controller in control writes a heartbeat file in every StateSaveLocation, as slurmctld
// does: a backup that cannot reach the primary over the network, but sees it still writing the
// shared state, is looking at a network split, not at a dead controller, and must not take over
// (two controllers in control would start the same jobs twice).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shoal::runtime {

/// What the file says: who wrote it (the SlurmctldHost line's index) and when (Unix ms, the
/// writer's clock).
struct heartbeat {
  size_t line = 0;
  int64_t unix_ms = 0;
};

/// The file's name inside a StateSaveLocation.
inline constexpr const char* heartbeat_file_name = "heartbeat";

/// Writes `beat` into every location (a temporary file renamed over the old one, so a reader
/// never sees half of it); the text of the first failure, or "" when all took it.
std::string write_heartbeat(const std::vector<std::string>& locations, const heartbeat& beat);

/// The freshest heartbeat written by one of the lines before `line` in any location; nullopt
/// when none is readable.
std::optional<heartbeat> freshest_heartbeat_before(const std::vector<std::string>& locations,
                                                   size_t line);

}  // namespace shoal::runtime
