#pragma once

// The saved state on disk (StateSaveLocation=PRIMARY[,SECONDARY]). In each location directory:
//
//   snapshot.N   the whole map as of change S (a header with generation, id, S and the record
//                count, then the records in chunks), each frame with a CRC-32C (state/frame.hpp)
//   journal.N    the changes after S, one frame per batch (group commit), each change numbered
//
// Every location gets the same bytes. Writing snapshot N+1: write snapshot.N+1.tmp, fsync,
// rename, fsync the directory, then start journal.N+1 (fdatasync, fsync the directory), then
// delete generation N-1; N stays, so a corrupt snapshot.N+1 can be rebuilt from snapshot.N +
// journal.N (journal.N+1's header says that is what it continues). Reading: state/load.hpp.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "messages/errc.hpp"
#include "state/file_io.hpp"
#include "state/load.hpp"
#include "state/records.hpp"

namespace shoal::state {

/// A location that failed, or that is written again after a failure: reported once each.
struct location_event {
  std::string path;
  shoal::error error;  ///< none: the location is written again (a snapshot reached it)
};

/// Appends batches and writes snapshots to every location. Blocking (write, fdatasync, fsync):
/// call it from a thread of its own. Not thread-safe; movable.
///
/// A location that fails (I/O error, disk full, permission) is reported once through
/// take_events() and left out; the others go on. Each snapshot tries every location again, and
/// one that takes it is back (reported too). Only when no location could be written is a call an
/// error.
class store {
 public:
  /// Creates the directories as needed and writes `current` as a new generation (one past the
  /// newest found in any location) in every location, so the store starts from `current`
  /// whatever the directories held (pass load()'s records to go on from them; an empty map is a
  /// cold start). Errors: `locations` is empty (errc::invalid_request), or no location could be
  /// written (errc::system_error naming each path and call).
  static shoal::expected<store> open(std::vector<std::string> locations, const record_map& current);

  /// Appends `batch` as one frame to the journal of every working location, then fdatasyncs
  /// each. When it returns none, the batch is durable in at least one location. An empty batch
  /// does nothing. Error: no location took the batch (the store keeps numbering past it, so a
  /// later reader never mistakes the gap for a complete history).
  shoal::error append(const std::vector<change>& batch);

  /// Writes `all` (the whole state, everything appended so far applied) as a new generation,
  /// crash-safe (see above), in every location, including ones that had failed. Error: no
  /// location took it; when it failed before any snapshot was in place, the store goes on with
  /// the journals it had.
  shoal::error snapshot(const record_map& all);

  /// Failures and recoveries of single locations since the last call, each once.
  std::vector<location_event> take_events();

  // -- observers ---------------------------------------------------------------------------------

  /// The generation being appended to.
  uint64_t generation() const { return generation_; }
  /// The number of the last change appended.
  uint64_t last_sequence() const { return last_sequence_; }
  /// Locations currently written.
  size_t working_locations() const;
  const std::vector<std::string>& locations() const { return dirs_; }

 private:
  struct location {
    std::string dir;
    file_handle journal;
    uint64_t journal_size = 0;  ///< where the next batch goes
    uint64_t room_end = 0;      ///< the zeros already on disk reach this far
    bool up = false;
    bool failure_reported = false;  ///< its failure is in events_ already (report it once)
  };

  store() = default;

  /// Writes `frame` at the end of `loc`'s journal: into the zeroed room, or with a new room
  /// behind it when it does not fit.
  shoal::error place_batch(location& loc, const std::vector<uint8_t>& frame,
                           const std::string& path);

  /// Writes generation `gen` of `all`; `continues_from` is the id of the snapshot it follows
  /// from (0 when it does not).
  shoal::error write_generation(uint64_t gen, const record_map& all, uint64_t continues_from);
  void fail(location& loc, shoal::error err);
  void remove_old_generations(const location& loc, uint64_t keep_from);

  std::vector<std::string> dirs_;
  std::vector<location> locations_;
  std::vector<location_event> events_;
  uint64_t generation_ = 0;
  uint64_t snapshot_id_ = 0;
  uint64_t last_sequence_ = 0;
  std::mt19937_64 ids_;
};

}  // namespace shoal::state
