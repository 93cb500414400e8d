#include "tools/cli/usage.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <vector>

namespace shoal::cli {

namespace {

constexpr size_t usage_width = 80;

std::string lowered(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

/// What the value is called: the option's own type name when it has one (TIME, N, MINUTES), or
/// else its long name ("--account" takes an "account").
std::string value_word(const CLI::Option& o) {
  auto type = o.get_type_name();
  static const std::vector<std::string> generic = {"", "TEXT", "UINT", "INT", "FLOAT", "NUMBER"};
  auto colon = type.find(':');
  auto bare = type.substr(0, colon);
  if (std::find(generic.begin(), generic.end(), bare) == generic.end() && bare.front() != '[')
    return lowered(bare);
  if (!o.get_lnames().empty()) return o.get_lnames().front();
  return "value";
}

std::string value_item(const CLI::Option& o) {
  bool optional = o.get_expected_min() == 0;
  auto word = value_word(o);
  if (!o.get_snames().empty()) {
    auto flag = "-" + o.get_snames().front();
    return "[" + flag + (optional ? "[" + word + "]" : " " + word) + "]";
  }
  auto flag = "--" + o.get_lnames().front();
  return "[" + flag + (optional ? "[=" + word + "]" : "=" + word) + "]";
}

std::string positional_item(const CLI::Option& o) {
  auto text = o.get_name(true, false);
  if (o.get_items_expected_max() > 1) text += "...";
  return o.get_required() ? text : "[" + text + "]";
}

/// What a command that takes the rest of its line as a program (CLI11's prefix command) runs,
/// in the words of Slurm's own usage lines.
std::string program_item(const CLI::App& cmd) {
  if (!cmd.get_prefix_command()) return "";
  auto name = cmd.get_name();
  if (name == "run") return "executable [args...]";
  if (name == "batch") return "[script [args...]]";
  return "[command [args...]]";
}

}  // namespace

void add_usage_flag(CLI::App& cmd) {
  const CLI::App* self = &cmd;
  cmd.add_flag_callback(
         "--usage", [self] { throw usage_requested{self}; }, "Print a brief usage message and exit")
      ->trigger_on_parse();
}

std::string brief_usage(const CLI::App& cmd, const std::string& name) {
  std::vector<std::string> items, long_flags, positionals;
  std::string short_flags;
  for (const CLI::Option* o : cmd.get_options()) {
    if (o->get_group().empty()) continue;  // hidden
    if (o->get_positional()) {
      positionals.push_back(positional_item(*o));
      continue;
    }
    bool takes_value = o->get_expected_max() > 0;
    if (takes_value)
      items.push_back(value_item(*o));
    else if (!o->get_snames().empty())
      short_flags += o->get_snames().front();
    else if (!o->get_lnames().empty())
      long_flags.push_back("[--" + o->get_lnames().front() + "]");
  }
  items.insert(items.end(), long_flags.begin(), long_flags.end());
  if (!short_flags.empty()) {
    std::sort(short_flags.begin(), short_flags.end(), [](char a, char b) {
      auto la = std::tolower(static_cast<unsigned char>(a));
      auto lb = std::tolower(static_cast<unsigned char>(b));
      return la != lb ? la < lb : a > b;  // as Slurm's [-ahjlrsv]: lower case first
    });
    items.push_back("[-" + short_flags + "]");
  }
  items.insert(items.end(), positionals.begin(), positionals.end());
  if (auto program = program_item(cmd); !program.empty()) items.push_back(program);
  std::string out = "Usage: " + name;
  const std::string indent(out.size(), ' ');
  size_t line_start = 0;
  bool first_on_line = true;
  for (auto& item : items) {
    if (!first_on_line && out.size() - line_start + 1 + item.size() > usage_width) {
      out += "\n" + indent;
      line_start = out.size() - indent.size();
    }
    out += " " + item;
    first_on_line = false;
  }
  return out + "\n";
}

std::string option_settings(const CLI::App& cmd) {
  std::map<std::string, std::string> settings;
  for (const CLI::Option* o : cmd.get_options()) {
    if (o->get_group().empty() || o == cmd.get_help_ptr()) continue;
    auto key = o->get_positional()       ? o->get_name(true, false)
               : o->get_lnames().empty() ? o->get_snames().front()
                                         : o->get_lnames().front();
    if (key == "usage") continue;
    std::replace(key.begin(), key.end(), '-', '_');
    std::string value;
    if (o->get_expected_max() == 0) {
      value = o->count() == 0 ? "false" : o->count() == 1 ? "true" : std::to_string(o->count());
      if (key == "verbose") value = std::to_string(o->count());
    } else {
      for (auto& r : o->results()) value += (value.empty() ? "" : ",") + r;
      if (o->count() == 0) value = "(null)";
    }
    settings[key] = value;
  }
  const std::string rule = "-----------------------------\n";
  std::string out = rule;
  for (auto& [key, value] : settings) {
    auto padded = key;
    if (padded.size() < 12) padded.resize(12, ' ');
    out += padded + "= " + value + "\n";
  }
  return out + rule;
}

}  // namespace shoal::cli
