#include "tools/cli/slurm_names.hpp"

namespace shoal::cli {

const std::vector<slurm_name>& slurm_names() {
  // One entry per line, its name first: CMake reads the names from these lines.
  // clang-format off
  static const std::vector<slurm_name> names = {
    {"sbatch", "batch", "", ""},
    {"srun", "run", "", ""},
    {"salloc", "alloc", "", ""},
    {"squeue", "queue", "", ""},
    {"sinfo", "info", "", ""},
    {"scancel", "cancel", "", ""},
    {"scontrol", "control", "", ""},
    {"sacct", "acct", "", ""},
    {"sacctmgr", "acctmgr", "", ""},
    {"sstat", "stat", "", ""},
    {"sshare", "share", "", ""},
    {"sprio", "prio", "", ""},
    {"sdiag", "diag", "", ""},
    {"smap", "map", "", ""},
  };
  // clang-format on
  return names;
}

const slurm_name* find_slurm_name(std::string_view invoked) {
  for (auto& n : slurm_names())
    if (invoked == n.name) return &n;
  return nullptr;
}

std::string as_invoked(std::string help, const slurm_name& name, const std::string& invoked) {
  if (*name.leading != '\0') return help;
  auto ours = std::string{"shoal "} + name.subcommand;
  for (auto at = help.find(ours); at != std::string::npos; at = help.find(ours, at)) {
    auto end = at + ours.size();
    // Whole words only: `shoal run` must not match inside `shoal runx`.
    if (end < help.size() && help[end] != ' ' && help[end] != '\n' && help[end] != ')') {
      at = end;
      continue;
    }
    help.replace(at, ours.size(), invoked);
    at += invoked.size();
  }
  return help;
}

std::string one_usage(std::string help) {
  // CLI11's usage line: after the description, if there is one.
  auto generic = help.rfind("Usage:", 0) == 0 ? 0 : help.find("\nUsage:");
  if (generic == std::string::npos) return help;
  if (generic != 0) ++generic;
  auto generic_end = help.find('\n', generic);
  if (generic_end == std::string::npos) return help;
  auto own = help.find("\nUsage: ", generic_end);
  if (own == std::string::npos) return help;
  // The footer's usage: its "Usage:" line and the lines indented under it.
  auto end = help.find('\n', own + 1);
  while (end != std::string::npos && help.compare(end + 1, 7, "       ") == 0)
    end = help.find('\n', end + 1);
  if (end == std::string::npos) end = help.size();
  auto usage = help.substr(own + 1, end - own - 1);
  help.erase(own + 1, end == help.size() ? end - own - 1 : end - own);
  help.replace(generic, generic_end - generic, usage);
  return help;
}

std::string command_basename(std::string_view argv0) {
  auto slash = argv0.rfind('/');
  return std::string{slash == std::string_view::npos ? argv0 : argv0.substr(slash + 1)};
}

}  // namespace shoal::cli
