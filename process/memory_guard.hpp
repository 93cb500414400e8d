#pragma once

// Holding a step to its job's memory (--mem / --mem-per-cpu) on a node, where the host allows
// it. The process side of the shepherd, like task_launch: no actors here.
//
// In order of preference, as Slurm's task/cgroup and then jobacct_gather's OverMemoryKill:
// 1. a memory cgroup of the step's own, made beside shoald's: cgroup v2 (memory.max) when
//    shoald's cgroup delegates the memory controller, else cgroup v1 (memory.limit_in_bytes).
//    The kernel then stops the step at the limit (reclaim, swap, then its OOM killer) and
//    counts the kills;
// 2. otherwise sampling: the shepherd sums the resident memory of the step's process groups
//    every half second and kills the step when the sum exceeds the limit.

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace shoal::process {

enum class memory_enforcement { none, cgroup_v2, cgroup_v1, sampling };

/// "none", "cgroup v2", "cgroup v1" or "sampling".
const char* to_string(memory_enforcement how);

/// Where a memory cgroup for a step can be made: the directory of shoald's own cgroup in the
/// hierarchy that has the memory controller. Empty `dir` when there is none we may write.
struct memory_cgroup_root {
  memory_enforcement kind = memory_enforcement::sampling;
  std::string dir;
};

/// Finds it from /proc/self/cgroup and /proc/self/mountinfo, and checks that a child cgroup
/// can be made there.
memory_cgroup_root find_memory_cgroup_root();

/// The resident memory of every process in `process_groups`, in bytes (from /proc).
uint64_t resident_bytes_of_groups(const std::vector<pid_t>& process_groups);

/// One step's memory limit. Movable, not copyable; removes its cgroup when destroyed (after
/// the step's processes are gone).
class memory_guard {
 public:
  /// Every half second in sampling mode.
  static constexpr std::chrono::milliseconds sample_every{500};

  memory_guard() = default;
  /// Prepares a limit of `limit_mb` for one step under `root` (limit 0: no limit). A cgroup that
  /// cannot be made falls back to sampling; `problem()` then says why.
  memory_guard(const memory_cgroup_root& root, const std::string& name, uint64_t limit_mb);
  memory_guard(memory_guard&& other) noexcept;
  memory_guard& operator=(memory_guard&& other) noexcept;
  memory_guard(const memory_guard&) = delete;
  memory_guard& operator=(const memory_guard&) = delete;
  ~memory_guard();

  memory_enforcement how() const { return how_; }
  uint64_t limit_bytes() const { return limit_bytes_; }
  /// The step's cgroup directory; empty unless a cgroup holds the limit.
  const std::string& cgroup_dir() const { return dir_; }
  /// Open (O_WRONLY, O_CLOEXEC) cgroup.procs of the step's cgroup, or -1: a child writes "0"
  /// there before exec to join it.
  int procs_fd() const { return procs_fd_; }
  /// Why a cgroup could not be used (empty otherwise).
  const std::string& problem() const { return problem_; }

  /// True once the step went over its limit: the kernel OOM-killed one of its processes in
  /// the cgroup, or (sampling) `process_groups` hold more than the limit now.
  bool exceeded(const std::vector<pid_t>& process_groups);

 private:
  void release();
  uint64_t oom_kills() const;

  memory_enforcement how_ = memory_enforcement::none;
  uint64_t limit_bytes_ = 0;
  std::string dir_;
  int procs_fd_ = -1;
  uint64_t kills_at_start_ = 0;
  bool over_ = false;
  std::string problem_;
};

}  // namespace shoal::process
