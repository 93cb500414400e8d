#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace shoal::msg {

/// A node's state as the controller sees it (Slurm's names).
enum class node_state : uint8_t {
  unknown,     ///< configured, never heard from
  idle,        ///< up and free
  allocated,   ///< up and running a job
  completing,  ///< a job ended and its tasks are being cleaned up
  down,        ///< silent past HeartBeatTimeout, or set down by an admin
  draining,    ///< drain requested while a job still runs
  drained,     ///< drained and free: never scheduled until resumed
  mixed,       ///< up, running jobs that hold only some of its CPUs (consumable resources)
};

/// Where a node is in power saving (the Cloud Scheduling Guide's states). The power actor owns
/// it; the node's state (idle, allocated, ...) is shown with its symbol: idle~, alloc#, idle%.
enum class power_state : uint8_t {
  on,             ///< powered up (or never managed)
  powered_down,   ///< POWERED_DOWN (~): relinquished, no daemon expected
  powering_up,    ///< POWERING_UP (#): ResumeProgram ran; the node must register by ResumeTimeout
  powering_down,  ///< POWERING_DOWN (%): SuspendProgram ran; powered down after SuspendTimeout
};

/// A job's state (Slurm's names).
enum class job_state : uint8_t {
  pending,
  configuring,
  running,
  completing,
  completed,
  failed,
  cancelled,
  timeout,
  node_fail,
  out_of_memory,
  preempted,  ///< PreemptMode=CANCEL ended it (Slurm's JOB_PREEMPTED)
  suspended,  ///< scontrol suspend stopped its tasks (Slurm's JOB_SUSPENDED); keep last
};

/// Which output stream of a task a chunk of output comes from (TaskOutput.stream's numbers).
enum class stream_kind : uint8_t { out = 1, err = 2 };

/// How many job states there are (for tables indexed by state).
constexpr size_t job_state_count = static_cast<size_t>(job_state::suspended) + 1;

/// "IDLE", "DRAINED", ...
const char* to_string(node_state s);
/// "PENDING", "NODE_FAIL", ...
const char* to_string(job_state s);
/// Slurm's short codes for squeue's ST column: PD CF R CG CD F CA TO NF OOM PR.
const char* short_code(job_state s);
/// Slurm's short node state as sinfo prints it: idle alloc comp down drng drain unk.
const char* short_name(node_state s);

/// "POWERED_DOWN", "POWERING_UP", "POWERING_DOWN"; "" for on.
const char* to_string(power_state s);
/// The guide's symbol sinfo appends to the state: "~", "#", "%"; "" for on.
const char* power_symbol(power_state s);

/// Case-insensitive; accepts the long names only.
std::optional<node_state> parse_node_state(std::string_view text);
/// Case-insensitive; accepts the long names and the short codes.
std::optional<job_state> parse_job_state(std::string_view text);

/// True once the job can no longer change state.
bool is_finished(job_state s);

}  // namespace shoal::msg
