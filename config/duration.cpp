#include "config/duration.hpp"

#include <strings.h>

#include <cctype>
#include <cstdio>
#include <vector>

#include "messages/errc.hpp"

namespace shoal::config {

namespace {

shoal::error bad_time(std::string_view text) {
  return shoal::error(
      errc::invalid_time,
      "invalid time limit '" + std::string{text} +
          "' (use minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS or UNLIMITED)");
}

bool equal_nocase(std::string_view a, const char* b) {
  return a.size() == std::char_traits<char>::length(b) && strncasecmp(a.data(), b, a.size()) == 0;
}

/// Splits "a:b:c" into numbers; false if any part is empty or not all digits.
bool split_numbers(std::string_view text, std::vector<int64_t>& out) {
  out.clear();
  int64_t value = 0;
  bool digits = false;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == ':') {
      if (!digits) return false;
      out.push_back(value);
      value = 0;
      digits = false;
    } else if (std::isdigit(static_cast<unsigned char>(text[i]))) {
      if (value > 100'000'000) return false;  // guards the multiplications below
      value = value * 10 + (text[i] - '0');
      digits = true;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

shoal::expected<int64_t> parse_time_limit(std::string_view text) {
  if (equal_nocase(text, "UNLIMITED") || equal_nocase(text, "INFINITE") || text == "-1")
    return unlimited;
  std::vector<int64_t> parts;
  auto dash = text.find('-');
  if (dash != std::string_view::npos) {
    std::vector<int64_t> days;
    if (!split_numbers(text.substr(0, dash), days) || days.size() != 1) return bad_time(text);
    if (!split_numbers(text.substr(dash + 1), parts) || parts.size() > 3) return bad_time(text);
    int64_t seconds = days[0] * 86400 + parts[0] * 3600;
    if (parts.size() > 1) seconds += parts[1] * 60;
    if (parts.size() > 2) seconds += parts[2];
    return seconds;
  }
  if (!split_numbers(text, parts)) return bad_time(text);
  switch (parts.size()) {
    case 1:
      return parts[0] * 60;
    case 2:
      return parts[0] * 60 + parts[1];
    case 3:
      return parts[0] * 3600 + parts[1] * 60 + parts[2];
    default:
      return bad_time(text);
  }
}

std::string format_duration(int64_t seconds) {
  if (seconds < 0) return "UNLIMITED";
  char buf[64];
  auto days = seconds / 86400;
  auto hours = (seconds / 3600) % 24;
  auto minutes = (seconds / 60) % 60;
  auto secs = seconds % 60;
  if (days > 0)
    std::snprintf(buf, sizeof buf, "%lld-%02lld:%02lld:%02lld", static_cast<long long>(days),
                  static_cast<long long>(hours), static_cast<long long>(minutes),
                  static_cast<long long>(secs));
  else if (hours > 0)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", static_cast<long long>(hours),
                  static_cast<long long>(minutes), static_cast<long long>(secs));
  else
    std::snprintf(buf, sizeof buf, "%lld:%02lld", static_cast<long long>(minutes),
                  static_cast<long long>(secs));
  return buf;
}

shoal::expected<int64_t> parse_seconds_as_ms(std::string_view text) {
  auto bad = [&] {
    return shoal::error(errc::invalid_time,
                        "invalid number of seconds '" + std::string{text} + "'");
  };
  if (text.empty()) return bad();
  int64_t whole = 0;
  int64_t frac_ms = 0;
  size_t i = 0;
  bool digits = false;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    if (whole > 1'000'000'000) return bad();
    whole = whole * 10 + (text[i] - '0');
    digits = true;
  }
  if (i < text.size() && text[i] == '.') {
    ++i;
    int64_t scale = 100;
    for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
      frac_ms += (text[i] - '0') * scale;
      scale /= 10;
      digits = true;
    }
  }
  if (!digits || i != text.size()) return bad();
  return whole * 1000 + frac_ms;
}

}  // namespace shoal::config
