#pragma once

// Little-endian fields for the plugins' opaque bytes (switch data, saved state): they travel
// inside Cap'n Proto messages as Data, and each plugin owns their layout.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace shoal::interconnect {

struct byte_writer {
  std::vector<uint8_t> out;

  void magic(std::string_view m) { out.insert(out.end(), m.begin(), m.end()); }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void bytes(const uint8_t* p, size_t n) { out.insert(out.end(), p, p + n); }
};

/// Each read returns false once the bytes run out (and reads nothing more).
struct byte_reader {
  const std::vector<uint8_t>& in;
  size_t at = 0;

  size_t left() const { return in.size() - at; }
  bool magic(std::string_view m) {
    if (left() < m.size() || std::memcmp(in.data() + at, m.data(), m.size()) != 0) return false;
    at += m.size();
    return true;
  }
  bool u32(uint32_t& v) {
    if (left() < 4) return false;
    v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(in[at++]) << (8 * i);
    return true;
  }
  bool u64(uint64_t& v) {
    if (left() < 8) return false;
    v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(in[at++]) << (8 * i);
    return true;
  }
  bool bytes(uint8_t* p, size_t n) {
    if (left() < n) return false;
    std::memcpy(p, in.data() + at, n);
    at += n;
    return true;
  }
};

}  // namespace shoal::interconnect
