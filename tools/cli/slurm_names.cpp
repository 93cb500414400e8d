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
    {"sprio", "queue", "--priority", ""},
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

std::string command_basename(std::string_view argv0) {
  auto slash = argv0.rfind('/');
  return std::string{slash == std::string_view::npos ? argv0 : argv0.substr(slash + 1)};
}

}  // namespace shoal::cli
