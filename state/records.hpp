#pragma once

// The values the state store keeps: a map of opaque keys to opaque values. Keys name what they
// hold ("job/42", "node/n3", "ctl/next_job_id"); values are encodings made by the caller.

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace shoal::state {

/// One value, shared: a snapshot of the map copies pointers, never the bytes.
using value_ptr = std::shared_ptr<const std::vector<uint8_t>>;

/// The whole saved state, in key order.
using record_map = std::map<std::string, value_ptr>;

/// One change to the map: `value` set is an upsert, a null `value` erases `key`.
struct change {
  std::string key;
  value_ptr value;
};

/// A value holding a copy of `bytes`.
value_ptr make_value(const void* bytes, size_t size);
value_ptr make_value(const std::string& bytes);

/// Applies `c` to `records`.
void apply(record_map& records, change c);

/// What load() found.
struct loaded_state {
  record_map records;
  /// One line per damaged or unusable file that was worked around, naming its path and what is
  /// wrong with it ("/a/snapshot.12: checksum mismatch at byte 4096; using /b/snapshot.12").
  std::vector<std::string> warnings;
  /// The generation the state was rebuilt from (its snapshot), 0 when nothing was saved.
  uint64_t generation = 0;
  /// The sequence number of the last change applied.
  uint64_t last_sequence = 0;
  /// Records read from the snapshot, and changes replayed from journals after it.
  uint64_t snapshot_records = 0;
  uint64_t journal_records = 0;
  /// Bytes read from every file examined, all locations together.
  uint64_t bytes_read = 0;
  /// Wall time of the whole load.
  std::chrono::nanoseconds elapsed{0};
};

}  // namespace shoal::state
