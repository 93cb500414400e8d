#include "topology/hostlist.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <list>
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

/// A box corner has one base-36 digit per dimension of the Blue Gene/L torus.
constexpr size_t box_dims = 3;

// -- character classes --------------------------------------------------------------------------

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

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

caf::error fail(size_t column, const std::string& what) {
  return make_error(errc::invalid_hostlist, what + " at column " + std::to_string(column));
}

/// One element of a bracket: a numeric range `lo-hi` (a single number has lo == hi; every number
/// is printed with at least `width` digits, the width of `lo` as written), or a box of torus
/// coordinates from corner `low` to corner `high`.
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

/// Parses a box `XYZxXYZ` (Blue Gene/L paper, 2004; Slurm's 3-D hostlist): two corners of one
/// base-36 digit per dimension, the low one first. `base` is the column of `elem[0]`; `cross` is
/// the position of the first 'x'.
caf::expected<bracket_element> parse_box(std::string_view elem, size_t cross, size_t base) {
  bracket_element r;
  r.is_box = true;
  auto read_corner = [&](std::string_view corner, size_t column,
                         std::array<int, box_dims>& out) -> caf::error {
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

/// Parses one element of a bracket (`7`, `01-16`, `000x311`). `base` is the column of `elem[0]`.
caf::expected<bracket_element> parse_element(std::string_view elem, size_t base) {
  if (elem.empty()) return fail(base, "empty range part");
  if (auto cross = elem.find('x'); cross != std::string_view::npos)
    return parse_box(elem, cross, base);
  bracket_element r;
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
caf::expected<std::vector<bracket_element>> parse_bracket(std::string_view body, size_t base) {
  if (body.empty()) return fail(base - 1, "empty brackets");
  std::vector<bracket_element> result;
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
  std::vector<std::vector<bracket_element>> brackets;
};

/// Names an item expands to, saturating at `cap + 1` so that products cannot overflow.
uint64_t item_size(const item& it, uint64_t cap) {
  uint64_t total = 1;
  for (const auto& bracket : it.brackets) {
    uint64_t n = 0;
    for (const auto& r : bracket) n = std::min(cap + 1, n + r.size());
    // n >= 1 and both factors are at most cap + 1, far below 2^64 / 2^21.
    total = std::min(cap + 1, total * n);
  }
  return total;
}

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

void emit(const item& it, std::vector<std::string>& out) {
  // Build names bracket by bracket: each pass appends the next bracket's values to every partial
  // name, so the leftmost bracket varies slowest, as in Slurm.
  std::vector<std::string> partial{it.literals[0]};
  for (size_t b = 0; b < it.brackets.size(); ++b) {
    std::vector<std::string> values;
    for (const auto& r : it.brackets[b]) append_values(r, values);
    std::vector<std::string> next;
    next.reserve(partial.size() * values.size());
    for (const auto& head : partial)
      for (const auto& value : values) next.push_back(head + value + it.literals[b + 1]);
    partial = std::move(next);
  }
  for (auto& name : partial) out.push_back(std::move(name));
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

/// A name split into prefix and numeric suffix. A name without trailing digits (or with more
/// than max_digits of them) is plain.
host_range split(std::string_view name) {
  size_t k = name.size();
  while (k > 0 && is_digit(name[k - 1])) --k;
  auto digits = name.size() - k;
  host_range s;
  if (digits == 0 || digits > max_digits) {
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

/// Slurm's hostlist_push_host, one name after the other: a name joins the last range when it
/// is that range's next number and prints the same under its width. Unlike Slurm, a range stops
/// at 65,536 names, the most one range may name when read back (Slurm prints n[0-99999] and
/// then rejects it).
std::vector<host_range> push_names(const std::vector<std::string>& names) {
  std::vector<host_range> ranges;
  for (const auto& name : names) {
    if (name.empty()) continue;
    auto s = split(name);
    if (s.numbered && !ranges.empty()) {
      auto& tail = ranges.back();
      if (tail.numbered && tail.hi + 1 == s.lo && tail.hi - tail.lo + 1 < max_range_names &&
          tail.prefix == s.prefix && combine_widths(tail, s)) {
        tail.hi = s.lo;
        continue;
      }
    }
    ranges.push_back(s);
  }
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
  return ranged_string(push_names(names));
}

std::string compress_hostlist_sorted(const std::vector<std::string>& names) {
  auto ranges = push_names(names);
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

}  // namespace shoal::topology
