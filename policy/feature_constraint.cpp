#include "policy/feature_constraint.hpp"

#include <algorithm>
#include <cctype>
#include <optional>

namespace shoal::policy {

namespace {

shoal::error invalid(const std::string& why) {
  return shoal::error(errc::invalid_request, "Invalid feature specification: " + why);
}

bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
         std::string_view{"_-.:+@/"}.find(c) != std::string_view::npos;
}

class reader {
 public:
  explicit reader(std::string text) : s_(std::move(text)) {}

  shoal::expected<feature_expr> top() {
    auto e = expr('\0', 0);
    if (!e) return e;
    if (pos_ != s_.size()) return invalid("unexpected '" + std::string(1, s_[pos_]) + "'");
    return e;
  }

 private:
  /// Operands and operators up to `close` (or the end when `close` is '\0').
  shoal::expected<feature_expr> expr(char close, int parens) {
    feature_expr e;
    for (;;) {
      auto f = factor(parens);
      if (!f) return std::move(f.error());
      e.factors.push_back(std::move(*f));
      if (pos_ == s_.size()) {
        if (close != '\0') return invalid("missing '" + std::string(1, close) + "'");
        return e;
      }
      char c = s_[pos_];
      if (c == close) {
        ++pos_;
        return e;
      }
      if (c != '&' && c != '|') {
        if (c == ',') return invalid("',' is not an operator (use & for AND, | for OR)");
        return invalid("unexpected '" + std::string(1, c) + "'");
      }
      e.ops.push_back(c);
      ++pos_;
    }
  }

  shoal::expected<feature_factor> factor(int parens) {
    feature_factor f;
    if (pos_ == s_.size()) return invalid("a feature name is missing at the end");
    char c = s_[pos_];
    if (c == '(') {
      ++pos_;
      auto inner = expr(')', parens + 1);
      if (!inner) return std::move(inner.error());
      f.group = std::make_shared<feature_expr>(std::move(*inner));
    } else if (c == '[') {
      if (parens > 0 || in_bracket_) return invalid("brackets cannot be nested in ( ) or [ ]");
      if (brackets_ > 0) return invalid("only one set of brackets is allowed");
      ++brackets_;
      ++pos_;
      in_bracket_ = true;
      auto inner = expr(']', 0);
      in_bracket_ = false;
      if (!inner) return std::move(inner.error());
      if (auto err = check_bracket(*inner)) return std::move(*err);
      f.group = std::make_shared<feature_expr>(std::move(*inner));
      f.bracket = true;
      return f;
    } else {
      auto start = pos_;
      while (pos_ < s_.size() && name_char(s_[pos_])) ++pos_;
      if (pos_ == start)
        return invalid("a feature name is missing before '" + std::string(1, c) + "'");
      f.name = s_.substr(start, pos_ - start);
    }
    if (pos_ < s_.size() && s_[pos_] == '*') {
      if (parens > 0) return invalid("a count (*N) cannot be inside parentheses");
      ++pos_;
      auto start = pos_;
      uint64_t n = 0;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_])) != 0 &&
             n <= 1'000'000)
        n = n * 10 + static_cast<uint64_t>(s_[pos_++] - '0');
      if (pos_ == start || n == 0 || n > 1'000'000)
        return invalid("'*' needs a node count from 1 to 1000000");
      f.count = static_cast<uint32_t>(n);
    }
    return f;
  }

  /// [a|b|c] (matching OR, no counts) or [a*2&b*4] (every item counted).
  std::optional<shoal::error> check_bracket(const feature_expr& e) {
    bool any_and = std::find(e.ops.begin(), e.ops.end(), '&') != e.ops.end();
    bool any_or = std::find(e.ops.begin(), e.ops.end(), '|') != e.ops.end();
    if (any_and && any_or)
      return invalid("[ ] holds either a matching OR (a|b) or counts (a*2&b*4)");
    for (const auto& f : e.factors) {
      if (any_and && f.count == 0)
        return invalid("with & inside [ ], every item needs a count, such as [a*2&b*4]");
      if (!any_and && f.count != 0) return invalid("a matching OR [a|b] takes no counts");
    }
    return std::nullopt;
  }

  std::string s_;
  size_t pos_ = 0;
  int brackets_ = 0;
  bool in_bracket_ = false;
};

void collect_names(const feature_expr& e, std::vector<std::string>& out) {
  for (const auto& f : e.factors) {
    if (f.group) {
      collect_names(*f.group, out);
    } else if (std::find(out.begin(), out.end(), f.name) == out.end()) {
      out.push_back(f.name);
    }
  }
}

bool has(const std::vector<std::string>& features, const std::string& name) {
  return std::find(features.begin(), features.end(), name) != features.end();
}

bool eval(const feature_expr& e, const std::vector<std::string>& features, int alternative);

/// `f` ignoring its count.
bool eval_content(const feature_factor& f, const std::vector<std::string>& features,
                  int alternative) {
  if (!f.group) return has(features, f.name);
  if (!f.bracket) return eval(*f.group, features, alternative);
  const auto& items = f.group->factors;
  if (alternative >= 0 && !f.group->ops.empty() && f.group->ops.front() == '|')
    return eval_content(items[static_cast<size_t>(alternative)], features, -1);
  if (alternative >= 0 && f.group->ops.empty()) return eval_content(items.front(), features, -1);
  return std::any_of(items.begin(), items.end(),
                     [&](const feature_factor& item) { return eval_content(item, features, -1); });
}

bool eval(const feature_expr& e, const std::vector<std::string>& features, int alternative) {
  // A counted operand says how many nodes, not which: it lets every node through.
  auto value = [&](const feature_factor& f) {
    return f.count > 0 || eval_content(f, features, alternative);
  };
  bool result = value(e.factors.front());
  for (size_t i = 1; i < e.factors.size(); ++i) {
    bool v = value(e.factors[i]);
    result = e.ops[i - 1] == '&' ? (result && v) : (result || v);
  }
  return result;
}

/// The bracket of `c`, if any.
const feature_factor* bracket_of(const feature_constraint& c) {
  for (const auto& f : c.expr.factors)
    if (f.bracket) return &f;
  return nullptr;
}

bool is_matching_or(const feature_factor* b) {
  return b != nullptr && (b->group->ops.empty() || b->group->ops.front() == '|');
}

}  // namespace

std::vector<std::string> feature_constraint::names() const {
  std::vector<std::string> out;
  collect_names(expr, out);
  return out;
}

shoal::expected<feature_constraint> parse_constraint(std::string_view text) {
  std::string compact;
  for (char c : text)
    if (c != ' ' && c != '\t') compact += c;
  if (compact.empty()) return invalid("empty");
  auto e = reader{compact}.top();
  if (!e) return std::move(e.error());
  return feature_constraint{std::move(*e), std::move(compact)};
}

std::vector<feature_choice> resolve_constraint(
    const feature_constraint& c, const std::vector<std::vector<std::string>>& node_features) {
  const auto* bracket = bracket_of(c);
  int alternatives = is_matching_or(bracket) ? static_cast<int>(bracket->group->factors.size()) : 1;
  std::vector<feature_choice> out;
  for (int alt = 0; alt < alternatives; ++alt) {
    int which = is_matching_or(bracket) ? alt : -1;
    feature_choice choice;
    choice.eligible.resize(node_features.size());
    for (size_t n = 0; n < node_features.size(); ++n)
      choice.eligible[n] = eval(c.expr, node_features[n], which);
    auto add_count = [&](const feature_factor& f) {
      feature_choice::counted counted;
      counted.count = f.count;
      counted.nodes.resize(node_features.size());
      for (size_t n = 0; n < node_features.size(); ++n)
        counted.nodes[n] = choice.eligible[n] && eval_content(f, node_features[n], -1);
      choice.counts.push_back(std::move(counted));
    };
    for (const auto& f : c.expr.factors) {
      if (f.bracket && !is_matching_or(&f)) {
        for (const auto& item : f.group->factors) add_count(item);
      } else if (f.count > 0) {
        add_count(f);
      }
    }
    out.push_back(std::move(choice));
  }
  return out;
}

bool node_satisfies(const feature_constraint& c, const std::vector<std::string>& features) {
  auto choices = resolve_constraint(c, {features});
  return std::any_of(choices.begin(), choices.end(),
                     [](const feature_choice& ch) { return ch.eligible.front(); });
}

}  // namespace shoal::policy
