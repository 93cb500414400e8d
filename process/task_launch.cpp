#include "process/task_launch.hpp"

#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <memory>

#include "topology/task_layout.hpp"

namespace shoal::process {

namespace {

/// Moves `fd` to a number >= 3 so that dup2 onto 0/1/2 in the child never clobbers another pipe
/// end (a daemon may run with its standard descriptors closed).
int raise_fd(int fd) {
  if (fd >= 3) return fd;
  int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  if (moved < 0) return fd;
  ::close(fd);
  return moved;
}

int make_pipe(int fds[2]) {
  if (::pipe2(fds, O_CLOEXEC) != 0) return errno;
  fds[0] = raise_fd(fds[0]);
  fds[1] = raise_fd(fds[1]);
  return 0;
}

void set_nonblocking(int fd) {
  int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

/// A new pseudo-terminal: `fds[0]` its master, `fds[1]` its slave (both CLOEXEC, at 3 or
/// above), the window size `spec` asks. Returns 0 or the errno.
int open_terminal(const task_spec& spec, int fds[2]) {
  int master = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master < 0) return errno;
  char name[128];
  if (::grantpt(master) != 0 || ::unlockpt(master) != 0 ||
      ::ptsname_r(master, name, sizeof name) != 0) {
    int err = errno;
    ::close(master);
    return err;
  }
  int slave = ::open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (slave < 0) {
    int err = errno;
    ::close(master);
    return err;
  }
  if (spec.terminal_rows > 0 && spec.terminal_cols > 0) {
    winsize size{};
    size.ws_row = spec.terminal_rows;
    size.ws_col = spec.terminal_cols;
    ::ioctl(master, TIOCSWINSZ, &size);
  }
  fds[0] = raise_fd(master);
  fds[1] = raise_fd(slave);
  return 0;
}

std::vector<char*> c_strings(const std::vector<std::string>& xs) {
  std::vector<char*> out;
  out.reserve(xs.size() + 1);
  for (auto& x : xs) out.push_back(const_cast<char*>(x.c_str()));
  out.push_back(nullptr);
  return out;
}

// -- child side: async-signal-safe calls only from here on ---------------------

[[noreturn]] void child_fail(int status_fd, launch_stage stage, int err) {
  int32_t buf[2] = {static_cast<int32_t>(stage), static_cast<int32_t>(err)};
  ssize_t n;
  do {
    n = ::write(status_fd, buf, sizeof(buf));
  } while (n < 0 && errno == EINTR);
  ::_exit(exit_code_for(launch_failure{stage, err}));
}

/// Everything the child reads, as raw pointers into memory prepared before clone.
struct child_plan {
  const task_spec* spec;
  pid_t parent_pid;
  int status_fd;
  int out_fd;  // write ends, or -1 when writing to files
  int err_fd;
  int in_fd;        // stdin_source::pipe: the read end; -1 otherwise
  int terminal_fd;  // stdin_source::terminal: the pseudo-terminal's slave; -1 otherwise
  char* const* argv;
  char* const* envp;
  char* const* sh_argv;  // for ENOEXEC: /bin/sh PATH ARGS...
  const char* exec_path;
  long max_fd;
  sigset_t empty_mask;
  struct sigaction default_action;
  const cpu_set_t* cpuset;  // nullptr: keep the inherited affinity
  size_t cpuset_size;
};

/// Writes all of `text` to `fd`, ignoring errors: a report must never stop the task.
void child_write(int fd, const char* text, size_t len) {
  while (len > 0) {
    auto n = ::write(fd, text, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    text += n;
    len -= static_cast<size_t>(n);
  }
}

/// srun's verbose binding line, with our PID (only known here) between head and tail.
void child_report_binding(const task_spec& spec, bool failed) {
  char digits[24];
  size_t n = 0;
  auto pid = static_cast<unsigned long>(::getpid());
  do {
    digits[sizeof digits - 1 - n++] = static_cast<char>('0' + pid % 10);
    pid /= 10;
  } while (pid != 0 && n < sizeof digits);
  auto& line = spec.bind_report;
  auto& tail = failed ? line.failed_tail : line.tail;
  child_write(2, line.head.data(), line.head.size());
  child_write(2, digits + sizeof digits - n, n);
  child_write(2, tail.data(), tail.size());
}

void child_dup(const child_plan& p, int from, int to) {
  if (from == to) {
    // dup2 would keep O_CLOEXEC set: clear it instead.
    int flags = ::fcntl(from, F_GETFD);
    if (flags < 0 || ::fcntl(from, F_SETFD, flags & ~FD_CLOEXEC) != 0)
      child_fail(p.status_fd, launch_stage::stdio, errno);
    return;
  }
  int r;
  do {
    r = ::dup2(from, to);
  } while (r < 0 && errno == EINTR);
  if (r < 0) child_fail(p.status_fd, launch_stage::stdio, errno);
}

void child_close_from(int first, int last, long max_fd) {
  if (first > last) return;
  if (::syscall(SYS_close_range, static_cast<unsigned>(first), static_cast<unsigned>(last), 0u) ==
      0)
    return;
  long stop = last < max_fd ? last : max_fd;
  for (long fd = first; fd <= stop; ++fd) ::close(static_cast<int>(fd));
}

/// Closes every descriptor from 3 up except `keep` and `also_keep` (-1: none).
void child_close_all_but(int keep, int also_keep, long max_fd) {
  int low = also_keep >= 0 && also_keep < keep ? also_keep : keep;
  int high = also_keep > keep ? also_keep : keep;
  constexpr int last = static_cast<int>(~0u >> 1);
  child_close_from(3, low - 1, max_fd);
  if (high != low) child_close_from(low + 1, high - 1, max_fd);
  child_close_from(high + 1, last, max_fd);
}

[[noreturn]] void run_child(const child_plan& p) {
  const task_spec& spec = *p.spec;
  // A terminal's task leads a session, so the terminal can be its controlling one and Ctrl-C
  // reaches its process group; its group id is its pid either way, as killpg expects.
  if (p.terminal_fd >= 0)
    ::setsid();
  else
    ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The parent thread may have gone before prctl: then nobody would kill us later.
  if (::getppid() != p.parent_pid) child_fail(p.status_fd, launch_stage::parent, ESRCH);
  // Handlers first, then the mask: until both are reset no handler of the daemon may run here,
  // on memory the daemon still uses (the parent blocked every signal before clone).
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) ::sigaction(sig, &p.default_action, nullptr);
  }
  ::sigprocmask(SIG_SETMASK, &p.empty_mask, nullptr);
  // "0" is the writer itself, in cgroup v1 and v2 alike.
  if (spec.cgroup_procs_fd >= 0 && ::write(spec.cgroup_procs_fd, "0", 1) != 1)
    child_fail(p.status_fd, launch_stage::cgroup, errno);
  if (spec.switch_user) {
    // Raw system calls: glibc's wrappers would ask every thread of the daemon, whose memory we
    // share, to switch too.
    if (::syscall(SYS_setgroups, spec.groups.size(), spec.groups.data()) != 0)
      child_fail(p.status_fd, launch_stage::setgroups, errno);
    if (::syscall(SYS_setgid, spec.gid) != 0) child_fail(p.status_fd, launch_stage::setgid, errno);
    if (::syscall(SYS_setuid, spec.uid) != 0) child_fail(p.status_fd, launch_stage::setuid, errno);
  }
  int cwd_error = ENOENT;
  bool have_cwd = false;
  for (auto& dir : spec.cwd_candidates) {
    if (::chdir(dir.c_str()) == 0) {
      have_cwd = true;
      break;
    }
    cwd_error = errno;
  }
  if (!have_cwd) child_fail(p.status_fd, launch_stage::chdir, cwd_error);
  if (p.terminal_fd >= 0) {
    if (::ioctl(p.terminal_fd, TIOCSCTTY, 0) != 0)
      child_fail(p.status_fd, launch_stage::terminal, errno);
    child_dup(p, p.terminal_fd, 0);
  } else if (p.in_fd >= 0) {
    child_dup(p, p.in_fd, 0);
  } else if (spec.input == stdin_source::file) {
    int in_fd = ::open(spec.stdin_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (in_fd < 0) child_fail(p.status_fd, launch_stage::open_in, errno);
    child_dup(p, in_fd, 0);
  } else {
    int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null_fd < 0) child_fail(p.status_fd, launch_stage::stdio, errno);
    child_dup(p, null_fd, 0);
  }
  if (p.terminal_fd >= 0) {
    child_dup(p, p.terminal_fd, 1);
    child_dup(p, p.terminal_fd, 2);
  } else if (spec.capture_output && !spec.stderr_path.empty()) {
    // srun -e alone: stdout streams back, stderr goes to its file.
    int flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (spec.truncate_output ? O_TRUNC : 0);
    int err = ::open(spec.stderr_path.c_str(), flags, 0644);
    if (err < 0) child_fail(p.status_fd, launch_stage::open_err, errno);
    child_dup(p, p.out_fd, 1);
    child_dup(p, err, 2);
  } else if (spec.capture_output) {
    child_dup(p, p.out_fd, 1);
    child_dup(p, p.err_fd, 2);
  } else {
    // O_APPEND in both modes, as slurmstepd opens them: stdout and stderr opened separately onto
    // one file never overwrite each other.
    int flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (spec.truncate_output ? O_TRUNC : 0);
    int out = ::open(spec.stdout_path.c_str(), flags, 0644);
    if (out < 0) child_fail(p.status_fd, launch_stage::open_out, errno);
    int err = out;
    if (!spec.stderr_path.empty()) {
      err = ::open(spec.stderr_path.c_str(), flags, 0644);
      if (err < 0) child_fail(p.status_fd, launch_stage::open_err, errno);
    }
    child_dup(p, out, 1);
    child_dup(p, err, 2);
  }
  // Bound as late as possible, as Slurm's task/affinity does, so the verbose line reaches the
  // task's own stderr.
  if (p.cpuset != nullptr && ::sched_setaffinity(0, p.cpuset_size, p.cpuset) != 0) {
    int err = errno;
    if (spec.report_binding) child_report_binding(spec, true);
    child_fail(p.status_fd, launch_stage::affinity, err);
  }
  if (spec.report_binding) child_report_binding(spec, false);
  int kept = spec.script_fd >= 0 ? spec.script_fd : spec.inherit_fd;
  if (kept >= 0) child_dup(p, kept, kept);
  // Everything else (CAF sockets, other steps' pipes) must not leak into the job. The status
  // pipe stays: it is O_CLOEXEC, so a successful exec closes it and the parent reads EOF.
  child_close_all_but(p.status_fd, kept, p.max_fd);
  for (int attempt = 0;; ++attempt) {
    if (spec.exec_script_fd)
      ::syscall(SYS_execveat, spec.script_fd, "", p.argv, p.envp, AT_EMPTY_PATH);
    else
      ::execve(p.exec_path, p.argv, p.envp);
    // A batch script just written may still be open for writing in a child another thread
    // forked meanwhile: wait for that child's exec to close it.
    if (errno != ETXTBSY || attempt >= 200) break;
    struct timespec pause = {0, 10 * 1000 * 1000};
    ::nanosleep(&pause, nullptr);
  }
  int err = errno;
  if (err == ENOEXEC) {
    // As execvp: a file without a recognised header is a shell script.
    ::execve("/bin/sh", p.sh_argv, p.envp);
  }
  child_fail(p.status_fd, launch_stage::exec, err);
}

#if !defined(__SANITIZE_ADDRESS__)
int child_entry(void* plan) {
  run_child(*static_cast<const child_plan*>(plan));
}
#endif

/// Starts `plan` in a child that shares our memory until it execs or exits (the calling thread
/// waits meanwhile), as posix_spawn does: fork would copy the page tables of this multi-threaded
/// daemon for every task, only for exec to throw them away. Returns the pid, or -errno.
pid_t clone_child(child_plan& plan) {
  sigset_t all;
  sigset_t old;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &old);
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer cannot follow a child that runs on a stack of ours inside our address
  // space (it reports its own stack bookkeeping there as use-after-scope), so sanitizer builds
  // fork: slower, same child code.
  pid_t pid = ::fork();
  if (pid == 0) run_child(plan);
  int err = errno;
#else
  constexpr size_t stack_size = 64 * 1024;
  void* stack = ::mmap(nullptr, stack_size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) {
    int err = errno;
    ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return -err;
  }
  pid_t pid = ::clone(child_entry, static_cast<char*>(stack) + stack_size,
                      CLONE_VM | CLONE_VFORK | SIGCHLD, &plan);
  int err = errno;
  ::munmap(stack, stack_size);
#endif
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return pid < 0 ? -err : pid;
}

}  // namespace

std::string errno_text(int err) {
  char buf[256];
  // GNU strerror_r: returns a pointer that may or may not be `buf`.
  return ::strerror_r(err, buf, sizeof(buf));
}

topology::cpu_list current_affinity() {
  topology::cpu_list cpus;
  for (int count = CPU_SETSIZE; count <= (1 << 20); count *= 2) {
    std::unique_ptr<cpu_set_t, void (*)(cpu_set_t*)> set{CPU_ALLOC(count),
                                                         [](cpu_set_t* s) { CPU_FREE(s); }};
    if (set == nullptr) return cpus;
    auto size = CPU_ALLOC_SIZE(count);
    if (::sched_getaffinity(0, size, set.get()) != 0) {
      if (errno == EINVAL) continue;  // the kernel knows more CPUs than `count`
      return cpus;
    }
    for (int cpu = 0; cpu < count; ++cpu)
      if (CPU_ISSET_S(cpu, size, set.get())) cpus.push_back(static_cast<uint32_t>(cpu));
    return cpus;
  }
  return cpus;
}

// -- program lookup -----------------------------------------------------------

resolved_program resolve_program(const std::string& name, const std::string& path_var,
                                 const std::string& base_dir) {
  if (name.empty()) return {{}, ENOENT};
  if (name.find('/') != std::string::npos) return {name, 0};
  bool found_unexecutable = false;
  size_t pos = 0;
  for (;;) {
    auto end = path_var.find(':', pos);
    auto dir = path_var.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    if (dir.empty()) dir = ".";
    if (dir.front() != '/' && !base_dir.empty()) dir = base_dir + "/" + dir;
    auto candidate = dir + "/" + name;
    struct stat st;
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      if (::access(candidate.c_str(), X_OK) == 0) return {candidate, 0};
      found_unexecutable = true;
    }
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return {{}, found_unexecutable ? EACCES : ENOENT};
}

// -- fork/exec ----------------------------------------------------------------

std::string describe(const launch_failure& f, const task_spec& spec, const std::string& program) {
  std::string what;
  switch (f.stage) {
    case launch_stage::none:
      return {};
    case launch_stage::pipe:
      what = "pipe()";
      break;
    case launch_stage::fork:
      what = "clone()";
      break;
    case launch_stage::setgroups:
      what = "setgroups(" + std::to_string(spec.gid) + ")";
      break;
    case launch_stage::setgid:
      what = "setgid(" + std::to_string(spec.gid) + ")";
      break;
    case launch_stage::setuid:
      what = "setuid(" + std::to_string(spec.uid) + ")";
      break;
    case launch_stage::chdir:
      what = "chdir(" + (spec.cwd_candidates.empty() ? std::string{} : spec.cwd_candidates.back()) +
             ")";
      break;
    case launch_stage::stdio:
      what = "dup2()";
      break;
    case launch_stage::open_out:
      what = "open(" + spec.stdout_path + ")";
      break;
    case launch_stage::open_err:
      what = "open(" + spec.stderr_path + ")";
      break;
    case launch_stage::exec:
      what = "execvp(" + program + ")";
      break;
    case launch_stage::parent:
      what = "prctl(PR_SET_PDEATHSIG)";
      break;
    case launch_stage::affinity:
      what = "sched_setaffinity(CPUs " + topology::cpu_range_list(spec.cpus) + ")";
      break;
    case launch_stage::cgroup:
      what = "write(" + spec.cgroup_dir + "/cgroup.procs)";
      break;
    case launch_stage::open_in:
      what = "open(" + spec.stdin_path + ")";
      break;
    case launch_stage::terminal:
      what = "ioctl(TIOCSCTTY)";
      break;
  }
  return what + ": " + errno_text(f.error);
}

int32_t exit_code_for(const launch_failure& f) {
  if (f.stage == launch_stage::exec && (f.error == EACCES || f.error == ENOEXEC)) return 126;
  if (f.stage == launch_stage::affinity) return 1;
  return 127;
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

launch_failure spawn_task(const task_spec& spec, spawned_task& out) {
  out = spawned_task{};
  int status[2] = {-1, -1};
  int outp[2] = {-1, -1};
  int errp[2] = {-1, -1};
  int inp[2] = {-1, -1};
  int terminal[2] = {-1, -1};  // master, slave
  auto close_all = [&] {
    for (int* fd : {&status[0], &status[1], &outp[0], &outp[1], &errp[0], &errp[1], &inp[0],
                    &inp[1], &terminal[0], &terminal[1]})
      close_fd(*fd);
  };
  if (int err = make_pipe(status); err != 0) return {launch_stage::pipe, err};
  if (spec.input == stdin_source::pipe) {
    if (int err = make_pipe(inp); err != 0) {
      close_all();
      return {launch_stage::pipe, err};
    }
  }
  if (spec.input == stdin_source::terminal) {
    if (int err = open_terminal(spec, terminal); err != 0) {
      close_all();
      return {launch_stage::terminal, err};
    }
  } else if (spec.capture_output) {
    int err = make_pipe(outp);
    if (err == 0) err = make_pipe(errp);
    if (err != 0) {
      close_all();
      return {launch_stage::pipe, err};
    }
  }
  // Everything the child touches is allocated now: after clone only async-signal-safe calls.
  auto argv = c_strings(spec.argv);
  auto envp = c_strings(spec.env);
  std::vector<char*> sh_argv;
  sh_argv.push_back(const_cast<char*>("/bin/sh"));
  sh_argv.push_back(const_cast<char*>(spec.exec_path.c_str()));
  for (size_t i = 1; i < spec.argv.size(); ++i) sh_argv.push_back(argv[i]);
  sh_argv.push_back(nullptr);
  child_plan plan;
  plan.spec = &spec;
  plan.parent_pid = ::getpid();
  plan.status_fd = status[1];
  plan.out_fd = outp[1];
  plan.err_fd = errp[1];
  plan.in_fd = inp[0];
  plan.terminal_fd = terminal[1];
  plan.argv = argv.data();
  plan.envp = envp.data();
  plan.sh_argv = sh_argv.data();
  plan.exec_path = spec.exec_path.c_str();
  struct rlimit lim;
  plan.max_fd = ::getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY
                    ? static_cast<long>(lim.rlim_cur)
                    : 65536;
  sigemptyset(&plan.empty_mask);
  std::memset(&plan.default_action, 0, sizeof(plan.default_action));
  plan.default_action.sa_handler = SIG_DFL;
  sigemptyset(&plan.default_action.sa_mask);
  std::unique_ptr<cpu_set_t, void (*)(cpu_set_t*)> cpuset{nullptr,
                                                          [](cpu_set_t* s) { CPU_FREE(s); }};
  plan.cpuset = nullptr;
  plan.cpuset_size = 0;
  if (!spec.cpus.empty()) {
    auto count = static_cast<int>(spec.cpus.back()) + 1;  // cpus is ascending
    cpuset.reset(CPU_ALLOC(count));
    if (cpuset == nullptr) {
      close_all();
      return {launch_stage::affinity, ENOMEM};
    }
    plan.cpuset_size = CPU_ALLOC_SIZE(count);
    CPU_ZERO_S(plan.cpuset_size, cpuset.get());
    for (auto cpu : spec.cpus) CPU_SET_S(cpu, plan.cpuset_size, cpuset.get());
    plan.cpuset = cpuset.get();
  }
  pid_t pid = clone_child(plan);
  if (pid < 0) {
    close_all();
    return {launch_stage::fork, -pid};
  }
  // Also from the parent: a signal sent right after clone must reach the child's own group. (A
  // terminal's task made a session of its own already, which this cannot change.)
  if (terminal[1] < 0) ::setpgid(pid, pid);
  close_fd(status[1]);
  close_fd(outp[1]);
  close_fd(errp[1]);
  close_fd(inp[0]);
  close_fd(terminal[1]);
  if (inp[1] >= 0) set_nonblocking(inp[1]);
  if (terminal[0] >= 0) set_nonblocking(terminal[0]);
  out.stdin_fd = inp[1];
  out.terminal_fd = terminal[0];
  set_nonblocking(status[0]);
  if (outp[0] >= 0) set_nonblocking(outp[0]);
  if (errp[0] >= 0) set_nonblocking(errp[0]);
  out.pid = pid;
  out.status_fd = status[0];
  out.stdout_fd = outp[0];
  out.stderr_fd = errp[0];
  return {};
}

bool read_launch_status(int& fd, launch_failure& failure) {
  failure = launch_failure{};
  if (fd < 0) return true;
  int32_t buf[2];
  ssize_t n;
  do {
    n = ::read(fd, buf, sizeof(buf));
  } while (n < 0 && errno == EINTR);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return false;
  if (n == static_cast<ssize_t>(sizeof(buf))) {
    failure.stage = static_cast<launch_stage>(buf[0]);
    failure.error = buf[1];
  } else if (n != 0) {
    // A short read or a read error: the child did not exec cleanly either way.
    failure.stage = launch_stage::exec;
    failure.error = n < 0 ? errno : EIO;
  }
  close_fd(fd);
  return true;
}

int make_dirs(const std::string& dir) {
  if (dir.empty()) return ENOENT;
  for (size_t pos = 1;; ++pos) {
    pos = dir.find('/', pos);
    auto prefix = dir.substr(0, pos);
    if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) return errno;
    if (pos == std::string::npos) break;
  }
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) return errno;
  return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
}

}  // namespace shoal::process
