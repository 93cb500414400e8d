#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace shoal::config {

/// SuspendTime's "off": INFINITE, NONE or a negative number in the file.
constexpr int64_t suspend_never = -1;

/// One item of SuspendExcNodes: `nid[10-20]:4` keeps 4 usable nodes of nid[10-20] powered up;
/// without `:count`, every node of the set.
struct suspend_exclusion {
  std::vector<std::string> nodes;  ///< expanded, as written
  uint32_t count = 0;              ///< 0: all of them
  std::string text;                ///< the item as written (hostlist[:count])

  friend bool operator==(const suspend_exclusion& a, const suspend_exclusion& b) {
    return a.nodes == b.nodes && a.count == b.count;
  }
};

/// Power saving and cloud nodes: the keys of Slurm's Cloud Scheduling Guide (docs/power.md).
/// Partition-level SuspendTime, SuspendTimeout, ResumeTimeout and PowerDownOnIdle live in
/// partition_config; effective_power_timing combines them for a node.
struct power_settings {
  std::string suspend_program;      ///< SuspendProgram=: run with the nodes to power down
  std::string resume_program;       ///< ResumeProgram=: run with the nodes to power up
  std::string resume_fail_program;  ///< ResumeFailProgram=: nodes that missed ResumeTimeout
  /// SuspendTime=: seconds a node stays idle before it is powered down; suspend_never: off
  int64_t suspend_time_s = suspend_never;
  int64_t suspend_timeout_s = 30;            ///< SuspendTimeout=: a power down is done after this
  int64_t resume_timeout_s = 60;             ///< ResumeTimeout=: a node must register within this
  uint32_t suspend_rate = 60;                ///< SuspendRate=: nodes per minute; 0 = no limit
  uint32_t resume_rate = 300;                ///< ResumeRate=: nodes per minute; 0 = no limit
  std::vector<suspend_exclusion> exc_nodes;  ///< SuspendExcNodes=
  std::vector<std::string> exc_parts;        ///< SuspendExcParts=: partition names
  std::vector<std::string> exc_states;       ///< SuspendExcStates=: canonical upper case
  // -- SlurmctldParameters= --
  bool cloud_reg_addrs = false;           ///< a registering cloud node sets its NodeAddr/Hostname
  bool idle_on_node_suspend = false;      ///< a node powered down becomes IDLE whatever its state
  bool cloud_dns = false;                 ///< cloud nodes' addresses are in DNS
  int64_t power_save_interval_s = 10;     ///< power_save_interval=: how often power work runs
  int64_t power_save_min_interval_s = 0;  ///< power_save_min_interval=: at least this between
  std::vector<std::string> ctld_parameters;  ///< every word as written, for show config
  // -- ReconfigFlags= --
  bool keep_power_save_settings = false;    ///< KeepPowerSaveSettings
  std::vector<std::string> reconfig_flags;  ///< canonical spelling: KeepPartInfo, ...
  // -- communication --
  int64_t tcp_timeout_s = 2;                 ///< TCPTimeout=: seconds to establish a connection
  bool no_addr_cache = false;                ///< CommunicationParameters=NoAddrCache
  std::vector<std::string> comm_parameters;  ///< CommunicationParameters=, as written
};

/// Applies one power or cloud key (lower-cased) to `s`. Returns false when `lower_key` is not one
/// of them; otherwise true, with `error` set (no location) when the value is bad and `warnings`
/// appended for words accepted with no effect. Checks against nodes and partitions
/// (SuspendExcNodes, SuspendExcParts) are the parser's, once everything is read.
bool apply_power_key(power_settings& s, const std::string& lower_key, const std::string& value,
                     std::string& error, std::vector<std::string>& warnings);

/// The keys as `shoal control show config` prints them: pairs of (Key, value), in Slurm's
/// spelling, the programs and lists only when set.
std::vector<std::pair<std::string, std::string>> render_power_keys(const power_settings& s);

/// A SuspendTime value: seconds, or suspend_never for INFINITE, NONE or a negative number.
std::optional<int64_t> parse_suspend_time(const std::string& value);

/// SuspendTime as written back: INFINITE when off.
std::string suspend_time_text(int64_t seconds);

/// A node's SuspendTime, SuspendTimeout and ResumeTimeout as power saving uses them.
struct power_timing {
  int64_t suspend_time_s = suspend_never;  ///< suspend_never: the node is never powered down
  int64_t suspend_timeout_s = 30;
  int64_t resume_timeout_s = 60;

  friend bool operator==(const power_timing& a, const power_timing& b) {
    return a.suspend_time_s == b.suspend_time_s && a.suspend_timeout_s == b.suspend_timeout_s &&
           a.resume_timeout_s == b.resume_timeout_s;
  }
};

/// One partition's own settings of the three (nullopt: not set there, the global applies).
struct partition_power_timing {
  std::optional<int64_t> suspend_time_s;  ///< suspend_never for INFINITE
  std::optional<int64_t> suspend_timeout_s;
  std::optional<int64_t> resume_timeout_s;
};

/// The guide's rule for a node in `partitions`: each value is the highest any of its partitions
/// sets (INFINITE, off, is the highest SuspendTime), or the global one when none sets it. So a
/// partition's SuspendTime turns power saving on for its nodes though the global one is off,
/// and a partition's INFINITE turns it off for its nodes though the global one is on.
power_timing effective_power_timing(const power_settings& global,
                                    const std::vector<partition_power_timing>& partitions);

}  // namespace shoal::config
