#include "state/frame.hpp"

#include <algorithm>
#include <cstring>

#include "state/crc32c.hpp"

namespace shoal::state {
namespace {

void put_u32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

uint32_t get_u32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(p[i]) << (8 * i);
  return v;
}

bool all_zero(const uint8_t* p, size_t n) {
  return std::all_of(p, p + n, [](uint8_t b) { return b == 0; });
}

bool known_kind(uint32_t k) {
  return k >= 1 && k <= 4;
}

}  // namespace

void append_frame(std::vector<uint8_t>& out, frame_kind kind, const void* payload, size_t size) {
  uint8_t header[frame_header_size];
  put_u32(header, static_cast<uint32_t>(size));
  put_u32(header + 4, crc32c(payload, size));
  put_u32(header + 8, static_cast<uint32_t>(kind));
  put_u32(header + 12, crc32c(header, 12));
  out.insert(out.end(), header, header + frame_header_size);
  auto p = static_cast<const uint8_t*>(payload);
  out.insert(out.end(), p, p + size);
}

void append_magic(std::vector<uint8_t>& out, const char* magic) {
  out.insert(out.end(), magic, magic + magic_size);
}

frame_scan scan_frames(const uint8_t* data, size_t size, const char* magic) {
  frame_scan scan;
  auto damaged = [&](size_t at, bool torn, std::string problem) {
    scan.damage = torn ? damage_kind::torn : damage_kind::corrupt;
    scan.damage_offset = at;
    scan.problem = std::move(problem);
    return scan;
  };
  if (size < magic_size || std::memcmp(data, magic, magic_size) != 0) {
    if (size < magic_size) return damaged(0, true, "file shorter than its header");
    return damaged(0, all_zero(data, size), "not a " + std::string{magic, magic_size} + " file");
  }
  size_t at = magic_size;
  scan.valid_end = at;
  while (at < size) {
    size_t left = size - at;
    const uint8_t* h = data + at;
    // Zeros from a frame's boundary to the end: the room a journal is written ahead with (or a
    // file extended by a write that never reached the disk: nothing was acknowledged there).
    if (all_zero(h, left)) return scan;
    // Whatever else a crash leaves after the last complete write: a short header.
    if (left < frame_header_size) {
      return damaged(at, true, "frame header cut short (" + std::to_string(left) + " bytes)");
    }
    if (get_u32(h + 12) != crc32c(h, 12) || !known_kind(get_u32(h + 8))) {
      // Nothing but zeros after the header: the file was extended and the last write only
      // partly reached the disk.
      bool torn = all_zero(h + frame_header_size, left - frame_header_size);
      return damaged(at, torn, "frame header checksum mismatch");
    }
    size_t length = get_u32(h);
    if (length > left - frame_header_size) {
      return damaged(at, true,
                     "frame cut short (" + std::to_string(left - frame_header_size) + " of " +
                         std::to_string(length) + " bytes)");
    }
    const uint8_t* payload = h + frame_header_size;
    size_t end = at + frame_header_size + length;
    if (crc32c(payload, length) != get_u32(h + 4) || length % 8 != 0) {
      return damaged(at, all_zero(data + end, size - end), "checksum mismatch");
    }
    scan.frames.push_back({static_cast<frame_kind>(get_u32(h + 8)), at, payload, length});
    at = end;
    scan.valid_end = at;
  }
  return scan;
}

std::string describe_damage(const frame_scan& scan) {
  return scan.problem + " at byte " + std::to_string(scan.damage_offset);
}

}  // namespace shoal::state
