#include "config/begin_time.hpp"

#include <cctype>
#include <ctime>
#include <string>

#include "messages/errc.hpp"
#include "messages/text.hpp"

namespace shoal::config {

namespace {

constexpr int64_t day_s = 86'400;

shoal::error invalid(std::string_view text) {
  return shoal::error(
      errc::invalid_time,
      "invalid begin time '" + std::string{text} +
          "' (use now+N[minutes|hours|days|weeks], today, tomorrow, midnight, "
          "noon, HH:MM[:SS] [AM|PM], YYYY-MM-DD[THH:MM[:SS]] or MM/DD[/YY][-HH:MM])");
}

using text::lower;

std::tm local(int64_t t) {
  std::tm tm{};
  auto tt = static_cast<std::time_t>(t);
  localtime_r(&tt, &tm);
  return tm;
}

int64_t make_local(std::tm tm) {
  tm.tm_isdst = -1;
  return static_cast<int64_t>(std::mktime(&tm));
}

/// Reads exactly `width` digits (or 1-2 when width is 0) at `pos`.
bool read_number(std::string_view s, size_t& pos, size_t width, int& out) {
  size_t start = pos;
  size_t limit = width > 0 ? width : 2;
  out = 0;
  while (pos < s.size() && pos - start < limit && std::isdigit(static_cast<unsigned char>(s[pos])))
    out = out * 10 + (s[pos++] - '0');
  return width > 0 ? pos - start == width : pos > start;
}

/// HH:MM[:SS] with an optional AM/PM, the whole of `s`.
bool parse_clock(std::string_view s, int& h, int& m, int& sec) {
  size_t pos = 0;
  sec = 0;
  if (!read_number(s, pos, 0, h) || pos >= s.size() || s[pos++] != ':') return false;
  if (!read_number(s, pos, 2, m)) return false;
  if (pos < s.size() && s[pos] == ':') {
    ++pos;
    if (!read_number(s, pos, 2, sec)) return false;
  }
  auto rest = lower(s.substr(pos));
  if (!rest.empty() && rest.front() == ' ') rest.erase(0, 1);
  if (rest == "am" || rest == "pm") {
    if (h < 1 || h > 12) return false;
    h = h % 12 + (rest == "pm" ? 12 : 0);
  } else if (!rest.empty()) {
    return false;
  }
  return h < 24 && m < 60 && sec < 60;
}

shoal::expected<int64_t> relative(std::string_view text, std::string_view rest, int64_t now) {
  if (rest.empty()) return now;
  int sign = rest.front() == '-' ? -1 : 1;
  if (rest.front() != '+' && rest.front() != '-') return invalid(text);
  rest.remove_prefix(1);
  size_t pos = 0;
  int64_t count = 0;
  while (pos < rest.size() && std::isdigit(static_cast<unsigned char>(rest[pos]))) {
    if (count > 100'000'000) return invalid(text);
    count = count * 10 + (rest[pos++] - '0');
  }
  if (pos == 0) return invalid(text);
  auto unit = lower(rest.substr(pos));
  int64_t scale = 0;
  auto is = [&](std::string_view full) {
    return !unit.empty() && full.substr(0, unit.size()) == unit;
  };
  if (unit.empty() || is("seconds"))
    scale = 1;
  else if (is("minutes"))
    scale = 60;
  else if (is("hours"))
    scale = 3'600;
  else if (is("days"))
    scale = day_s;
  else if (is("weeks"))
    scale = 7 * day_s;
  else
    return invalid(text);
  return now + sign * count * scale;
}

int64_t at_clock(int64_t now, int h, int m, int s, bool next_if_past) {
  auto tm = local(now);
  tm.tm_hour = h;
  tm.tm_min = m;
  tm.tm_sec = s;
  auto t = make_local(tm);
  if (next_if_past && t <= now) {
    tm.tm_mday += 1;
    t = make_local(tm);
  }
  return t;
}

/// YYYY-MM-DD, MM/DD[/YY], MMDD[YY]: fills the date; `year_given` false asks for the next one.
bool parse_date(std::string_view s, int& year, int& month, int& mday, bool& year_given) {
  size_t pos = 0;
  year_given = true;
  if (s.size() == 10 && s[4] == '-' && s[7] == '-') {
    return read_number(s, pos, 4, year) && s[pos++] == '-' && read_number(s, pos, 2, month) &&
           s[pos++] == '-' && read_number(s, pos, 2, mday);
  }
  if (s.find('/') != std::string_view::npos) {
    if (!read_number(s, pos, 0, month) || pos >= s.size() || s[pos++] != '/' ||
        !read_number(s, pos, 0, mday))
      return false;
    if (pos == s.size()) {
      year_given = false;
      return true;
    }
    if (s[pos++] != '/' || !read_number(s, pos, 2, year) || pos != s.size()) return false;
    year += 2000;
    return true;
  }
  if (s.size() == 4 || s.size() == 6) {
    if (!read_number(s, pos, 2, month) || !read_number(s, pos, 2, mday)) return false;
    if (s.size() == 4) {
      year_given = false;
      return true;
    }
    if (!read_number(s, pos, 2, year)) return false;
    year += 2000;
    return true;
  }
  return false;
}

}  // namespace

shoal::expected<int64_t> parse_begin_time(std::string_view text, int64_t now) {
  auto word = lower(text);
  if (word.rfind("now", 0) == 0) return relative(text, std::string_view{text}.substr(3), now);
  if (word == "today") return at_clock(now, 0, 0, 0, false);
  if (word == "tomorrow" || word == "midnight") return at_clock(now, 0, 0, 0, true);
  if (word == "noon") return at_clock(now, 12, 0, 0, true);
  if (word == "fika") return at_clock(now, 15, 0, 0, true);
  if (word == "teatime") return at_clock(now, 16, 0, 0, true);
  int h = 0, m = 0, s = 0;
  if (parse_clock(text, h, m, s)) return at_clock(now, h, m, s, true);
  h = m = s = 0;  // a date without a clock time means its midnight
  // A date, optionally followed by T or - and a clock time.
  auto split = text.find('T');
  if (split == std::string_view::npos) {
    // MM/DD-HH:MM: the dash before the clock; YYYY-MM-DD has its dashes at 4 and 7.
    auto dash = text.find('-', text.size() >= 10 && text[4] == '-' ? 10 : 0);
    split = dash;
  }
  auto date_part = text.substr(0, split);
  int year = 0, month = 0, mday = 0;
  bool year_given = true;
  if (!parse_date(date_part, year, month, mday, year_given)) return invalid(text);
  if (split != std::string_view::npos && !parse_clock(text.substr(split + 1), h, m, s))
    return invalid(text);
  if (month < 1 || month > 12 || mday < 1 || mday > 31) return invalid(text);
  auto tm = local(now);
  tm.tm_year = (year_given ? year : tm.tm_year + 1900) - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = mday;
  tm.tm_hour = h;
  tm.tm_min = m;
  tm.tm_sec = s;
  auto t = make_local(tm);
  if (!year_given && t <= now) {
    tm.tm_year += 1;
    t = make_local(tm);
  }
  return t;
}

}  // namespace shoal::config
