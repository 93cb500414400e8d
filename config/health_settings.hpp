#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "messages/states.hpp"

namespace shoal::config {

/// HealthCheckNodeState= words as Slurm's bits (slurm.h HEALTH_CHECK_NODE_*): which nodes the
/// controller asks to run the check each interval.
namespace health_state {
constexpr uint16_t idle = 0x0001;             ///< IDLE: no CPU allocated (drained ones too)
constexpr uint16_t alloc = 0x0002;            ///< ALLOC: every CPU allocated
constexpr uint16_t mixed = 0x0004;            ///< MIXED: some CPUs allocated
constexpr uint16_t nondrained_idle = 0x0008;  ///< NONDRAINED_IDLE (Slurm 23.02): idle, not drained
constexpr uint16_t any = 0x000f;              ///< ANY: every node that responds
constexpr uint16_t cycle = 0x8000;            ///< CYCLE: accepted; every node is asked at once
}  // namespace health_state

/// HealthCheckProgram=, HealthCheckInterval=, HealthCheckNodeState= and RebootProgram=
/// (docs/operations.md, "Health checks" and "Reboot").
struct health_settings {
  std::string program;                       ///< HealthCheckProgram=: run as root on each node
  int64_t interval_s = 0;                    ///< HealthCheckInterval=: 0 runs it never
  uint16_t node_states = health_state::any;  ///< HealthCheckNodeState=
  /// RebootProgram=: what a node's shoald runs (as root, not waited on) for `scontrol reboot`.
  std::string reboot_program;
  /// True when both are set: as slurmd, neither the start-up check nor the periodic ones run
  /// without an interval.
  bool enabled() const { return !program.empty() && interval_s > 0; }
};

/// Slurm kills a health check that runs longer than this (slurmd's run_script_health_check:
/// max_wait 60 s); it then counts as failed.
constexpr int64_t health_check_timeout_s = 60;

/// Applies one of the keys (lower-cased) to `s`. Returns false when `lower_key` is not one of
/// them; otherwise true, with `error` set (no location) when the value is bad.
bool apply_health_key(health_settings& s, const std::string& lower_key, const std::string& value,
                      std::string& error);

/// HealthCheckNodeState's words, Slurm's way ("ANY", "IDLE,MIXED", "ALLOC,CYCLE").
std::string health_states_text(uint16_t node_states);

/// The keys as `shoal control show config` prints them (the program only when set).
std::vector<std::pair<std::string, std::string>> render_health_keys(const health_settings& s);

/// Whether a node in `state` is asked to run the check under `node_states`, as slurmctld's
/// run_health_check: a node DOWN or never heard from is not (it does not respond); DRAINED is
/// idle; a DRAINING or COMPLETING node still holds CPUs, so ALLOC or MIXED takes it.
bool health_check_applies(uint16_t node_states, msg::node_state state);

/// The drain reason of a failed check: the first non-blank line of its output, trimmed; or,
/// when it printed nothing, "HealthCheckProgram failed: " and how it ended ("exit 3",
/// "signal 9", "timed out after 60 s").
std::string health_failure_reason(const std::string& output, const std::string& status_text);

}  // namespace shoal::config
