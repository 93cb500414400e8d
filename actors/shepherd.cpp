#include "actors/shepherd.hpp"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <utility>

#include <caf/all.hpp>

#include "actors/metering.hpp"
#include "config/log.hpp"
#include "messages/errc.hpp"
#include "messages/type_ids.hpp"
#include "process/memory_guard.hpp"
#include "process/task_launch.hpp"

namespace shoal::actors {

namespace {

using clock_type = std::chrono::steady_clock;
using namespace std::chrono_literals;

/// Largest task_output payload; a longer line is cut at this size.
constexpr size_t max_chunk = 64 * 1024;
/// Longest wait in poll(): bounds how late a signal message or a task exit is noticed.
constexpr auto poll_interval = 20ms;
/// A partial line waits this long for its newline before it is sent as is.
constexpr auto partial_line_delay = 50ms;
/// After the last task exited, its descendants may still hold the pipes: read this long more.
constexpr auto drain_limit = 200ms;

struct output_stream {
  explicit output_stream(msg::stream_kind k) : kind(k) {}
  msg::stream_kind kind;
  int fd = -1;
  std::string pending;
  bool has_partial = false;
  clock_type::time_point partial_since;
};

struct task_state {
  uint32_t rank = 0;
  pid_t pid = -1;        ///< -1: never started
  bool running = false;  ///< forked and not reaped yet
  int exit_fd = -1;      ///< pidfd: readable once the task exits, so poll() wakes at once
  msg::task_exit exit;
  output_stream out{msg::stream_kind::out};
  output_stream err{msg::stream_kind::err};
};

/// The state of one shepherd; lives on its detached thread's stack.
class shepherd {
 public:
  shepherd(caf::blocking_actor* self, msg::launch_request req, caf::actor sink, caf::actor job,
           std::string node_name, std::string shoal_conf, std::string own_path,
           std::vector<topology::core_info> cores, metrics::registry* meters)
      : self_(self),
        probe_(self, meters, "shepherd"),
        signal_meter_(probe_.meter("signal")),
        exit_meter_(probe_.meter("exit")),
        req_(std::move(req)),
        sink_(std::move(sink)),
        job_(std::move(job)),
        node_name_(std::move(node_name)),
        shoal_conf_(std::move(shoal_conf)),
        own_path_(std::move(own_path)),
        cores_(std::move(cores)) {
    if (req_.batch) {
      tasks_.resize(1);
      tasks_[0].rank = 0;
    } else {
      tasks_.resize(req_.ranks.size());
      for (size_t i = 0; i < req_.ranks.size(); ++i) tasks_[i].rank = req_.ranks[i];
    }
    for (auto& t : tasks_) t.exit.rank = t.rank;
  }

  void run() {
    confine_to_job_cpus();
    launch_all();
    watch();
    finish();
  }

 private:
  // -- launching --------------------------------------------------------------

  /// On a shared node the job holds some of the node's CPUs (numbered as the node counts them:
  /// its cores in order, each core's hardware threads in order). Its tasks run on those only,
  /// and --cpu-bind plans within them, as with Slurm's task/affinity.
  void confine_to_job_cpus() {
    if (req_.job_cpus.empty()) return;
    std::vector<uint32_t> pus;
    for (auto& core : cores_) pus.insert(pus.end(), core.pus.begin(), core.pus.end());
    for (auto cpu : req_.job_cpus) {
      if (cpu >= pus.size()) {
        // A node configured with more CPUs than this host has (front-end mode, CPUs= in the
        // config): there is nothing real to confine to.
        config::log().warn("job cpus not confined job={} node={} cpu={} host_cpus={}", req_.job_id,
                           node_name_, cpu, pus.size());
        job_pus_.clear();
        return;
      }
      job_pus_.push_back(pus[cpu]);
    }
    std::sort(job_pus_.begin(), job_pus_.end());
    std::vector<topology::core_info> mine;
    for (auto core : cores_) {
      auto& p = core.pus;
      p.erase(std::remove_if(p.begin(), p.end(),
                             [&](uint32_t pu) {
                               return !std::binary_search(job_pus_.begin(), job_pus_.end(), pu);
                             }),
              p.end());
      if (!p.empty()) mine.push_back(std::move(core));
    }
    cores_ = std::move(mine);
  }

  /// Puts the batch script in a sealed in-memory file: nothing on disk to clean up after a
  /// crash, no ETXTBSY race with other threads' children, and the job cannot rewrite its own
  /// script. Returns false and records the error when that fails.
  bool write_script() {
    auto fail = [&](const char* call, int err) {
      process::close_fd(script_fd_);
      fail_unstarted(0, std::string{call} + "(batch script): " + process::errno_text(err), 127);
      return false;
    };
    auto name = "shoal-job" + std::to_string(req_.job_id) + "-script";
    script_fd_ = ::memfd_create(name.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (script_fd_ < 0) return fail("memfd_create", errno);
    // Below 3 the child's dup2 onto stdin/stdout/stderr would clobber it.
    if (script_fd_ < 3) {
      int moved = ::fcntl(script_fd_, F_DUPFD_CLOEXEC, 3);
      if (moved < 0) return fail("fcntl", errno);
      ::close(script_fd_);
      script_fd_ = moved;
    }
    if (::fchmod(script_fd_, 0700) != 0) return fail("fchmod", errno);
    if (switch_user() && ::fchown(script_fd_, req_.uid, req_.gid) != 0)
      return fail("fchown", errno);
    const char* data = req_.script.data();
    size_t left = req_.script.size();
    while (left > 0) {
      auto n = ::write(script_fd_, data, left);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return fail("write", errno);
      data += n;
      left -= static_cast<size_t>(n);
    }
    if (::fcntl(script_fd_, F_ADD_SEALS,
                F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0)
      return fail("fcntl(F_ADD_SEALS)", errno);
    return true;
  }

  bool switch_user() const {
    return ::geteuid() == 0 && (req_.uid != ::geteuid() || req_.gid != ::getegid());
  }

  std::vector<gid_t> supplementary_groups() const {
    std::vector<gid_t> groups{static_cast<gid_t>(req_.gid)};
    if (req_.user.empty()) return groups;
    int n = 64;
    for (int attempt = 0; attempt < 4; ++attempt) {
      groups.resize(static_cast<size_t>(n));
      int count = n;
      if (::getgrouplist(req_.user.c_str(), req_.gid, groups.data(), &count) >= 0) {
        groups.resize(static_cast<size_t>(count));
        return groups;
      }
      n = std::max(count, n * 2);
    }
    return {static_cast<gid_t>(req_.gid)};
  }

  process::task_spec make_spec(uint32_t rank, uint32_t local_id) {
    process::task_spec spec;
    spec.env = process::build_task_env(req_, rank, local_id, node_name_, shoal_conf_);
    if (binding_) {
      process::set_cpu_bind_env(spec.env, bind_spec_, bind_plan_, bind_width_);
      if (local_id < bind_plan_.size()) spec.cpus = bind_plan_[local_id];
      spec.report_binding = bind_spec_.verbose;
      if (spec.report_binding)
        spec.bind_report = topology::make_verbose_bind_line(bind_spec_, node_name_, rank, local_id,
                                                            spec.cpus, inherited_cpus_);
    }
    if (spec.cpus.empty()) spec.cpus = job_pus_;
    spec.cgroup_procs_fd = memory_.procs_fd();
    spec.cgroup_dir = memory_.cgroup_dir();
    if (!req_.cwd.empty()) spec.cwd_candidates.push_back(req_.cwd);
    if (auto home = process::find_env(spec.env, "HOME"); home != nullptr && home->size() > 5)
      spec.cwd_candidates.push_back(home->substr(5));
    spec.cwd_candidates.push_back("/tmp");
    if (switch_user()) {
      spec.switch_user = true;
      spec.uid = req_.uid;
      spec.gid = req_.gid;
      spec.groups = groups_;
    }
    if (req_.batch) {
      // As execvp: a script without a #! line runs under /bin/sh.
      bool shebang = req_.script.compare(0, 2, "#!") == 0;
      auto script_path = "/dev/fd/" + std::to_string(script_fd_);
      if (!shebang) spec.argv.push_back("/bin/sh");
      spec.argv.push_back(script_path);
      spec.argv.insert(spec.argv.end(), req_.argv.begin(), req_.argv.end());
      spec.exec_path = spec.argv.front();
      spec.script_fd = script_fd_;
      spec.exec_script_fd = shebang;
      spec.capture_output = false;
      spec.stdout_path = req_.stdout_path.empty() ? "shoal-" + std::to_string(req_.job_id) + ".out"
                                                  : req_.stdout_path;
      spec.stderr_path = req_.stderr_path;
    } else {
      spec.argv = req_.argv;
      spec.exec_path = program_path_;
    }
    return spec;
  }

  /// Marks tasks_[first..] as never started, with `code`, and records `what`.
  void fail_unstarted(size_t first, std::string what, int32_t code) {
    if (launch_error_.empty()) launch_error_ = std::move(what);
    for (size_t i = first; i < tasks_.size(); ++i) {
      tasks_[i].exit.exit_code = code;
      tasks_[i].exit.signal = 0;
    }
  }

  /// Works out every task's CPUs for --cpu-bind before any task starts, so that a binding this
  /// node cannot honour fails the step here rather than after some tasks ran.
  bool plan_binding() {
    if (req_.cpu_bind.empty()) return true;
    auto spec = topology::parse_cpu_bind(req_.cpu_bind);
    if (!spec) {
      fail_unstarted(0, shoal::describe(spec.error()), 1);
      return false;
    }
    auto plan = topology::plan_cpu_binding(cores_, static_cast<uint32_t>(tasks_.size()),
                                           req_.cpus_per_task, *spec);
    if (!plan) {
      fail_unstarted(0, shoal::describe(plan.error()), 1);
      return false;
    }
    binding_ = true;
    bind_spec_ = std::move(*spec);
    bind_plan_ = std::move(*plan);
    for (auto& core : cores_)
      for (auto pu : core.pus) bind_width_ = std::max(bind_width_, pu + 1);
    inherited_cpus_ = process::current_affinity();
    return true;
  }

  void launch_all() {
    if (tasks_.empty()) return;
    if (!plan_binding()) return;
    if (req_.batch) {
      if (!write_script()) return;
    } else {
      if (req_.argv.empty()) {
        fail_unstarted(0, "execvp(): " + process::errno_text(ENOENT), 127);
        return;
      }
      auto path = process::find_env(req_.env, "PATH");
      auto path_var = path != nullptr     ? path->substr(5)
                      : own_path_.empty() ? std::string{"/usr/local/bin:/usr/bin:/bin"}
                                          : own_path_;
      auto prog = process::resolve_program(req_.argv.front(), path_var, req_.cwd);
      if (prog.error != 0) {
        process::launch_failure f{process::launch_stage::exec, prog.error};
        fail_unstarted(0, describe(f, process::task_spec{}, req_.argv.front()),
                       process::exit_code_for(f));
        return;
      }
      program_path_ = prog.path;
    }
    if (switch_user()) groups_ = supplementary_groups();
    limit_memory();
    for (size_t i = 0; i < tasks_.size(); ++i) {
      if (aborted_) {
        // Shut down before this rank started: report it as killed.
        for (size_t j = i; j < tasks_.size(); ++j) tasks_[j].exit.signal = SIGKILL;
        return;
      }
      auto& t = tasks_[i];
      auto spec = make_spec(t.rank, static_cast<uint32_t>(i));
      process::spawned_task child;
      auto failure = process::spawn_task(spec, child);
      if (failure.stage != process::launch_stage::none) {
        fail_unstarted(i, describe(failure, spec, program_name()), process::exit_code_for(failure));
        signal_tasks(SIGKILL);
        return;
      }
      t.pid = child.pid;
      t.running = true;
      t.exit_fd = static_cast<int>(::syscall(SYS_pidfd_open, child.pid, 0));
      t.out.fd = child.stdout_fd;
      t.err.fd = child.stderr_fd;
      // Wait for exec (or its failure) while still serving signal requests.
      while (!process::read_launch_status(child.status_fd, failure)) {
        pollfd pfd{child.status_fd, POLLIN, 0};
        ::poll(&pfd, 1, static_cast<int>(poll_interval.count()));
        check_mailbox();
      }
      if (failure.stage != process::launch_stage::none) {
        // The child _exit()s right after reporting, so this wait is short.
        int status = 0;
        while (::waitpid(t.pid, &status, 0) < 0 && errno == EINTR) {
        }
        t.running = false;
        process::close_fd(t.exit_fd);
        process::close_fd(t.out.fd);
        process::close_fd(t.err.fd);
        fail_unstarted(i, describe(failure, spec, program_name()), process::exit_code_for(failure));
        signal_tasks(SIGKILL);
        return;
      }
      // Signals that arrived while earlier ranks were starting apply to this one too.
      for (int sig : early_signals_) ::killpg(t.pid, sig);
    }
    launching_ = false;
  }

  std::string program_name() const {
    if (!req_.batch) return req_.argv.empty() ? std::string{} : req_.argv.front();
    // A script that cannot start almost always names a missing interpreter: show its line.
    if (req_.script.compare(0, 2, "#!") != 0) return "batch script";
    return "batch script " + req_.script.substr(0, req_.script.find('\n'));
  }

  // -- watching ---------------------------------------------------------------

  void watch() {
    launching_ = false;
    bool draining = false;
    clock_type::time_point drain_deadline;
    for (;;) {
      reap();
      check_memory();
      bool any_running =
          std::any_of(tasks_.begin(), tasks_.end(), [](const task_state& t) { return t.running; });
      auto now = clock_type::now();
      auto timeout = std::chrono::duration_cast<std::chrono::milliseconds>(poll_interval);
      if (!any_running) {
        if (!draining) {
          draining = true;
          drain_deadline = now + drain_limit;
        }
        if (!any_open() || now >= drain_deadline) break;
        timeout = std::min(timeout, std::chrono::duration_cast<std::chrono::milliseconds>(
                                        drain_deadline - now + 1ms));
      }
      poll_outputs(timeout);
      flush_stale_partials();
      check_mailbox();
    }
    for (auto& t : tasks_) {
      process::close_fd(t.exit_fd);
      for (auto* s : {&t.out, &t.err}) {
        emit(t, *s, true);
        process::close_fd(s->fd);
      }
    }
  }

  /// The step's memory limit (0: none): a cgroup where the host lets us make one, else sampling.
  void limit_memory() {
    if (req_.mem_limit_mb == 0) return;
    static const process::memory_cgroup_root root = process::find_memory_cgroup_root();
    auto name =
        "shoal_" + node_name_ + "_job" + std::to_string(req_.job_id) + "_" +
        (req_.step_id == msg::batch_step_id ? std::string{"batch"} : std::to_string(req_.step_id));
    memory_ = process::memory_guard{root, name, req_.mem_limit_mb};
    if (!memory_.problem().empty())
      config::log().warn("memory limit by sampling job={} node={} reason=\"{}\"", req_.job_id,
                         node_name_, memory_.problem());
    next_memory_check_ = clock_type::now();
  }

  /// Ends the step once it went over its memory limit; sampled at most every half second.
  void check_memory() {
    if (memory_.how() == process::memory_enforcement::none || out_of_memory_) return;
    auto now = clock_type::now();
    if (now < next_memory_check_) return;
    next_memory_check_ = now + process::memory_guard::sample_every;
    std::vector<pid_t> groups;
    for (auto& t : tasks_)
      if (t.pid > 0) groups.push_back(t.pid);
    if (!memory_.exceeded(groups)) return;
    out_of_memory_ = true;
    config::log().info("step over its memory limit job={} node={} limit_mb={} how={}", req_.job_id,
                       node_name_, req_.mem_limit_mb, to_string(memory_.how()));
    signal_tasks(SIGKILL);
  }

  bool any_open() const {
    return std::any_of(tasks_.begin(), tasks_.end(),
                       [](const task_state& t) { return t.out.fd >= 0 || t.err.fd >= 0; });
  }

  void poll_outputs(std::chrono::milliseconds timeout) {
    std::vector<pollfd> fds;
    std::vector<std::pair<task_state*, output_stream*>> owners;
    for (auto& t : tasks_) {
      for (auto* s : {&t.out, &t.err}) {
        if (s->fd >= 0) {
          fds.push_back(pollfd{s->fd, POLLIN, 0});
          owners.emplace_back(&t, s);
        }
      }
      // Batch tasks write to files, so no pipe would wake us when they end: their pidfds do.
      if (t.running && t.exit_fd >= 0) {
        fds.push_back(pollfd{t.exit_fd, POLLIN, 0});
        owners.emplace_back(&t, nullptr);
      }
    }
    int n = ::poll(fds.data(), fds.size(), static_cast<int>(timeout.count()));
    if (n <= 0) return;
    for (size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents != 0 && owners[i].second != nullptr)
        read_stream(*owners[i].first, *owners[i].second);
    }
  }

  void read_stream(task_state& t, output_stream& s) {
    read_buf_.resize(max_chunk);
    ssize_t n;
    do {
      n = ::read(s.fd, read_buf_.data(), read_buf_.size());
    } while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) {
      // EOF (or a broken pipe): send what is left, even without its newline.
      emit(t, s, true);
      process::close_fd(s.fd);
      return;
    }
    s.pending.append(read_buf_.data(), static_cast<size_t>(n));
    emit(t, s, false);
  }

  /// Sends whole lines of `s.pending` in chunks of at most max_chunk; everything when `all`.
  void emit(task_state& t, output_stream& s, bool all) {
    bool sent = false;
    while (!s.pending.empty()) {
      size_t window = std::min(s.pending.size(), max_chunk);
      size_t cut = 0;
      auto nl = s.pending.rfind('\n', window - 1);
      if (nl != std::string::npos)
        cut = nl + 1;
      else if (all || s.pending.size() >= max_chunk)
        cut = window;
      else
        break;
      send_output(t, s, s.pending.substr(0, cut));
      s.pending.erase(0, cut);
      sent = true;
    }
    if (s.pending.empty()) {
      s.has_partial = false;
    } else if (!s.has_partial || sent) {
      s.has_partial = true;
      s.partial_since = clock_type::now();
    }
  }

  void flush_stale_partials() {
    auto now = clock_type::now();
    for (auto& t : tasks_) {
      for (auto* s : {&t.out, &t.err}) {
        if (s->has_partial && now - s->partial_since >= partial_line_delay) emit(t, *s, true);
      }
    }
  }

  void send_output(const task_state& t, const output_stream& s, std::string data) {
    if (!sink_) return;
    msg::task_output out;
    out.job_id = req_.job_id;
    out.step_id = req_.step_id;
    out.rank = static_cast<int32_t>(t.rank);
    out.stream = s.kind;
    out.data = std::move(data);
    out.node_name = node_name_;
    self_->send(sink_, std::move(out));
  }

  void reap() {
    for (auto& t : tasks_) {
      if (!t.running) continue;
      int status = 0;
      pid_t r = ::waitpid(t.pid, &status, WNOHANG);
      if (r == 0 || (r < 0 && errno == EINTR)) continue;
      t.running = false;
      process::close_fd(t.exit_fd);
      if (r < 0) continue;  // ECHILD: reaped elsewhere (SIGCHLD ignored); status unknown
      if (WIFEXITED(status)) {
        t.exit.exit_code = WEXITSTATUS(status);
        t.exit.signal = 0;
      } else if (WIFSIGNALED(status)) {
        t.exit.exit_code = 0;
        t.exit.signal = WTERMSIG(status);
      }
    }
  }

  // -- messages ---------------------------------------------------------------

  /// Handles every message already in the mailbox; never waits.
  void check_mailbox() {
    bool more = true;
    while (more) {
      self_->receive(
          probe_.metered(signal_meter_,
                         [this](msg::signal_atom, int32_t signo) { on_signal(signo); }),
          [this](msg::attach_atom, caf::actor& sink) { sink_ = std::move(sink); },
          probe_.metered(exit_meter_,
                         [this](caf::exit_msg& em) {
                           // Shutdown of whoever we are linked to: the tasks must not outlive it.
                           if (em.reason) {
                             aborted_ = true;
                             signal_tasks(SIGKILL);
                           }
                         }),
          // Unknown messages are dropped, so they never pile up in the mailbox. An empty
          // result sends no reply to an asynchronous message.
          caf::others >>
              [](caf::message_view&) -> caf::result<caf::message> { return caf::message{}; },
          caf::after(std::chrono::seconds(0)) >> [&more] { more = false; });
    }
  }

  void on_signal(int32_t signo) {
    if (signo <= 0 || signo >= NSIG) return;
    signal_tasks(signo);
    if (launching_ &&
        std::find(early_signals_.begin(), early_signals_.end(), signo) == early_signals_.end())
      early_signals_.push_back(signo);
  }

  void signal_tasks(int signo) {
    for (auto& t : tasks_) {
      // A reaped pid may already be reused: only signal tasks not waited for yet.
      if (t.running) ::killpg(t.pid, signo);
    }
  }

  // -- the end ----------------------------------------------------------------

  void finish() {
    // Whatever the tasks left in their process groups (background jobs, daemons) ends with the
    // step, as with Slurm's pgid process tracking.
    for (auto& t : tasks_) {
      // The leader is reaped. While its group has members, its pid cannot be reused. A live
      // process with that pid is therefore a stranger whose group we must not touch.
      if (t.pid > 0 && ::kill(t.pid, 0) != 0 && errno == ESRCH) ::killpg(t.pid, SIGKILL);
    }
    process::close_fd(script_fd_);
    msg::step_exit done;
    done.job_id = req_.job_id;
    done.step_id = req_.step_id;
    done.node_name = node_name_;
    done.launch_error = launch_error_;
    // The kernel's OOM killer may have struck between two checks, or after the last one.
    done.out_of_memory = out_of_memory_ || memory_.exceeded({});
    memory_ = process::memory_guard{};
    for (auto& t : tasks_) done.tasks.push_back(t.exit);
    if (sink_) self_->send(sink_, done);
    if (job_ && job_ != sink_) self_->send(job_, std::move(done));
  }

  // -- member variables -------------------------------------------------------

  caf::blocking_actor* self_;
  actor_probe<caf::blocking_actor> probe_;
  handler_meter signal_meter_;
  handler_meter exit_meter_;
  msg::launch_request req_;
  caf::actor sink_;
  caf::actor job_;
  std::string node_name_;
  std::string shoal_conf_;
  std::string own_path_;
  std::vector<topology::core_info> cores_;
  bool binding_ = false;  ///< --cpu-bind was given: set its variables, bind unless none
  topology::cpu_bind_spec bind_spec_;
  std::vector<topology::cpu_list> bind_plan_;  ///< per local task; empty for none
  uint32_t bind_width_ = 0;                    ///< highest CPU number + 1, for padded masks
  topology::cpu_list inherited_cpus_;          ///< what none shows and a failed bind keeps
  std::vector<task_state> tasks_;
  std::vector<gid_t> groups_;
  std::string program_path_;
  int script_fd_ = -1;             ///< the batch script, in memory
  std::vector<uint32_t> job_pus_;  ///< the host CPUs the job holds here; empty: all
  process::memory_guard memory_;
  bool out_of_memory_ = false;
  clock_type::time_point next_memory_check_;
  std::string launch_error_;
  bool launching_ = true;
  bool aborted_ = false;
  std::vector<int> early_signals_;
  std::vector<char> read_buf_;
};

void shepherd_main(caf::blocking_actor* self, msg::launch_request req, caf::actor sink,
                   caf::actor job, std::string node_name, std::string shoal_conf,
                   std::string own_path, std::vector<topology::core_info> cores,
                   metrics::registry* meters) {
  shepherd s{self,
             std::move(req),
             std::move(sink),
             std::move(job),
             std::move(node_name),
             std::move(shoal_conf),
             std::move(own_path),
             std::move(cores),
             meters};
  s.run();
}

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

}  // namespace

shepherd_actor spawn_shepherd(caf::actor_system& sys, msg::launch_request req, caf::actor sink,
                              caf::actor job, std::string node_name,
                              std::vector<topology::core_info> cores, metrics::registry* meters) {
  // Read our own environment here, once, rather than from the shepherd thread. A blocking
  // actor cannot be typed in CAF 0.17; its handle is, so senders are checked.
  return caf::actor_cast<shepherd_actor>(sys.spawn<caf::detached>(
      shepherd_main, std::move(req), std::move(sink), std::move(job), std::move(node_name),
      env_or_empty("SHOAL_CONF"), env_or_empty("PATH"), std::move(cores), meters));
}

}  // namespace shoal::actors
