#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include <spdlog/spdlog.h>

#include "config/log_settings.hpp"

namespace shoal::config {

/// The process-wide logger. runtime/ configures it (sinks, level, pattern) before any actor runs;
/// actors only write to it, one stable `key=value` line per event (STYLE.md, Logging).
inline spdlog::logger& log() {
  return *spdlog::default_logger_raw();
}

/// Slurm's level as spdlog's: quiet=off, fatal=critical, error=err, info and verbose=info,
/// debug=debug, debug2..debug5=trace (spdlog has no finer grades).
spdlog::level::level_enum spdlog_level(config::debug_level level);

/// Sets the level of the logger's first sink (stderr or the log file) and of the logger, leaving
/// any other sink (syslog) at its own level: what `setdebug` changes. Safe from any thread.
void set_log_level(config::debug_level level);

/// The level last given to set_log_level (info before any call).
config::debug_level log_level();

namespace detail {
inline std::atomic<config::debug_flag_set> debug_flags{0};
}  // namespace detail

/// Switches the debug categories on (DebugFlags=, setdebugflags). Safe from any thread.
inline void set_debug_flags(config::debug_flag_set flags) {
  detail::debug_flags.store(flags, std::memory_order_relaxed);
}

inline config::debug_flag_set debug_flags() {
  return detail::debug_flags.load(std::memory_order_relaxed);
}

/// The level a line of category `flag` is written at: info while its flag is on (as Slurm writes
/// DebugFlags lines with info()), else debug, so `setdebug debug` shows every category.
inline spdlog::level::level_enum category_level(config::debug_flag flag) {
  return (debug_flags() & config::bit_of(flag)) != 0 ? spdlog::level::info : spdlog::level::debug;
}

}  // namespace shoal::config

/// Writes a debug line of category `flag` (a config::debug_flag name such as `steps`), prefixed
/// with the flag's name ("Steps: ..."). When neither the flag nor the debug level is on, this
/// costs one relaxed load and a compare; the arguments are not evaluated.
#define SHOAL_DEBUG(flag, fmt, ...)                                                             \
  do {                                                                                          \
    auto shoal_level_ = ::shoal::config::category_level(::shoal::config::debug_flag::flag);     \
    if (::shoal::config::log().should_log(shoal_level_))                                        \
      ::shoal::config::log().log(shoal_level_, "{}: " fmt,                                      \
                                 ::shoal::config::to_string(::shoal::config::debug_flag::flag), \
                                 ##__VA_ARGS__);                                                \
  } while (false)
