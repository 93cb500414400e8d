// `shoal run`: srun. Allocates nodes (or, inside a job, a step on part of them), starts the
// command on every node and streams its output until it ends.

#include <csignal>
#include <cstdlib>
#include <thread>

#include <caf/all.hpp>

#include "messages/type_ids.hpp"
#include "runtime/bootstrap/controller_client.hpp"
#include "runtime/bootstrap/shutdown.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/job_options.hpp"
#include "tools/cli/run_client.hpp"
#include "tools/cli/session.hpp"

namespace shoal::cli {

namespace {

/// Turns terminal signals into messages for the client: the first Ctrl-C is passed to the tasks,
/// a second within a second cancels the job (srun's behaviour).
void watch_signals(caf::actor client) {
  std::thread{[client] {
    auto set = runtime::shutdown_signals();
    auto last_interrupt = std::chrono::steady_clock::time_point{};
    for (;;) {
      int signo = 0;
      if (sigwait(&set, &signo) != 0) return;
      auto now = std::chrono::steady_clock::now();
      if (signo == SIGINT && now - last_interrupt < std::chrono::seconds{1}) {
        caf::anon_send(client, msg::cancel_atom_v);
        continue;
      }
      if (signo == SIGINT) {
        last_interrupt = now;
        std::fputs("shoal: interrupt (one more within 1 sec to abort)\n", stderr);
      }
      caf::anon_send(client, msg::signal_atom_v, int32_t{signo});
    }
  }}.detach();
}

}  // namespace

command_runner add_run_command(CLI::App& app, const std::string& conf) {
  auto* cmd = app.add_subcommand("run", "Run a parallel command on allocated nodes (srun)");
  auto opts = std::make_shared<job_options>();
  add_job_options(*cmd, *opts, false);
  cmd->prefix_command();
  cmd->footer(
      "Usage: shoal run [OPTIONS] COMMAND [ARGS...]\n"
      "Inside a job (SHOAL_JOB_ID set) it starts a step on the job's nodes.\n"
      "Example: shoal run -N2 -n4 -l hostname");
  return [cmd, opts, &conf]() -> int {
    std::vector<std::string> argv;
    for (auto& extra : cmd->remaining()) argv.push_back(extra);
    // Options end where the command starts; an unknown option is a usage error, not a command.
    if (!argv.empty() && argv.front().size() > 1 && argv.front()[0] == '-')
      return fail("run", "unrecognized option '" + argv.front() + "'", exit_usage);
    if (argv.empty())
      return fail("run", "no command given (shoal run [OPTIONS] COMMAND [ARGS...])", exit_usage);
    auto req = build_request(*opts, argv, false);
    if (!req) return fail("run", describe(req.error()), exit_usage);
    if (opts->jobid != 0) {
      req->job_id = opts->jobid;
    } else if (const char* env = std::getenv("SHOAL_JOB_ID"); env != nullptr && *env != '\0') {
      req->job_id = std::strtoull(env, nullptr, 10);
    }
    // Before any thread exists, so only the watcher thread ever takes these signals.
    runtime::block_shutdown_signals();
    int code = 0;
    auto s = open_actor_session("run", conf, code);
    if (!s) return code;
    auto result = std::make_shared<std::promise<int>>();
    auto done = result->get_future();
    auto client = spawn_run_client(*s->sys, s->controller, std::move(*req), result,
                                   runtime::controller_lines(s->conf));
    watch_signals(client);
    quit_process(done.get());
  };
}

}  // namespace shoal::cli
