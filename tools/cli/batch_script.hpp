#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "tools/cli/job_options.hpp"

namespace shoal::cli {

/// One directive line of a script: where it is, its tag, and its option words.
struct directive_line {
  int number = 0;   ///< 1-based line number in the script
  std::string tag;  ///< "#SBATCH" or "#SHOAL"
  std::vector<std::string> words;
};

/// The directive lines script_directives reads, one entry per line, so errors can name it.
std::vector<directive_line> script_directive_lines(const std::string& script);

/// The option words of a script's `#SHOAL` lines (and, for scripts written for Slurm, its
/// `#SBATCH` lines), read as sbatch does: from the top until the first line that is neither
/// blank nor a comment. Words split on blanks; double or single quotes group words.
std::vector<std::string> script_directives(const std::string& script);

/// Gives every option the user set on the command line (`cmd`, parsed) to the same option of
/// `script` (which parsed the directives), as if typed there last, so the command line wins.
/// Options `script` does not declare are skipped.
void apply_command_line(CLI::App& script, const CLI::App& cmd);

/// sbatch's checks of a script before anything is submitted, in its words (one error line
/// each); empty when the script may go. shoalrestd's submissions get the same.
std::vector<std::string> script_faults(const std::string& script);

}  // namespace shoal::cli
