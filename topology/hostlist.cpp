#include "topology/hostlist.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <list>
#include <utility>

#include "messages/errc.hpp"
#include "messages/text.hpp"

namespace shoal::topology {

namespace {

// -- limits -------------------------------------------------------------------------------------

/// Slurm's MAX_RANGE: one `lo-hi` may name at most this many hosts.
constexpr uint64_t max_range_names = 65536;

/// Bound on a whole expansion, so a hostile `a[0-9999][0-9999]` fails instead of eating memory.
constexpr uint64_t max_total_names = 1000000;

/// Slurm's MAX_RANGES: one bracket may hold at most this many elements (Slurm exits beyond).
constexpr size_t max_bracket_elements = 65536;

/// Longest number handled, in significant digits: 18 decimal digits always fit in uint64_t with
/// room for the `+ 1` of range arithmetic.
constexpr size_t max_digits = 18;

/// A box corner has one base-36 digit per dimension of the Blue Gene/L torus.
constexpr size_t box_dims = 3;

// -- character classes --------------------------------------------------------------------------

using text::is_digit;

/// Slurm separates items with commas, blanks and tabs; shoal also with newlines and carriage
/// returns (Slurm keeps them in a name, except in `scontrol show hostlist` reading a file).
bool is_separator(char c) {
  return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/// isspace in the C locale, which Slurm's strnatcmp skips.
bool is_c_space(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r');
}

/// The value of a base-36 digit as Slurm writes torus coordinates (0-9, then A-Z), or -1.
int base36_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return -1;
}

char base36_digit(int value) {
  return "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[value];
}

// -- shared pieces ------------------------------------------------------------------------------

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
//
// Slurm 22.05's _hostlist_create_bracketed, step by step (hostlist.c, one dimension): _next_tok
// cuts the expression into items, the last '[' of an item opens its last bracket, and
// _push_range_list expands the brackets before it from right to left, so that the bracket just
// before the last one varies slowest. _parse_single_range reads each `lo-hi` with strtoul.

shoal::error fail(size_t column, const std::string& what) {
  return shoal::error(errc::invalid_hostlist, what + " at column " + std::to_string(column));
}

/// One element of a bracket: a numeric range `lo-hi` (a single number has lo == hi; every number
/// is printed with at least `width` digits, the length of the text before the '-'), or a box of
/// torus coordinates from corner `low` to corner `high`.
struct bracket_element {
  bool is_box = false;
  uint64_t lo = 0;
  uint64_t hi = 0;
  size_t width = 0;
  std::array<int, box_dims> low{};
  std::array<int, box_dims> high{};

  uint64_t size() const {
    if (!is_box) return hi - lo + 1;
    uint64_t n = 1;
    for (size_t d = 0; d < box_dims; ++d) n *= static_cast<uint64_t>(high[d] - low[d] + 1);
    return n;
  }
};

/// Sums the names of a bracket's elements, saturating at `cap + 1`.
uint64_t bracket_size(const std::vector<bracket_element>& bracket, uint64_t cap) {
  uint64_t n = 0;
  for (const auto& r : bracket) n = std::min(cap + 1, n + std::min(cap + 1, r.size()));
  return n;
}

/// strtoul in base 10, as _parse_single_range calls it, on `text` (whose first character is
/// column `base`): C-locale white space, an optional sign, then digits. Returns the position after
/// the last digit, or npos when there is no digit. Numbers of more than max_digits significant
/// digits are errors (strtoul saturates them at 2^64 - 1); a '-' sign negates as strtoul does, so
/// only -0 gives a number that Slurm can use, the others make a range of too many names.
shoal::expected<size_t> read_number(std::string_view text, size_t base, uint64_t& value) {
  size_t pos = 0;
  while (pos < text.size() && is_c_space(text[pos])) ++pos;
  bool negative = false;
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) negative = text[pos++] == '-';
  auto first = pos;
  while (pos < text.size() && text[pos] == '0') ++pos;
  auto significant = pos;
  while (pos < text.size() && is_digit(text[pos])) ++pos;
  if (pos == first) return std::string_view::npos;
  if (pos - significant > max_digits)
    return fail(base + significant, "number longer than " + std::to_string(max_digits) + " digits");
  value = 0;
  for (auto i = significant; i < pos; ++i)
    value = value * 10 + static_cast<uint64_t>(text[i] - '0');
  if (negative && value != 0) return fail(base + first - 1, "negative number in range");
  return pos;
}

/// The error for a range part without a number: `text` starts at column `base`.
shoal::error no_number(std::string_view text, size_t base, const char* which) {
  size_t pos = 0;
  while (pos < text.size() && is_c_space(text[pos])) ++pos;
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) ++pos;
  if (pos < text.size())
    return fail(base + pos, std::string{"non-digit '"} + text[pos] + "' in range");
  return fail(base, std::string{"empty range part (missing "} + which + " bound)");
}

/// Parses a box `XYZxXYZ` (Blue Gene/L paper, 2004; Slurm's 3-D hostlist): two corners of one
/// base-36 digit per dimension, the low one first. `base` is the column of `elem[0]`; `cross` is
/// the position of the first 'x'.
shoal::expected<bracket_element> parse_box(std::string_view elem, size_t cross, size_t base) {
  bracket_element r;
  r.is_box = true;
  auto read_corner = [&](std::string_view corner, size_t column,
                         std::array<int, box_dims>& out) -> shoal::error {
    if (corner.size() != box_dims)
      return fail(column, "box corner '" + std::string{corner} + "' is not " +
                              std::to_string(box_dims) + " base-36 digits (0-9, A-Z)");
    for (size_t d = 0; d < box_dims; ++d) {
      out[d] = base36_value(corner[d]);
      if (out[d] < 0)
        return fail(column + d, "box corner '" + std::string{corner} + "' is not " +
                                    std::to_string(box_dims) + " base-36 digits (0-9, A-Z)");
    }
    return {};
  };
  if (auto err = read_corner(elem.substr(0, cross), base, r.low)) return err;
  if (auto err = read_corner(elem.substr(cross + 1), base + cross + 1, r.high)) return err;
  static constexpr const char* axis = "xyz";
  for (size_t d = 0; d < box_dims; ++d)
    if (r.low[d] > r.high[d])
      return fail(base, "reversed box " + std::string{elem} +
                            " (low corner above the high one in " + axis[d] + ")");
  return r;
}

/// Parses one element of a bracket (`7`, `01-16`, `000x311`) as _parse_single_range does.
/// `base` is the column of `elem[0]`. The text before the first '-' is the lower bound and
/// gives the width, blanks, signs and all (`n[ 1]` -> n01); when an upper bound follows,
/// whatever trails the lower bound's digits is ignored but counts in the width (`n[1.5-3]` ->
/// n001..n003); `lo-` is lo alone (`n[1-]` -> n1).
shoal::expected<bracket_element> parse_element(std::string_view elem, size_t base) {
  if (elem.empty()) return fail(base, "empty range part");
  if (auto cross = elem.find('x'); cross != std::string_view::npos)
    return parse_box(elem, cross, base);
  bracket_element r;
  auto dash = elem.find('-');
  auto lo_text = elem.substr(0, dash);
  auto hi_text = dash == std::string_view::npos ? std::string_view{} : elem.substr(dash + 1);
  if (!hi_text.empty() && hi_text[0] == '-')
    return fail(base + dash + 1, "negative number in range");
  r.width = lo_text.size();
  auto lo_end = read_number(lo_text, base, r.lo);
  if (!lo_end) return std::move(lo_end.error());
  if (*lo_end == std::string_view::npos) return no_number(lo_text, base, "lower");
  if (hi_text.empty()) {
    if (*lo_end != lo_text.size())
      return fail(base + *lo_end, std::string{"non-digit '"} + lo_text[*lo_end] + "' in range");
    r.hi = r.lo;
    return r;
  }
  auto hi_base = base + dash + 1;
  auto hi_end = read_number(hi_text, hi_base, r.hi);
  if (!hi_end) return std::move(hi_end.error());
  if (*hi_end == std::string_view::npos) return no_number(hi_text, hi_base, "upper");
  if (*hi_end != hi_text.size())
    return fail(hi_base + *hi_end, std::string{"non-digit '"} + hi_text[*hi_end] + "' in range");
  if (r.lo > r.hi)
    return fail(base, "reversed range " + std::string{elem} + " (lower bound above upper bound)");
  if (r.hi - r.lo + 1 > max_range_names)
    return fail(base, "range " + std::string{elem} + " names more than " +
                          std::to_string(max_range_names) + " hosts");
  return r;
}

/// Parses the text between `[` and `]`, a comma list of elements (_parse_range_list). `base`
/// is the column of `body[0]`.
shoal::expected<std::vector<bracket_element>> parse_bracket(std::string_view body, size_t base) {
  if (body.empty()) return fail(base - 1, "empty brackets");
  std::vector<bracket_element> result;
  size_t start = 0;
  for (;;) {
    if (result.size() == max_bracket_elements)
      return fail(base - 1,
                  "more than " + std::to_string(max_bracket_elements) + " elements in one bracket");
    auto comma = body.find(',', start);
    auto end = comma == std::string_view::npos ? body.size() : comma;
    auto r = parse_element(body.substr(start, end - start), base + start);
    if (!r) return std::move(r.error());
    result.push_back(*r);
    if (comma == std::string_view::npos) return result;
    start = comma + 1;
  }
}

/// A bracket before the last one, with the text that follows it up to the next bracket.
struct prefix_bracket {
  std::vector<std::string> values;
  std::string_view text;
};

/// One item of an expression, as Slurm pushes it: a plain name (no brackets), or
/// head prefix[0] text[0] ... prefix[k-1] text[k-1] last suffix, where the names run with
/// prefix[k-1] slowest, then prefix[k-2], ..., prefix[0], and the last bracket fastest. `suffix`
/// is shoal's extension (Slurm accepts nothing after the last bracket).
struct item {
  std::string_view text;
  bool plain = true;
  std::string_view head;
  std::vector<prefix_bracket> prefixes;
  std::vector<bracket_element> last;
  std::string_view suffix;
};

/// The suffixes a bracket element stands for, in order. A box runs x outermost, then y, then z,
/// so a full grid comes out in node-index order (x * Y * Z + y * Z + z, topology/torus.hpp).
void append_values(const bracket_element& r, std::vector<std::string>& values) {
  if (!r.is_box) {
    for (uint64_t v = r.lo;; ++v) {
      values.push_back(format_number(v, r.width));
      if (v == r.hi) break;
    }
    return;
  }
  for (int x = r.low[0]; x <= r.high[0]; ++x)
    for (int y = r.low[1]; y <= r.high[1]; ++y)
      for (int z = r.low[2]; z <= r.high[2]; ++z)
        values.push_back({base36_digit(x), base36_digit(y), base36_digit(z)});
}

/// The first `c` at or after a position, remembered: the items of an expression ask with
/// positions that only grow, so a long list of plain names is read once, not once per item.
struct next_char {
  std::string_view text;
  char c;
  size_t from = std::string_view::npos;
  size_t at = std::string_view::npos;

  size_t find(size_t pos) {
    if (from == std::string_view::npos || pos < from ||
        (at != std::string_view::npos && at < pos)) {
      at = text.find(c, pos);
      from = pos;
    }
    return at;
  }
};

/// Slurm's _next_tok: the item starting at `pos` (not a separator) ends at the first separator
/// that is not between a '[' and the first ']' after it. Returns the end of the item.
size_t item_end(std::string_view expr, size_t pos, next_char& opens, next_char& closes) {
  auto parse = pos;
  auto end = pos;
  for (;;) {
    while (end < expr.size() && !is_separator(expr[end])) ++end;
    for (;;) {
      auto open = opens.find(parse);
      if (open == std::string_view::npos || open > end) return end;
      auto close = closes.find(parse);
      if (close == std::string_view::npos || close < open) return end;
      if (close > end) {
        end = close;
        break;
      }
      parse = close + 1;
    }
  }
}

/// Text outside brackets must not hold a separator: Slurm keeps one when a '[' left open in one
/// item is closed in a later one (`a[1 b[2]` -> the name `a[1 b2`); shoal rejects that.
shoal::error check_literal(std::string_view text, size_t base, std::string_view item_text,
                           size_t item_column) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (!is_separator(text[i])) continue;
    auto at = static_cast<size_t>(text.data() - item_text.data()) + i;
    auto open = item_text.rfind('[', at);
    std::string why = open == std::string_view::npos
                          ? "separator inside a name"
                          : "separator inside a name ('[' at column " +
                                std::to_string(item_column + open) + " is not closed before it)";
    return fail(base + i, why);
  }
  return {};
}

/// Parses one item (Slurm's _hostlist_create_bracketed and _push_range_list) that starts at
/// column `column`.
shoal::expected<item> parse_item(std::string_view text, size_t column) {
  item it;
  it.text = text;
  auto open = text.rfind('[');
  if (open == std::string_view::npos) return it;
  it.plain = false;
  auto close = text.find(']', open + 1);
  // Slurm reads `n[1-3` as the name `n]` and `[1-3` as `1-3`.
  if (close == std::string_view::npos) return fail(column + open, "unbalanced '['");
  it.suffix = text.substr(close + 1);
  if (auto stray = it.suffix.find(']'); stray != std::string_view::npos)
    return fail(column + close + 1 + stray, "unbalanced ']'");
  auto last = parse_bracket(text.substr(open + 1, close - open - 1), column + open + 1);
  if (!last) return std::move(last.error());
  it.last = std::move(*last);
  // The brackets before the last one: each is the last '[' of what remains with the last ']'
  // after it; a '[' without a ']' after it, and all before it, stays text (`n[[1-3]` -> n[1 ..).
  auto prefix = text.substr(0, open);
  for (;;) {
    auto p = prefix.rfind('[');
    if (p == std::string_view::npos) break;
    auto q = prefix.rfind(']');
    if (q == std::string_view::npos || q < p) break;
    auto body = prefix.substr(p + 1, q - p - 1);
    auto bracket = parse_bracket(body, column + p + 1);
    if (!bracket) return std::move(bracket.error());
    // Slurm's MAX_PREFIX_CNT.
    if (bracket_size(*bracket, max_range_names) > max_range_names)
      return fail(column + p, "bracket before the last one names more than " +
                                  std::to_string(max_range_names) + " hosts");
    prefix_bracket pb;
    for (const auto& r : *bracket) append_values(r, pb.values);
    pb.text = prefix.substr(q + 1);
    if (auto err = check_literal(pb.text, column + q + 1, text, column)) return err;
    it.prefixes.insert(it.prefixes.begin(), std::move(pb));
    prefix = prefix.substr(0, p);
  }
  it.head = prefix;
  if (auto err = check_literal(it.head, column, text, column)) return err;
  if (auto err = check_literal(it.suffix, column + close + 1, text, column)) return err;
  return it;
}

/// Names an item expands to, saturating at `cap + 1` so that products cannot overflow.
uint64_t item_size(const item& it, uint64_t cap) {
  if (it.plain) return 1;
  uint64_t total = bracket_size(it.last, cap);
  for (const auto& p : it.prefixes)
    total = std::min(cap + 1, total * std::min<uint64_t>(cap + 1, p.values.size()));
  return total;
}

/// Calls `f(prefix)` for every prefix of an item with brackets, in Slurm's order: the bracket
/// just before the last one varies slowest, the first one fastest.
template <class F>
void for_each_prefix(const item& it, F&& f) {
  std::vector<size_t> index(it.prefixes.size(), 0);
  std::string prefix;
  for (;;) {
    prefix.assign(it.head);
    for (size_t b = 0; b < it.prefixes.size(); ++b) {
      prefix += it.prefixes[b].values[index[b]];
      prefix += it.prefixes[b].text;
    }
    f(prefix);
    size_t b = 0;
    while (b < index.size() && ++index[b] == it.prefixes[b].values.size()) index[b++] = 0;
    if (b == index.size()) return;
  }
}

/// Reads a whole expression into items, checking the caps.
shoal::expected<std::vector<item>> parse_expression(std::string_view expr) {
  std::vector<item> items;
  uint64_t total = 0;
  next_char opens{expr, '['};
  next_char closes{expr, ']'};
  size_t pos = 0;
  while (pos < expr.size()) {
    if (is_separator(expr[pos])) {
      ++pos;
      continue;
    }
    auto end = item_end(expr, pos, opens, closes);
    auto it = parse_item(expr.substr(pos, end - pos), pos + 1);
    if (!it) return std::move(it.error());
    auto cap = max_total_names - total;
    auto n = item_size(*it, cap);
    if (n > cap)
      return fail(pos + 1, "hostlist expands to more than " + std::to_string(max_total_names) +
                               " names, item starting");
    total += n;
    items.push_back(std::move(*it));
    pos = end;
  }
  return items;
}

// -- compression --------------------------------------------------------------------------------
//
// The compressors follow Slurm 22.05's hostlist.c step by step, because `show hostlist` and
// `show hostlistsorted` must print what scontrol prints, and Slurm's sorted form keeps the
// traces of how the list was built (which names joined a range, in which order).

/// Slurm's hostrange: a prefix with the numbers lo..hi printed with at least `width` digits, or a
/// plain name (numbered == false, the prefix is the whole name).
struct host_range {
  std::string_view prefix;
  bool numbered = false;
  uint64_t lo = 0;
  uint64_t hi = 0;
  size_t width = 0;
};

/// A name split into prefix and numeric suffix (Slurm's hostname_create). A name without
/// trailing digits, or whose digits hold more than max_digits significant ones, is plain.
host_range split(std::string_view name) {
  size_t k = name.size();
  while (k > 0 && is_digit(name[k - 1])) --k;
  auto digits = name.size() - k;
  auto significant = k;
  while (significant < name.size() && name[significant] == '0') ++significant;
  host_range s;
  if (digits == 0 || name.size() - significant > max_digits) {
    s.prefix = name;
    return s;
  }
  s.prefix = name.substr(0, k);
  s.numbered = true;
  s.width = digits;
  for (size_t i = k; i < name.size(); ++i) s.lo = s.lo * 10 + static_cast<uint64_t>(name[i] - '0');
  s.hi = s.lo;
  return s;
}

size_t zeros_to_pad(uint64_t value, size_t width) {
  auto digits = digit_count(value);
  return width > digits ? width - digits : 0;
}

/// Slurm's hostrange_width_combine (_width_equiv): whether the two ranges' lowest numbers print
/// the same under either width. Like Slurm, on success it overwrites one width with the other;
/// that never changes how a range's own numbers print, but Slurm copies widths into new ranges
/// while coalescing, so the overwrite is reproduced.
bool combine_widths(host_range& a, host_range& b) {
  if (a.width == b.width) return true;
  auto a_pad = zeros_to_pad(a.lo, a.width);
  auto a_pad_as_b = zeros_to_pad(a.lo, b.width);
  auto b_pad = zeros_to_pad(b.lo, b.width);
  auto b_pad_as_a = zeros_to_pad(b.lo, a.width);
  if (a_pad != a_pad_as_b && b_pad != b_pad_as_a) return false;
  if (a_pad != a_pad_as_b)
    b.width = a.width;
  else
    a.width = b.width;
  return true;
}

/// Slurm's strnatcmp (Martin Pool's natural order): runs of digits compare as numbers, except
/// that a run starting with '0' on either side compares digit by digit (as a fraction would);
/// C-locale white space is skipped; other characters compare as `char`.
int natural_compare(std::string_view a, std::string_view b) {
  size_t i = 0;
  size_t j = 0;
  auto at = [](std::string_view s, size_t k) { return k < s.size() ? s[k] : '\0'; };
  for (;;) {
    auto ca = at(a, i);
    auto cb = at(b, j);
    while (is_c_space(ca)) ca = at(a, ++i);
    while (is_c_space(cb)) cb = at(b, ++j);
    if (is_digit(ca) && is_digit(cb)) {
      int result = 0;
      if (ca == '0' || cb == '0') {
        // compare_left: the first differing digit wins; a shorter run is smaller.
        for (size_t k = 0;; ++k) {
          auto da = at(a, i + k);
          auto db = at(b, j + k);
          if (!is_digit(da) && !is_digit(db)) break;
          if (!is_digit(da) || (is_digit(db) && da < db)) {
            result = -1;
            break;
          }
          if (!is_digit(db) || da > db) {
            result = 1;
            break;
          }
        }
      } else {
        // compare_right: the longer run wins, else the first differing digit.
        int bias = 0;
        for (size_t k = 0;; ++k) {
          auto da = at(a, i + k);
          auto db = at(b, j + k);
          if (!is_digit(da) && !is_digit(db)) {
            result = bias;
            break;
          }
          if (!is_digit(da)) {
            result = -1;
            break;
          }
          if (!is_digit(db)) {
            result = 1;
            break;
          }
          if (bias == 0 && da != db) bias = da < db ? -1 : 1;
        }
      }
      if (result != 0) return result;
    }
    if (ca == '\0' && cb == '\0' && i >= a.size() && j >= b.size()) return 0;
    if (ca != cb) return ca < cb ? -1 : 1;
    ++i;
    ++j;
  }
}

/// Slurm's hostrange_prefix_cmp == 0: the same prefix, both numbered or both plain.
/// Byte equality stands in for strnatcmp == 0, which also holds for names that differ only in
/// white space such as '\v' (Slurm would print one prefix for both).
bool same_prefix(const host_range& a, const host_range& b) {
  return a.numbered == b.numbered && a.prefix == b.prefix;
}

/// Slurm's hostrange_cmp, overwriting widths as it does: prefix in natural order, a plain name
/// before numbered ones; numbered ranges whose widths combine by their lowest numbers, others by
/// width. Slurm returns the difference of the lowest numbers as an int, which wraps for numbers
/// of 2^31 and more (it then sorts n3000000000 before n1 and its coalescing drops names); this
/// compares them correctly. Prefixes strnatcmp calls equal are ordered bytewise.
int compare_ranges(host_range& a, host_range& b) {
  if (auto c = natural_compare(a.prefix, b.prefix); c != 0) return c;
  if (a.prefix != b.prefix) return a.prefix < b.prefix ? -1 : 1;
  if (a.numbered != b.numbered) return a.numbered ? 1 : -1;
  if (combine_widths(a, b)) return a.lo < b.lo ? -1 : (a.lo > b.lo ? 1 : 0);
  return a.width < b.width ? -1 : (a.width > b.width ? 1 : 0);
}

/// Slurm's hostlist_push_range: a range joins the last one when it continues it and prints the
/// same under its width. Unlike Slurm, a range stops at 65,536 names, the most one range may name
/// when read back (Slurm prints n[0-99999] and then rejects it).
void push_range(std::vector<host_range>& ranges, host_range r) {
  if (r.numbered && !ranges.empty()) {
    auto& tail = ranges.back();
    if (tail.numbered && tail.hi + 1 == r.lo && r.hi - tail.lo + 1 <= max_range_names &&
        tail.prefix == r.prefix && combine_widths(tail, r)) {
      tail.hi = r.hi;
      return;
    }
  }
  ranges.push_back(r);
}

/// Slurm's hostlist_push_host, one name after the other.
std::vector<host_range> push_names(const std::vector<std::string>& names) {
  std::vector<host_range> ranges;
  for (const auto& name : names)
    if (!name.empty()) push_range(ranges, split(name));
  return ranges;
}

/// glibc's qsort, which Slurm's hostlist_sort calls: a top-down merge sort (halves of n / 2 and
/// n - n / 2, the left element first on ties) over pointers, so that the widths compare_ranges
/// overwrites are those of the ranges themselves, comparison for comparison as in Slurm.
void merge_sort(std::vector<host_range*>& v, std::vector<host_range*>& tmp, size_t begin,
                size_t end) {
  auto n = end - begin;
  if (n <= 1) return;
  auto mid = begin + n / 2;
  merge_sort(v, tmp, begin, mid);
  merge_sort(v, tmp, mid, end);
  tmp.clear();
  size_t i = begin;
  size_t j = mid;
  while (i < mid && j < end) tmp.push_back(compare_ranges(*v[i], *v[j]) <= 0 ? v[i++] : v[j++]);
  while (i < mid) tmp.push_back(v[i++]);
  std::copy(tmp.begin(), tmp.end(), v.begin() + static_cast<std::ptrdiff_t>(begin));
}

/// Slurm's hostrange_intersect condition: `a` (sorted before `b`) ends above b's start.
bool intersects(host_range& a, host_range& b) {
  return a.numbered && b.numbered && a.hi > b.lo && a.prefix == b.prefix && combine_widths(a, b);
}

/// Slurm's hostlist_coalesce: scanning from the end, splits each pair of overlapping neighbours
/// so that every number the two share appears as its own one-name range between them (n[1-5]
/// and n[3-7] become n[1-3], 3, 4, 4, 5, n[5-7]).
///
/// Slurm rescans from the end after each split; the pairs right of the split are unchanged and
/// were found disjoint (a failed check changes nothing), so this resumes at the split instead,
/// with the same result in linear time.
///
/// Splitting can leave the list out of order: n[7-11],n[8-11],n03 sorts so (n03 has the wider
/// lowest number), and the split puts n11 before n03. Slurm then "intersects" n11 with n03,
/// empties the left range to [11-3], frees the right one and inserts names from its stale
/// bounds: n03 is lost (scontrol prints `n[7-8,8-9,9-10,10-11,11]`), other inputs also gain
/// names. shoal leaves such a pair as it is (`n[7-8,8-9,9-10,10-11,11,03]`): every name stays.
void coalesce(std::list<host_range>& ranges) {
  if (ranges.size() < 2) return;
  auto it = std::prev(ranges.end());
  while (it != ranges.begin()) {
    auto prev = std::prev(it);
    if (!intersects(*prev, *it) || it->lo < prev->lo) {
      it = prev;
      continue;
    }
    auto low = it->lo;
    auto high = std::min(it->hi, prev->hi);
    auto width = prev->width;
    auto prefix = prev->prefix;
    if (high < prev->hi) it->hi = prev->hi;
    prev->hi = low;
    it->lo = high;
    for (auto v = low;; ++v) {
      host_range single{prefix, true, v, v, width};
      if (v > low) ranges.insert(it, single);
      if (v < high) ranges.insert(it, single);
      if (v == high) break;
    }
    // `it` may now reach into its right neighbour.
    if (auto next = std::next(it); next != ranges.end()) it = next;
  }
}

/// Slurm's hostlist_collapse: from the end, joins each range into its left neighbour when it
/// continues it (and the two name at most 65,536, as in push_names).
std::vector<host_range> collapse(const std::list<host_range>& ranges) {
  std::vector<host_range> reversed;
  reversed.reserve(ranges.size());
  for (auto it = ranges.rbegin(); it != ranges.rend(); ++it) {
    auto prev = *it;
    if (!reversed.empty()) {
      auto& next = reversed.back();
      if (prev.numbered && next.numbered && prev.hi + 1 == next.lo &&
          next.hi - prev.lo + 1 <= max_range_names && prev.prefix == next.prefix &&
          combine_widths(prev, next)) {
        prev.hi = next.hi;
        next = prev;
        continue;
      }
    }
    reversed.push_back(prev);
  }
  std::reverse(reversed.begin(), reversed.end());
  return reversed;
}

/// Slurm's hostlist_ranged_string for one dimension: neighbouring numbered ranges with the same
/// prefix share one bracket; a lone one-name range stays bare.
std::string ranged_string(const std::vector<host_range>& ranges) {
  std::string out;
  for (size_t i = 0; i < ranges.size();) {
    if (!out.empty()) out += ',';
    const auto& first = ranges[i];
    out += first.prefix;
    if (!first.numbered) {
      ++i;
      continue;
    }
    auto end = i + 1;
    while (end < ranges.size() && same_prefix(ranges[end], first)) ++end;
    // Slurm's hostrange_count > 1, in its unsigned arithmetic (an emptied range counts as many).
    bool bracket = end - i > 1 || first.hi - first.lo + 1 > 1;
    if (bracket) out += '[';
    for (auto k = i; k < end; ++k) {
      if (k > i) out += ',';
      out += format_number(ranges[k].lo, ranges[k].width);
      if (ranges[k].lo < ranges[k].hi) {
        out += '-';
        out += format_number(ranges[k].hi, ranges[k].width);
      }
    }
    if (bracket) out += ']';
    i = end;
  }
  return out;
}

/// Slurm's hostlist_sort followed by hostlist_ranged_string.
std::string sorted_string(std::vector<host_range> ranges) {
  std::vector<host_range*> order;
  order.reserve(ranges.size());
  for (auto& r : ranges) order.push_back(&r);
  std::vector<host_range*> tmp;
  tmp.reserve(ranges.size());
  merge_sort(order, tmp, 0, order.size());
  std::list<host_range> sorted;
  for (auto* r : order) sorted.push_back(*r);
  coalesce(sorted);
  return ranged_string(collapse(sorted));
}

// -- an expression's own ranges ------------------------------------------------------------------

/// The ranges Slurm's hostlist holds for an expression: each prefix of an item with the numbers
/// of its last bracket as one range, so that `n1[0-3]` stays prefix n1 with 0-3. Names that
/// Slurm cannot hold as a range (shoal's suffixes and boxes) are pushed one by one, as
/// compress_hostlist does. `store` keeps the prefixes the ranges point into.
std::vector<host_range> push_items(const std::vector<item>& items, std::deque<std::string>& store) {
  std::vector<host_range> ranges;
  for (const auto& it : items) {
    if (it.plain) {
      push_range(ranges, split(it.text));
      continue;
    }
    for_each_prefix(it, [&](const std::string& prefix) {
      std::string_view held = store.emplace_back(prefix);
      for (const auto& r : it.last) {
        if (!r.is_box && it.suffix.empty()) {
          push_range(ranges, host_range{held, true, r.lo, r.hi, r.width});
          continue;
        }
        std::vector<std::string> values;
        append_values(r, values);
        for (const auto& v : values)
          push_range(ranges, split(store.emplace_back(prefix + v + std::string{it.suffix})));
      }
    });
  }
  return ranges;
}

}  // namespace

shoal::expected<std::vector<std::string>> expand_hostlist(std::string_view expr) {
  auto items = parse_expression(expr);
  if (!items) return std::move(items.error());
  std::vector<std::string> out;
  std::vector<std::string> values;
  for (const auto& it : *items) {
    if (it.plain) {
      out.emplace_back(it.text);
      continue;
    }
    values.clear();
    for (const auto& r : it.last) append_values(r, values);
    for_each_prefix(it, [&](const std::string& prefix) {
      for (const auto& v : values) out.push_back(prefix + v + std::string{it.suffix});
    });
  }
  return out;
}

std::string compress_hostlist(const std::vector<std::string>& names) {
  return ranged_string(push_names(names));
}

std::string compress_hostlist_sorted(const std::vector<std::string>& names) {
  return sorted_string(push_names(names));
}

shoal::expected<std::string> compress_hostlist_expression(std::string_view expr) {
  auto items = parse_expression(expr);
  if (!items) return std::move(items.error());
  std::deque<std::string> store;
  return ranged_string(push_items(*items, store));
}

shoal::expected<std::string> compress_hostlist_expression_sorted(std::string_view expr) {
  auto items = parse_expression(expr);
  if (!items) return std::move(items.error());
  std::deque<std::string> store;
  return sorted_string(push_items(*items, store));
}

}  // namespace shoal::topology
