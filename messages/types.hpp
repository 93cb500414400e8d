#pragma once

// The values actors exchange across processes. The structs themselves are generated from
// messages/shoal.capnp (see messages/wire_gen.cpp and, in the build tree,
// generated/messages/wire_types.hpp); field meanings and units are documented once, in the schema.
// Their codec is in messages/codec.hpp. This header adds the hand-written helpers.

#include <cstdint>
#include <string>

#include "messages/states.hpp"
#include "messages/wire_types.hpp"

namespace shoal::msg {

/// Step id of a batch script, as Slurm's "batch" step.
constexpr uint32_t batch_step_id = 0xfffffffe;

/// The step id that means every step of a job (a signal or cancel meant for all of them).
constexpr uint32_t all_steps = 0xffffffff;

/// A step id as log lines show it: "batch" for the batch script's step, as Slurm names it, and
/// "all" for all_steps.
inline std::string step_label(uint32_t step) {
  if (step == batch_step_id) return "batch";
  return step == all_steps ? "all" : std::to_string(step);
}

/// The exit code a shell reports for a task: its status, or 128+signal.
inline int32_t shell_exit_code(const task_exit& t) {
  return t.signal != 0 ? 128 + t.signal : t.exit_code;
}

}  // namespace shoal::msg
