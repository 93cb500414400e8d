// `shoal run`: srun. Allocates nodes (or, inside a job, a step on part of them), starts the
// command on every node and streams its output until it ends.

#include <cstdlib>

#include "runtime/bootstrap/shutdown.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/input_env.hpp"
#include "tools/cli/job_options.hpp"
#include "tools/cli/run_client.hpp"
#include "tools/cli/session.hpp"
#include "tools/cli/task_density.hpp"
#include "tools/cli/will_run.hpp"

namespace shoal::cli {

command_runner add_run_command(CLI::App& app, const std::string& conf) {
  auto* cmd = app.add_subcommand("run", "Run a parallel command on allocated nodes (srun)");
  auto opts = std::make_shared<job_options>();
  add_job_options(*cmd, *opts, false);
  cmd->prefix_command();
  cmd->footer(
      "Usage: shoal run [OPTIONS] COMMAND [ARGS...]\n"
      "Inside a job (SHOAL_JOB_ID set) it starts a step on the job's nodes.\n"
      "With --test-only it runs nothing and prints when and where a new job would start.\n"
      "When the controller restarts or fails over, it waits for it (up to five minutes) and\n"
      "attaches to its job (or step) again; the tasks run on.\n"
      "Options shoal recognises but cannot act on (--hint, a\n"
      "--distribution other than block or cyclic, --open-mode) print one warning each.\n"
      "Example: shoal run -N2 -n4 -l hostname");
  return [cmd, opts, &conf]() -> int {
    std::vector<std::string> argv;
    for (auto& extra : cmd->remaining()) argv.push_back(extra);
    // Options end where the command starts; an unknown option is a usage error, not a command.
    if (!argv.empty() && argv.front().size() > 1 && argv.front()[0] == '-')
      return fail("run", "unrecognized option '" + argv.front() + "'", exit_usage);
    if (argv.empty())
      return fail("run", "no command given (shoal run [OPTIONS] COMMAND [ARGS...])", exit_usage);
    if (auto bad = layer_input_env("run", *cmd, *opts, false); !bad.empty())
      return fail("run", bad, exit_usage);
    auto req = build_request(*opts, argv, false);
    if (!req) return fail("run", describe(req.error()), exit_usage);
    for (auto& note : ignored_option_notes(*opts)) warn("run", note);
    if (!opts->open_mode.empty()) warn("run", "--open-mode is ignored (shoal run writes no files)");
    if (opts->test_only) {
      // Always a new job's start: --test-only asks the scheduler, and a step asks no one.
      int code = 0;
      auto s = open_session("run", conf, code);
      if (!s) return code;
      if (auto err = apply_task_density(*s, *opts, *req)) return fail("run", describe(err));
      return print_start_estimate(*s, std::move(*req), "srun");
    }
    if (opts->jobid != 0) {
      req->job_id = opts->jobid;
    } else if (const char* env = std::getenv("SHOAL_JOB_ID"); env != nullptr && *env != '\0') {
      req->job_id = std::strtoull(env, nullptr, 10);
    }
    // Read through a signalfd by the waiter (run_client.hpp), not delivered.
    runtime::block_shutdown_signals();
    int code = 0;
    auto s = open_session("run", conf, code);
    if (!s) return code;
    if (auto err = apply_task_density(*s, *opts, *req)) return fail("run", describe(err));
    return run_and_wait(*s, std::move(*req));
  };
}

}  // namespace shoal::cli
