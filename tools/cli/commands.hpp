#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace shoal::cli {

/// Each command registers its subcommand and options on the app, and returns the function that
/// runs it after parsing (returning the process exit code).
using command_runner = std::function<int()>;

command_runner add_run_command(CLI::App& app, const std::string& conf);
command_runner add_batch_command(CLI::App& app, const std::string& conf);
/// Run as `sbatch`: output files default to Slurm's names (slurm-%j.out, slurm-%A_%a.out for an
/// array) instead of shoal's (shoal-%j.out), so scripts and the people reading them find them.
void use_slurm_output_names();
command_runner add_alloc_command(CLI::App& app, const std::string& conf);
command_runner add_queue_command(CLI::App& app, const std::string& conf);
command_runner add_prio_command(CLI::App& app, const std::string& conf);
command_runner add_info_command(CLI::App& app, const std::string& conf);
command_runner add_cancel_command(CLI::App& app, const std::string& conf);
command_runner add_control_command(CLI::App& app, const std::string& conf);
command_runner add_map_command(CLI::App& app, const std::string& conf);
command_runner add_start_command(CLI::App& app);
command_runner add_top_command(CLI::App& app, const std::string& conf);
command_runner add_diag_command(CLI::App& app, const std::string& conf);
/// `shoal acct` (sacct): the jobs the controller still holds, in sacct's format.
command_runner add_acct_command(CLI::App& app, const std::string& conf);
/// `shoal acctmgr` (sacctmgr): clusters, accounts, users and QOS in the accounting store.
command_runner add_acctmgr_command(CLI::App& app, const std::string& conf);
/// `shoal stat` (sstat, also `shoal sstat`): what a running job's steps used so far.
command_runner add_stat_command(CLI::App& app, const std::string& conf);
/// `shoal share` (sshare, also `shoal sshare`): the associations' fair-share figures.
command_runner add_share_command(CLI::App& app, const std::string& conf);

}  // namespace shoal::cli
