#pragma once

// Internal to shoal_cli_format: the field-driven engine behind every listing (column selection,
// filters, sort, table layout). Each listing describes its rows as a vector of `field<Row>`.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include "messages/errc.hpp"
#include "messages/states.hpp"
#include "messages/text.hpp"
#include "tools/format/listing.hpp"

namespace shoal::cli::detail {

// -- text helpers -------------------------------------------------------------

using text::iequals;
using text::lower;
/// A field name as compared: lower case, without '_' and blanks.
std::string fold_name(std::string_view s);
/// Splits on commas that are not inside brackets (so hostlists stay whole) and trims blanks.
/// Keeps empty items when `keep_empty`.
std::vector<std::string> split_list(std::string_view s, bool keep_empty);
/// Local time as "YYYY-MM-DDTHH:MM:SS"; `zero` when t is 0.
std::string iso_time(int64_t t, const char* zero);
/// <0, 0, >0 comparing digit runs by value ("n2" < "n10").
int natural_compare(std::string_view a, std::string_view b);
/// `text`, or "(null)" when empty, as Slurm prints unset strings.
std::string or_null(const std::string& text);
/// True when a node of `nodelist` (a hostlist expression) is among the names any of `values`
/// expands to. Unparsable expressions compare literally.
bool hostlists_intersect(std::string_view nodelist, const std::vector<std::string>& values);
/// As hostlists_intersect, for names already expanded.
bool names_intersect(const std::vector<std::string>& names, const std::vector<std::string>& values);
/// True when some value names `s` by its long name or its short name/code.
bool state_matches(msg::node_state s, const std::vector<std::string>& values);
bool state_matches(msg::job_state s, const std::vector<std::string>& values);

/// Lays out a table: one column per header, each as wide as its widest cell (counted in UTF-8
/// code points), separated by one blank, right-aligned where `right` says, without trailing
/// blanks. Every row has headers.size() cells.
std::string layout(const std::vector<std::string>& headers, const std::vector<bool>& right,
                   const std::vector<std::vector<std::string>>& rows, bool no_header);

/// errc::invalid_request "unknown field 'X' (known: A, B, ...)".
shoal::error unknown_field(std::string_view name, const std::vector<std::string>& known);

// -- fields -------------------------------------------------------------------

template <class Row>
struct field {
  std::string name;    ///< canonical name, as listed in errors
  std::string header;  ///< column header
  bool right = false;  ///< right-aligned; numeric fields are
  std::function<std::string(const Row&)> text;
  /// Sort key for numeric fields; empty = sort the text naturally.
  std::function<double(const Row&)> number;
  /// Filter test against the values of one "Field=a,b" item; empty = case-insensitive equality
  /// of the text with any value.
  std::function<bool(const Row&, const std::vector<std::string>&)> match;
};

template <class Row>
shoal::expected<const field<Row>*> find_field(const std::vector<field<Row>>& fields,
                                              std::string_view name) {
  auto folded = fold_name(name);
  for (auto& f : fields)
    if (fold_name(f.name) == folded) return &f;
  std::vector<std::string> known;
  for (auto& f : fields) known.push_back(f.name);
  return unknown_field(name, known);
}

/// The columns `format` names, or `defaults` when it names none.
template <class Row>
shoal::expected<std::vector<const field<Row>*>> pick_columns(
    const std::vector<field<Row>>& fields, const std::string& format,
    const std::vector<std::string>& defaults) {
  auto names = split_list(format, false);
  if (names.empty()) names = defaults;
  std::vector<const field<Row>*> cols;
  for (auto& n : names) {
    auto f = find_field(fields, n);
    if (!f) return f.error();
    cols.push_back(*f);
  }
  return cols;
}

/// Applies opt.filters then opt.sort to `rows` in place.
template <class Row>
shoal::error filter_and_sort(std::vector<Row>& rows, const std::vector<field<Row>>& fields,
                             const listing_options& opt) {
  for (auto& item : opt.filters) {
    auto eq = item.find('=');
    if (eq == std::string::npos)
      return shoal::error(errc::invalid_request,
                          "filter '" + item + "' is not of the form Field=Value");
    auto f = find_field(fields, split_list(item.substr(0, eq), true).front());
    if (!f) return f.error();
    auto values = split_list(std::string_view(item).substr(eq + 1), true);
    const field<Row>& fd = **f;
    auto keep = [&](const Row& r) {
      if (fd.match) return fd.match(r, values);
      auto text = fd.text(r);
      return std::any_of(values.begin(), values.end(),
                         [&](const std::string& v) { return iequals(text, v); });
    };
    rows.erase(std::remove_if(rows.begin(), rows.end(), [&](const Row& r) { return !keep(r); }),
               rows.end());
  }
  struct key_spec {
    const field<Row>* f;
    bool descending;
  };
  std::vector<key_spec> keys;
  for (auto& k : split_list(opt.sort, false)) {
    bool desc = k[0] == '-';
    auto name = (k[0] == '-' || k[0] == '+') ? std::string_view(k).substr(1) : std::string_view(k);
    auto f = find_field(fields, name);
    if (!f) return f.error();
    keys.push_back({*f, desc});
  }
  if (keys.empty() || rows.size() < 2) return {};
  // Compute every key once: text keys can be costly (hostlists, time formatting).
  struct key_value {
    double number = 0;
    std::string text;
  };
  std::vector<std::vector<key_value>> values(rows.size());
  for (size_t i = 0; i < rows.size(); ++i)
    for (auto& k : keys) {
      key_value v;
      if (k.f->number)
        v.number = k.f->number(rows[i]);
      else
        v.text = k.f->text(rows[i]);
      values[i].push_back(std::move(v));
    }
  std::vector<size_t> order(rows.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    for (size_t k = 0; k < keys.size(); ++k) {
      const auto& x = values[a][k];
      const auto& y = values[b][k];
      int c = 0;
      if (keys[k].f->number)
        c = x.number < y.number ? -1 : (y.number < x.number ? 1 : 0);
      else
        c = natural_compare(x.text, y.text);
      if (c != 0) return keys[k].descending ? c > 0 : c < 0;
    }
    return false;
  });
  std::vector<Row> sorted;
  sorted.reserve(rows.size());
  for (auto i : order) sorted.push_back(std::move(rows[i]));
  rows = std::move(sorted);
  return {};
}

/// Renders `rows` under `cols`; empty cells show as "(null)".
template <class Row>
std::string render_table(const std::vector<Row>& rows, const std::vector<const field<Row>*>& cols,
                         bool no_header) {
  std::vector<std::string> headers;
  std::vector<bool> right;
  for (auto* c : cols) {
    headers.push_back(c->header);
    right.push_back(c->right);
  }
  std::vector<std::vector<std::string>> cells;
  cells.reserve(rows.size());
  for (auto& r : rows) {
    std::vector<std::string> line;
    for (auto* c : cols) line.push_back(or_null(c->text(r)));
    cells.push_back(std::move(line));
  }
  return layout(headers, right, cells, no_header);
}

}  // namespace shoal::cli::detail
