// `shoal alloc`: salloc. Gets an allocation, runs a command on this host with the allocation's
// variables set (SHOAL_JOB_ID, SLURM_JOB_ID, SLURM_JOB_NODELIST, ...), so that `shoal run`
// (srun) inside starts steps in it, and releases it when the command exits, with the command's
// exit status. Slurm's src/salloc/salloc.c is the model for its messages, signals and exit code.

#include <fcntl.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "messages/errc.hpp"
#include "messages/front_door.hpp"
#include "policy/warn_signal.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/input_env.hpp"
#include "tools/cli/job_options.hpp"
#include "tools/cli/session.hpp"
#include "tools/cli/task_density.hpp"
#include "topology/task_layout.hpp"

extern char** environ;

namespace shoal::cli {

namespace {

using clock = std::chrono::steady_clock;

/// salloc's DEFAULT_BELL_DELAY: without --bell or --no-bell, the bell rings when the allocation
/// took longer than this.
constexpr auto bell_delay = std::chrono::seconds{10};

/// What alloc does around the allocation, from salloc's own options.
struct alloc_settings {
  int immediate = 0;       ///< -I: give up after this many seconds; 0: wait as long as it takes
  bool bell = false;       ///< --bell
  bool no_bell = false;    ///< --no-bell
  int kill_signal = 0;     ///< -K: the command's signal when the allocation ends first; 0: default
  bool tasks_set = false;  ///< -n or --ntasks-per-node given: the command gets SLURM_NTASKS
};

/// salloc's _ring_terminal_bell, when its --bell/--no-bell and the wait say so.
void ring_bell(const alloc_settings& a, clock::duration waited) {
  bool ring = a.bell || (!a.no_bell && waited > bell_delay);
  if (!ring || ::isatty(STDOUT_FILENO) == 0) return;
  std::fputs("\a", stdout);
  std::fflush(stdout);
}

/// The signals alloc reads itself (salloc's sig_array, and SIGCHLD for the command's end).
sigset_t alloc_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGTERM, SIGUSR1, SIGUSR2, SIGCHLD})
    sigaddset(&set, sig);
  return set;
}

/// "salloc: TEXT" on stderr, as salloc's info() lines.
void say(const std::string& text) {
  std::fprintf(stderr, "salloc: %s\n", text.c_str());
  std::fflush(stderr);
}

/// One "salloc: error: LINE" for each line of `text`.
void say_error(const std::string& text) {
  size_t start = 0;
  for (;;) {
    auto end = text.find('\n', start);
    say("error: " + text.substr(start, end == std::string::npos ? end : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
}

void set_env(std::vector<std::string>& env, const std::string& key, const std::string& value) {
  auto prefix = key + "=";
  for (auto& e : env)
    if (e.compare(0, prefix.size(), prefix) == 0) {
      e = prefix + value;
      return;
    }
  env.push_back(prefix + value);
}

class alloc_waiter {
 public:
  alloc_waiter(session& s, msg::job_request req, alloc_settings settings)
      : s_(s), req_(std::move(req)), settings_(settings) {}

  int run() {
    auto asked_at = clock::now();
    auto signals = alloc_signals();
    signal_fd_ = ::signalfd(-1, &signals, SFD_CLOEXEC);
    auto request = msg::make_client_request(msg::client_op::run);
    request.submission = req_;
    auto stream = open_stream(s_, request, false);
    if (!stream) {
      say_error("Job submit/allocate failed: " + describe(stream.error()));
      return 1;
    }
    conn_ = std::move(*stream);
    run_request_ = std::move(request);
    // Until the allocation is granted (or refused, or given up).
    std::optional<clock::time_point> give_up;
    if (settings_.immediate > 0) give_up = asked_at + std::chrono::seconds{settings_.immediate};
    while (!allocated_) {
      if (ended_ || failed_) return 1;
      int timeout = conn_.connected() ? -1 : 1000;
      if (give_up) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*give_up - clock::now());
        if (left.count() <= 0) return not_granted_in_time();
        timeout = timeout < 0 ? static_cast<int>(left.count())
                              : std::min<int>(timeout, static_cast<int>(left.count()));
      }
      if (!wait_once(timeout)) return 1;
    }
    say("Granted job allocation " + std::to_string(job_id_));
    ring_bell(settings_, clock::now() - asked_at);
    if (!start_command()) {
      release(1, 0);
      return 1;
    }
    while (!command_done_) wait_once(conn_.connected() ? -1 : 1000);
    if (interactive_) give_terminal_back();
    if (!ended_) release(exit_code_of(status_), signal_of(status_));
    if (hung_up_) return 1;  // salloc: its waitpid was interrupted, rc stays 1
    if (WIFEXITED(status_)) return WEXITSTATUS(status_);
    if (WIFSIGNALED(status_)) {
      // salloc: these most likely came from the user, so they are a normal exit.
      switch (WTERMSIG(status_)) {
        case SIGHUP:
        case SIGINT:
        case SIGQUIT:
        case SIGKILL:
          return 0;
        default:
          return 1;
      }
    }
    return 1;
  }

 private:
  static int32_t exit_code_of(int status) {
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return 0;
  }

  static int32_t signal_of(int status) { return WIFSIGNALED(status) ? WTERMSIG(status) : 0; }

  /// -I: the allocation did not come in time. salloc then gives the job back (a job still
  /// pending ends) and says why, in slurmctld's words for -I alone, with the timeout's
  /// (ETIMEDOUT) for -I<SECS>.
  int not_granted_in_time() {
    if (job_id_ != 0) cancel();
    say_error("Unable to allocate resources: " + (settings_.immediate == 1
                                                      ? immediate_refusal(queued_reason_)
                                                      : std::string{"Connection timed out"}));
    return 1;
  }

  /// Waits for one thing to happen (a frame, a signal, `timeout_ms` passing) and handles it.
  /// False when waiting for the allocation must stop (the controller could not be found).
  bool wait_once(int timeout_ms) {
    pollfd fds[2] = {{signal_fd_, POLLIN, 0}, {conn_.connected() ? conn_.fd() : -1, POLLIN, 0}};
    int n = ::poll(fds, 2, timeout_ms);
    if (n < 0 && errno != EINTR) {
      say_error(std::string{"poll: "} + std::strerror(errno));
      return false;
    }
    if (n > 0 && fds[0].revents != 0) on_signal();
    if (n > 0 && fds[1].fd >= 0 && fds[1].revents != 0) {
      auto frame = conn_.receive(msg::frame_patience);
      if (!frame) return on_connection_lost();
      on_frame(*frame);
    }
    if (!conn_.connected() && !ended_) return on_connection_lost();
    return true;
  }

  // -- the controller's news --------------------------------------------------------------------

  void on_frame(msg::client_reply& frame) {
    switch (static_cast<msg::client_stream>(frame.stream)) {
      case msg::client_stream::reply:
        return on_reply(frame);
      case msg::client_stream::event:
        return on_event(frame.event);
      case msg::client_stream::output:
      case msg::client_stream::step_exit:
        return;  // an allocation has no main step: its steps' clients get their own
    }
  }

  void on_reply(msg::client_reply& reply) {
    if (reply.error_code != 0) {
      auto code = static_cast<errc>(reply.error_code);
      if (code == errc::not_in_control && job_id_ == 0 && !attaching_) {
        auto stream = open_stream(s_, run_request_, true);
        if (!stream) return fail_with("Job submit/allocate failed: " + describe(stream.error()));
        conn_ = std::move(*stream);
        return;
      }
      if (attaching_ && code != errc::unknown_job && code != errc::permission_denied &&
          code != errc::authentication_failed) {
        conn_ = runtime::front_door_client{};  // try again in a moment
        return;
      }
      if (job_id_ == 0)
        return fail_with(before_last_line("Job submit/allocate failed: ", reply.error_text));
      return fail_with(reply.error_text);
    }
    if (reply.jobs.empty()) return;
    const auto& info = reply.jobs.front();
    if (!attaching_) {
      job_id_ = info.job_id;
      return;
    }
    attaching_ = false;
    lost_at_.reset();
    say("reattached to job allocation " + std::to_string(job_id_) +
        " after the controller restarted");
    if (msg::is_finished(info.state)) revoked(info.state);
  }

  void on_event(const msg::job_event& ev) {
    if (job_id_ == 0) job_id_ = ev.job_id;  // the news may come before the request's reply
    auto id = std::to_string(ev.job_id);
    if (ev.kind == "queued") {
      if (queued_) return;
      queued_ = true;
      queued_reason_ = ev.text;
      // -I alone: slurmctld refuses at once, and salloc never says it waits.
      if (settings_.immediate == 1) return;
      say("Pending job allocation " + id);
      say("job " + id + " queued and waiting for resources");
    } else if (ev.kind == "allocated") {
      if (queued_) say("job " + id + " has been allocated resources");
      allocated_ = true;
      nodelist_ = ev.nodelist;
      node_count_ = ev.node_count;
    } else if (ev.kind == "message") {
      // The time limit's banner is the tasks' (srun prints it); salloc words its own below.
      if (ev.text.rfind("*** ", 0) != 0) say(ev.text);
    } else if (ev.kind == "ended") {
      revoked(ev.state);
    }
  }

  /// The controller ended the job (scancel, the time limit, a node failure; or our own release
  /// coming back): salloc's _job_complete_handler.
  void revoked(msg::job_state state) {
    if (ended_) return;
    ended_ = true;
    if (released_) return;  // our own release
    if (!allocated_) {
      say("Job allocation " + std::to_string(job_id_) + " has been revoked.");
      return;
    }
    if (state == msg::job_state::timeout)
      say("Job " + std::to_string(job_id_) +
          " has exceeded its time limit and its allocation has been revoked.");
    else
      say("Job allocation " + std::to_string(job_id_) + " has been revoked.");
    // -K's signal; without it, as salloc built with its default SALLOC_KILL_CMD: SIGHUP for an
    // interactive command (a shell at a terminal), SIGTERM otherwise.
    int signo =
        settings_.kill_signal != 0 ? settings_.kill_signal : (interactive_ ? SIGHUP : SIGTERM);
    if (command_pid_ > 0 && !command_done_) ::kill(-command_pid_, signo);
  }

  /// Returns false when the wait is over (failed_ set).
  bool on_connection_lost() {
    conn_ = runtime::front_door_client{};
    if (ended_ || (released_ && command_done_)) return true;
    if (job_id_ == 0) {
      fail_with("Job submit/allocate failed: lost the connection to the controller");
      return false;
    }
    if (!lost_at_) {
      lost_at_ = clock::now();
      say("lost the connection to the controller; job " + std::to_string(job_id_) +
          " keeps its allocation, waiting for the controller to return");
    }
    if (clock::now() - *lost_at_ > job_client_patience) {
      fail_with("the controller did not come back within " + job_client_patience_text() +
                "; giving up on job " + std::to_string(job_id_) +
                " (it may still hold its nodes: see shoal queue)");
      if (command_pid_ > 0 && !command_done_) ::kill(-command_pid_, SIGTERM);
      ended_ = true;
      return false;
    }
    auto attach = msg::make_client_request(msg::client_op::attach);
    attach.job_id = job_id_;
    auto stream = open_stream(s_, attach, true);
    if (stream) {
      conn_ = std::move(*stream);
      attaching_ = true;
    }
    return true;
  }

  void fail_with(const std::string& text) {
    say_error(text);
    failed_ = true;
  }

  // -- signals -------------------------------------------------------------------------------

  void on_signal() {
    signalfd_siginfo info{};
    if (::read(signal_fd_, &info, sizeof info) != static_cast<ssize_t>(sizeof info)) return;
    auto signo = static_cast<int>(info.ssi_signo);
    if (signo == SIGCHLD) return reap();
    if (!allocated_) {
      // salloc's _signal_while_allocating: the request is withdrawn.
      if (job_id_ != 0) cancel();
      say("Job aborted due to signal");
      failed_ = true;
      return;
    }
    if (command_done_) return;
    if (signo == SIGHUP) {
      // salloc's _exit_on_signal: the command hears it, and salloc stops waiting for it.
      if (command_pid_ > 0) ::kill(-command_pid_, SIGHUP);
      hung_up_ = true;
      command_done_ = true;
      status_ = 0;
      return;
    }
    // The others end the allocation; the command is told when the end comes back (revoked).
    if (!ended_) cancel();
  }

  void reap() {
    if (command_pid_ <= 0 || command_done_) return;
    int status = 0;
    auto pid = ::waitpid(command_pid_, &status, WNOHANG);
    if (pid != command_pid_) return;
    status_ = status;
    command_done_ = true;
  }

  void cancel() {
    auto req = msg::make_client_request(msg::client_op::cancel);
    req.target = std::to_string(job_id_);
    req.uid = static_cast<uint32_t>(::getuid());
    if (auto reply = call(s_, req); !reply)
      say_error("Unable to cancel job allocation " + std::to_string(job_id_) + ": " +
                describe(reply.error()));
  }

  /// salloc's slurm_complete_job: the allocation ends with the command's status.
  void release(int32_t code, int32_t signo) {
    say("Relinquishing job allocation " + std::to_string(job_id_));
    released_ = true;
    auto req = msg::make_client_request(msg::client_op::complete);
    req.job_id = job_id_;
    req.exit_code = code;
    req.signo = signo;
    auto since = clock::now();
    for (;;) {
      auto reply = call(s_, req);
      if (reply) return;
      // call() waited MessageTimeout for a controller in control; a restart may take longer.
      bool unreachable = reply.error() == errc::unreachable;
      if (!unreachable || clock::now() - since > job_client_patience) {
        say_error("Unable to clean up job allocation " + std::to_string(job_id_) + ": " +
                  describe(reply.error()));
        return;
      }
    }
  }

  // -- the command ---------------------------------------------------------------------------

  std::vector<std::string> command_environment(const msg::job_info& job) {
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
    auto id = std::to_string(job_id_);
    auto nodes = std::to_string(node_count_);
    std::string cwd = req_.cwd;
    set_env(env, "SHOAL_JOB_ID", id);
    set_env(env, "SHOAL_JOB_NODELIST", nodelist_);
    set_env(env, "SHOAL_JOB_NUM_NODES", nodes);
    set_env(env, "SHOAL_NNODES", nodes);
    set_env(env, "SHOAL_JOB_NAME", job.name);
    set_env(env, "SHOAL_JOB_PARTITION", job.partition);
    set_env(env, "SHOAL_SUBMIT_DIR", cwd);
    if (!s_.conf.path.empty()) {
      char full[PATH_MAX];
      set_env(env, "SHOAL_CONF",
              ::realpath(s_.conf.path.c_str(), full) != nullptr ? full : s_.conf.path);
    }
    // salloc's tasks: only when -n or --ntasks-per-node was given (JOB_NTASKS_SET), with
    // --ntasks-per-node times the nodes, or at least one a node.
    uint32_t ntasks = 0;
    auto per_node = req_.workload.ntasks_per_node;
    if (!settings_.tasks_set)
      ntasks = 0;
    else if (per_node > 0 && req_.ntasks == 0)
      ntasks = node_count_ * per_node;
    else if (req_.ntasks > 0)
      ntasks = std::max(req_.ntasks, node_count_);
    if (ntasks > 0) set_env(env, "SHOAL_NTASKS", std::to_string(ntasks));
    if (!s_.conf.slurm_env) return env;
    // Slurm's env_array_for_job, as salloc sets it.
    set_env(env, "SLURM_JOB_ID", id);
    set_env(env, "SLURM_JOBID", id);
    set_env(env, "SLURM_JOB_NAME", job.name);
    set_env(env, "SLURM_JOB_NODELIST", nodelist_);
    set_env(env, "SLURM_NODELIST", nodelist_);
    set_env(env, "SLURM_JOB_NUM_NODES", nodes);
    set_env(env, "SLURM_NNODES", nodes);
    set_env(env, "SLURM_JOB_PARTITION", job.partition);
    set_env(env, "SLURM_SUBMIT_DIR", cwd);
    set_env(env, "SLURM_CLUSTER_NAME", s_.conf.cluster_name);
    if (ntasks > 0) {
      set_env(env, "SLURM_NTASKS", std::to_string(ntasks));
      set_env(env, "SLURM_NPROCS", std::to_string(ntasks));
    }
    // Always, as Slurm's env_array_for_job sets it ("needed by MPI": mpirun and Hydra take their
    // slots from it): without a task count, the job's own, one task a node.
    if (node_count_ > 0)
      set_env(env, "SLURM_TASKS_PER_NODE",
              topology::compress_counts(
                  topology::block_task_counts(ntasks > 0 ? ntasks : node_count_, node_count_)));
    if (req_.cpus_per_task > 0)
      set_env(env, "SLURM_CPUS_PER_TASK", std::to_string(req_.cpus_per_task));
    return env;
  }

  bool start_command() {
    msg::job_info job;
    if (auto info = ask<msg::job_info>(s_, msg::jobs_atom_v, job_id_)) job = std::move(*info);
    if (nodelist_.empty()) nodelist_ = job.nodelist;
    if (node_count_ == 0) node_count_ = job.node_count;
    auto env = command_environment(job);
    // salloc's job control: a command at a terminal gets its own process group in the
    // foreground, so that Ctrl-C reaches it and not the allocation.
    interactive_ = ::isatty(STDIN_FILENO) && ::tcgetpgrp(STDIN_FILENO) == ::getpgrp();
    std::vector<char*> argv;
    for (auto& a : req_.argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    auto pid = ::fork();
    if (pid < 0) {
      say_error(std::string{"fork: "} + std::strerror(errno));
      return false;
    }
    if (pid == 0) {
      ::setpgid(0, 0);
      auto none = alloc_signals();
      ::sigprocmask(SIG_UNBLOCK, &none, nullptr);
      ::execvpe(argv[0], argv.data(), envp.data());
      std::fprintf(stderr, "salloc: error: Unable to exec command \"%s\": %s\n", argv[0],
                   std::strerror(errno));
      std::_Exit(1);
    }
    ::setpgid(pid, pid);
    command_pid_ = pid;
    if (interactive_) {
      std::signal(SIGTTOU, SIG_IGN);
      ::tcsetpgrp(STDIN_FILENO, pid);
    }
    return true;
  }

  void give_terminal_back() { ::tcsetpgrp(STDIN_FILENO, ::getpgrp()); }

  session& s_;
  msg::job_request req_;
  alloc_settings settings_;
  std::string queued_reason_;  ///< the scheduler's first reason for the wait
  msg::client_request run_request_;
  runtime::front_door_client conn_;
  int signal_fd_ = -1;
  uint64_t job_id_ = 0;
  std::string nodelist_;
  uint32_t node_count_ = 0;
  bool queued_ = false;
  bool allocated_ = false;
  bool ended_ = false;     ///< the job ended (revoked, or our release came back)
  bool released_ = false;  ///< we relinquished it
  bool failed_ = false;
  bool attaching_ = false;
  bool interactive_ = false;
  bool hung_up_ = false;
  pid_t command_pid_ = -1;
  bool command_done_ = false;
  int status_ = 0;
  std::optional<clock::time_point> lost_at_;
};

/// salloc --no-shell: the allocation, on its own. It is submitted without a client to hold it,
/// so it lasts until scancel, its time limit, or a node failure; alloc only waits for the
/// grant (polling as sbatch -W does, with salloc's words) and exits 0 once it is granted.
int allocate_without_shell(session& s, msg::job_request req, const alloc_settings& settings) {
  auto asked_at = clock::now();
  auto signals = alloc_signals();
  int signal_fd = ::signalfd(-1, &signals, SFD_CLOEXEC);
  auto info = ask<msg::job_info>(s, msg::submit_atom_v, std::move(req));
  if (!info) {
    say_error(before_last_line("Job submit/allocate failed: ", describe(info.error())));
    return 1;
  }
  auto id = info->job_id;
  auto text = std::to_string(id);
  std::optional<clock::time_point> give_up;
  if (settings.immediate > 0) give_up = asked_at + std::chrono::seconds{settings.immediate};
  bool said_pending = false;
  auto withdraw = [&] {
    auto cancel = msg::make_client_request(msg::client_op::cancel);
    cancel.target = text;
    cancel.uid = static_cast<uint32_t>(::getuid());
    if (auto reply = call(s, cancel); !reply)
      say_error("Unable to cancel job allocation " + text + ": " + describe(reply.error()));
  };
  for (int round = 0;; ++round) {
    if (info->state == msg::job_state::running) break;
    if (msg::is_finished(info->state)) {
      say("Job allocation " + text + " has been revoked.");
      return 1;
    }
    bool waiting = !info->reason.empty() && info->reason != "None";
    if (waiting && !said_pending && settings.immediate != 1) {
      said_pending = true;
      say("Pending job allocation " + text);
      say("job " + text + " queued and waiting for resources");
    }
    if (give_up && clock::now() >= *give_up) {
      withdraw();
      say_error("Unable to allocate resources: " + (settings.immediate == 1
                                                        ? immediate_refusal(info->reason)
                                                        : std::string{"Connection timed out"}));
      return 1;
    }
    // A tenth of a second at first (most grants come in the first scheduling pass), then 1 s.
    int wait_ms = round < 10 ? 100 : 1000;
    if (give_up)
      wait_ms = std::max<int>(
          1, std::min<int>(wait_ms,
                           static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                                *give_up - clock::now())
                                                .count())));
    pollfd fds[1] = {{signal_fd, POLLIN, 0}};
    if (::poll(fds, 1, wait_ms) > 0) {
      signalfd_siginfo sig{};
      if (::read(signal_fd, &sig, sizeof sig) == static_cast<ssize_t>(sizeof sig) &&
          sig.ssi_signo != SIGCHLD) {
        // salloc's _signal_while_allocating: the request is withdrawn.
        withdraw();
        say("Job aborted due to signal");
        return 1;
      }
    }
    auto now = ask<msg::job_info>(s, msg::jobs_atom_v, id);
    if (!now) continue;  // the controller away for a moment: keep asking
    info = std::move(now);
  }
  if (said_pending) say("job " + text + " has been allocated resources");
  say("Granted job allocation " + text);
  ring_bell(settings, clock::now() - asked_at);
  return 0;
}

}  // namespace

command_runner add_alloc_command(CLI::App& app, const std::string& conf) {
  auto* cmd = app.add_subcommand("alloc", "Get an allocation and run a command in it (salloc)");
  auto opts = std::make_shared<job_options>();
  add_job_options(*cmd, *opts, false, true);
  add_clusters_option(*cmd);
  cmd->prefix_command();
  cmd->footer(
      "Usage: shoal alloc [OPTIONS] [COMMAND [ARGS...]]\n"
      "Waits for the nodes, prints \"salloc: Granted job allocation N\" on stderr and runs\n"
      "COMMAND (default: $SHELL, else /bin/sh) on this host with SHOAL_JOB_ID, SLURM_JOB_ID,\n"
      "SLURM_JOB_NODELIST and the allocation's other variables set: `shoal run` (srun)\n"
      "inside starts steps on the allocation's nodes. When COMMAND exits, the allocation is\n"
      "released (COMPLETED, or FAILED for a nonzero status) and alloc exits with COMMAND's\n"
      "status. SIGINT, SIGTERM, SIGQUIT, SIGUSR1/2 end the allocation; when the allocation\n"
      "ends first (shoal cancel, the time limit), COMMAND gets SIGTERM (SIGHUP at a\n"
      "terminal).\n"
      "Example: shoal alloc -N2 -t 30 sh -c 'shoal run hostname'");
  return [cmd, opts, &conf]() -> int {
    std::vector<std::string> argv;
    for (auto& extra : cmd->remaining()) argv.push_back(extra);
    if (!argv.empty() && argv.front().size() > 1 && argv.front()[0] == '-')
      return fail("alloc", "unrecognized option '" + argv.front() + "'", exit_usage);
    if (auto bad = layer_input_env("alloc", *cmd, *opts, true); !bad.empty())
      return fail("alloc", bad, exit_usage);
    if (opts->no_shell) {
      // No command runs; the job's command shows as salloc's does, (null).
      argv = {"(null)"};
    } else if (argv.empty()) {
      const char* shell = std::getenv("SHELL");
      argv.emplace_back(shell != nullptr && *shell != '\0' ? shell : "/bin/sh");
    }
    alloc_settings settings;
    settings.immediate = std::max(0, opts->immediate);
    settings.bell = opts->bell;
    settings.no_bell = opts->no_bell;
    if (!opts->kill_command.empty()) {
      settings.kill_signal = policy::signal_number(opts->kill_command);
      if (settings.kill_signal <= 0)
        return fail("alloc", "Invalid --kill-command specification", exit_usage);
    }
    if (auto bad = refused_count(*opts))
      return fail("alloc", (bad->submission ? "Job submit/allocate failed: " : "") + bad->text,
                  bad->exit_code);
    auto req = build_request(*opts, argv, false);
    if (!req) return fail("alloc", describe(req.error()), exit_usage);
    for (auto& note : ignored_option_notes(*opts)) warn("alloc", note);
    req->workload.allocation = true;
    req->requeue = false;
    settings.tasks_set = req->ntasks > 0 || req->workload.ntasks_per_node > 0;
    if (req->name.empty())
      req->name = opts->no_shell ? "no-shell" : argv.front().substr(argv.front().rfind('/') + 1);
    // Read through a signalfd by the waiter, not delivered.
    auto signals = alloc_signals();
    ::sigprocmask(SIG_BLOCK, &signals, nullptr);
    int code = 0;
    auto s = open_session("alloc", conf, code);
    if (!s) return code;
    if (auto err = apply_task_density(*s, *opts, *req))
      return fail("alloc", err == errc::unsatisfiable
                               ? before_last_line("Job submit/allocate failed: ", describe(err))
                               : describe(err));
    // As salloc: the command (and the steps it starts) see the density it asked for.
    auto density = parse_task_density(*opts);
    if (density && density->per_core > 0)
      ::setenv("SLURM_NTASKS_PER_CORE", std::to_string(density->per_core).c_str(), 0);
    if (density && density->per_socket > 0)
      ::setenv("SLURM_NTASKS_PER_SOCKET", std::to_string(density->per_socket).c_str(), 0);
    if (opts->no_shell) return allocate_without_shell(*s, std::move(*req), settings);
    alloc_waiter waiter{*s, std::move(*req), settings};
    return waiter.run();
  };
}

}  // namespace shoal::cli
