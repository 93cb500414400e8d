#pragma once

// The Cap'n Proto messages of the state files (state/state.capnp), in frames (state/frame.hpp):
// encoding for the store, decoding for load. Decoders never throw: a message that does not
// decode is errc::malformed_message.

#include <cstdint>
#include <string>
#include <vector>

#include "messages/errc.hpp"
#include "state/frame.hpp"
#include "state/records.hpp"

namespace shoal::state {

/// The first frame of journal.N (see JournalHeader in state.capnp).
struct journal_header {
  uint64_t generation = 0;
  uint64_t snapshot_id = 0;
  uint64_t continues_from = 0;  ///< 0: snapshot N may not be rebuilt from generation N-1
  uint64_t base_sequence = 0;
};

/// The first frame of snapshot.N (see SnapshotHeader in state.capnp).
struct snapshot_header {
  uint64_t generation = 0;
  uint64_t snapshot_id = 0;
  uint64_t last_sequence = 0;
  uint64_t record_count = 0;
  int64_t written_at_ns = 0;
};

/// A change as a journal holds it.
struct sequenced_change {
  uint64_t sequence = 0;
  change what;
};

/// Appends the frame of each message to `out`.
void append_journal_header(std::vector<uint8_t>& out, const journal_header& h);
/// The records of `batch`, numbered first_sequence, first_sequence + 1, ...
void append_batch(std::vector<uint8_t>& out, uint64_t first_sequence,
                  const std::vector<change>& batch);
void append_snapshot_header(std::vector<uint8_t>& out, const snapshot_header& h);
/// The records [first, last) as one chunk.
void append_chunk(std::vector<uint8_t>& out, record_map::const_iterator first,
                  record_map::const_iterator last);

/// Decoding, from intact frames of the right kind.
shoal::expected<journal_header> read_journal_header(const frame_view& f);
shoal::error read_batch(const frame_view& f, std::vector<sequenced_change>& out);
shoal::expected<snapshot_header> read_snapshot_header(const frame_view& f);
/// Inserts the chunk's records into `out` (in key order: appended at the end); adds their number
/// to `count`.
shoal::error read_chunk(const frame_view& f, record_map& out, uint64_t& count);

}  // namespace shoal::state
