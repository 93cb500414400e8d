#pragma once

#include <cstdint>
#include <string>
#include <vector>
#include "messages/errc.hpp"

namespace shoal::topology {

/// One core of the host, as hwloc sees it: where it sits and which logical CPUs it runs.
struct core_info {
  uint32_t socket = 0;        ///< logical index of the hwloc package holding it (0 when none)
  uint32_t numa_node = 0;     ///< logical index of the NUMA node whose CPUs include it (0 if none)
  std::vector<uint32_t> pus;  ///< OS indices (as sched_setaffinity and /proc count them) of its
                              ///< PUs, in hwloc logical order; never empty
};

/// What a node daemon learns about its host (seed 000's node record, items 2-7).
struct machine_facts {
  std::string hostname;            ///< gethostname()
  std::string os;                  ///< `uname -s -r` with blanks turned to dots
  uint32_t cpus = 0;               ///< logical processors (hwloc PUs)
  uint32_t sockets = 0;            ///< hwloc packages (at least 1)
  uint32_t cores_per_socket = 0;   ///< hwloc cores / sockets (at least 1)
  uint32_t threads_per_core = 0;   ///< PUs / cores (at least 1)
  uint32_t numa_nodes = 0;         ///< hwloc NUMA nodes (at least 1)
  double cpu_mhz = 0;              ///< from /proc/cpuinfo or sysfs cpufreq, 0 when unknown
  uint64_t real_memory_mb = 0;     ///< MemTotal of /proc/meminfo in MiB (not hwloc's NUMA sum,
                                   ///< which under-reports in containers)
  uint64_t virtual_memory_mb = 0;  ///< MemTotal + SwapTotal in MiB
  uint64_t tmp_disk_mb = 0;        ///< statvfs(tmp_fs) total size in MiB
  int64_t boot_time = 0;           ///< btime of /proc/stat, Unix seconds
  /// Every core hwloc may use (the process's allowed cpuset), in hwloc logical order: sockets
  /// in order, cores within a socket in order. The table CPU binding works on.
  std::vector<core_info> cores;
};

/// Probes the local machine with hwloc and the OS. `tmp_fs` is the TmpFS directory whose size is
/// reported as TmpDisk. Errors (errc::system_error) only when hwloc cannot load a topology or
/// /proc/meminfo is unreadable; a missing tmp_fs gives tmp_disk_mb = 0.
shoal::expected<machine_facts> probe_machine(const std::string& tmp_fs = "/tmp");

}  // namespace shoal::topology
