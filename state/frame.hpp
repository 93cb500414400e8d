#pragma once

// How the state files hold their messages. A file is an 8-byte magic, then frames:
//
//   [u32 payload length][u32 CRC-32C of the payload][u32 kind][u32 CRC-32C of the 12 bytes before]
//   [payload: one Cap'n Proto message, a whole number of 8-byte words]
//
// all little-endian. The header's own checksum lets a reader tell a damaged length (it cannot
// trust what follows) from a payload that was cut short. Frames keep 8-byte alignment, so a
// payload is read in place. Zeros from a frame boundary to the end of the file are not damage:
// a journal is written ahead with zeroed room for its next batches (state/store.cpp).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace shoal::state {

enum class frame_kind : uint32_t {
  journal_header = 1,
  journal_batch = 2,
  snapshot_header = 3,
  snapshot_chunk = 4,
};

constexpr size_t magic_size = 8;
constexpr size_t frame_header_size = 16;
constexpr const char journal_magic[] = "SHOALJNL";
constexpr const char snapshot_magic[] = "SHOALSNP";

/// Appends one frame holding `payload` (`size` bytes, a multiple of 8) to `out`.
void append_frame(std::vector<uint8_t>& out, frame_kind kind, const void* payload, size_t size);

/// Appends a file's magic (journal_magic or snapshot_magic) to `out`.
void append_magic(std::vector<uint8_t>& out, const char* magic);

/// One intact frame of a scanned file.
struct frame_view {
  frame_kind kind;
  size_t offset;           ///< of the frame header, from the start of the file
  const uint8_t* payload;  ///< inside the scanned buffer
  size_t size;
};

/// How a file ends.
enum class damage_kind {
  none,     ///< every byte belongs to an intact frame, or to the zeros after the last one
  torn,     ///< the last frame is cut short or unreadable and nothing but zeros follows it: what a
            ///< crash during the last write leaves
  corrupt,  ///< a damaged frame with data after it: the file changed after it was written
};

/// The intact frames of a file, up to its first damage.
struct frame_scan {
  std::vector<frame_view> frames;
  size_t valid_end = 0;  ///< end of the last intact frame (or of the magic)
  damage_kind damage = damage_kind::none;
  size_t damage_offset = 0;  ///< where the damaged frame (or missing magic) starts
  std::string problem;       ///< what is wrong there: "checksum mismatch", ...
};

/// Scans `size` bytes of a file starting with `magic`. A short or wrong magic is damage at byte 0
/// (torn when the file is shorter than the magic or all zeros).
frame_scan scan_frames(const uint8_t* data, size_t size, const char* magic);

/// "checksum mismatch at byte 4096": where and what, for a message naming the file.
std::string describe_damage(const frame_scan& scan);

}  // namespace shoal::state
