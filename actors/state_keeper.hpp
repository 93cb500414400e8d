#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/typed_actor.hpp>

#include "actors/in_process_types.hpp"
#include "messages/caf/type_ids.hpp"
#include "metrics/registry.hpp"
#include "state/records.hpp"

namespace shoal::actors {

struct state_keeper_settings {
  /// StateSaveLocation=PRIMARY[,SECONDARY]; empty: keep nothing on disk (every sync is answered
  /// at once).
  std::vector<std::string> locations;
  /// A snapshot after this many changes, or after snapshot_interval, whichever comes first.
  uint64_t snapshot_every_records = 100000;
  std::chrono::seconds snapshot_interval{300};
  metrics::registry* meters = nullptr;
  /// The writer runs on a thread of its own (caf::detached). False only on CAF's test
  /// coordinator, which must run every actor on its one thread (the writes then block it).
  bool detached_writer = true;
};

/// Keeps the controller's saved state: the map of every key to its value (state/records.hpp),
/// journaled with group commit and snapshotted, in the locations of its settings.
///
/// Handlers never touch the disk: changes accumulate while its writer (a detached actor owning
/// the state::store) writes the batch before them, one write at a time (append + fdatasync in
/// every location). When a batch is durable, the syncs that waited for it are answered. The
/// keeper folds every change into its map (starting from `initial`), and the writer snapshots it
/// every snapshot_every_records changes or snapshot_interval, whichever comes first (a snapshot
/// carries the batch pending at that moment). Starting, it writes `initial` as a new generation
/// (state::store::open), so pass load()'s records to go on from them and an empty map for a
/// cold start.
///
/// A location that fails is logged once (error) and left out until a snapshot reaches it again
/// (logged as info); while another location works, syncs are answered ok. When no location could
/// take a write, the syncs waiting for it get the error, and the next write is a whole snapshot,
/// tried again at the latest after snapshot_interval.
///
/// Metrics (when settings.meters is set): shoal_state_changes_total, shoal_state_batches_total,
/// shoal_state_records, shoal_state_write_errors_total, and the writer's
/// shoal_state_fsync_seconds and shoal_state_snapshot_seconds.
using state_keeper_actor = caf::typed_actor<
    /// Upsert (value set) or erase (null value) one key; no reply (sync for durability).
    caf::reacts_to<msg::persist_atom, std::string, state::value_ptr>,
    /// Answers ok once everything this keeper received before it is durable on disk
    /// (fdatasync'd in at least one location), or an error when no location could be written.
    caf::replies_to<msg::sync_atom>::with<caf::ok_atom>,
    /// Writes a snapshot now and answers when it is durable (used before a hand-over).
    caf::replies_to<msg::snapshot_atom>::with<caf::ok_atom>>;

/// Spawns a keeper starting from `initial` (see above).
state_keeper_actor spawn_state_keeper(caf::actor_system& sys, state_keeper_settings settings,
                                      state::record_map initial);

}  // namespace shoal::actors
