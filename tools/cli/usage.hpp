#pragma once

// Slurm's --usage: a brief synopsis of a command's options, generated from the command's own
// option definitions so that it lists exactly what the command accepts.

#include <string>

#include <CLI/CLI.hpp>

namespace shoal::cli {

/// Thrown when --usage is parsed (at once, as getopt would act on it); main prints the usage.
struct usage_requested {
  const CLI::App* command;
};

/// Adds --usage to `cmd`: it stops the parse with usage_requested, whatever follows.
void add_usage_flag(CLI::App& cmd);

/// "Usage: NAME [-A account] [--begin=time] ... [-ahv] [filter...]", as Slurm's --usage reads:
/// options with a value first (the short name when there is one, the value named after the
/// long name), then long flags, then the short flags in one bracket, then the positionals;
/// wrapped at 80 columns under the first item.
std::string brief_usage(const CLI::App& cmd, const std::string& name);

/// The block squeue -v and sinfo -v print before their listing: every option of `cmd` as it
/// was parsed, one "name        = value" line each in name order, between dashed lines. A flag
/// reads true or false (-v, given more than once, its count); an option not given, (null).
std::string option_settings(const CLI::App& cmd);

}  // namespace shoal::cli
