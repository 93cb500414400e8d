#pragma once

// What one job step used on this node: CPU, memory and I/O of its tasks' process groups, as
// Slurm's jobacct_gather/linux samples them from /proc (and jobacct_gather/cgroup reads them
// from the step's cgroup where there is one). The process side of the shepherd's accounting:
// no actors, no messages here.
//
// What a figure means when processes come and go:
// - CPU and I/O count what has exited too: a reaped task leader brings its wait4 rusage (its
//   own use plus that of the children it reaped), and a live process's /proc figures include
//   the children it reaped. A process reparented away from its group and reaped by init is lost
//   without a cgroup, so totals are kept from ever going down. A cgroup v2 counts everything
//   that ran in it (cpu.stat, io.stat) and is preferred.
// - max_rss_bytes is the highest sum of the step's resident memory over one sample, as Slurm's
//   MaxRSS on a node; a single process's own peak (VmHWM, a reaped leader's ru_maxrss) and the
//   cgroup's peak (memory.peak, v1 memory.max_usage_in_bytes) raise it when sampling missed
//   a peak between two samples.

#include <sys/resource.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shoal::process {

/// A step's resource use on this node, so far or in total.
struct usage_figures {
  uint64_t user_cpu_us = 0;    ///< user CPU time of every process the step ran
  uint64_t system_cpu_us = 0;  ///< kernel CPU time of every process the step ran
  /// Highest resident memory of the step's processes together (see the file comment).
  uint64_t max_rss_bytes = 0;
  /// The task (rank) whose processes held the most memory when max_rss_bytes was reached; -1
  /// before any memory was seen, or when only the cgroup's peak counted.
  int32_t max_rss_rank = -1;
  uint64_t current_rss_bytes = 0;  ///< resident memory at the last sample
  /// Average over samples of the resident memory summed (Slurm's AveRSS).
  uint64_t ave_rss_bytes = 0;
  /// Highest virtual memory of the step's processes together, or of one process (VmPeak).
  uint64_t max_vsize_bytes = 0;
  uint64_t read_bytes = 0;     ///< read from storage (not from the page cache)
  uint64_t written_bytes = 0;  ///< sent to storage, including what is still being written back
  /// Samples that found at least one live process of the step (what ave_rss_bytes averages).
  uint64_t sample_count = 0;
};

// -- parsing /proc and cgroup files -------------------------------------------

/// The fields of /proc/<pid>/stat used here; times in clock ticks (sysconf(_SC_CLK_TCK)).
struct proc_stat_fields {
  pid_t process_group = 0;
  uint64_t user_ticks = 0;
  uint64_t system_ticks = 0;
  uint64_t children_user_ticks = 0;    ///< of the children it reaped (cutime)
  uint64_t children_system_ticks = 0;  ///< cstime
};

/// Parses the text of /proc/<pid>/stat; nothing when it is malformed. The command name may hold
/// spaces and parentheses.
std::optional<proc_stat_fields> parse_proc_stat(const std::string& text);

/// Memory figures of /proc/<pid>/status, in bytes; 0 for a line that is missing (a zombie has
/// none of them).
struct proc_status_fields {
  uint64_t rss_bytes = 0;         ///< VmRSS
  uint64_t peak_rss_bytes = 0;    ///< VmHWM
  uint64_t vsize_bytes = 0;       ///< VmSize
  uint64_t peak_vsize_bytes = 0;  ///< VmPeak
};

proc_status_fields parse_proc_status(const std::string& text);

/// Bytes read from and written to storage.
struct io_fields {
  uint64_t read_bytes = 0;
  uint64_t written_bytes = 0;
};

/// read_bytes and write_bytes of /proc/<pid>/io; 0 for what is missing.
io_fields parse_proc_io(const std::string& text);

/// rbytes and wbytes of a cgroup v2 io.stat, summed over its devices.
io_fields parse_cgroup_io_stat(const std::string& text);

/// CPU time of a cgroup v2 cpu.stat, in microseconds.
struct cgroup_cpu_fields {
  uint64_t user_us = 0;
  uint64_t system_us = 0;
};

/// user_usec and system_usec of a cgroup v2 cpu.stat; nothing when either is missing.
std::optional<cgroup_cpu_fields> parse_cgroup_cpu_stat(const std::string& text);

// -- sampling -----------------------------------------------------------------

/// Samples one step's resource use on demand. Single-threaded; copyable.
class step_usage_sampler {
 public:
  using clock_type = std::chrono::steady_clock;

  /// Slurm samples every 30 s (JobAcctGatherFrequency), which misses most of a short step; one
  /// scan of /proc (a read of each process's stat file) every 5 s costs little.
  static constexpr std::chrono::milliseconds default_interval{5000};

  explicit step_usage_sampler(std::chrono::milliseconds interval = default_interval)
      : interval_(interval) {}

  /// Samples every `interval` from now on (next_sample_at() after the next sample).
  void set_interval(std::chrono::milliseconds interval) { interval_ = interval; }
  std::chrono::milliseconds interval() const { return interval_; }

  /// A task started: its process group (its leader's pid) holds its processes.
  void add_task(pid_t process_group, uint32_t rank);

  /// The step's own cgroup, whose figures are preferred: `v2` for a cgroup v2 directory (cpu.stat,
  /// memory.peak, io.stat), else a cgroup v1 memory cgroup (memory.max_usage_in_bytes). An
  /// empty `dir` means none. A file the kernel does not have is skipped.
  void use_cgroup(std::string dir, bool v2);

  /// Task `rank`'s leader was reaped with `usage` (from wait4): counted from the next sample on.
  /// Does nothing for a rank not added or already reaped.
  void add_reaped(uint32_t rank, const rusage& usage);

  /// Scans /proc once for the step's processes (and reads its cgroup) and updates figures().
  void sample(clock_type::time_point now);

  /// When the next sample is due: the epoch before the first sample, so that it is due at once.
  clock_type::time_point next_sample_at() const { return next_sample_at_; }

  /// The figures as of the last sample.
  const usage_figures& figures() const { return figures_; }

  /// Takes a last sample and returns the step's figures. Call once every task is reaped.
  const usage_figures& final_figures();

 private:
  struct task_record {
    pid_t process_group = 0;
    uint32_t rank = 0;
    bool reaped = false;
    /// Reaped and a sample found nothing left in its group: a later process with that group id
    /// would be a stranger that got the pid.
    bool gone = false;
  };

  /// What one scan of /proc found in the step's live processes.
  struct live_totals {
    uint64_t user_ticks = 0;
    uint64_t system_ticks = 0;
    uint64_t rss_bytes = 0;
    uint64_t vsize_bytes = 0;
    io_fields io;
    size_t processes = 0;
    std::vector<uint64_t> rss_by_task;  ///< parallel to tasks_
    std::vector<size_t> processes_by_task;
  };

  live_totals scan_proc();
  void count_cpu_and_io(const live_totals& live);
  void count_memory(const live_totals& live);
  void raise_peak_rss(uint64_t bytes, int32_t rank);
  int32_t task_index_of_group(pid_t process_group) const;

  std::chrono::milliseconds interval_;
  clock_type::time_point next_sample_at_{};
  std::vector<task_record> tasks_;
  std::string cgroup_dir_;
  bool cgroup_v2_ = false;
  // What reaped task leaders used, from wait4.
  uint64_t reaped_user_us_ = 0;
  uint64_t reaped_system_us_ = 0;
  io_fields reaped_io_;
  uint64_t sampled_rss_sum_ = 0;  ///< over the samples counted in figures_.sample_count
  usage_figures figures_;
};

}  // namespace shoal::process
