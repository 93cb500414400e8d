#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "tools/cli/job_options.hpp"

namespace shoal::cli {

/// The option words of a script's `#SHOAL` lines (and, for scripts written for Slurm, its
/// `#SBATCH` lines), read as sbatch does: from the top until the first line that is neither
/// blank nor a comment. Words split on blanks; double or single quotes group words.
std::vector<std::string> script_directives(const std::string& script);

/// Copies into `base` every option the user gave on the command line (`given`, parsed by `cmd`),
/// so the command line overrides the script's directives.
void merge_unset(job_options& base, const job_options& given, const CLI::App& cmd);

}  // namespace shoal::cli
