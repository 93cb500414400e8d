#pragma once

// Helpers shared by the shoal_bench figures: summary statistics, running a CLI process silently,
// the machine header, and how a figure compares with its target.

#include <chrono>
#include <string>
#include <vector>

#include "metrics/text_parser.hpp"
#include "runtime/bootstrap/local_cluster.hpp"

namespace shoal::bench {

/// Seconds from `start` to now (steady clock).
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Starts `nodes` simulated nodes in `front_ends` shoald processes, `collectors` of them
/// CollectorNodes, at HeartBeatInterval=`heartbeat_s` and SlurmdTimeout=`timeout_s`, and waits
/// (up to 10 minutes) until every node is IDLE; false after printing why. `more` is added to
/// the config.
bool start_simulated(runtime::local_cluster& cluster, unsigned nodes, unsigned front_ends,
                     unsigned collectors, int heartbeat_s, int timeout_s,
                     const std::string& more = "");

/// shoal_scheduler_cycle_seconds of one /metrics scrape, as cumulative buckets (empty when
/// absent).
metrics::bucket_list scheduler_cycle_buckets(const metrics::exposition& scrape);

/// The observations between two scrapes of one histogram, as cumulative buckets of their own.
metrics::bucket_list buckets_between(const metrics::bucket_list& before,
                                     const metrics::bucket_list& after);

/// Order statistics of a set of samples, in milliseconds.
struct summary {
  size_t count = 0;
  double median_ms = 0;
  double p95_ms = 0;  ///< nearest-rank 95th percentile
  double min_ms = 0;
  double max_ms = 0;
};

/// Summarises `samples_ms`; an empty set gives an all-zero summary.
summary summarize(std::vector<double> samples_ms);

/// What one silent process run took.
struct process_run {
  int status = -1;          ///< waitpid status; -1 when the process could not be started
  double elapsed_ms = 0;    ///< from posix_spawn until waitpid returned
  std::string spawn_error;  ///< why posix_spawn failed, when it did
  std::string error_text;   ///< first line the process wrote to stderr, when it failed
};

/// Runs `argv` (argv[0] an absolute path) in `cwd` with this process's environment, stdin and
/// stdout on /dev/null, and waits for it. Stderr goes to `stderr_file` (truncated; kept so a
/// failure can be explained, its first line lands in `error_text`), or to /dev/null when empty.
/// Thread-safe: uses posix_spawn (vfork + exec), so it may be called while actor-system threads
/// run.
process_run run_silent(const std::vector<std::string>& argv, const std::string& cwd,
                       const std::string& stderr_file = "");

/// True when the process ran and exited with status 0.
bool succeeded(const process_run& r);

/// "exit 3", "signal 9" or the spawn error, for failure lines.
std::string describe_status(const process_run& r);

/// What `argv` (no shell: each word quoted) prints on stdout; stderr is dropped.
std::string capture(const std::vector<std::string>& argv);

/// "VmRSS" or "VmHWM" of a process from /proc, in KiB; 0 when unreadable.
long proc_status_kib(pid_t pid, const char* key);

/// Path of `name` beside the running binary (build/bin/), or empty when it is not there.
std::string sibling_binary(const char* name);

/// `nproc`'s answer (it honours OMP_NUM_THREADS and the affinity mask); 0 when it cannot run.
unsigned nproc_count();

/// Local time as "2024-05-01 12:34:56 +0200".
std::string now_text();

/// The command line, with arguments containing spaces quoted.
std::string command_line(int argc, char** argv);

/// "MET" or "MISSED by 2.3 ms (1.23x the target)" for a figure that must stay below `limit_ms`.
std::string verdict_below(double value_ms, double limit_ms);

/// "MET" or "MISSED: 3.10x short" for a rate that must reach `floor_per_s`.
std::string verdict_at_least(double rate_per_s, double floor_per_s);

/// Removes `dir` and everything below it; does nothing for an empty path.
void remove_tree(const std::string& dir);

}  // namespace shoal::bench
