#include "config/config_syntax.hpp"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace shoal::config::config_syntax {

namespace {

bool is_ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0;
}

bool is_ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

/// True when `text` from `pos` reads `Ident` then optional blanks then `=`.
bool starts_with_assignment(std::string_view text, size_t pos) {
  if (pos >= text.size() || !is_ident_start(text[pos])) return false;
  while (pos < text.size() && is_ident_char(text[pos])) ++pos;
  while (pos < text.size() && is_blank(text[pos])) ++pos;
  return pos < text.size() && text[pos] == '=';
}

/// The line up to its comment, blanks trimmed at both ends. `unterminated` reports an odd
/// number of double quotes.
std::string_view strip_comment(std::string_view line, bool& unterminated) {
  bool quoted = false;
  size_t end = line.size();
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '"') {
      quoted = !quoted;
    } else if (line[i] == '#' && !quoted) {
      end = i;
      break;
    }
  }
  unterminated = quoted;
  line = line.substr(0, end);
  while (!line.empty() && is_blank(line.front())) line.remove_prefix(1);
  while (!line.empty() && is_blank(line.back())) line.remove_suffix(1);
  return line;
}

}  // namespace

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

std::string to_lower(std::string_view text) {
  std::string out{text};
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::optional<bool> parse_yes_no(std::string_view text) {
  auto v = to_lower(text);
  if (v == "yes" || v == "true" || v == "1") return true;
  if (v == "no" || v == "false" || v == "0") return false;
  return std::nullopt;
}

std::string to_upper(std::string_view text) {
  std::string out{text};
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

line_result split_line(std::string_view line) {
  line_result result;
  bool unterminated = false;
  auto text = strip_comment(line, unterminated);
  if (unterminated) {
    result.error = "unterminated double quote";
    return result;
  }
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    while (i < n && is_blank(text[i])) ++i;
    if (i == n) break;
    size_t start = i;
    while (i < n && !is_blank(text[i]) && text[i] != '=') ++i;
    auto key = text.substr(start, i - start);
    size_t eq = i;
    while (eq < n && is_blank(text[eq])) ++eq;
    if (key.empty() || eq == n || text[eq] != '=' || key.find('"') != std::string_view::npos) {
      // Name the offending word so a stray token in a long NodeName line is easy to find.
      auto word_end = start;
      while (word_end < n && !is_blank(text[word_end])) ++word_end;
      result.error =
          "expected Key=Value, found '" + std::string{text.substr(start, word_end - start)} + "'";
      result.pairs.clear();
      return result;
    }
    i = eq + 1;
    bool blank_after_eq = i < n && is_blank(text[i]);
    while (i < n && is_blank(text[i])) ++i;
    pair p;
    p.key = std::string{key};
    p.lower = to_lower(key);
    // `Partition= Name=x`: the blank after `=` ends an empty value. Without that blank,
    // `Key=a=b` keeps "a=b" as the value.
    if (i < n && !(blank_after_eq && starts_with_assignment(text, i))) {
      bool quoted = false;
      while (i < n && (quoted || !is_blank(text[i]))) {
        if (text[i] == '"')
          quoted = !quoted;
        else
          p.value += text[i];
        ++i;
      }
    }
    result.pairs.push_back(std::move(p));
  }
  return result;
}

std::optional<uint64_t> parse_unsigned(std::string_view text, uint64_t max) {
  if (text.empty()) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    auto digit = static_cast<uint64_t>(c - '0');
    if (digit > max || value > (max - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

std::optional<double> parse_decimal(std::string_view text) {
  bool digits = false;
  bool dot = false;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      digits = true;
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      return std::nullopt;
    }
  }
  // 128: room for what format_decimal writes of any value this reads (0.000...1 grows by one).
  if (!digits || text.size() > 128) return std::nullopt;
  std::string copy{text};
  return std::strtod(copy.c_str(), nullptr);
}

std::string format_ms_as_seconds(int64_t ms) {
  auto out = std::to_string(ms / 1000);
  if (auto frac = ms % 1000; frac != 0) {
    char buf[8];
    std::snprintf(buf, sizeof buf, ".%03d", static_cast<int>(frac < 0 ? -frac : frac));
    out += buf;
    while (out.back() == '0') out.pop_back();
  }
  return out;
}

std::string format_decimal(double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.15g", value);
  if (std::strchr(buf, 'e') == nullptr) return buf;
  // parse_decimal (as Slurm's) reads no exponent: the same 15 digits, written out in place.
  std::snprintf(buf, sizeof buf, "%.14e", value);  // d.dddddddddddddde[+-]XX
  std::string text = buf;
  bool negative = text[0] == '-';
  if (negative) text.erase(0, 1);
  auto e = text.find('e');
  int exponent = std::atoi(text.c_str() + e + 1);
  std::string digits = text.substr(0, 1) + text.substr(2, e - 2);
  std::string out;
  if (exponent < 0)
    out = "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
  else if (static_cast<size_t>(exponent) + 1 >= digits.size())
    out = digits + std::string(static_cast<size_t>(exponent) + 1 - digits.size(), '0');
  else
    out = digits.substr(0, static_cast<size_t>(exponent) + 1) + "." +
          digits.substr(static_cast<size_t>(exponent) + 1);
  if (out.find('.') != std::string::npos) {
    while (out.back() == '0') out.pop_back();
    if (out.back() == '.') out.pop_back();
  }
  return negative ? "-" + out : out;
}

std::string quote_if_needed(const std::string& value) {
  bool needs = value.empty();
  std::string plain;
  for (char c : value) {
    if (c == '"') continue;
    if (is_blank(c) || c == '#' || c == '=') needs = true;  // "a=b" after "Key = " reads as a pair
    plain += c;
  }
  return needs ? "\"" + plain + "\"" : plain;
}

}  // namespace shoal::config::config_syntax
