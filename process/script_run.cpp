#include "process/script_run.hpp"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace shoal::process {

namespace {

constexpr size_t max_output = 1 << 20;

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

/// The child's side, after fork: only async-signal-safe calls. Reports errno on `err_fd` when
/// it cannot exec.
[[noreturn]] void become_script(const script_spec& spec, char* const* argv, char* const* envp,
                                int out_fd, int err_fd) {
  ::setpgid(0, 0);
  int null_fd = ::open("/dev/null", O_RDWR);
  ::dup2(null_fd, 0);
  ::dup2(out_fd >= 0 ? out_fd : null_fd, 1);
  ::dup2(null_fd, 2);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int sig = 1; sig < NSIG; ++sig) ::signal(sig, SIG_DFL);
  bool switch_user = spec.uid != static_cast<uid_t>(-1) && ::geteuid() == 0 &&
                     (spec.uid != ::geteuid() || spec.gid != ::getegid());
  int err = 0;
  if (switch_user) {
    if (::setgroups(spec.groups.size(), spec.groups.data()) != 0 || ::setgid(spec.gid) != 0 ||
        ::setuid(spec.uid) != 0)
      err = errno;
  }
  if (err == 0 && ::chdir(spec.cwd.empty() ? "/" : spec.cwd.c_str()) != 0) ::chdir("/");
  if (err == 0) {
    ::execve(argv[0], argv, envp);
    err = errno;
  }
  auto ignored = ::write(err_fd, &err, sizeof err);
  (void)ignored;
  ::_exit(127);
}

/// Reads what is there from the non-blocking `fd` into `out` (up to max_output): 1 when it read
/// something, 0 at its end, -1 when nothing is there now.
int drain(int fd, std::string& out) {
  char buf[4096];
  auto n = ::read(fd, buf, sizeof buf);
  if (n < 0) return errno == EINTR ? 1 : errno == EAGAIN ? -1 : 0;
  if (n == 0) return 0;
  if (out.size() < max_output)
    out.append(buf, std::min(static_cast<size_t>(n), max_output - out.size()));
  return 1;
}

}  // namespace

script_result run_script(const script_spec& spec) {
  script_result r;
  if (spec.argv.empty()) {
    r.status_text = "could not start: no program";
    return r;
  }
  std::vector<char*> argv, envp;
  for (auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (auto& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  int out[2] = {-1, -1}, err[2] = {-1, -1};
  if ((spec.capture_output && ::pipe2(out, O_CLOEXEC) != 0) || ::pipe2(err, O_CLOEXEC) != 0) {
    r.status_text = std::string{"could not start: pipe: "} + std::strerror(errno);
    return r;
  }
  pid_t pid = ::fork();
  if (pid < 0) {
    r.status_text = std::string{"could not start: fork: "} + std::strerror(errno);
    for (int fd : {out[0], out[1], err[0], err[1]})
      if (fd >= 0) ::close(fd);
    return r;
  }
  if (pid == 0) become_script(spec, argv.data(), envp.data(), out[1], err[1]);
  ::setpgid(pid, pid);  // as the child does: either wins, so a kill finds the group
  if (out[1] >= 0) ::close(out[1]);
  ::close(err[1]);
  int exec_err = 0;
  ssize_t got;
  while ((got = ::read(err[0], &exec_err, sizeof exec_err)) < 0 && errno == EINTR) {
  }
  ::close(err[0]);
  r.started = got <= 0;
  auto deadline = std::chrono::steady_clock::now() + spec.timeout;
  int status = 0;
  bool open = out[0] >= 0;
  if (open) ::fcntl(out[0], F_SETFL, O_NONBLOCK);
  for (;;) {
    pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) {
      // What it wrote before it ended (a child it left holding the pipe is not waited for).
      while (open && drain(out[0], r.output) == 1) {
      }
      break;
    }
    if (spec.timeout.count() > 0 && std::chrono::steady_clock::now() > deadline) {
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      r.timed_out = true;
      break;
    }
    pollfd p{open ? out[0] : -1, POLLIN, 0};
    // Nothing to read: poll only sleeps, so the exit is seen within its 20 ms.
    if (::poll(&p, 1, 20) > 0 && open && drain(out[0], r.output) == 0) open = false;
  }
  if (out[0] >= 0) ::close(out[0]);
  r.status = status;
  if (!r.started)
    r.status_text = std::string{"could not start: "} + std::strerror(exec_err);
  else if (r.timed_out)
    r.status_text = "timed out after " + std::to_string(spec.timeout.count()) + " s";
  else
    r.status_text = describe_status(status);
  r.ok = r.started && !r.timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return r;
}

}  // namespace shoal::process
