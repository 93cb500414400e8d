#include "topology/hostlist.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "messages/errc.hpp"

namespace shoal::topology {

namespace {

// -- limits -------------------------------------------------------------------------------------

/// Slurm's MAX_RANGE: one `lo-hi` may name at most this many hosts.
constexpr uint64_t max_range_names = 65536;

/// Bound on a whole expansion, so a hostile `a[0-9999][0-9999]` fails instead of eating memory.
constexpr uint64_t max_total_names = 1000000;

/// Longest numeric suffix handled as a number: 18 decimal digits always fit in uint64_t with room
/// for the `+ 1` of range arithmetic.
constexpr size_t max_digits = 18;

// -- character classes --------------------------------------------------------------------------

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool is_separator(char c) {
  return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// -- shared pieces ------------------------------------------------------------------------------

/// A bracket element `lo-hi` (or a single number, lo == hi). Every number of the range is
/// printed with at least `width` digits, the width of `lo` as written.
struct num_range {
  uint64_t lo = 0;
  uint64_t hi = 0;
  size_t width = 0;
};

std::string format_number(uint64_t value, size_t width) {
  auto digits = std::to_string(value);
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return digits;
}

size_t digit_count(uint64_t value) {
  size_t n = 1;
  while (value >= 10) {
    value /= 10;
    ++n;
  }
  return n;
}

// -- expansion ----------------------------------------------------------------------------------

caf::error fail(size_t column, const std::string& what) {
  return make_error(errc::invalid_hostlist, what + " at column " + std::to_string(column));
}

/// Reads a run of digits at `pos` of `text` (whose first character is column `base`). Returns
/// the number of digits read; 0 means none.
caf::expected<size_t> read_number(std::string_view text, size_t pos, size_t base, uint64_t& value) {
  size_t end = pos;
  while (end < text.size() && is_digit(text[end])) ++end;
  if (end - pos > max_digits)
    return fail(base + pos, "number longer than " + std::to_string(max_digits) + " digits");
  value = 0;
  for (size_t i = pos; i < end; ++i) value = value * 10 + static_cast<uint64_t>(text[i] - '0');
  return end - pos;
}

/// Parses one element of a bracket (`7`, `01-16`). `base` is the column of `elem[0]`.
caf::expected<num_range> parse_element(std::string_view elem, size_t base) {
  if (elem.empty()) return fail(base, "empty range part");
  num_range r;
  auto lo_len = read_number(elem, 0, base, r.lo);
  if (!lo_len) return std::move(lo_len.error());
  if (*lo_len == 0) {
    if (elem[0] == '-') return fail(base, "empty range part (missing lower bound)");
    return fail(base, std::string{"non-digit '"} + elem[0] + "' in range");
  }
  r.width = *lo_len;
  size_t pos = *lo_len;
  if (pos == elem.size()) {
    r.hi = r.lo;
    return r;
  }
  if (elem[pos] != '-')
    return fail(base + pos, std::string{"non-digit '"} + elem[pos] + "' in range");
  ++pos;
  if (pos == elem.size()) return fail(base + pos, "empty range part (missing upper bound)");
  auto hi_len = read_number(elem, pos, base, r.hi);
  if (!hi_len) return std::move(hi_len.error());
  if (*hi_len == 0) return fail(base + pos, std::string{"non-digit '"} + elem[pos] + "' in range");
  pos += *hi_len;
  if (pos != elem.size())
    return fail(base + pos, std::string{"non-digit '"} + elem[pos] + "' in range");
  if (r.lo > r.hi)
    return fail(base, "reversed range " + std::string{elem} + " (lower bound above upper bound)");
  if (r.hi - r.lo + 1 > max_range_names)
    return fail(base, "range " + std::string{elem} + " names more than " +
                          std::to_string(max_range_names) + " hosts");
  return r;
}

/// Parses the text between `[` and `]`. `base` is the column of `body[0]`.
caf::expected<std::vector<num_range>> parse_bracket(std::string_view body, size_t base) {
  if (body.empty()) return fail(base - 1, "empty brackets");
  std::vector<num_range> result;
  size_t start = 0;
  for (;;) {
    auto comma = body.find(',', start);
    auto end = comma == std::string_view::npos ? body.size() : comma;
    auto r = parse_element(body.substr(start, end - start), base + start);
    if (!r) return std::move(r.error());
    result.push_back(*r);
    if (comma == std::string_view::npos) return result;
    start = comma + 1;
  }
}

/// One item of an expression: literals[0] bracket[0] literals[1] ... literals[n].
struct item {
  std::vector<std::string> literals{std::string{}};
  std::vector<std::vector<num_range>> brackets;
};

/// Names an item expands to, saturating at `cap + 1` so that products cannot overflow.
uint64_t item_size(const item& it, uint64_t cap) {
  uint64_t total = 1;
  for (const auto& bracket : it.brackets) {
    uint64_t n = 0;
    for (const auto& r : bracket) n = std::min(cap + 1, n + (r.hi - r.lo + 1));
    // n >= 1 and both factors are at most cap + 1, far below 2^64 / 2^21.
    total = std::min(cap + 1, total * n);
  }
  return total;
}

void emit(const item& it, std::vector<std::string>& out) {
  // Build names bracket by bracket: each pass appends the next bracket's values to every partial
  // name, so the leftmost bracket varies slowest, as in Slurm.
  std::vector<std::string> partial{it.literals[0]};
  for (size_t b = 0; b < it.brackets.size(); ++b) {
    std::vector<std::string> values;
    for (const auto& r : it.brackets[b])
      for (uint64_t v = r.lo;; ++v) {
        values.push_back(format_number(v, r.width));
        if (v == r.hi) break;
      }
    std::vector<std::string> next;
    next.reserve(partial.size() * values.size());
    for (const auto& head : partial)
      for (const auto& value : values) next.push_back(head + value + it.literals[b + 1]);
    partial = std::move(next);
  }
  for (auto& name : partial) out.push_back(std::move(name));
}

// -- compression --------------------------------------------------------------------------------

/// A name split into prefix and numeric suffix. A name without trailing digits (or with more
/// than max_digits of them) is "plain": its prefix is the whole name.
struct split_name {
  std::string_view prefix;
  bool numbered = false;
  uint64_t value = 0;
  size_t width = 0;
};

split_name split(std::string_view name) {
  size_t k = name.size();
  while (k > 0 && is_digit(name[k - 1])) --k;
  auto digits = name.size() - k;
  split_name s;
  if (digits == 0 || digits > max_digits) {
    s.prefix = name;
    return s;
  }
  s.prefix = name.substr(0, k);
  s.numbered = true;
  s.width = digits;
  for (size_t i = k; i < name.size(); ++i)
    s.value = s.value * 10 + static_cast<uint64_t>(name[i] - '0');
  return s;
}

/// Whether `s` prints as the next number of `r` when expanded with r's width: its digits must
/// be exactly format_number(value, r.width).
bool extends(const num_range& r, const split_name& s) {
  return s.value == r.hi + 1 && s.width == std::max(r.width, digit_count(s.value));
}

/// Slurm's strnatcmp for blank-free text: runs of digits compare as numbers, except that a run
/// starting with '0' on either side compares digit by digit (as a fraction would).
int natural_compare(std::string_view a, std::string_view b) {
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      auto ie = i;
      while (ie < a.size() && is_digit(a[ie])) ++ie;
      auto je = j;
      while (je < b.size() && is_digit(b[je])) ++je;
      auto ra = a.substr(i, ie - i);
      auto rb = b.substr(j, je - j);
      int c = 0;
      if (ra[0] != '0' && rb[0] != '0' && ra.size() != rb.size())
        c = ra.size() < rb.size() ? -1 : 1;
      else
        c = ra.compare(rb);
      if (c != 0) return c < 0 ? -1 : 1;
      i = ie;
      j = je;
      continue;
    }
    auto ca = static_cast<unsigned char>(a[i]);
    auto cb = static_cast<unsigned char>(b[j]);
    if (ca != cb) return ca < cb ? -1 : 1;
    ++i;
    ++j;
  }
  if (i < a.size()) return 1;
  if (j < b.size()) return -1;
  return 0;
}

/// Slurm's hostrange_cmp on single names: prefix (natural order), plain before numbered, then
/// suffix width, then value. Distinct names never compare equal.
bool sorts_before(const split_name& a, const split_name& b) {
  if (auto c = natural_compare(a.prefix, b.prefix); c != 0) return c < 0;
  if (a.numbered != b.numbered) return !a.numbered;
  if (a.width != b.width) return a.width < b.width;
  return a.value < b.value;
}

}  // namespace

caf::expected<std::vector<std::string>> expand_hostlist(std::string_view expr) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < expr.size()) {
    if (is_separator(expr[pos])) {
      ++pos;
      continue;
    }
    auto item_column = pos + 1;
    item it;
    while (pos < expr.size() && !is_separator(expr[pos])) {
      auto c = expr[pos];
      if (c == ']') return fail(pos + 1, "unbalanced ']'");
      if (c != '[') {
        it.literals.back().push_back(c);
        ++pos;
        continue;
      }
      // Commas inside brackets belong to the bracket, so look for the closing ']' directly.
      auto close = expr.find_first_of("[]", pos + 1);
      if (close == std::string_view::npos || expr[close] == '[')
        return fail(pos + 1, "unbalanced '['");
      auto bracket = parse_bracket(expr.substr(pos + 1, close - pos - 1), pos + 2);
      if (!bracket) return std::move(bracket.error());
      it.brackets.push_back(std::move(*bracket));
      it.literals.emplace_back();
      pos = close + 1;
    }
    auto cap = max_total_names - out.size();
    if (item_size(it, cap) > cap)
      return fail(item_column, "hostlist expands to more than " + std::to_string(max_total_names) +
                                   " names, item starting");
    emit(it, out);
  }
  return out;
}

std::string compress_hostlist(const std::vector<std::string>& names) {
  // Walk the names once, growing the last bracket group while the prefix stays the same.
  struct group {
    split_name head;
    std::vector<num_range> ranges;  // empty for a plain name
  };
  std::vector<group> groups;
  for (const auto& name : names) {
    if (name.empty()) continue;
    auto s = split(name);
    if (!s.numbered) {
      groups.push_back({s, {}});
      continue;
    }
    if (!groups.empty() && !groups.back().ranges.empty() && groups.back().head.prefix == s.prefix) {
      auto& last = groups.back().ranges.back();
      if (extends(last, s))
        last.hi = s.value;
      else
        groups.back().ranges.push_back({s.value, s.value, s.width});
      continue;
    }
    groups.push_back({s, {{s.value, s.value, s.width}}});
  }
  std::string out;
  for (const auto& g : groups) {
    if (!out.empty()) out += ',';
    out += g.head.prefix;
    if (g.ranges.empty()) continue;
    if (g.ranges.size() == 1 && g.ranges[0].lo == g.ranges[0].hi) {
      out += format_number(g.ranges[0].lo, g.ranges[0].width);
      continue;
    }
    out += '[';
    for (size_t i = 0; i < g.ranges.size(); ++i) {
      const auto& r = g.ranges[i];
      if (i > 0) out += ',';
      out += format_number(r.lo, r.width);
      if (r.hi != r.lo) {
        out += '-';
        out += format_number(r.hi, r.width);
      }
    }
    out += ']';
  }
  return out;
}

std::string compress_hostlist_sorted(std::vector<std::string> names) {
  names.erase(std::remove(names.begin(), names.end(), std::string{}), names.end());
  std::vector<std::pair<split_name, size_t>> keys;
  keys.reserve(names.size());
  for (size_t i = 0; i < names.size(); ++i) keys.emplace_back(split(names[i]), i);
  std::sort(keys.begin(), keys.end(),
            [](const auto& a, const auto& b) { return sorts_before(a.first, b.first); });
  std::vector<std::string> sorted;
  sorted.reserve(names.size());
  for (const auto& key : keys)
    if (sorted.empty() || sorted.back() != names[key.second]) sorted.push_back(names[key.second]);
  return compress_hostlist(sorted);
}

}  // namespace shoal::topology
