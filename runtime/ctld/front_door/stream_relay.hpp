#pragma once

// The stream of a run or attach connection: what the job tells its client, framed for the
// connection, and the client's standard input on its way back to the step's input tasks.

#include <cstdint>
#include <deque>
#include <vector>

#include <caf/actor.hpp>
#include <caf/response_promise.hpp>
#include <caf/stateful_actor.hpp>

#include "messages/types.hpp"

namespace shoal::runtime::door {

struct relay_state {
  static inline const char* name = "stream_relay";
  /// The shepherds of the step's input tasks, as they introduced themselves.
  std::vector<caf::actor> input_shepherds;
  /// How many input shepherds the step has (0: none heard of yet); input waits for them all.
  uint32_t input_nodes = 0;
  /// Input not passed on yet, each with the client's request it answers.
  std::deque<std::pair<msg::task_input, caf::response_promise>> input_waiting;
  /// Every shepherd of the step (for -K), and whether a bad exit ended it already.
  std::vector<caf::actor> shepherds;
  bool kill_on_bad_exit = false;
  bool killed = false;
};

using relay_actor = caf::stateful_actor<relay_state>;

/// Frames what a run's or attach's job tells its client for the connection `hdl` (serial
/// `serial`) and pushes it to `door`. When `controller` (the one it came through) goes away (a
/// shoalctld handing control back), the door hangs up, and the client attaches again to the one
/// in control.
///
/// Input: the step's shepherds introduce themselves (`(stepio_atom, shepherd, input_nodes,
/// kill_on_bad_exit)`, actors/shepherd.hpp); `(input_atom, task_input)` from the door is passed
/// to every input shepherd once all of them are known, in order, and answered once each of them
/// answered (the step's input tasks have it, or the step ended). Under srun -K a step_exit with a
/// task that failed SIGKILLs every task of the step on every node.
caf::behavior stream_relay(relay_actor* self, caf::actor door, caf::actor controller, int64_t hdl,
                           uint64_t serial);

}  // namespace shoal::runtime::door
