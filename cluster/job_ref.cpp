#include "cluster/job_ref.hpp"

#include <cctype>
#include <string>

#include "messages/errc.hpp"

namespace shoal::cluster {

namespace {

bool read_number(std::string_view s, size_t& pos, uint64_t limit, uint64_t& out) {
  size_t start = pos;
  out = 0;
  while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
    out = out * 10 + static_cast<uint64_t>(s[pos++] - '0');
    if (out > limit) return false;
  }
  return pos > start;
}

}  // namespace

shoal::expected<job_ref> parse_job_ref(std::string_view text) {
  auto bad = [&] {
    return error(errc::invalid_request,
                 "invalid job id '" + std::string{text} + "' (use 12, 12_4 or 12_[1-5,7])");
  };
  job_ref ref;
  size_t pos = 0;
  if (!read_number(text, pos, UINT64_MAX / 10 - 1, ref.id) || ref.id == 0) return bad();
  if (pos == text.size()) return ref;
  if (text[pos++] != '_') return bad();
  ref.whole = false;
  bool bracket = pos < text.size() && text[pos] == '[';
  if (bracket) ++pos;
  while (true) {
    uint64_t lo = 0, hi = 0;
    if (!read_number(text, pos, UINT32_MAX, lo)) return bad();
    hi = lo;
    if (bracket && pos < text.size() && text[pos] == '-') {
      ++pos;
      if (!read_number(text, pos, UINT32_MAX, hi) || hi < lo) return bad();
    }
    ref.tasks.emplace_back(static_cast<uint32_t>(lo), static_cast<uint32_t>(hi));
    if (!bracket) break;
    if (pos < text.size() && text[pos] == ',') {
      ++pos;
      continue;
    }
    if (pos >= text.size() || text[pos++] != ']') return bad();
    break;
  }
  if (pos != text.size()) return bad();
  return ref;
}

bool names_task(const job_ref& ref, uint32_t index) {
  if (ref.whole) return true;
  for (auto& [lo, hi] : ref.tasks)
    if (index >= lo && index <= hi) return true;
  return false;
}

}  // namespace shoal::cluster
