#pragma once

#include <optional>
#include <string>
#include <vector>

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/error.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/in_process_types.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "metrics/registry.hpp"
#include "state/store.hpp"

namespace shoal::actors {

/// What one write of the state writer did.
struct write_report {
  caf::error error;  ///< none: durable in at least one location
  /// Locations that failed or came back, each reported once (the keeper logs them).
  std::vector<state::location_event> events;
  uint64_t appended = 0;          ///< changes appended to the journals in this write
  bool snapshot_written = false;  ///< a new generation is in place
};

}  // namespace shoal::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(shoal::actors::write_report)

namespace shoal::actors {

/// The disk side of the state keeper: owns the state::store and does its blocking writes, one
/// request at a time, so it must run on a thread of its own (spawned caf::detached). It opens the
/// store on its first snapshot request, and again on a later one if that failed. Its times go to
/// shoal_state_fsync_seconds (one batch: write + fdatasync in every location) and
/// shoal_state_snapshot_seconds in `meters` (null: not metered).
using state_writer_actor = caf::typed_actor<
    /// Append a batch to the journals (write, then fdatasync, in every working location).
    caf::replies_to<msg::persist_atom, std::vector<state::change>>::with<write_report>,
    /// (batch, all): append the batch, then write `all` (everything, batch included) as a new
    /// generation; with no store yet, open one whose first generation is `all`.
    caf::replies_to<msg::snapshot_atom, std::vector<state::change>,
                    state::record_map>::with<write_report>>;

struct state_writer_state {
  static inline const char* name = "state_writer";
  std::vector<std::string> locations;
  std::optional<state::store> store;
  metrics::histogram* fsync_seconds = nullptr;
  metrics::histogram* snapshot_seconds = nullptr;
};

/// The writer's behavior; spawn it with caf::detached (and linked to its keeper).
state_writer_actor::behavior_type state_writer(
    state_writer_actor::stateful_pointer<state_writer_state> self,
    std::vector<std::string> locations, metrics::registry* meters);

}  // namespace shoal::actors
