#include "metrics/text_parser.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

#include "messages/errc.hpp"
#include "metrics/registry.hpp"

namespace shoal::metrics {

std::string sample::label(std::string_view name) const {
  for (auto& [k, v] : labels)
    if (k == name) return v;
  return {};
}

const parsed_family* exposition::find(std::string_view name) const {
  for (auto& f : families)
    if (f.name == name) return &f;
  return nullptr;
}

std::optional<double> exposition::value(
    std::string_view sample_name,
    const std::vector<std::pair<std::string, std::string>>& match) const {
  for (auto& f : families) {
    if (sample_name.compare(0, f.name.size(), f.name) != 0) continue;
    for (auto& s : f.samples) {
      if (s.name != sample_name) continue;
      bool all = std::all_of(match.begin(), match.end(),
                             [&](const auto& m) { return s.label(m.first) == m.second; });
      if (all) return s.value;
    }
  }
  return std::nullopt;
}

namespace {

class line_parser {
 public:
  explicit line_parser(std::string_view line) : s_(line) {}

  void skip_blanks() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
  }
  bool at_end() const { return pos_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[pos_]; }
  bool eat(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }

  /// A metric name (colons allowed) or a label name.
  std::string name(bool colon) {
    auto start = pos_;
    while (!at_end()) {
      char c = s_[pos_];
      bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
                (colon && c == ':') || (pos_ > start && c >= '0' && c <= '9');
      if (!ok) break;
      ++pos_;
    }
    return std::string{s_.substr(start, pos_ - start)};
  }

  /// The rest up to the next blank.
  std::string token() {
    auto start = pos_;
    while (!at_end() && s_[pos_] != ' ' && s_[pos_] != '\t') ++pos_;
    return std::string{s_.substr(start, pos_ - start)};
  }

  std::string rest() {
    auto out = std::string{s_.substr(std::min(pos_, s_.size()))};
    pos_ = s_.size();
    return out;
  }

 private:
  std::string_view s_;
  size_t pos_ = 0;

  friend shoal::expected<std::string> quoted(line_parser& p);
};

shoal::error bad(size_t line, const std::string& what) {
  return shoal::error(errc::malformed_message, "line " + std::to_string(line) + ": " + what);
}

/// After the opening quote: the label value up to the closing quote, unescaped.
shoal::expected<std::string> quoted(line_parser& p) {
  std::string out;
  while (!p.at_end()) {
    char c = p.s_[p.pos_++];
    if (c == '"') return out;
    if (c != '\\') {
      out += c;
      continue;
    }
    if (p.at_end()) break;
    char e = p.s_[p.pos_++];
    if (e == '\\')
      out += '\\';
    else if (e == '"')
      out += '"';
    else if (e == 'n')
      out += '\n';
    else
      return shoal::error(errc::malformed_message, std::string{"unknown escape \\"} + e);
  }
  return shoal::error(errc::malformed_message, "unterminated label value");
}

std::string unescape_help(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && (text[i + 1] == '\\' || text[i + 1] == 'n')) {
      out += text[i + 1] == 'n' ? '\n' : '\\';
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::optional<double> parse_number(const std::string& text) {
  if (text == "+Inf" || text == "Inf") return HUGE_VAL;
  if (text == "-Inf") return -HUGE_VAL;
  if (text == "NaN") return std::nan("");
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  // strtod also takes "inf", "nan" and hex: the format does not.
  if (end != text.c_str() + text.size() || text.find_first_of("xXnN") != std::string::npos)
    return std::nullopt;
  return v;
}

/// The family a sample name belongs to, given the suffixes its type allows.
bool belongs(const parsed_family& f, const std::string& sample_name) {
  if (sample_name == f.name) return f.type != "histogram";
  if (sample_name.compare(0, f.name.size(), f.name) != 0) return false;
  auto suffix = sample_name.substr(f.name.size());
  if (f.type == "histogram") return suffix == "_bucket" || suffix == "_sum" || suffix == "_count";
  if (f.type == "summary") return suffix == "_sum" || suffix == "_count";
  return false;
}

}  // namespace

shoal::expected<exposition> parse_text(std::string_view text) {
  exposition out;
  std::set<std::string> typed;     // names that had a TYPE line
  std::set<std::string> finished;  // families whose group of lines has ended
  parsed_family* current = nullptr;
  auto open_family = [&](const std::string& name) -> parsed_family* {
    if (current && current->name == name) return current;
    if (current) finished.insert(current->name);
    out.families.push_back(parsed_family{});
    out.families.back().name = name;
    current = &out.families.back();
    return current;
  };
  size_t line_no = 0;
  size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    auto line = text.substr(start, end - start);
    start = end + 1;
    ++line_no;
    line_parser p{line};
    p.skip_blanks();
    if (p.at_end()) continue;
    if (p.eat('#')) {
      p.skip_blanks();
      auto keyword = p.token();
      if (keyword != "HELP" && keyword != "TYPE") continue;  // a plain comment
      p.skip_blanks();
      auto name = p.name(true);
      if (name.empty() || !valid_metric_name(name))
        return bad(line_no, "invalid metric name after " + keyword);
      if (!p.at_end() && p.peek() != ' ' && p.peek() != '\t')
        return bad(line_no, "invalid metric name after " + keyword);
      p.skip_blanks();
      if (finished.count(name))
        return bad(line_no, name + ": lines of one family must be together");
      auto* f = open_family(name);
      if (keyword == "HELP") {
        f->help = unescape_help(p.rest());
        continue;
      }
      auto type = p.token();
      p.skip_blanks();
      if (!p.at_end()) return bad(line_no, "text after the type");
      if (type != "counter" && type != "gauge" && type != "histogram" && type != "summary" &&
          type != "untyped")
        return bad(line_no, "unknown type '" + type + "'");
      if (!typed.insert(name).second) return bad(line_no, "second TYPE line for " + name);
      if (!f->samples.empty()) return bad(line_no, "TYPE line after samples of " + name);
      f->type = type;
      continue;
    }
    sample s;
    s.name = p.name(true);
    if (s.name.empty()) return bad(line_no, "expected a metric name");
    p.skip_blanks();
    if (p.eat('{')) {
      std::set<std::string> seen;
      for (;;) {
        p.skip_blanks();
        if (p.eat('}')) break;
        auto label = p.name(false);
        if (!valid_label_name(label)) return bad(line_no, "invalid label name");
        if (!seen.insert(label).second) return bad(line_no, "label " + label + " given twice");
        p.skip_blanks();
        if (!p.eat('=')) return bad(line_no, "expected '=' after label " + label);
        p.skip_blanks();
        if (!p.eat('"')) return bad(line_no, "expected '\"' to open the value of " + label);
        auto value = quoted(p);
        if (!value) return bad(line_no, describe(value.error()));
        s.labels.emplace_back(std::move(label), std::move(*value));
        p.skip_blanks();
        if (p.eat(',')) continue;
        if (p.eat('}')) break;
        return bad(line_no, "expected ',' or '}' in the labels");
      }
      p.skip_blanks();
    }
    auto number = parse_number(p.token());
    if (!number) return bad(line_no, "the value of " + s.name + " is not a number");
    s.value = *number;
    p.skip_blanks();
    if (!p.at_end()) {
      auto ts = p.token();
      char* e = nullptr;
      auto v = std::strtoll(ts.c_str(), &e, 10);
      if (ts.empty() || e != ts.c_str() + ts.size()) return bad(line_no, "invalid timestamp");
      s.timestamp_ms = v;
      p.skip_blanks();
      if (!p.at_end()) return bad(line_no, "text after the timestamp");
    }
    if (!current || !belongs(*current, s.name)) {
      // A sample without a HELP/TYPE group of its own: an untyped family named as it is.
      if (finished.count(s.name) || (current && current->name == s.name))
        return bad(line_no, s.name + ": lines of one family must be together");
      open_family(s.name);
    }
    current->samples.push_back(std::move(s));
  }
  return out;
}

shoal::error check_histograms(const exposition& e) {
  for (auto& f : e.families) {
    if (f.type != "histogram") continue;
    auto fail = [&](const std::string& what) {
      return shoal::error(errc::malformed_message, "histogram " + f.name + ": " + what);
    };
    // Group by the labels other than le.
    struct series {
      bucket_list buckets;
      std::optional<double> sum;
      std::optional<double> count;
    };
    std::map<std::vector<std::pair<std::string, std::string>>, series> all;
    for (auto& s : f.samples) {
      auto labels = s.labels;
      labels.erase(std::remove_if(labels.begin(), labels.end(),
                                  [](const auto& l) { return l.first == "le"; }),
                   labels.end());
      auto& ser = all[labels];
      if (s.name == f.name + "_bucket") {
        auto le = s.label("le");
        auto bound = parse_number(le);
        if (!bound) return fail("bucket without a valid le label");
        ser.buckets.emplace_back(*bound, s.value);
      } else if (s.name == f.name + "_sum") {
        ser.sum = s.value;
      } else {
        ser.count = s.value;
      }
    }
    for (auto& [labels, ser] : all) {
      if (ser.buckets.empty() || !std::isinf(ser.buckets.back().first))
        return fail("the last bucket is not le=\"+Inf\"");
      for (size_t i = 1; i < ser.buckets.size(); ++i) {
        if (!(ser.buckets[i].first > ser.buckets[i - 1].first))
          return fail("bucket bounds are not increasing");
        if (ser.buckets[i].second < ser.buckets[i - 1].second)
          return fail("cumulative bucket counts decrease");
      }
      if (!ser.count || *ser.count != ser.buckets.back().second)
        return fail("_count differs from the +Inf bucket");
      if (!ser.sum) return fail("no _sum");
    }
  }
  return {};
}

double bucket_quantile(double q, const bucket_list& buckets) {
  if (buckets.empty()) return std::nan("");
  auto total = buckets.back().second;
  if (total <= 0) return std::nan("");
  auto rank = q * total;
  double lower_bound = 0;
  double lower_count = 0;
  for (size_t i = 0; i < buckets.size(); ++i) {
    auto [bound, count] = buckets[i];
    if (count >= rank) {
      if (std::isinf(bound)) return i > 0 ? buckets[i - 1].first : 0.0;
      if (count == lower_count) return bound;
      return lower_bound + (bound - lower_bound) * (rank - lower_count) / (count - lower_count);
    }
    lower_bound = bound;
    lower_count = count;
  }
  return buckets.back().first;
}

}  // namespace shoal::metrics
