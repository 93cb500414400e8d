#include "tools/format/table.hpp"

#include <ctime>
#include <set>

#include "topology/hostlist.hpp"

namespace shoal::cli::detail {

namespace {

using text::is_digit;
using text::lower_char;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

size_t display_width(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

std::vector<std::string> expand_or_literal(std::string_view expr) {
  auto names = topology::expand_hostlist(expr);
  if (names) return std::move(*names);
  return {std::string(expr)};
}

}  // namespace

std::string fold_name(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != '_' && c != ' ' && c != '\t') out.push_back(lower_char(c));
  return out;
}

std::vector<std::string> split_list(std::string_view s, bool keep_empty) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i < s.size()) {
      if (s[i] == '[') ++depth;
      if (s[i] == ']' && depth > 0) --depth;
      if (s[i] != ',' || depth > 0) continue;
    }
    auto item = trim(s.substr(start, i - start));
    if (!item.empty() || keep_empty) out.emplace_back(item);
    start = i + 1;
  }
  return out;
}

std::string iso_time(int64_t t, const char* zero) {
  if (t == 0) return zero;
  auto tt = static_cast<time_t>(t);
  struct tm tm_local;
  if (localtime_r(&tt, &tm_local) == nullptr) return zero;
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm_local);
  return buf;
}

int natural_compare(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      // Compare digit runs by value: skip leading zeros, then the longer run is larger.
      size_t i0 = i, j0 = j;
      while (i < a.size() && is_digit(a[i])) ++i;
      while (j < b.size() && is_digit(b[j])) ++j;
      auto x = a.substr(i0, i - i0);
      auto y = b.substr(j0, j - j0);
      while (x.size() > 1 && x.front() == '0') x.remove_prefix(1);
      while (y.size() > 1 && y.front() == '0') y.remove_prefix(1);
      if (x.size() != y.size()) return x.size() < y.size() ? -1 : 1;
      if (int c = x.compare(y); c != 0) return c < 0 ? -1 : 1;
      continue;
    }
    if (a[i] != b[j])
      return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]) ? -1 : 1;
    ++i;
    ++j;
  }
  if (i < a.size()) return 1;
  if (j < b.size()) return -1;
  // Equal by value ("n01" vs "n1"): fall back to plain order so the result is total.
  int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

std::string or_null(const std::string& text) {
  return text.empty() ? "(null)" : text;
}

bool hostlists_intersect(std::string_view nodelist, const std::vector<std::string>& values) {
  if (nodelist.empty()) return false;
  return names_intersect(expand_or_literal(nodelist), values);
}

bool names_intersect(const std::vector<std::string>& names,
                     const std::vector<std::string>& values) {
  std::set<std::string> wanted;
  for (auto& v : values)
    for (auto& name : expand_or_literal(v)) wanted.insert(lower(name));
  for (auto& name : names)
    if (wanted.count(lower(name)) > 0) return true;
  return false;
}

bool state_matches(msg::node_state s, const std::vector<std::string>& values) {
  return std::any_of(values.begin(), values.end(), [&](const std::string& v) {
    return iequals(v, msg::to_string(s)) || iequals(v, msg::short_name(s));
  });
}

bool state_matches(msg::job_state s, const std::vector<std::string>& values) {
  return std::any_of(values.begin(), values.end(), [&](const std::string& v) {
    return iequals(v, msg::to_string(s)) || iequals(v, msg::short_code(s));
  });
}

std::string layout(const std::vector<std::string>& headers, const std::vector<bool>& right,
                   const std::vector<std::vector<std::string>>& rows, bool no_header) {
  std::vector<size_t> width(headers.size(), 0);
  if (!no_header)
    for (size_t c = 0; c < headers.size(); ++c) width[c] = display_width(headers[c]);
  for (auto& r : rows)
    for (size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], display_width(r[c]));
  std::string out;
  auto emit = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) line.push_back(' ');
      std::string pad(width[c] - display_width(cells[c]), ' ');
      line += right[c] ? pad + cells[c] : cells[c] + pad;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line;
    out.push_back('\n');
  };
  if (!no_header) emit(headers);
  for (auto& r : rows) emit(r);
  return out;
}

shoal::error unknown_field(std::string_view name, const std::vector<std::string>& known) {
  std::string text = "unknown field '" + std::string(name) + "' (known: ";
  for (size_t i = 0; i < known.size(); ++i) {
    if (i > 0) text += ", ";
    text += known[i];
  }
  text += ")";
  return shoal::error(errc::invalid_request, std::move(text));
}

}  // namespace shoal::cli::detail
