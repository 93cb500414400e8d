#pragma once

#include <string>
#include <string_view>

/// ASCII character helpers for Slurm's words, keys and host names: they match in any case and
/// whatever the process's locale, so none of them goes through <cctype>.
namespace shoal::text {

constexpr char lower_char(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

constexpr bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

inline std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = lower_char(c);
  return out;
}

constexpr bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (lower_char(a[i]) != lower_char(b[i])) return false;
  return true;
}

}  // namespace shoal::text
