#pragma once

// The options Slurm's commands read from the environment ("INPUT ENVIRONMENT VARIABLES" of
// sbatch, srun and salloc, Slurm 22.05): SBATCH_PARTITION for `shoal batch`, SLURM_NTASKS for
// `shoal run`, SALLOC_TIMELIMIT for `shoal alloc`. They override a script's #SBATCH lines and
// are overridden by the command line, as in Slurm.

#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "tools/cli/job_options.hpp"

namespace shoal::cli {

/// The command-line words the environment sets for `command` ("batch", "run" or "alloc"), in
/// table order: `--partition=debug` for SBATCH_PARTITION=debug, `--exclusive` for a flag
/// variable that is set (to anything; Slurm reads such a flag's presence). Only options `app`
/// declares are given, so a variable for an option this build lacks is skipped. Inside a job
/// (SLURM_JOB_ID or SHOAL_JOB_ID set), `run` ignores SLURM_JOB_NAME, as srun does, so steps
/// are not all named after the batch job.
std::vector<std::string> input_env_options(std::string_view command, const CLI::App& app);

/// Puts the environment's options for `command` on top of what `lower` (an app made by
/// add_job_options, holding the layer beneath: a script's #SBATCH lines, or nothing) already
/// has, as apply_command_line does. Returns "" or, when a variable's value does not parse, one
/// line saying which (a usage error).
std::string apply_input_env(std::string_view command, CLI::App& lower, bool batch);

/// For `shoal run` and `shoal alloc`, which read no script: `opts` (what `cmd` parsed) with the
/// environment's options beneath the command line's. As srun does, a node count that came from
/// the environment (SLURM_NNODES inside a batch job) yields to a smaller `-n` or to `-w` given
/// on the command line, and a task count from the environment yields to a larger `-N`. Returns
/// "" or the error of apply_input_env.
std::string layer_input_env(std::string_view command, CLI::App& cmd, job_options& opts, bool alloc);

}  // namespace shoal::cli
