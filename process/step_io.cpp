#include "process/step_io.hpp"

#include <cctype>
#include <cstdlib>
#include <optional>

namespace shoal::process {

std::string expand_io_pattern(const std::string& pattern, const io_pattern_values& v) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%' || i + 1 == pattern.size()) {
      out += pattern[i];
      continue;
    }
    size_t j = i + 1;
    size_t width = 0;
    while (j < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[j])) != 0)
      width = width * 10 + static_cast<size_t>(pattern[j++] - '0');
    if (j == pattern.size()) {
      out += pattern.substr(i);
      break;
    }
    auto padded = [&](uint64_t n) {
      auto text = std::to_string(n);
      if (text.size() < width) text.insert(0, width - text.size(), '0');
      return text;
    };
    switch (pattern[j]) {
      case '%':
        out += '%';
        break;
      case 'j':
        out += padded(v.job_id);
        break;
      case 'J':
        out += padded(v.job_id) + "." + std::to_string(v.step_id);
        break;
      case 's':
        out += padded(v.step_id);
        break;
      case 't':
        out += padded(v.rank);
        break;
      case 'n':
        out += padded(v.node_id);
        break;
      case 'N':
        out += v.node_name;
        break;
      case 'u':
        out += v.user;
        break;
      case 'x':
        out += v.job_name;
        break;
      default:
        out += pattern.substr(i, j - i + 1);
        break;
    }
    i = j;
  }
  return out;
}

namespace {

/// One line of a --multi-prog file, cut into words.
struct prog_line {
  size_t number = 0;  ///< 1-based, the first physical line it spans
  std::vector<std::string> words;
};

shoal::error line_error(size_t number, const std::string& what) {
  return shoal::error(errc::invalid_request, "line " + std::to_string(number) + ": " + what);
}

/// The logical lines of `text` (continuations joined, comments and blank lines dropped), each
/// cut into words with quotes removed.
shoal::expected<std::vector<prog_line>> read_lines(const std::string& text) {
  std::vector<prog_line> out;
  size_t number = 0;
  size_t pos = 0;
  std::string logical;
  size_t first = 0;
  while (pos < text.size()) {
    auto end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    auto line = text.substr(pos, end - pos);
    pos = end + 1;
    ++number;
    if (logical.empty()) first = number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    bool continued = !line.empty() && line.back() == '\\';
    if (continued) line.pop_back();
    logical += line;
    if (continued) {
      logical += ' ';
      continue;
    }
    auto start = logical.find_first_not_of(" \t");
    if (start == std::string::npos || logical[start] == '#') {
      logical.clear();
      continue;
    }
    prog_line parsed;
    parsed.number = first;
    std::string word;
    bool in_word = false;
    char quote = 0;
    for (char c : logical) {
      if (quote != 0) {
        if (c == quote)
          quote = 0;
        else
          word += c;
      } else if (c == '\'' || c == '"') {
        quote = c;
        in_word = true;
      } else if (c == ' ' || c == '\t') {
        if (in_word) parsed.words.push_back(std::move(word));
        word.clear();
        in_word = false;
      } else {
        word += c;
        in_word = true;
      }
    }
    if (quote != 0) return line_error(first, "unterminated quote");
    if (in_word) parsed.words.push_back(std::move(word));
    if (parsed.words.size() < 2) return line_error(first, "a task list needs a program after it");
    out.push_back(std::move(parsed));
    logical.clear();
  }
  return out;
}

/// The ranks `spec` names, in order ("1-3,5" -> 1 2 3 5); nullopt for `*`.
shoal::expected<std::optional<std::vector<uint32_t>>> parse_ranks(const std::string& spec,
                                                                  size_t number) {
  if (spec == "*") return std::optional<std::vector<uint32_t>>{};
  std::vector<uint32_t> ranks;
  size_t pos = 0;
  while (pos <= spec.size()) {
    auto end = spec.find(',', pos);
    if (end == std::string::npos) end = spec.size();
    auto item = spec.substr(pos, end - pos);
    auto dash = item.find('-');
    auto number_of = [&](const std::string& s) -> std::optional<uint32_t> {
      if (s.empty() || s.size() > 9) return std::nullopt;
      for (char c : s)
        if (std::isdigit(static_cast<unsigned char>(c)) == 0) return std::nullopt;
      return static_cast<uint32_t>(std::strtoul(s.c_str(), nullptr, 10));
    };
    auto low = number_of(item.substr(0, dash));
    auto high = dash == std::string::npos ? low : number_of(item.substr(dash + 1));
    if (!low || !high || *high < *low || *high - *low > 1'000'000)
      return line_error(number, "invalid task list '" + spec + "'");
    for (auto r = *low; r <= *high; ++r) ranks.push_back(r);
    pos = end + 1;
  }
  return std::optional<std::vector<uint32_t>>{std::move(ranks)};
}

/// `word` with %t (the task id) and %o (its offset on its line) replaced.
std::string substitute(const std::string& word, uint32_t rank, uint32_t offset) {
  std::string out;
  for (size_t i = 0; i < word.size(); ++i) {
    if (word[i] == '%' && i + 1 < word.size() && (word[i + 1] == 't' || word[i + 1] == 'o')) {
      out += std::to_string(word[i + 1] == 't' ? rank : offset);
      ++i;
    } else {
      out += word[i];
    }
  }
  return out;
}

}  // namespace

shoal::expected<std::vector<std::string>> multi_prog_argv(const std::string& text, uint32_t rank) {
  auto lines = read_lines(text);
  if (!lines) return std::move(lines.error());
  for (auto& line : *lines) {
    auto ranks = parse_ranks(line.words.front(), line.number);
    if (!ranks) return std::move(ranks.error());
    uint32_t offset = rank;
    if (*ranks) {
      auto& list = **ranks;
      size_t i = 0;
      while (i < list.size() && list[i] != rank) ++i;
      if (i == list.size()) continue;
      offset = static_cast<uint32_t>(i);
    }
    std::vector<std::string> argv;
    for (size_t w = 1; w < line.words.size(); ++w)
      argv.push_back(substitute(line.words[w], rank, offset));
    return argv;
  }
  return shoal::error(errc::invalid_request,
                      "no line of the configuration file names task " + std::to_string(rank));
}

shoal::error check_multi_prog(const std::string& text, uint32_t ntasks) {
  auto lines = read_lines(text);
  if (!lines) return std::move(lines.error());
  if (lines->empty()) return shoal::error(errc::invalid_request, "the file names no task");
  for (auto& line : *lines) {
    auto ranks = parse_ranks(line.words.front(), line.number);
    if (!ranks) return std::move(ranks.error());
    if (ntasks == 0 || !*ranks) continue;
    for (auto r : **ranks)
      if (r >= ntasks)
        return line_error(line.number, "task id " + std::to_string(r) + " is out of range (" +
                                           std::to_string(ntasks) + " tasks)");
  }
  for (uint32_t r = 0; r < ntasks; ++r)
    if (auto argv = multi_prog_argv(text, r); !argv) return std::move(argv.error());
  return {};
}

}  // namespace shoal::process
