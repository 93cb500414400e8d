#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include <spdlog/spdlog.h>

#include "messages/types.hpp"
#include "runtime/log_settings.hpp"

namespace shoal::actors {

/// The process-wide logger. runtime/ configures it (sinks, level, pattern) before any actor runs;
/// actors only write to it, one stable `key=value` line per event (STYLE.md, Logging).
inline spdlog::logger& log() {
  return *spdlog::default_logger_raw();
}

/// Slurm's level as spdlog's: quiet=off, fatal=critical, error=err, info and verbose=info,
/// debug=debug, debug2..debug5=trace (spdlog has no finer grades).
spdlog::level::level_enum spdlog_level(runtime::debug_level level);

/// Sets the level of the logger's first sink (stderr or the log file) and of the logger, leaving
/// any other sink (syslog) at its own level: what `setdebug` changes. Safe from any thread.
void set_log_level(runtime::debug_level level);

/// The level last given to set_log_level (info before any call).
runtime::debug_level log_level();

namespace detail {
inline std::atomic<runtime::debug_flag_set> debug_flags{0};
}  // namespace detail

/// Switches the debug categories on (DebugFlags=, setdebugflags). Safe from any thread.
inline void set_debug_flags(runtime::debug_flag_set flags) {
  detail::debug_flags.store(flags, std::memory_order_relaxed);
}

inline runtime::debug_flag_set debug_flags() {
  return detail::debug_flags.load(std::memory_order_relaxed);
}

/// The level a line of category `flag` is written at: info while its flag is on (as Slurm writes
/// DebugFlags lines with info()), else debug, so `setdebug debug` shows every category.
inline spdlog::level::level_enum category_level(runtime::debug_flag flag) {
  return (debug_flags() & runtime::bit_of(flag)) != 0 ? spdlog::level::info : spdlog::level::debug;
}

/// A step id as log lines show it: "batch" for the batch script's step, as Slurm names it, and
/// "all" for 0xffffffff (signals meant for every step).
inline std::string step_label(uint32_t step) {
  if (step == msg::batch_step_id) return "batch";
  return step == 0xffffffffu ? "all" : std::to_string(step);
}

/// Wall-clock Unix seconds, for the timestamps users see in listings.
inline int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace shoal::actors

/// Writes a debug line of category `flag` (a runtime::debug_flag name such as `steps`), prefixed
/// with the flag's name ("Steps: ..."). When neither the flag nor the debug level is on, this
/// costs one relaxed load and a compare; the arguments are not evaluated.
#define SHOAL_DEBUG(flag, fmt, ...)                                                               \
  do {                                                                                            \
    auto shoal_level_ = ::shoal::actors::category_level(::shoal::runtime::debug_flag::flag);      \
    if (::shoal::actors::log().should_log(shoal_level_))                                          \
      ::shoal::actors::log().log(shoal_level_, "{}: " fmt,                                        \
                                 ::shoal::runtime::to_string(::shoal::runtime::debug_flag::flag), \
                                 ##__VA_ARGS__);                                                  \
  } while (false)
