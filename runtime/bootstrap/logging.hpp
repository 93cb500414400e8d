#pragma once

#include <cstdint>
#include <string>

#include "config/config.hpp"
#include "messages/errc.hpp"

namespace shoal::runtime {

/// Where and how much a daemon logs: its config keys (Slurmctld* or Slurmd*) with the command
/// line's overrides applied.
struct log_options {
  std::string process;         ///< the logger's name, shown on every line ("shoalctld")
  std::string level = "info";  ///< a Slurm debug level (see log_settings.hpp)
  unsigned more_verbose = 0;   ///< -v given this many times: that many levels more verbose
  std::string file;            ///< "" = stderr; %h and %n are expanded
  std::string host;            ///< for %h: the short host name
  std::string node;            ///< for %n: the node name ("" for the controller)
  std::string syslog_level;    ///< "" = no syslog
  std::string time_format = "iso8601_ms";  ///< LogTimeFormat=
  uint64_t max_size = 0;                   ///< rotate the file past this many bytes; 0 = never
  uint32_t file_count = 5;                 ///< rotated files kept (file.1 newest .. file.N)
  config::debug_flag_set flags = 0;        ///< DebugFlags=
};

/// The controller's options: SlurmctldLogFile/SlurmctldDebug/SlurmctldSyslogDebug and the shared
/// keys of `cfg`.
log_options controller_log_options(const config::cluster_config& cfg);

/// A node daemon's options: SlurmdLogFile/SlurmdDebug/SlurmdSyslogDebug, for node `node`.
log_options node_log_options(const config::cluster_config& cfg, const std::string& node);

/// The short host name (up to the first dot).
std::string short_host_name();

/// Points the process-wide spdlog logger at stderr or at the file (created if missing, appended
/// to), plus syslog when asked, sets the level and the debug flags, and starts a thread that
/// reopens the file on SIGUSR2 (for logrotate; SIGUSR2 is blocked in the calling thread, so call
/// this before any other thread exists). Error: errc::invalid_config for a bad level or time
/// format, or a log file that cannot be opened (the text names the file).
shoal::error setup_logging(const log_options& opt);

}  // namespace shoal::runtime
