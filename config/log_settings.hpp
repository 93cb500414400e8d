#pragma once

// What the logging keys of the config and `shoal control setdebug/setdebugflags` mean, as plain
// values: Slurm's debug levels, the debug flags (Slurm's DebugFlags= plus the seed's
// MachStatusDebug= categories) and the log file name patterns. Pure: no spdlog, no I/O.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>
#include "messages/errc.hpp"

namespace shoal::config {

/// Slurm's debug levels, least to most verbose (SlurmctldDebug=, SlurmdDebug=, setdebug).
enum class debug_level : uint8_t {
  quiet,
  fatal,
  error,
  info,
  verbose,
  debug,
  debug2,
  debug3,
  debug4,
  debug5,
};

/// "quiet, fatal, error, info, verbose, debug, debug2..debug5 or 0-9", for error messages.
extern const char* const debug_level_choices;

/// A level name (any case) or its number 0-9, as Slurm accepts both.
/// Error: errc::invalid_config naming the valid choices.
shoal::expected<debug_level> parse_debug_level(std::string_view text);

/// The level's name ("debug2").
std::string_view to_string(debug_level level);

/// `level` made `steps` levels more verbose (a daemon's -v, -vv), capped at debug5.
debug_level more_verbose(debug_level level, unsigned steps);

/// The debug categories. Each switches on the debug lines of part of shoal at info level,
/// whatever the debug level (Slurm's DebugFlags=; the seed's MachStatusDebug=init,msg).
enum class debug_flag : uint8_t {
  init,         ///< Init: daemon start, config, machine probe, registration handshake
  msg,          ///< Msg (Protocol): each request the controller answers, with its sender
  heartbeat,    ///< Heartbeat (MachStatus): each heartbeat sent and received, node timers
  steps,        ///< Steps: step launch, task start and exit on shoald and in the job actor
  select_type,  ///< SelectType: each scheduling pass and the nodes it picked per job
  priority,     ///< Priority: the priority given to each submitted job
  trace_jobs,   ///< TraceJobs: every job event (pending reason, start, step exit, release)
  agent,        ///< Agent: requests the controller sends to node daemons (launch, signal)
  power,        ///< Power: power saving's decisions, programs and node power states
};

/// How many debug_flag values exist.
constexpr unsigned debug_flag_count = 9;

/// A set of debug flags, one bit per debug_flag.
using debug_flag_set = uint32_t;

constexpr debug_flag_set bit_of(debug_flag flag) {
  return debug_flag_set{1} << static_cast<unsigned>(flag);
}

/// The canonical name ("SelectType").
std::string_view to_string(debug_flag flag);

/// "Init, Msg (Protocol), ..." for error messages and --help.
std::string debug_flag_choices();

/// A comma-separated list of flag names (any case, aliases allowed, empty items skipped).
/// Error: errc::invalid_config naming the unknown flag and the valid choices.
shoal::expected<debug_flag_set> parse_debug_flags(std::string_view list);

/// The set as canonical names joined by commas ("Init,Msg"); "" for none.
std::string render_debug_flags(debug_flag_set flags);

/// Applies scontrol's setdebugflags words: each "+Flag" adds a flag, "-Flag" removes one; words
/// may hold several comma-separated flags after the sign ("+Steps,Msg").
/// Error: errc::invalid_request for a word without a sign, an unknown flag or no words.
shoal::expected<debug_flag_set> change_debug_flags(debug_flag_set current,
                                                   const std::vector<std::string>& words);

/// A SlurmdLogFile=/SlurmctldLogFile= path with "%h" replaced by `host` (the short host name)
/// and "%n" by `node` (the node this daemon speaks for), as Slurm does, so several shoald on one
/// host write distinct files; "%%" gives "%". Other "%x" sequences are kept as written.
std::string expand_log_file_name(std::string_view pattern, std::string_view host,
                                 std::string_view node);

/// A size such as 1048576, 512K, 100M or 2G (powers of 1024; case-insensitive suffix).
/// Error: errc::invalid_config.
shoal::expected<uint64_t> parse_byte_size(std::string_view text);

/// The spdlog pattern of a log line ("[time] process level: text") for LogTimeFormat=: iso8601,
/// iso8601_ms (the default, also for ""), rfc5424, rfc5424_ms or short, optionally with
/// ",thread_id" (adds "[thread]" after the time). Error: errc::invalid_config naming the choices.
shoal::expected<std::string> log_line_pattern(std::string_view time_format);

}  // namespace shoal::config
