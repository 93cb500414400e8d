#include "bench/chaos/processes.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <thread>
#include <utility>

extern char** environ;

namespace shoal::chaos {

namespace {

using clock = std::chrono::steady_clock;

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

/// This process's environment without SHOAL_* (a run never reaches another cluster by accident),
/// then `extra`.
std::vector<std::string> child_environment(const std::vector<std::string>& extra) {
  std::vector<std::string> out;
  for (char** e = environ; *e != nullptr; ++e)
    if (std::strncmp(*e, "SHOAL_", 6) != 0) out.emplace_back(*e);
  out.insert(out.end(), extra.begin(), extra.end());
  return out;
}

std::string status_text(int status) {
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "exit " + std::to_string(WEXITSTATUS(status));
}

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace

daemon_process::daemon_process(std::string name, std::vector<std::string> argv, std::string log_dir)
    : name_(std::move(name)), argv_(std::move(argv)), log_dir_(std::move(log_dir)) {}

daemon_process::~daemon_process() {
  stop();
}

std::string daemon_process::log_path() const {
  if (starts_ == 0) return {};
  return log_dir_ + "/" + name_ + "." + std::to_string(starts_) + ".log";
}

shoal::error daemon_process::start() {
  ++starts_;
  exit_text_.clear();
  auto log = log_path();
  auto args = argv_;
  auto arg_ptrs = c_strings(args);
  auto env = child_environment({});
  auto env_ptrs = c_strings(env);
  int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return shoal::error(errc::system_error, "cannot open " + log + ": " + std::strerror(errno));
  auto parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fd);
    return shoal::error(errc::system_error, std::string{"fork: "} + std::strerror(errno));
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    // Dies with the test, even when the test crashes.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(1);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    ::execve(arg_ptrs[0], arg_ptrs.data(), env_ptrs.data());
    dprintf(2, "exec %s: %s\n", arg_ptrs[0], std::strerror(errno));
    ::_exit(127);
  }
  ::close(fd);
  pid_ = pid;
  return {};
}

void daemon_process::kill_hard() {
  if (pid_ < 0) return;
  ::kill(pid_, SIGKILL);
  wait_for(pid_);
  pid_ = -1;
}

void daemon_process::stop(std::chrono::milliseconds grace) {
  if (pid_ < 0) return;
  ::kill(pid_, SIGTERM);
  auto deadline = clock::now() + grace;
  for (;;) {
    int status = 0;
    auto r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_ || (r < 0 && errno != EINTR)) break;
    if (clock::now() > deadline) {
      ::kill(pid_, SIGKILL);
      wait_for(pid_);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
  }
  pid_ = -1;
}

bool daemon_process::running() {
  if (pid_ < 0) return false;
  int status = 0;
  auto r = ::waitpid(pid_, &status, WNOHANG);
  if (r == 0) return true;
  if (r == pid_) exit_text_ = status_text(status);
  pid_ = -1;
  return false;
}

std::string command_result::describe() const {
  std::string text = timed_out ? "timed out" : "exit " + std::to_string(exit_code);
  auto first = err.substr(0, err.find('\n'));
  if (!first.empty()) text += ": " + first;
  return text;
}

command_result run_command(const std::vector<std::string>& argv,
                           const std::vector<std::string>& env, const std::string& cwd,
                           std::chrono::milliseconds timeout) {
  command_result r;
  auto args = argv;
  auto arg_ptrs = c_strings(args);
  auto environment = child_environment(env);
  auto env_ptrs = c_strings(environment);
  int out_pipe[2];
  int err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    r.err = std::string{"pipe: "} + std::strerror(errno);
    return r;
  }
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    r.err = std::string{"pipe: "} + std::strerror(errno);
    return r;
  }
  auto start = clock::now();
  pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) ::close(fd);
    r.err = std::string{"fork: "} + std::strerror(errno);
    return r;
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(126);
    ::execve(arg_ptrs[0], arg_ptrs.data(), env_ptrs.data());
    dprintf(2, "exec %s: %s\n", arg_ptrs[0], std::strerror(errno));
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  int open_fds = 2;
  auto deadline = start + timeout;
  while (open_fds > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
    if (left.count() <= 0) {
      r.timed_out = true;
      break;
    }
    int n = ::poll(fds, 2, static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[8192];
      auto got = ::read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        sinks[i]->append(buf, static_cast<size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& p : fds)
    if (p.fd >= 0) ::close(p.fd);
  if (r.timed_out) ::kill(-pid, SIGKILL);
  int status = wait_for(pid);
  if (r.timed_out)
    r.exit_code = -1;
  else
    r.exit_code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
  return r;
}

}  // namespace shoal::chaos
