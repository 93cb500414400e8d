// `shoal run`: srun. Allocates nodes (or, inside a job, a step on part of them), starts the
// command on every node and streams its output until it ends.

#include <strings.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "config/mpi_type.hpp"
#include "process/step_io.hpp"
#include "runtime/bootstrap/shutdown.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/input_env.hpp"
#include "tools/cli/job_options.hpp"
#include "tools/cli/run_client.hpp"
#include "tools/cli/session.hpp"
#include "tools/cli/task_density.hpp"
#include "tools/cli/will_run.hpp"
#include "topology/hostlist.hpp"

namespace shoal::cli {

namespace {

/// srun's --prolog and --epilog (srun_job.c's _run_srun_script): `program` run here with the
/// command's words as its arguments and SLURM_SCRIPT_CONTEXT=`context`; its exit status, 0 for
/// "none" or a program that cannot be run (srun only notes that), 1 when it did not exit.
int run_srun_script(const std::string& program, const char* context,
                    const std::vector<std::string>& argv) {
  if (program.empty() || strcasecmp(program.c_str(), "none") == 0) return 0;
  if (::access(program.c_str(), R_OK | X_OK) != 0) {
    std::fprintf(stderr, "%s: Access denied for %s: %s\n", program_name().c_str(), program.c_str(),
                 std::strerror(errno));
    return 0;
  }
  std::vector<char*> args{const_cast<char*>(program.c_str())};
  for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t child = ::fork();
  if (child < 0) return 1;
  if (child == 0) {
    // The waiter blocks the shutdown signals; the script gets them as any program would.
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::setenv("SLURM_SCRIPT_CONTEXT", context, 1);
    ::execv(program.c_str(), args.data());
    _exit(127);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0)
    if (errno != EINTR) return 0;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/// srun -r: the step's nodes, from the allocation's node `relative` on (srun's _validate_relative
/// and step_mgr's pick). An exit code after srun's message when it cannot be.
std::optional<int> apply_relative(const CLI::App& cmd, job_options& o) {
  if (o.relative < 0) return std::nullopt;
  if (!o.nodelist.empty() || !o.exclude.empty())
    return fail("run", "-r,--relative not allowed with -w,--nodelist or -x,--exclude.");
  const char* job = std::getenv("SHOAL_JOB_ID");
  if (job == nullptr || *job == '\0') job = std::getenv("SLURM_JOB_ID");
  const char* nodelist = std::getenv("SLURM_JOB_NODELIST");
  if (job == nullptr || *job == '\0' || nodelist == nullptr)
    return fail("run", "--relative option invalid for job allocation request");
  auto nodes = topology::expand_hostlist(nodelist);
  if (!nodes) return fail("run", describe(nodes.error()));
  uint32_t wanted =
      o.nodes.empty() ? 1 : static_cast<uint32_t>(std::strtoul(o.nodes.c_str(), nullptr, 10));
  auto first = static_cast<size_t>(o.relative);
  if (first + wanted > nodes->size())
    return fail("run", std::string{"--relative and "} +
                           (cmd.count("-N") > 0 ? "--nodes" : "SLURM_JOB_NUM_NODES") +
                           " option incompatible with count of allocated nodes (" +
                           std::to_string(first) + "+" + std::to_string(wanted) + ">" +
                           std::to_string(nodes->size()) + ")");
  for (size_t i = first; i < first + wanted; ++i)
    o.nodelist += (o.nodelist.empty() ? "" : ",") + (*nodes)[i];
  return std::nullopt;
}

/// srun's input, terminal and task-exit options as the step carries them (msg::step_io).
/// Error: errc::invalid_request naming the option.
shoal::expected<msg::step_io> step_io_for(const job_options& o, const msg::job_request& req) {
  msg::step_io io;
  auto lower = o.input;
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  bool task_id = !o.input.empty() && o.input.size() <= 9 &&
                 o.input.find_first_not_of("0123456789") == std::string::npos;
  if (o.pty) {
    if (!o.input.empty() && o.input != "0")
      return shoal::error(errc::invalid_request, "--pty takes its input at task 0 (no --input)");
    io.input = "0";
    io.pty = true;
    winsize size{};
    if (::ioctl(0, TIOCGWINSZ, &size) == 0) {
      io.pty_rows = size.ws_row;
      io.pty_cols = size.ws_col;
    }
  } else if (o.input.empty()) {
    io.input = "0";
  } else if (lower == "all" || lower == "none") {
    io.input = lower;
  } else if (task_id) {
    io.input = std::to_string(std::strtoul(o.input.c_str(), nullptr, 10));
    auto rank = std::strtoul(o.input.c_str(), nullptr, 10);
    if (req.ntasks > 0 && rank >= req.ntasks)
      return shoal::error(errc::invalid_request, "--input=" + o.input + ": task id out of range (" +
                                                     std::to_string(req.ntasks) + " tasks)");
  } else {
    io.input = "none";
    io.input_file = o.input;
  }
  io.output = o.output;
  io.error = o.error;
  if (o.pty && (!o.output.empty() || !o.error.empty()))
    return shoal::error(errc::invalid_request, "--pty takes task 0's output here (no -o/-e)");
  io.unbuffered = o.unbuffered;
  if (!o.kill_on_bad_exit.empty() && o.kill_on_bad_exit != "0" && o.kill_on_bad_exit != "1")
    return shoal::error(errc::invalid_request,
                        "--kill-on-bad-exit=" + o.kill_on_bad_exit + ": use 0 or 1");
  io.kill_on_bad_exit = o.kill_on_bad_exit == "1";
  if (!o.no_kill.empty() && o.no_kill != "on" && o.no_kill != "off")
    return shoal::error(errc::invalid_request, "--no-kill=" + o.no_kill + ": use off");
  io.chdir_required = !o.chdir.empty();
  // Slurm runs these on the node as typed: a relative path names a file in the task's directory.
  io.task_prolog = o.task_prolog;
  io.task_epilog = o.task_epilog;
  if (o.multi_prog) {
    if (req.argv.size() != 1)
      return shoal::error(errc::invalid_request,
                          "--multi-prog takes one configuration file and nothing after it");
    std::ifstream in(req.argv.front());
    if (!in)
      return shoal::error(errc::invalid_request, "--multi-prog: cannot read " + req.argv.front());
    std::stringstream text;
    text << in.rdbuf();
    io.multi_prog = text.str();
    if (auto bad = process::check_multi_prog(io.multi_prog, req.ntasks))
      return shoal::error(errc::invalid_request,
                          "--multi-prog: " + req.argv.front() + ": " + describe(bad));
  }
  return io;
}

/// --mpi=TYPE (or SLURM_MPI_TYPE), as srun checks it before anything is sent: 0 when the step
/// may start, else the exit code after saying why and listing the types shoal has. Empty: not
/// given (MpiDefault= decides, once the config is read).
int refuse_mpi_type(const std::string& type) {
  if (type.empty()) return 0;
  switch (config::classify_mpi_type(type)) {
    case config::mpi_type_kind::runs:
      return 0;
    case config::mpi_type_kind::not_serving:
      // Refused rather than run as none: each rank would start as a singleton of size 1 and
      // compute alone, which looks like success.
      if (type.rfind("pmix_v", 0) == 0) {
        fail("run",
             "--mpi=" + type +
                 ": shoal's PMIx server is PMIx 4 (OpenPMIx): use --mpi=pmix or --mpi=pmix_v4",
             exit_usage);
        break;
      }
      fail("run",
           "--mpi=" + type +
               ": shoal runs no such PMI server, so ranks started by srun would not find each "
               "other; use --mpi=pmix (Open MPI) or --mpi=pmi2 (MPICH) (docs/mpi.md)",
           exit_usage);
      break;
    case config::mpi_type_kind::unknown:
      fail("run", "Invalid MPI type '" + type + "', --mpi=list for acceptable types", exit_usage);
      break;
  }
  std::fputs(config::mpi_type_list().c_str(), stderr);
  return exit_usage;
}

/// srun -v's first lines: the options that shape the step.
void print_defined_options(const job_options& o, const msg::job_request& req) {
  auto line = [](const std::string& name, const std::string& value) {
    auto padded = name;
    padded.resize(20, ' ');
    std::fprintf(stderr, "srun: %s: %s\n", padded.c_str(), value.c_str());
  };
  std::fputs("srun: defined options\n", stderr);
  std::fputs("srun: -------------------- --------------------\n", stderr);
  if (!o.chdir.empty()) line("chdir", req.cwd);
  if (!o.input.empty()) line("input", o.input);
  if (req.io.kill_on_bad_exit) line("kill-on-bad-exit", "1");
  if (req.label) line("label", "set");
  if (req.ntasks > 0) line("ntasks", std::to_string(req.ntasks));
  if (!o.nodes.empty()) line("nodes", o.nodes);
  if (o.pty) line("pty", "set");
  if (o.unbuffered) line("unbuffered", "set");
  line("verbose", std::to_string(o.verbose));
  std::fputs("srun: -------------------- --------------------\n", stderr);
  std::fputs("srun: end of defined options\n", stderr);
}

}  // namespace

command_runner add_run_command(CLI::App& app, const std::string& conf) {
  auto* cmd = app.add_subcommand("run", "Run a parallel command on allocated nodes (srun)");
  auto opts = std::make_shared<job_options>();
  add_job_options(*cmd, *opts, false);
  add_clusters_option(*cmd);
  cmd->prefix_command();
  cmd->footer(
      "Usage: shoal run [OPTIONS] COMMAND [ARGS...]\n"
      "Inside a job (SHOAL_JOB_ID set) it starts a step on the job's nodes.\n"
      "With --test-only it runs nothing and prints when and where a new job would start.\n"
      "When the controller restarts or fails over, it waits for it (up to five minutes) and\n"
      "attaches to its job (or step) again; the tasks run on.\n"
      "Options shoal recognises but cannot act on (--hint, a\n"
      "--distribution other than block or cyclic, --open-mode, the options marked\n"
      "\"Accepted with a warning\") print one warning each (none under -Q).\n"
      "Example: shoal run -N2 -n4 -l hostname");
  return [cmd, opts, &conf]() -> int {
    std::vector<std::string> argv;
    for (auto& extra : cmd->remaining()) argv.push_back(extra);
    // As srun: the list needs no command.
    if (opts->mpi == "list") {
      std::fputs(config::mpi_type_list().c_str(), stdout);
      return 0;
    }
    // Options end where the command starts; an unknown option is a usage error, not a command.
    if (!argv.empty() && argv.front().size() > 1 && argv.front()[0] == '-')
      return fail("run", "unrecognized option '" + argv.front() + "'", exit_usage);
    if (argv.empty())
      return fail("run", "no command given (shoal run [OPTIONS] COMMAND [ARGS...])", exit_usage);
    if (auto bad = layer_input_env("run", *cmd, *opts, false); !bad.empty())
      return fail("run", bad, exit_usage);
    if (auto code = refuse_mpi_type(opts->mpi); code != 0) return code;
    if (auto code = apply_relative(*cmd, *opts)) return *code;
    if (auto bad = refused_count(*opts)) {
      if (bad->submission && opts->test_only)
        return refuse_estimate(shoal::error(errc::invalid_request, bad->text));
      return fail("run", (bad->submission ? "Unable to allocate resources: " : "") + bad->text,
                  bad->exit_code);
    }
    auto req = build_request(*opts, argv, false);
    if (!req) return fail("run", describe(req.error()), exit_usage);
    auto io = step_io_for(*opts, *req);
    if (!io) return fail("run", describe(io.error()), exit_usage);
    req->io = std::move(*io);
    req->io.mpi = opts->mpi;
    for (auto& note : ignored_option_notes(*opts)) warn("run", note);
    if (!opts->no_kill.empty())
      warn("run", "--no-kill is accepted, but a node that fails still ends the job");
    if (opts->overcommit) warn("run", "--overcommit is accepted, but each task still needs a CPU");
    if (!opts->open_mode.empty() && opts->output.empty() && opts->error.empty())
      warn("run", "--open-mode is ignored without -o or -e (shoal run writes no other files)");
    if (opts->test_only) {
      // Always a new job's start: --test-only asks the scheduler, and a step asks no one.
      int code = 0;
      auto s = open_session("run", conf, code);
      if (!s) return code;
      if (auto err = apply_task_density(*s, *opts, *req)) return refuse_estimate(err);
      return print_start_estimate(*s, std::move(*req), "srun");
    }
    if (opts->jobid != 0) {
      req->job_id = opts->jobid;
    } else if (const char* env = std::getenv("SHOAL_JOB_ID"); env != nullptr && *env != '\0') {
      req->job_id = std::strtoull(env, nullptr, 10);
    }
    if (int rc = run_srun_script(opts->srun_prolog, "prolog_srun", argv); rc != 0)
      return fail("run", "srun prolog failed rc = " + std::to_string(rc) + ". Aborting step.");
    // Read through a signalfd by the waiter (run_client.hpp), not delivered.
    runtime::block_shutdown_signals();
    int code = 0;
    auto s = open_session("run", conf, code);
    if (!s) return code;
    if (auto err = apply_task_density(*s, *opts, *req))
      return fail("run", err == errc::unsatisfiable && req->job_id == 0
                             ? before_last_line("Unable to allocate resources: ", describe(err))
                             : describe(err));
    bool default_runs =
        config::classify_mpi_type(s->conf.mpi_default) == config::mpi_type_kind::runs;
    if (req->io.mpi.empty() && default_runs) req->io.mpi = s->conf.mpi_default;
    if (opts->mpi.empty() && !default_runs)
      warn("run", "MpiDefault=" + s->conf.mpi_default +
                      ": shoal runs no such PMI server yet, so the tasks start as with --mpi=none "
                      "(mpirun inside an allocation works; docs/mpi.md)");
    if (opts->verbose > 0) print_defined_options(*opts, *req);
    run_options how;
    how.verbose = opts->verbose;
    how.disable_status = opts->disable_status;
    how.quit_on_interrupt = opts->quit_on_interrupt;
    how.immediate = req->job_id == 0 ? std::max(0, opts->immediate) : 0;
    int result = run_and_wait(*s, std::move(*req), how);
    if (int rc = run_srun_script(opts->srun_epilog, "epilog_srun", argv); rc != 0)
      fail("run", "srun epilog failed status=" + std::to_string(rc));
    return result;
  };
}

}  // namespace shoal::cli
