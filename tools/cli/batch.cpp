// `shoal batch`: sbatch. Queues a script to run on the first node of its allocation, with its
// output in a file, and prints "Submitted batch job N".

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <optional>
#include <thread>

#include "messages/caf/type_ids.hpp"
#include "tools/cli/batch_script.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/input_env.hpp"
#include "tools/cli/job_options.hpp"
#include "tools/cli/session.hpp"
#include "tools/cli/task_density.hpp"
#include "tools/cli/will_run.hpp"

namespace shoal::cli {

namespace {
bool slurm_output_names = false;
}  // namespace

void use_slurm_output_names() {
  slurm_output_names = true;
}

namespace {

/// sbatch's MAX_WAIT_SLEEP_TIME: -W polls at most this far apart.
constexpr int max_wait_sleep_s = 32;

/// What sbatch -W exits with for one finished job: its exit status, or 1 when a signal ended
/// it (WIFEXITED ? WEXITSTATUS : 1).
int wait_exit_code(const msg::job_info& job) {
  return job.exit_signal != 0 ? 1 : job.exit_code;
}

/// sbatch -W (sbatch.c's _job_wait): polls the job (every task of an array) after 2 s, then 4
/// times longer each time up to 32 s (growing no more once past MinJobAge / 2, so a finished
/// job is seen before the controller forgets it), until every part has finished; returns the
/// highest exit code. A job the controller no longer knows gives 0, as in sbatch. While no
/// controller answers (a restart, a failover), it says so and keeps polling.
int wait_for_job(session& s, uint64_t id, bool array) {
  int sleep_s = 2;
  for (;;) {
    std::this_thread::sleep_for(std::chrono::seconds{sleep_s});
    if (sleep_s < s.conf.min_job_age_s / 2 && sleep_s < max_wait_sleep_s)
      sleep_s = std::min(sleep_s * 4, max_wait_sleep_s);
    std::vector<msg::job_info> parts;
    if (array) {
      auto all = ask<std::vector<msg::job_info>>(s, msg::jobs_atom_v, true);
      if (!all) {
        warn(s.cmd,
             "Currently unable to load job state information, retrying: " + describe(all.error()));
        continue;
      }
      for (auto& j : *all)
        if (j.job_id == id || j.array_job_id == id) parts.push_back(std::move(j));
    } else {
      auto one = ask<msg::job_info>(s, msg::jobs_atom_v, id);
      if (!one && one.error() == errc::unknown_job) {
        fail(s.cmd, "Job " + std::to_string(id) + " no longer found and exit code not found");
        return 0;
      }
      if (!one) {
        warn(s.cmd,
             "Currently unable to load job state information, retrying: " + describe(one.error()));
        continue;
      }
      parts.push_back(std::move(*one));
    }
    if (parts.empty()) {
      fail(s.cmd, "Job " + std::to_string(id) + " no longer found and exit code not found");
      return 0;
    }
    int code = 0;
    bool complete = true;
    for (auto& part : parts) {
      if (!msg::is_finished(part.state)) complete = false;
      code = std::max(code, wait_exit_code(part));
    }
    if (complete) return code;
  }
}

/// The script sbatch reads (sbatch.c's _get_script_buffer): the file `path`, or standard input
/// when `path` is empty. A directory or /dev/null reads as empty, as there.
std::optional<std::string> read_script(const std::string& path) {
  int fd = path.empty() ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY);
  if (fd < 0) {
    fail("batch", "Unable to open file " + path);
    return std::nullopt;
  }
  std::string text;
  char buf[65536];
  for (;;) {
    auto n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  if (!path.empty()) ::close(fd);
  return text;
}

/// Where a directive of `script` fails to parse: "PATH:LINE: bad #SBATCH line: WHY" for the first
/// line that fails on its own, or `whole` (the error of all of them together) when none does.
std::string bad_directive(const std::string& path, const std::string& script,
                          const std::string& whole) {
  for (auto& line : script_directive_lines(script)) {
    CLI::App one{"one directive line"};
    job_options ignored;
    add_job_options(one, ignored, true);
    try {
      std::vector<std::string> reversed(line.words.rbegin(), line.words.rend());
      one.parse(reversed);
    } catch (const CLI::ParseError& e) {
      return (path.empty() ? std::string{"stdin"} : path) + ":" + std::to_string(line.number) +
             ": bad " + line.tag + " line: " + e.what();
    }
  }
  return (path.empty() ? std::string{"stdin"} : path) + ": bad directive: " + whole;
}

}  // namespace

command_runner add_batch_command(CLI::App& app, const std::string& conf) {
  auto* cmd = app.add_subcommand("batch", "Queue a batch script (sbatch)");
  auto opts = std::make_shared<job_options>();
  add_job_options(*cmd, *opts, true);
  add_clusters_option(*cmd);
  cmd->prefix_command();
  const char* output = slurm_output_names ? "slurm-%j.out" : "shoal-%j.out";
  if (auto* o = cmd->get_option_no_throw("--output"))
    o->description(std::string{"Output file (default: "} + output +
                   "; %j job id, %u user, %x job name, %A array job id, %a array task id)");
  cmd->footer(
      "Usage: shoal batch [OPTIONS] [SCRIPT [ARGS...]]\n"
      "       shoal batch [OPTIONS] --wrap=COMMAND\n"
      "Without SCRIPT the script is read from standard input. #SHOAL (or #SBATCH) lines at\n"
      "the top of the script set options; the command line wins. Output goes to\n" +
      std::string{output} + " (an array's to " +
      (slurm_output_names ? "slurm-%A_%a.out" : "shoal-%A_%a.out") +
      ") in the current directory.\n"
      "Options shoal recognises but cannot act on (--hint, a\n"
      "--distribution other than block or cyclic, the options marked \"Accepted with a\n"
      "warning\") print one warning each (none under -Q) and are ignored.\n"
      "With -W it exits when the job ends, with the job's exit code; with --test-only\n"
      "it submits nothing and prints when and where the job would start.");
  return [cmd, opts, &conf]() -> int {
    std::vector<std::string> args;
    for (auto& extra : cmd->remaining()) args.push_back(extra);
    // Options end where the command starts; an unknown option is a usage error, not a command.
    if (!args.empty() && args.front().size() > 1 && args.front()[0] == '-')
      return fail("batch", "unrecognized option '" + args.front() + "'", exit_usage);
    std::string script;
    std::string path;
    if (!opts->wrap.empty()) {
      // sbatch's own wording and check: --wrap is the whole script.
      if (!args.empty())
        return fail("batch", "Script arguments not permitted with --wrap option", exit_usage);
      script = wrap_script(opts->wrap);
    } else {
      // No script named: it comes on standard input, as sbatch reads it.
      if (!args.empty()) {
        path = args.front();
        args.erase(args.begin());
      }
      auto text = read_script(path);
      if (!text) return exit_failure;
      auto faults = script_faults(*text);
      for (auto& line : faults) fail("batch", line);
      if (!faults.empty()) return exit_failure;
      script = std::move(*text);
    }
    // #SHOAL lines set options, SBATCH_* variables override them, and the command line wins
    // (sbatch's order): parse them in that order, each on top of the last.
    auto directives = script_directives(script);
    if (!directives.empty() || !input_env_options("batch", *cmd).empty()) {
      CLI::App from_script{"#SHOAL directives"};
      auto script_opts = std::make_shared<job_options>();
      add_job_options(from_script, *script_opts, true);
      try {
        std::vector<std::string> reversed(directives.rbegin(), directives.rend());
        from_script.parse(reversed);
      } catch (const CLI::ParseError& e) {
        return fail("batch", bad_directive(path, script, e.what()), exit_usage);
      }
      if (!script_opts->wrap.empty())
        return fail("batch", path + ": --wrap cannot be given in a #SBATCH or #SHOAL line",
                    exit_usage);
      if (auto bad = apply_input_env("batch", from_script, true); !bad.empty())
        return fail("batch", bad, exit_usage);
      apply_command_line(from_script, *cmd);
      *opts = *script_opts;
    }
    if (auto bad = refused_count(*opts)) {
      if (bad->submission && opts->test_only)
        return refuse_estimate(shoal::error(errc::invalid_request, bad->text));
      return fail("batch", (bad->submission ? "Batch job submission failed: " : "") + bad->text,
                  bad->exit_code);
    }
    auto req = build_request(*opts, args, true);
    if (!req) return fail("batch", describe(req.error()), exit_usage);
    for (auto& note : ignored_option_notes(*opts)) warn("batch", note);
    req->script = std::move(script);
    if (slurm_output_names && req->stdout_path.empty())
      req->stdout_path = req->workload.array.empty() ? "slurm-%j.out" : "slurm-%A_%a.out";
    if (req->name.empty())
      req->name = !opts->wrap.empty() ? "wrap"
                  : path.empty()      ? "sbatch"
                                      : path.substr(path.rfind('/') + 1);
    int code = 0;
    auto s = open_session("batch", conf, code);
    if (!s) return code;
    if (auto err = apply_task_density(*s, *opts, *req)) {
      if (opts->test_only) return refuse_estimate(err);
      return fail("batch", err == errc::unsatisfiable
                               ? before_last_line("Batch job submission failed: ", describe(err))
                               : describe(err));
    }
    if (opts->test_only) return print_start_estimate(*s, std::move(*req), "sbatch");
    bool array = !req->workload.array.empty();
    auto info = ask<msg::job_info>(*s, msg::submit_atom_v, std::move(*req));
    // sbatch's words, which scripts look for.
    if (!info)
      return fail("batch",
                  before_last_line("Batch job submission failed: ", describe(info.error())));
    if (opts->parsable)
      std::printf("%llu\n", static_cast<unsigned long long>(info->job_id));
    else
      std::printf("Submitted batch job %llu\n", static_cast<unsigned long long>(info->job_id));
    if (!opts->wait) return 0;
    std::fflush(stdout);
    return wait_for_job(*s, info->job_id, array);
  };
}

}  // namespace shoal::cli
