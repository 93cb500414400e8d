#include "tools/format/slurm_format.hpp"

#include <cstdio>
#include <cstdlib>

#include "tools/format/table.hpp"

namespace shoal::cli {

namespace {

constexpr int64_t year_seconds = 365LL * 24 * 3600;

/// The letters `%all` stands for, as squeue and sinfo build it (sinfo puts a blank after each
/// capital letter).
std::string all_letters(const std::string& separator, bool blank_after_capitals) {
  std::string out = "%a";
  for (char c = 'b'; c <= 'z'; ++c) out += separator + "%" + c;
  for (char c = 'A'; c <= 'Z'; ++c) out += separator + "%" + c + (blank_after_capitals ? " " : "");
  return out;
}

}  // namespace

bool is_slurm_letter_format(std::string_view format) {
  return format.find('%') != std::string_view::npos;
}

std::vector<slurm_item> parse_slurm_format(std::string_view format,
                                           const std::function<bool(char)>& known,
                                           const std::string& what, slurm_format_errors& errors,
                                           bool sinfo_all) {
  std::vector<slurm_item> items;
  auto first = format.find('%');
  // Everything before the first '%' is printed as it is (all of it when there is none).
  if (first != 0) {
    slurm_item text;
    text.suffix = std::string{format.substr(0, first)};
    items.push_back(std::move(text));
  }
  if (first == std::string_view::npos) return items;
  std::string body{format.substr(first)};
  bool all = detail::iequals(body, "%all");
  if (all) body = all_letters("|", sinfo_all);
  size_t pos = 0;
  while (pos < body.size()) {
    // strtok_r on "%": runs of '%' separate pieces and make no empty ones.
    while (pos < body.size() && body[pos] == '%') ++pos;
    if (pos >= body.size()) break;
    auto end = body.find('%', pos);
    if (end == std::string::npos) end = body.size();
    std::string piece = body.substr(pos, end - pos);
    pos = end;
    slurm_item item;
    size_t i = 0;
    if (piece[i] == '.') {
      item.right = true;
      ++i;
    }
    while (i < piece.size() && piece[i] >= '0' && piece[i] <= '9')
      item.width = item.width * 10 + (piece[i++] - '0');
    char letter = i < piece.size() ? piece[i++] : '\0';
    item.suffix = piece.substr(std::min(i, piece.size()));
    if (letter != '\0' && known(letter)) {
      item.what = slurm_item::kind::field;
      item.name = std::string(1, letter);
    } else if (all) {
      continue;
    } else {
      item.what = slurm_item::kind::invalid;
      item.suffix = "%" + piece;
      errors.push_back(what + " format specification: " + std::string(1, letter));
    }
    items.push_back(std::move(item));
  }
  return items;
}

std::vector<slurm_item> parse_slurm_long_format(
    std::string_view format, const std::function<bool(const std::string&)>& known,
    bool keep_invalid, slurm_format_errors& errors) {
  std::vector<slurm_item> items;
  size_t pos = 0;
  while (pos <= format.size()) {
    auto end = format.find(',', pos);
    if (end == std::string_view::npos) end = format.size();
    std::string token{format.substr(pos, end - pos)};
    pos = end + 1;
    if (token.empty()) continue;
    slurm_item item;
    auto colon = token.find(':');
    if (colon == std::string::npos) {
      item.width = 20;
    } else {
      std::string spec = token.substr(colon + 1);
      token.resize(colon);
      size_t i = 0;
      if (!spec.empty() && spec[0] == '.') {
        item.right = true;
        i = 1;
      }
      // strtol: blanks and a sign before the digits are taken; no digits is 0.
      const char* start = spec.c_str() + i;
      char* stop = nullptr;
      long width = std::strtol(start, &stop, 10);
      item.width = static_cast<int>(width);
      item.suffix = stop;
    }
    auto name = detail::lower(token);
    if (known(name)) {
      item.what = slurm_item::kind::field;
      item.name = name;
      items.push_back(std::move(item));
      continue;
    }
    errors.push_back("Invalid job format specification: " + token);
    if (!keep_invalid) continue;
    item.what = slurm_item::kind::invalid;
    items.push_back(std::move(item));
  }
  return items;
}

std::string slurm_cell(std::string_view text, int width, bool right, bool cut) {
  if (width == 0) return std::string{text};
  if (width < 0) return std::string{text} + " ";
  auto w = static_cast<size_t>(width);
  if (right) {
    std::string out =
        text.size() < w ? std::string(w - text.size(), ' ') + std::string{text} : std::string{text};
    if (cut && out.size() > w) out.resize(w);
    return out;
  }
  // "%.Ns": the precision cuts whether or not the field asks to.
  std::string out{text.substr(0, w)};
  out.append(w - out.size(), ' ');
  return out;
}

std::string slurm_seconds(int64_t seconds, bool check_range) {
  if (check_range && (seconds < 0 || seconds > year_seconds)) return "INVALID";
  int64_t s = seconds % 60;
  int64_t m = (seconds / 60) % 60;
  int64_t h = (seconds / 3600) % 24;
  int64_t d = seconds / 86400;
  char buf[64];
  if (d != 0)
    std::snprintf(buf, sizeof buf, "%lld-%2.2lld:%2.2lld:%2.2lld", static_cast<long long>(d),
                  static_cast<long long>(h), static_cast<long long>(m), static_cast<long long>(s));
  else if (h != 0)
    std::snprintf(buf, sizeof buf, "%lld:%2.2lld:%2.2lld", static_cast<long long>(h),
                  static_cast<long long>(m), static_cast<long long>(s));
  else
    std::snprintf(buf, sizeof buf, "%lld:%2.2lld", static_cast<long long>(m),
                  static_cast<long long>(s));
  return buf;
}

std::string slurm_time_string(int64_t seconds) {
  if (seconds < 0) return "INVALID";
  auto days = seconds / 86400;
  char buf[64];
  if (days != 0)
    std::snprintf(buf, sizeof buf, "%lld-%2.2lld:%2.2lld:%2.2lld", static_cast<long long>(days),
                  static_cast<long long>((seconds / 3600) % 24),
                  static_cast<long long>((seconds / 60) % 60),
                  static_cast<long long>(seconds % 60));
  else
    std::snprintf(
        buf, sizeof buf, "%2.2lld:%2.2lld:%2.2lld", static_cast<long long>((seconds / 3600) % 24),
        static_cast<long long>((seconds / 60) % 60), static_cast<long long>(seconds % 60));
  return buf;
}

std::string slurm_number_in_unit(double value, int unit, int target) {
  static const char letters[] = {'\0', 'K', 'M', 'G', 'T', 'P'};
  if (target < 0 || target > 5) return slurm_number_unit(value, unit);
  for (; unit < target; ++unit) value /= 1024;
  for (; unit > target; --unit) value *= 1024;
  char buf[64];
  if (static_cast<double>(static_cast<int64_t>(value)) == value)
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(value));
  else
    std::snprintf(buf, sizeof buf, "%.2f", value);
  std::string out = buf;
  if (letters[target] != '\0') out.push_back(letters[target]);
  return out;
}

bool& no_unit_conversion() {
  static bool raw = false;
  return raw;
}

std::string slurm_number_unit(double value, int unit) {
  static const char letters[] = {'\0', 'K', 'M', 'G', 'T', 'P', '?'};
  if (static_cast<int64_t>(value) == 0) return "0";
  while (!no_unit_conversion() && value >= 1024 && static_cast<uint64_t>(value) % 512 == 0) {
    value /= 1024;
    ++unit;
  }
  if (unit < 0 || unit > 5) unit = 6;
  auto whole = static_cast<uint64_t>(value);
  char buf[64];
  if (static_cast<double>(whole) == value)
    std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(whole));
  else
    std::snprintf(buf, sizeof buf, "%.2f", value);
  std::string out = buf;
  if (letters[unit] != '\0') out.push_back(letters[unit]);
  return out;
}

void print_field_names(const std::vector<std::string>& names) {
  for (size_t i = 0; i < names.size(); ++i) {
    if ((i & 3) != 0)
      std::fputs(" ", stdout);
    else if (i != 0)
      std::fputs("\n", stdout);
    std::printf("%-19s", names[i].c_str());
  }
  std::fputs("\n", stdout);
}

}  // namespace shoal::cli
