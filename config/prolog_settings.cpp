#include "config/prolog_settings.hpp"

#include <string_view>

#include "config/config_parser.hpp"
#include "config/config_syntax.hpp"

namespace shoal::config {

namespace cs = config_syntax;

namespace {

/// PrologFlags: the words of Slurm 22.05 shoal acts on or accepts, in Slurm's spelling.
constexpr std::string_view flag_names[] = {"Alloc", "Contain", "NoHold", "Serial"};

bool apply_flags(prolog_settings& s, const std::string& value, std::string& error) {
  s.alloc = s.contain = s.no_hold = s.serial = false;
  s.flags.clear();
  if (value.empty() || cs::to_lower(value) == "none") return true;
  for (auto& word : parsing::split_list(value)) {
    const std::string_view* known = nullptr;
    for (const auto& name : flag_names)
      if (cs::to_lower(std::string{name}) == cs::to_lower(word)) known = &name;
    if (known == nullptr) {
      error = "unknown flag '" + word + "' (use Alloc, Contain, NoHold or Serial)";
      return true;
    }
    s.flags.emplace_back(*known);
    if (*known == "Alloc") s.alloc = true;
    if (*known == "Contain") s.alloc = s.contain = true;  // Slurm's Contain implies Alloc
    if (*known == "NoHold") s.no_hold = true;
    if (*known == "Serial") s.serial = true;
  }
  return true;
}

}  // namespace

bool apply_prolog_key(prolog_settings& s, const std::string& k, const std::string& value,
                      std::string& error) {
  std::string* program = k == "prolog"            ? &s.prolog
                         : k == "epilog"          ? &s.epilog
                         : k == "prologslurmctld" ? &s.prolog_ctld
                         : k == "epilogslurmctld" ? &s.epilog_ctld
                         : k == "taskprolog"      ? &s.task_prolog
                         : k == "taskepilog"      ? &s.task_epilog
                                                  : nullptr;
  if (program != nullptr) {
    // Slurm runs these without a shell: an absolute path (empty: none).
    if (!value.empty() && value.front() != '/')
      error = "an absolute path to a program (Slurm runs it without a shell)";
    else
      *program = value;
    return true;
  }
  if (k == "prologflags") return apply_flags(s, value, error);
  if (k == "prologepilogtimeout") {
    auto n = cs::parse_unsigned(value, 65535);
    if (!n)
      error = "whole seconds from 0 (no limit) to 65535";
    else
      s.timeout_s = *n == 65535 ? 0 : static_cast<int64_t>(*n);  // Slurm's 65535: INFINITE
    return true;
  }
  return false;
}

std::vector<std::pair<std::string, std::string>> render_prolog_keys(const prolog_settings& s) {
  std::vector<std::pair<std::string, std::string>> out;
  auto add_if = [&](const char* key, const std::string& value) {
    if (!value.empty()) out.emplace_back(key, value);
  };
  add_if("Epilog", s.epilog);
  add_if("EpilogSlurmctld", s.epilog_ctld);
  add_if("Prolog", s.prolog);
  std::string flags;
  for (const auto& f : s.flags) flags += (flags.empty() ? "" : ",") + f;
  add_if("PrologFlags", flags);
  out.emplace_back("PrologEpilogTimeout", std::to_string(s.timeout_s));
  add_if("PrologSlurmctld", s.prolog_ctld);
  add_if("TaskEpilog", s.task_epilog);
  add_if("TaskProlog", s.task_prolog);
  return out;
}

}  // namespace shoal::config
