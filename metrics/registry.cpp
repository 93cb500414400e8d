#include "metrics/registry.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace shoal::metrics {

const char* to_string(metric_type t) {
  switch (t) {
    case metric_type::counter:
      return "counter";
    case metric_type::gauge:
      return "gauge";
    case metric_type::histogram:
      return "histogram";
  }
  return "untyped";
}

std::string format_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  if (ec != std::errc{}) return "NaN";
  return std::string(buf, end);
}

std::string escape_label_value(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

namespace {

std::string escape_help(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

bool name_char(char c, bool first, bool colon) {
  bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':');
  return alpha || (!first && c >= '0' && c <= '9');
}

/// `{a="x",b="y"}` (plus `extra`, e.g. le="0.5"), or "" without labels.
std::string label_text(const std::vector<std::string>& names,
                       const std::vector<std::string>& values, const std::string& extra = "") {
  if (names.empty() && extra.empty()) return "";
  std::string out = "{";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ',';
    out += names[i] + "=\"" + escape_label_value(values[i]) + '"';
  }
  if (!extra.empty()) {
    if (!names.empty()) out += ',';
    out += extra;
  }
  return out + "}";
}

void render_header(const family_base& f, std::string& out) {
  out += "# HELP " + f.name() + ' ' + escape_help(f.help()) + '\n';
  out += "# TYPE " + f.name() + ' ' + to_string(f.type()) + '\n';
}

void render_series(const family_base& f, const std::vector<std::string>& values, const counter& c,
                   std::string& out) {
  out += f.name() + label_text(f.label_names(), values) + ' ' + std::to_string(c.value()) + '\n';
}

void render_series(const family_base& f, const std::vector<std::string>& values, const gauge& g,
                   std::string& out) {
  out += f.name() + label_text(f.label_names(), values) + ' ' + format_value(g.value()) + '\n';
}

void render_series(const family_base& f, const std::vector<std::string>& values, const histogram& h,
                   std::string& out) {
  auto s = h.read();
  for (size_t i = 0; i < s.cumulative.size(); ++i) {
    auto le = i < s.bounds.size() ? format_value(s.bounds[i]) : std::string{"+Inf"};
    out += f.name() + "_bucket" + label_text(f.label_names(), values, "le=\"" + le + '"') + ' ' +
           std::to_string(s.cumulative[i]) + '\n';
  }
  auto labels = label_text(f.label_names(), values);
  out += f.name() + "_sum" + labels + ' ' + format_value(s.sum) + '\n';
  out += f.name() + "_count" + labels + ' ' + std::to_string(s.count) + '\n';
}

void reset_series(counter& c) {
  c.reset();
}
void reset_series(gauge&) {}
void reset_series(histogram& h) {
  h.reset();
}

template <class Instrument>
std::unique_ptr<Instrument> make_series(const std::vector<double>& bounds) {
  if constexpr (std::is_same_v<Instrument, histogram>)
    return std::make_unique<histogram>(bounds);
  else
    return std::make_unique<Instrument>();
}

}  // namespace

bool valid_metric_name(std::string_view name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i)
    if (!name_char(name[i], i == 0, true)) return false;
  return true;
}

bool valid_label_name(std::string_view name) {
  if (name.empty() || name.substr(0, 2) == "__") return false;
  for (size_t i = 0; i < name.size(); ++i)
    if (!name_char(name[i], i == 0, false)) return false;
  return true;
}

family_base::family_base(std::string name, std::string help, metric_type type,
                         std::vector<std::string> label_names)
    : name_(std::move(name)),
      help_(std::move(help)),
      type_(type),
      label_names_(std::move(label_names)) {}

template <class Instrument>
Instrument& family<Instrument>::with(const std::vector<std::string>& values) {
  if (values.size() != label_names_.size())
    throw std::invalid_argument(name_ + ": expected " + std::to_string(label_names_.size()) +
                                " label values");
  std::lock_guard<std::mutex> guard{mtx_};
  auto& slot = series_[values];
  if (!slot) slot = make_series<Instrument>(bounds_);
  return *slot;
}

template <class Instrument>
void family<Instrument>::render(std::string& out) const {
  render_header(*this, out);
  std::lock_guard<std::mutex> guard{mtx_};
  for (auto& [values, series] : series_) render_series(*this, values, *series, out);
}

template <class Instrument>
void family<Instrument>::reset() {
  std::lock_guard<std::mutex> guard{mtx_};
  for (auto& entry : series_) reset_series(*entry.second);
}

template class family<counter>;
template class family<gauge>;
template class family<histogram>;

template <class F>
F& registry::obtain(const std::string& name, const std::string& help, metric_type type,
                    std::vector<std::string> labels, const std::vector<double>& bounds) {
  {
    // The common case (every actor start looks its families up): no validation, no copies.
    std::lock_guard<std::mutex> guard{mtx_};
    auto it = families_.find(name);
    if (it != families_.end() && it->second->type() == type && it->second->label_names() == labels)
      return static_cast<F&>(*it->second);
  }
  if (!valid_metric_name(name)) throw std::invalid_argument("invalid metric name: " + name);
  if (type == metric_type::counter &&
      (name.size() < 6 || name.compare(name.size() - 6, 6, "_total") != 0))
    throw std::invalid_argument("a counter's name ends in _total: " + name);
  for (auto& l : labels)
    if (!valid_label_name(l) || l == "le")
      throw std::invalid_argument("invalid label name for " + name + ": " + l);
  std::lock_guard<std::mutex> guard{mtx_};
  auto& slot = families_[name];
  if (!slot) {
    slot = std::make_unique<F>(name, help, type, std::move(labels), bounds);
  } else if (slot->type() != type || slot->label_names() != labels) {
    throw std::invalid_argument("metric " + name + " registered twice with different shapes");
  }
  return static_cast<F&>(*slot);
}

counter_family& registry::counters(const std::string& name, const std::string& help,
                                   std::vector<std::string> label_names) {
  return obtain<counter_family>(name, help, metric_type::counter, std::move(label_names), {});
}

gauge_family& registry::gauges(const std::string& name, const std::string& help,
                               std::vector<std::string> label_names) {
  return obtain<gauge_family>(name, help, metric_type::gauge, std::move(label_names), {});
}

histogram_family& registry::histograms(const std::string& name, const std::string& help,
                                       std::vector<std::string> label_names,
                                       const std::vector<double>& bounds) {
  return obtain<histogram_family>(name, help, metric_type::histogram, std::move(label_names),
                                  bounds);
}

counter& registry::counter_of(const std::string& name, const std::string& help) {
  return counters(name, help).with({});
}

gauge& registry::gauge_of(const std::string& name, const std::string& help) {
  return gauges(name, help).with({});
}

histogram& registry::histogram_of(const std::string& name, const std::string& help,
                                  const std::vector<double>& bounds) {
  return histograms(name, help, {}, bounds).with({});
}

void registry::reset(std::string_view prefix) {
  std::lock_guard<std::mutex> guard{mtx_};
  for (auto& [name, f] : families_)
    if (name.compare(0, prefix.size(), prefix) == 0) f->reset();
}

std::string registry::render() const {
  std::string out;
  std::lock_guard<std::mutex> guard{mtx_};
  for (auto& [name, f] : families_) f->render(out);
  return out;
}

}  // namespace shoal::metrics
