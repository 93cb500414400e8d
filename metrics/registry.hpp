#pragma once

// The registry: named metric families with label sets, and their rendering in the Prometheus
// text exposition format 0.0.4. Thread-safe; one per process, passed explicitly (no global).

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/instruments.hpp"

namespace shoal::metrics {

enum class metric_type { counter, gauge, histogram };

/// "counter", "gauge", "histogram": the TYPE line's word.
const char* to_string(metric_type t);

/// What every family has: name, help, type and label names.
class family_base {
 public:
  family_base(std::string name, std::string help, metric_type type,
              std::vector<std::string> label_names);
  virtual ~family_base() = default;

  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  metric_type type() const { return type_; }
  const std::vector<std::string>& label_names() const { return label_names_; }

  /// Appends HELP, TYPE and one line per series (three kinds for histograms) to `out`.
  virtual void render(std::string& out) const = 0;
  /// Every series back to zero (counters and histograms; gauges keep their value).
  virtual void reset() = 0;

 protected:
  std::string name_;
  std::string help_;
  metric_type type_;
  std::vector<std::string> label_names_;
};

/// The series of one family, one per label-value tuple. `with` takes a mutex: call it once and
/// keep the reference (it stays valid as long as the registry), not once per event.
template <class Instrument>
class family : public family_base {
 public:
  family(std::string name, std::string help, metric_type type, std::vector<std::string> labels,
         std::vector<double> bounds = {})
      : family_base(std::move(name), std::move(help), type, std::move(labels)),
        bounds_(std::move(bounds)) {}

  /// The series for these label values (as many as label names; throws std::invalid_argument
  /// otherwise), created at zero on first use.
  Instrument& with(const std::vector<std::string>& values);

  void render(std::string& out) const override;
  void reset() override;

 private:
  std::vector<double> bounds_;  ///< histograms only
  mutable std::mutex mtx_;
  std::map<std::vector<std::string>, std::unique_ptr<Instrument>> series_;
};

using counter_family = family<counter>;
using gauge_family = family<gauge>;
using histogram_family = family<histogram>;

/// All metric families of one process.
class registry {
 public:
  /// Returns the family of that name, creating it. Names follow Prometheus rules and counters
  /// end in `_total`; asking again with another type or other labels is a programming error
  /// (std::invalid_argument).
  counter_family& counters(const std::string& name, const std::string& help,
                           std::vector<std::string> label_names = {});
  gauge_family& gauges(const std::string& name, const std::string& help,
                       std::vector<std::string> label_names = {});
  histogram_family& histograms(const std::string& name, const std::string& help,
                               std::vector<std::string> label_names,
                               const std::vector<double>& bounds = latency_buckets());

  /// Shorthands for a family without labels.
  counter& counter_of(const std::string& name, const std::string& help);
  gauge& gauge_of(const std::string& name, const std::string& help);
  histogram& histogram_of(const std::string& name, const std::string& help,
                          const std::vector<double>& bounds = latency_buckets());

  /// Zeroes the counters and histograms of every family whose name starts with `prefix`.
  void reset(std::string_view prefix);

  /// Every family in name order, as Prometheus text format 0.0.4.
  std::string render() const;

 private:
  template <class F>
  F& obtain(const std::string& name, const std::string& help, metric_type type,
            std::vector<std::string> labels, const std::vector<double>& bounds);

  mutable std::mutex mtx_;
  std::map<std::string, std::unique_ptr<family_base>> families_;
};

/// The Content-Type of render()'s output.
inline constexpr const char* text_content_type = "text/plain; version=0.0.4; charset=utf-8";

/// A sample value as the text format writes it: shortest round-trip form, "+Inf", "-Inf", "NaN".
std::string format_value(double v);

/// A label value with `\`, `"` and newlines escaped.
std::string escape_label_value(std::string_view v);

/// True for `[a-zA-Z_:][a-zA-Z0-9_:]*`.
bool valid_metric_name(std::string_view name);
/// True for `[a-zA-Z_][a-zA-Z0-9_]*` not starting with `__`.
bool valid_label_name(std::string_view name);

}  // namespace shoal::metrics
