#pragma once

#include <string>
#include <vector>

#include "messages/errc.hpp"
#include "state/records.hpp"

namespace shoal::state {

/// Reads the newest valid saved state from `locations` (StateSaveLocation=PRIMARY[,SECONDARY]):
/// the newest snapshot with a valid copy, plus the changes of the journals after it.
///
/// Of each file, every location's copy is read, and the valid one that reaches furthest is used.
/// A missing or empty location is an empty state, not an error. A corrupt or truncated copy is
/// reported in `warnings` with its path and what is wrong ("/a/snapshot.12: checksum mismatch at
/// byte 4096; using /b/snapshot.12") and another copy is used. A torn last journal batch (what a
/// crash during its write leaves) is dropped with a warning; everything before it is kept. When
/// every copy of the newest snapshot is unusable, the state is rebuilt from the previous
/// generation's snapshot and the journals after it, when their headers show that is what the
/// newest snapshot held.
///
/// Errors (errc::malformed_message, naming the file): something that was written has no usable
/// copy at all, e.g. every copy of the newest snapshot is corrupt with no older generation to
/// rebuild it from, or a journal is damaged in its middle in every copy (changes after the damage
/// were written and are lost). errc::system_error: no location could be read at all.
/// errc::incompatible_version: the files were written in a format this build does not read.
shoal::expected<loaded_state> load(const std::vector<std::string>& locations);

}  // namespace shoal::state
