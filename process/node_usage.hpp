#pragma once

// The node's own resource use, as seed 001's job shepherd reports it even with no job running:
// kernel, user and idle CPU time, load, and free memory. Pure functions over the text of /proc
// files, so they can be checked against fixed text, and one that reads the files.

#include <cstdint>
#include <optional>
#include <string>

#include "messages/types.hpp"

namespace shoal::process {

/// CPU times since boot, summed over the node's CPUs, in milliseconds.
struct node_cpu_times {
  uint64_t user_ms = 0;    ///< user and nice (guest time is part of user)
  uint64_t system_ms = 0;  ///< kernel: system, irq and softirq
  uint64_t idle_ms = 0;    ///< idle and iowait (waiting for I/O with nothing else to run)
};

/// Run-queue load averages (/proc/loadavg).
struct node_load {
  double one_minute = 0;
  double five_minutes = 0;
  double fifteen_minutes = 0;
};

/// Memory of the node, in bytes (/proc/meminfo).
struct node_memory {
  uint64_t total_bytes = 0;      ///< MemTotal
  uint64_t available_bytes = 0;  ///< MemAvailable: what new work could get without swapping
};

/// Everything together; a part whose file could not be read or parsed is left at 0.
struct node_usage {
  node_cpu_times cpu;
  node_load load;
  node_memory memory;
};

/// The "cpu " line of /proc/stat's text; nothing when it is missing or malformed.
/// `ticks_per_second` is sysconf(_SC_CLK_TCK) (USER_HZ).
std::optional<node_cpu_times> parse_node_cpu_times(const std::string& proc_stat,
                                                   uint64_t ticks_per_second);

/// The three averages of /proc/loadavg's text; nothing when malformed.
std::optional<node_load> parse_node_load(const std::string& loadavg);

/// MemTotal and MemAvailable of /proc/meminfo's text; nothing when either is missing (kernels
/// before 3.14 have no MemAvailable).
std::optional<node_memory> parse_node_memory(const std::string& meminfo);

/// Reads /proc/stat, /proc/loadavg and /proc/meminfo now.
node_usage read_node_usage();

/// As NodeUsage carries it, read at `now` (Unix seconds).
msg::node_usage to_wire(const node_usage& u, int64_t now);

/// Whether `now` differs enough from `sent` (the figures last sent) to be sent again with a beat:
/// nothing sent yet, the one-minute load moved by 0.05 or more (show node prints it to 0.01, and
/// an idle node's load sits still), or the available memory by 1 % of the total or more. CPU
/// times always grow: they travel with the rest, never alone.
bool usage_moved(const msg::node_usage& sent, const msg::node_usage& now);

}  // namespace shoal::process
