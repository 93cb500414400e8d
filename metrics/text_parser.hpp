#pragma once

// A parser for the Prometheus text exposition format 0.0.4, written from the format's
// specification (prometheus.io/docs/instrumenting/exposition_formats): HELP and TYPE lines,
// samples with optional labels and timestamp, escapes, +Inf/-Inf/NaN. Used by the tests to check
// what the daemons serve, and by `shoal top` and `shoal diag` to read it.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include "messages/errc.hpp"

namespace shoal::metrics {

/// One sample line.
struct sample {
  std::string name;  ///< as written, e.g. "shoal_actor_handler_seconds_bucket"
  std::vector<std::pair<std::string, std::string>> labels;  ///< in order, values unescaped
  double value = 0;
  std::optional<int64_t> timestamp_ms;

  /// The value of label `name`, or "" when absent.
  std::string label(std::string_view name) const;
};

/// The samples of one metric family and what its HELP and TYPE lines said.
struct parsed_family {
  std::string name;
  std::string type = "untyped";  ///< counter, gauge, histogram, summary or untyped
  std::string help;              ///< unescaped
  std::vector<sample> samples;
};

/// A whole scrape.
struct exposition {
  std::vector<parsed_family> families;

  /// The family of that name, or nullptr.
  const parsed_family* find(std::string_view name) const;
  /// The first sample of family `name` (any suffix) whose labels include every pair of `match`,
  /// with the given full sample name; nullopt when there is none.
  std::optional<double> value(
      std::string_view sample_name,
      const std::vector<std::pair<std::string, std::string>>& match = {}) const;
};

/// Parses a scrape. Errors (errc::malformed_message) name the line: "line 7: ...". Rejects
/// what the spec forbids: bad metric or label names, unknown escapes, unterminated label values,
/// a value that is not a number, a second TYPE line for a name, a TYPE line after the family's
/// samples, and a family's samples split into two groups.
shoal::expected<exposition> parse_text(std::string_view text);

/// Checks every histogram family: each series has a `le="+Inf"` bucket equal to its `_count`,
/// buckets in increasing `le` order with non-decreasing counts, and a `_sum`. Error
/// (errc::malformed_message) names the family.
shoal::error check_histograms(const exposition& e);

/// A histogram's buckets as (upper bound, cumulative count), +Inf last.
using bucket_list = std::vector<std::pair<double, double>>;

/// The `q` quantile (0..1) estimated from cumulative buckets by linear interpolation inside the
/// bucket, as PromQL's histogram_quantile does; NaN without observations. When it falls in the
/// +Inf bucket, the highest finite bound.
double bucket_quantile(double q, const bucket_list& buckets);

}  // namespace shoal::metrics
