#include "tools/cli/batch_script.hpp"

#include <sstream>

namespace shoal::cli {

namespace {

std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (char c : text) {
    if (quote != 0) {
      if (c == quote)
        quote = 0;
      else
        word += c;
    } else if (c == '"' || c == '\'') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

}  // namespace

std::vector<directive_line> script_directive_lines(const std::string& script) {
  std::vector<directive_line> out;
  std::istringstream in{script};
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    auto start = line.find_first_not_of(" \t");
    if (start == std::string::npos) continue;
    if (line[start] != '#') break;
    for (const char* tag : {"#SHOAL", "#SBATCH"}) {
      if (line.compare(start, std::char_traits<char>::length(tag), tag) == 0)
        out.push_back(
            {number, tag, split_words(line.substr(start + std::char_traits<char>::length(tag)))});
    }
  }
  return out;
}

std::vector<std::string> script_directives(const std::string& script) {
  std::vector<std::string> out;
  for (auto& line : script_directive_lines(script))
    out.insert(out.end(), line.words.begin(), line.words.end());
  return out;
}

void apply_command_line(CLI::App& script, const CLI::App& cmd) {
  // Every option, not a hand-kept list: one left out of such a list (a --dependency given on the
  // command line of a script with #SBATCH lines) was silently dropped.
  for (const CLI::Option* given : cmd.get_options()) {
    if (given->count() == 0) continue;
    CLI::Option* target = script.get_option_no_throw(given->get_name());
    if (target == nullptr) continue;
    target->clear();
    for (const auto& value : given->results()) target->add_result(value);
    target->run_callback();
  }
}

/// sbatch's checks of a script before anything is submitted, in its words (one error line
/// each); empty when the script may go.
std::vector<std::string> script_faults(const std::string& script) {
  if (script.empty()) return {"Batch script is empty!"};
  if (script.find_first_not_of(" \t\n\v\f\r") == std::string::npos)
    return {"Batch script contains only whitespace!"};
  if (script.compare(0, 2, "#!") != 0)
    return {"This does not look like a batch script.  The first",
            "line must start with #! followed by the path to an interpreter.",
            "For instance: #!/bin/sh"};
  if (script.find('\0') != std::string::npos)
    return {"The Slurm controller does not allow scripts that", "contain a NULL character '\\0'."};
  if (script.find("\r\n") != std::string::npos)
    return {"Batch script contains DOS line breaks (\\r\\n)",
            "instead of expected UNIX line breaks (\\n)."};
  return {};
}

}  // namespace shoal::cli
