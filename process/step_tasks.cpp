#include "process/step_tasks.hpp"

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include "config/log.hpp"
#include "messages/errc.hpp"
#include "process/step_io.hpp"

namespace shoal::process {

namespace {

using namespace std::chrono_literals;

/// Largest task_output payload; a longer line is cut at this size.
constexpr size_t max_chunk = 64 * 1024;
/// Without a pidfd (kernels before 5.3) a task's exit wakes nothing: look this often.
constexpr auto reap_interval = 20ms;
/// A partial line waits this long for its newline before it is sent as is.
constexpr auto partial_line_delay = 50ms;
/// After the last task exited, its descendants may still hold the pipes: read this long more.
constexpr auto drain_limit = 200ms;

/// The task id StepIo.input names ("0", "12"), or -1 for anything else.
int64_t input_rank(const std::string& input) {
  if (input.empty() || input.size() > 9) return -1;
  for (char c : input)
    if (c < '0' || c > '9') return -1;
  return std::strtol(input.c_str(), nullptr, 10);
}

int millis_until(std::chrono::steady_clock::time_point now,
                 std::chrono::steady_clock::time_point when) {
  if (when <= now) return 0;
  // Rounded up, so poll never wakes a hair early and spins.
  return static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(when - now).count());
}

}  // namespace

step_tasks::step_tasks(msg::launch_request req, std::string node_name,
                       std::vector<topology::core_info> cores, task_env_settings env)
    : req_(std::move(req)),
      node_name_(std::move(node_name)),
      cores_(std::move(cores)),
      env_(std::move(env)) {
  if (req_.batch) {
    tasks_.resize(1);
    tasks_[0].rank = 0;
  } else {
    tasks_.resize(req_.ranks.size());
    for (size_t i = 0; i < req_.ranks.size(); ++i) tasks_[i].rank = req_.ranks[i];
  }
  for (auto& t : tasks_) t.exit.rank = t.rank;
  if (req_.batch) return;
  const auto& io = req_.io;
  auto one = io.pty ? int64_t{0} : input_rank(io.input);
  for (auto& t : tasks_) {
    t.terminal = io.pty && t.rank == 0;
    t.takes_input = t.terminal || (io.input_file.empty() &&
                                   (io.input == "all" || static_cast<int64_t>(t.rank) == one));
  }
}

step_tasks::~step_tasks() {
  for (auto& t : tasks_) {
    close_fd(t.exit_fd);
    close_fd(t.out.fd);
    close_fd(t.err.fd);
    close_fd(t.in_fd);
  }
  close_fd(script_fd_);
}

msg::step_exit step_tasks::run(step_host& host) {
  host_ = &host;
  confine_to_job_cpus();
  launch_all();
  watch();
  auto done = finish();
  host_ = nullptr;
  return done;
}

bool step_tasks::tasks_running() const {
  return std::any_of(tasks_.begin(), tasks_.end(), [](const task_state& t) { return t.running; });
}

// -- launching ----------------------------------------------------------------

/// On a shared node the job holds some of the node's CPUs (numbered as the node counts them:
/// its cores in order, each core's hardware threads in order). Its tasks run on those only,
/// and --cpu-bind plans within them, as with Slurm's task/affinity.
void step_tasks::confine_to_job_cpus() {
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
/// crash, no ETXTBSY race with other children, and the job cannot rewrite its own script.
/// Returns false and records the error when that fails.
bool step_tasks::write_script() {
  auto fail = [&](const char* call, int err) {
    close_fd(script_fd_);
    fail_unstarted(0, std::string{call} + "(batch script): " + errno_text(err), 127);
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
  if (switch_user() && ::fchown(script_fd_, req_.uid, req_.gid) != 0) return fail("fchown", errno);
  const char* data = req_.script.data();
  size_t left = req_.script.size();
  while (left > 0) {
    auto n = ::write(script_fd_, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail("write", errno);
    data += n;
    left -= static_cast<size_t>(n);
  }
  if (::fcntl(script_fd_, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) !=
      0)
    return fail("fcntl(F_ADD_SEALS)", errno);
  return true;
}

bool step_tasks::switch_user() const {
  return ::geteuid() == 0 && (req_.uid != ::geteuid() || req_.gid != ::getegid());
}

std::vector<gid_t> step_tasks::supplementary_groups() const {
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

task_spec step_tasks::make_spec(uint32_t rank, uint32_t local_id) {
  task_spec spec;
  spec.env = build_task_env(req_, rank, local_id, node_name_, env_);
  if (binding_) {
    set_cpu_bind_env(spec.env, bind_spec_, bind_plan_, bind_width_, env_.slurm_env);
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
  // srun -D names a directory the user wants: without it the step must not run elsewhere.
  if (req_.cwd.empty() || !req_.io.chdir_required) {
    if (auto home = find_env(spec.env, "HOME"); home != nullptr && home->size() > 5)
      spec.cwd_candidates.push_back(home->substr(5));
    spec.cwd_candidates.push_back("/tmp");
  }
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
    spec.truncate_output = req_.open_mode == "truncate";
  } else {
    if (task_argv_.empty()) {
      spec.argv = req_.argv;
      spec.exec_path = program_path_;
    } else {
      spec.argv = task_argv_[local_id];
      spec.exec_path = task_program_[local_id];
    }
    const auto& t = tasks_[local_id];
    const auto& io = req_.io;
    if (t.terminal) {
      spec.input = stdin_source::terminal;
      spec.terminal_rows = io.pty_rows;
      spec.terminal_cols = io.pty_cols;
    } else if (t.takes_input) {
      spec.input = stdin_source::pipe;
    } else if (!io.input_file.empty()) {
      spec.input = stdin_source::file;
      spec.stdin_path = expand_io_pattern(io.input_file, pattern_values(rank));
    }
    if (!t.terminal) direct_output_to_files(spec, rank);
  }
  return spec;
}

io_pattern_values step_tasks::pattern_values(uint32_t rank) const {
  io_pattern_values v;
  v.job_id = req_.job_id;
  v.step_id = req_.step_id;
  v.rank = rank;
  v.node_id = req_.node_index;
  v.node_name = node_name_;
  v.user = req_.user;
  v.job_name = req_.job_name;
  return v;
}

/// srun -o/-e: the task's stdout (and stderr with it) or its stderr alone go to files on this
/// node. Each file is truncated by the first task here that opens it, unless --open-mode=append
/// (Slurm's default is truncate: JobFileAppend=0); the tasks after it append.
void step_tasks::direct_output_to_files(task_spec& spec, uint32_t rank) {
  const auto& io = req_.io;
  if (io.output.empty() && io.error.empty()) return;
  auto v = pattern_values(rank);
  bool fresh = true;
  if (!io.output.empty()) {
    spec.capture_output = false;
    spec.stdout_path = expand_io_pattern(io.output, v);
    fresh = opened_files_.insert(spec.stdout_path).second && fresh;
  }
  if (!io.error.empty()) {
    spec.stderr_path = expand_io_pattern(io.error, v);
    fresh = opened_files_.insert(spec.stderr_path).second && fresh;
  }
  spec.truncate_output = fresh && req_.open_mode != "append";
}

/// Marks tasks_[first..] as never started, with `code`, and records `what`.
void step_tasks::fail_unstarted(size_t first, std::string what, int32_t code) {
  if (launch_error_.empty()) launch_error_ = std::move(what);
  for (size_t i = first; i < tasks_.size(); ++i) {
    tasks_[i].exit.exit_code = code;
    tasks_[i].exit.signal = 0;
  }
}

/// Works out every task's CPUs for --cpu-bind before any task starts, so that a binding this
/// node cannot honour fails the step here rather than after some tasks ran.
bool step_tasks::plan_binding() {
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
  inherited_cpus_ = current_affinity();
  return true;
}

void step_tasks::launch_all() {
  if (tasks_.empty()) return;
  if (!refused_.empty()) return fail_unstarted(0, refused_, 1);
  if (!plan_binding()) return;
  if (req_.batch) {
    if (!write_script()) return;
  } else if (!plan_programs()) {
    return;
  }
  if (switch_user()) groups_ = supplementary_groups();
  limit_memory();
  for (size_t i = 0; i < tasks_.size(); ++i) {
    if (aborted_) {
      // Killed before this rank started: report it as killed.
      for (size_t j = i; j < tasks_.size(); ++j) tasks_[j].exit.signal = SIGKILL;
      return;
    }
    auto& t = tasks_[i];
    auto spec = make_spec(t.rank, static_cast<uint32_t>(i));
    if (!run_task_prolog(i, spec)) {
      signal_tasks(SIGKILL);
      return;
    }
    if (mpi_ != nullptr) {
      if (auto err =
              mpi_->prepare_task(static_cast<uint32_t>(i), t.rank, spec.env, spec.inherit_fd)) {
        fail_unstarted(i, describe(err), 1);
        signal_tasks(SIGKILL);
        return;
      }
    }
    spawned_task child;
    auto failure = spawn_task(spec, child);
    if (mpi_ != nullptr)
      mpi_->task_started(static_cast<uint32_t>(i),
                         failure.stage == launch_stage::none ? child.pid : -1);
    if (failure.stage != launch_stage::none) {
      fail_unstarted(i, describe(failure, spec, program_name()), exit_code_for(failure));
      signal_tasks(SIGKILL);
      return;
    }
    t.pid = child.pid;
    t.running = true;
    t.exit_fd = static_cast<int>(::syscall(SYS_pidfd_open, child.pid, 0));
    t.out.fd = child.stdout_fd;
    t.err.fd = child.stderr_fd;
    t.in_fd = child.stdin_fd;
    if (child.terminal_fd >= 0) {
      // One master for both ways; input gets a descriptor of its own, closed at its end.
      t.out.fd = child.terminal_fd;
      t.in_fd = ::fcntl(child.terminal_fd, F_DUPFD_CLOEXEC, 3);
    }
    failure = wait_for_exec(child.status_fd);
    if (failure.stage != launch_stage::none) {
      // The child _exit()s right after reporting, so this wait is short.
      int status = 0;
      while (::waitpid(t.pid, &status, 0) < 0 && errno == EINTR) {
      }
      t.running = false;
      close_fd(t.exit_fd);
      close_fd(t.out.fd);
      close_fd(t.err.fd);
      close_fd(t.in_fd);
      fail_unstarted(i, describe(failure, spec, program_name()), exit_code_for(failure));
      signal_tasks(SIGKILL);
      return;
    }
    usage_.add_task(t.pid, t.rank);
    // Signals that arrived while earlier ranks were starting apply to this one too.
    for (int sig : early_signals_) ::killpg(t.pid, sig);
    if (t.in_fd >= 0) write_input(t);
  }
  launching_ = false;
  settle_input();
}

/// Each task's command line and program, found before any task starts: one that cannot run
/// fails the step here.
bool step_tasks::plan_programs() {
  // The PATH the task gets, so `shoal run srun ...` finds what a shell in the task would.
  auto path = task_path(req_.env, env_);
  auto resolve = [&](const std::string& name, std::string& out) {
    auto prog = resolve_program(name, path, req_.cwd);
    if (prog.error == 0) {
      out = prog.path;
      return true;
    }
    launch_failure f{launch_stage::exec, prog.error};
    fail_unstarted(0, describe(f, task_spec{}, name), exit_code_for(f));
    return false;
  };
  if (req_.io.multi_prog.empty()) {
    if (req_.argv.empty()) {
      fail_unstarted(0, "execvp(): " + errno_text(ENOENT), 127);
      return false;
    }
    return resolve(req_.argv.front(), program_path_);
  }
  for (auto& t : tasks_) {
    auto argv = multi_prog_argv(req_.io.multi_prog, t.rank);
    if (!argv) {
      fail_unstarted(0, "--multi-prog: " + shoal::describe(argv.error()), 1);
      return false;
    }
    task_program_.emplace_back();
    if (!resolve(argv->front(), task_program_.back())) return false;
    task_argv_.push_back(std::move(*argv));
  }
  return true;
}

/// Waits for a child's exec (or its failure) while serving the host, so a signal or kill sent
/// during a slow start is not held up.
launch_failure step_tasks::wait_for_exec(int& status_fd) {
  launch_failure failure;
  std::vector<pollfd> fds;
  while (!read_launch_status(status_fd, failure)) {
    fds.clear();
    fds.push_back(pollfd{status_fd, POLLIN, 0});
    host_->add_fds(fds);
    if (::poll(fds.data(), fds.size(), -1) > 0) host_->handle_fds(fds.data() + 1, fds.size() - 1);
  }
  return failure;
}

std::string step_tasks::program_name() const {
  if (!req_.batch) return req_.argv.empty() ? std::string{} : req_.argv.front();
  // A script that cannot start almost always names a missing interpreter: show its line.
  if (req_.script.compare(0, 2, "#!") != 0) return "batch script";
  return "batch script " + req_.script.substr(0, req_.script.find('\n'));
}

// -- watching -----------------------------------------------------------------

void step_tasks::watch() {
  launching_ = false;
  bool draining = false;
  clock_type::time_point drain_deadline;
  for (;;) {
    reap();
    check_memory();
    auto now = clock_type::now();
    if (tasks_running() && now >= usage_.next_sample_at()) usage_.sample(now);
    bool paused = host_->output_paused();
    if (!tasks_running()) {
      if (!draining) {
        draining = true;
        drain_deadline = now + drain_limit;
      }
      // Output we may not read yet is not lost to the drain limit: it starts once we read again.
      if (paused) drain_deadline = std::max(drain_deadline, now + drain_limit);
      if (!any_open() || now >= drain_deadline) break;
    }
    poll_once(poll_timeout_ms(now, draining, drain_deadline), !paused);
    flush_stale_partials();
  }
  for (auto& t : tasks_) {
    close_fd(t.exit_fd);
    for (auto* s : {&t.out, &t.err}) {
      emit(t, *s, true);
      close_fd(s->fd);
    }
    close_fd(t.in_fd);
    t.in_pending.clear();
  }
  settle_input();
}

void step_tasks::sample_usage_now() {
  if (tasks_running()) usage_.sample(clock_type::now());
}

/// How long poll may sleep: until the next partial line is due, the next memory or usage sample,
/// or the end of the drain.
int step_tasks::poll_timeout_ms(clock_type::time_point now, bool draining,
                                clock_type::time_point drain_deadline) const {
  int timeout = -1;
  auto at_most = [&](int ms) { timeout = timeout < 0 ? ms : std::min(timeout, ms); };
  // Not draining: tasks run, and are sampled.
  at_most(millis_until(now, draining ? drain_deadline : usage_.next_sample_at()));
  if (memory_.how() != memory_enforcement::none && !out_of_memory_)
    at_most(millis_until(now, next_memory_check_));
  for (auto& t : tasks_) {
    if (t.running && t.exit_fd < 0) at_most(static_cast<int>(reap_interval.count()));
    for (auto* s : {&t.out, &t.err})
      if (s->has_partial) at_most(millis_until(now, s->partial_since + partial_line_delay));
  }
  return timeout;
}

/// The step's memory limit (0: none): a cgroup where the host lets us make one, else sampling.
void step_tasks::limit_memory() {
  if (req_.mem_limit_mb == 0) return;
  static const memory_cgroup_root root = find_memory_cgroup_root();
  auto name =
      "shoal_" + node_name_ + "_job" + std::to_string(req_.job_id) + "_" +
      (req_.step_id == msg::batch_step_id ? std::string{"batch"} : std::to_string(req_.step_id));
  memory_ = memory_guard{root, name, req_.mem_limit_mb};
  if (!memory_.cgroup_dir().empty())
    usage_.use_cgroup(memory_.cgroup_dir(), memory_.how() == memory_enforcement::cgroup_v2);
  if (!memory_.problem().empty())
    config::log().warn("memory limit by sampling job={} node={} reason=\"{}\"", req_.job_id,
                       node_name_, memory_.problem());
  next_memory_check_ = clock_type::now();
}

/// Ends the step once it went over its memory limit; sampled at most every half second.
void step_tasks::check_memory() {
  if (memory_.how() == memory_enforcement::none || out_of_memory_) return;
  auto now = clock_type::now();
  if (now < next_memory_check_) return;
  next_memory_check_ = now + memory_guard::sample_every;
  std::vector<pid_t> groups;
  for (auto& t : tasks_)
    if (t.pid > 0) groups.push_back(t.pid);
  if (!memory_.exceeded(groups)) return;
  out_of_memory_ = true;
  config::log().info("step over its memory limit job={} node={} limit_mb={} how={}", req_.job_id,
                     node_name_, req_.mem_limit_mb, to_string(memory_.how()));
  signal_tasks(SIGKILL);
}

bool step_tasks::any_open() const {
  return std::any_of(tasks_.begin(), tasks_.end(),
                     [](const task_state& t) { return t.out.fd >= 0 || t.err.fd >= 0; });
}

void step_tasks::poll_once(int timeout_ms, bool read_output) {
  std::vector<pollfd> fds;
  std::vector<std::pair<task_state*, output_stream*>> owners;
  for (auto& t : tasks_) {
    if (t.in_fd >= 0 && !t.in_pending.empty()) {
      // An owner without a stream but with input waiting: its stdin can take more.
      fds.push_back(pollfd{t.in_fd, POLLOUT, 0});
      owners.emplace_back(&t, nullptr);
    }
    if (read_output) {
      for (auto* s : {&t.out, &t.err}) {
        if (s->fd >= 0) {
          fds.push_back(pollfd{s->fd, POLLIN, 0});
          owners.emplace_back(&t, s);
        }
      }
    }
    // A task's exit wakes us at once, whether or not it writes to a pipe (batch tasks write to
    // files).
    if (t.running && t.exit_fd >= 0) {
      fds.push_back(pollfd{t.exit_fd, POLLIN, 0});
      owners.emplace_back(&t, nullptr);
    }
  }
  auto own = fds.size();
  host_->add_fds(fds);
  int n = ::poll(fds.data(), fds.size(), timeout_ms);
  if (n <= 0) return;
  bool wrote = false;
  for (size_t i = 0; i < own; ++i) {
    if (fds[i].revents == 0) continue;
    auto& t = *owners[i].first;
    if (owners[i].second != nullptr) {
      read_stream(t, *owners[i].second);
    } else if (fds[i].fd == t.in_fd) {
      write_input(t);
      wrote = true;
    }
  }
  if (wrote) settle_input();
  host_->handle_fds(fds.data() + own, fds.size() - own);
}

void step_tasks::read_stream(task_state& t, output_stream& s) {
  read_buf_.resize(max_chunk);
  ssize_t n;
  do {
    n = ::read(s.fd, read_buf_.data(), read_buf_.size());
  } while (n < 0 && errno == EINTR);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
  if (n <= 0) {
    // EOF (or a broken pipe): send what is left, even without its newline.
    emit(t, s, true);
    close_fd(s.fd);
    return;
  }
  s.pending.append(read_buf_.data(), static_cast<size_t>(n));
  emit(t, s, false);
}

/// Sends whole lines of `s.pending` in chunks of at most max_chunk; everything when `all`.
void step_tasks::emit(task_state& t, output_stream& s, bool all) {
  bool sent = false;
  while (!s.pending.empty()) {
    size_t window = std::min(s.pending.size(), max_chunk);
    size_t cut = 0;
    auto nl = s.pending.rfind('\n', window - 1);
    if (nl != std::string::npos)
      cut = nl + 1;
    else if (all || s.pending.size() >= max_chunk || req_.io.unbuffered)
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

void step_tasks::flush_stale_partials() {
  auto now = clock_type::now();
  for (auto& t : tasks_) {
    for (auto* s : {&t.out, &t.err}) {
      if (s->has_partial && now - s->partial_since >= partial_line_delay) emit(t, *s, true);
    }
  }
}

void step_tasks::send_output(const task_state& t, const output_stream& s, std::string data) {
  msg::task_output out;
  out.job_id = req_.job_id;
  out.step_id = req_.step_id;
  out.rank = static_cast<int32_t>(t.rank);
  out.stream = s.kind;
  out.data = std::move(data);
  out.node_name = node_name_;
  host_->on_output(std::move(out));
}

void step_tasks::reap() {
  bool reaped = false;
  for (auto& t : tasks_) {
    if (!t.running) continue;
    int status = 0;
    rusage used{};
    pid_t r = ::wait4(t.pid, &status, WNOHANG, &used);
    if (r == 0 || (r < 0 && errno == EINTR)) continue;
    t.running = false;
    close_fd(t.exit_fd);
    if (r < 0) continue;  // ECHILD: reaped elsewhere (SIGCHLD ignored); status unknown
    usage_.add_reaped(t.rank, used);
    reaped = true;
    if (WIFEXITED(status)) {
      t.exit.exit_code = WEXITSTATUS(status);
      t.exit.signal = 0;
    } else if (WIFSIGNALED(status)) {
      t.exit.exit_code = 0;
      t.exit.signal = WTERMSIG(status);
    }
    // Nobody reads its stdin any more: what waits for it would hold the sender up for ever.
    t.in_pending.clear();
    close_fd(t.in_fd);
    kill_on_bad_exit(t);
    run_task_epilog(t);
    if (mpi_ != nullptr) mpi_->task_exited(static_cast<uint32_t>(&t - tasks_.data()), status);
  }
  // Each exit is a sample, so a step shorter than the interval has figures too.
  if (reaped) usage_.sample(clock_type::now());
  settle_input();
}

/// srun -K: the first task to exit non-zero or by a signal takes the step's others with it.
void step_tasks::kill_on_bad_exit(const task_state& t) {
  if (!req_.io.kill_on_bad_exit || bad_exit_seen_) return;
  if (t.exit.exit_code == 0 && t.exit.signal == 0) return;
  bad_exit_seen_ = true;
  config::log().info("task exited badly, killing the step's others job={} step={} rank={}",
                     req_.job_id, msg::step_label(req_.step_id), t.rank);
  signal_tasks(SIGKILL);
}

// -- signals ------------------------------------------------------------------

void step_tasks::signal(int signo) {
  if (signo <= 0 || signo >= NSIG) return;
  signal_tasks(signo);
  if (launching_ &&
      std::find(early_signals_.begin(), early_signals_.end(), signo) == early_signals_.end())
    early_signals_.push_back(signo);
}

void step_tasks::report(uint32_t rank, const std::string& text) {
  if (host_ == nullptr || req_.batch) {
    config::log().warn("step job={} step={} rank={}: {}", req_.job_id,
                       msg::step_label(req_.step_id), rank, text);
    return;
  }
  msg::task_output out;
  out.job_id = req_.job_id;
  out.step_id = req_.step_id;
  out.rank = static_cast<int32_t>(rank);
  out.stream = msg::stream_kind::err;
  out.data = text + "\n";
  out.node_name = node_name_;
  host_->on_output(std::move(out));
}

void step_tasks::abort(uint32_t rank, const std::string& why) {
  config::log().info("step aborted by a rank job={} step={} rank={}: {}", req_.job_id,
                     msg::step_label(req_.step_id), rank, why);
  report(rank, why);
  kill_all();
}

void step_tasks::kill_all() {
  aborted_ = true;
  signal_tasks(SIGKILL);
}

void step_tasks::signal_tasks(int signo) {
  for (auto& t : tasks_) {
    // A reaped pid may already be reused: only signal tasks not waited for yet.
    if (t.running) ::killpg(t.pid, signo);
  }
}

// -- the end ------------------------------------------------------------------

msg::step_exit step_tasks::finish() {
  // Whatever the tasks left in their process groups (background jobs, daemons) ends with the
  // step, as with Slurm's pgid process tracking.
  for (auto& t : tasks_) {
    // The leader is reaped. While its group has members, its pid cannot be reused. A live
    // process with that pid is therefore a stranger whose group we must not touch.
    if (t.pid > 0 && ::kill(t.pid, 0) != 0 && errno == ESRCH) ::killpg(t.pid, SIGKILL);
  }
  close_fd(script_fd_);
  msg::step_exit done;
  done.job_id = req_.job_id;
  done.step_id = req_.step_id;
  done.node_name = node_name_;
  done.launch_error = launch_error_;
  // The kernel's OOM killer may have struck between two checks, or after the last one.
  done.out_of_memory = out_of_memory_ || memory_.exceeded({});
  usage_.final_figures();  // before the cgroup goes, with its figures
  memory_ = memory_guard{};
  for (auto& t : tasks_) done.tasks.push_back(t.exit);
  return done;
}

}  // namespace shoal::process
