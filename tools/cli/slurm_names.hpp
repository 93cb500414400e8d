#pragma once

// Slurm's command names for `shoal`: run as `sbatch` (a link to shoal), it is `shoal batch`.

#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

namespace shoal::cli {

/// The Slurm release whose commands, options and variables shoal follows, as `srun --version`
/// prints it after "slurm ".
inline constexpr const char* slurm_release = "22.05.11";

/// One of Slurm's command names and what `shoal` does when run under it.
struct slurm_name {
  const char* name;        ///< what the link is called, e.g. "sbatch"
  const char* subcommand;  ///< the shoal subcommand it runs, e.g. "batch"
  const char* leading;     ///< an argument put before the user's ("" for none)
  const char* missing;     ///< when `subcommand` does not exist: why, and what to use instead
};

/// Every Slurm command name shoal answers to. CMake makes a link for each (tools/CMakeLists.txt
/// reads the names from this table's definition, one `{"name", ...}` per line).
const std::vector<slurm_name>& slurm_names();

/// The entry for `invoked` (a basename such as "srun"), or nullptr when it is not a Slurm name.
const slurm_name* find_slurm_name(std::string_view invoked);

/// `help` (a subcommand's footer) with every `shoal SUBCOMMAND` written as `invoked`, so that
/// usage lines and examples name the command as it was run. Unchanged for a name that adds a
/// leading argument (sprio): there `shoal queue ...` is not what `sprio ...` runs.
std::string as_invoked(std::string help, const slurm_name& name, const std::string& invoked);

/// `help` with one usage: when a subcommand's footer gives its own "Usage:" lines (run, batch,
/// alloc, start), they replace CLI11's generic first line instead of following it.
std::string one_usage(std::string help);

/// CLI11's formatter, its help passed through one_usage.
class one_usage_formatter : public CLI::Formatter {
 public:
  std::string make_help(const CLI::App* app, std::string name,
                        CLI::AppFormatMode mode) const override {
    return one_usage(CLI::Formatter::make_help(app, std::move(name), mode));
  }
};

/// The last component of `argv0` ("sbatch" for "/usr/bin/sbatch").
std::string command_basename(std::string_view argv0);

}  // namespace shoal::cli
