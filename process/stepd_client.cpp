#include "process/stepd_client.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <utility>
#include <vector>

#include "messages/codec.hpp"
#include "messages/errc.hpp"
#include "process/fd_passing.hpp"
#include "process/task_launch.hpp"

extern char** environ;

namespace shoal::process {

namespace {

shoal::error system_error(const std::string& what, int err) {
  return shoal::error(errc::system_error, what + ": " + errno_text(err));
}

/// Moves `fd` to 3 or above (a daemon may run with 0-2 closed) keeping it CLOEXEC, so a dup2
/// onto 0 in the child always makes a fresh descriptor.
int raise_fd(int fd) {
  if (fd >= 3) return fd;
  int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  ::close(fd);
  return moved;
}

bool is_step_socket(const std::string& name) {
  auto ends_with = [&](const char* tail) {
    auto n = std::strlen(tail);
    return name.size() >= n && name.compare(name.size() - n, n, tail) == 0;
  };
  return name.compare(0, 3, "job") == 0 && name.find(".step") != std::string::npos &&
         ends_with(".sock");
}

shoal::expected<int> connect_socket(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path)
    return shoal::error(errc::system_error, "step socket path too long: " + path);
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return system_error("socket", errno);
  int rc;
  do {
    rc = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    int err = errno;
    ::close(fd);
    if (err == ECONNREFUSED || err == ENOENT)
      return shoal::error(errc::unreachable, "no shoal-stepd listens on " + path);
    return system_error("connect(" + path + ")", err);
  }
  return fd;
}

}  // namespace

std::string sibling_stepd_path() {
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto candidate = self.parent_path() / "shoal-stepd";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return "shoal-stepd";
}

std::string step_socket_path(const std::string& dir, uint64_t job_id, uint32_t step_id) {
  return dir + "/job" + std::to_string(job_id) + ".step" + msg::step_label(step_id) + ".sock";
}

shoal::error prepare_spool_dir(const std::string& dir) {
  if (int err = make_dirs(dir)) return system_error("mkdir(" + dir + ")", err);
  if (::chmod(dir.c_str(), 0700) != 0) return system_error("chmod(" + dir + ")", errno);
  return {};
}

namespace {

/// A shoal-stepd started, detached, and waiting for its setup on `fd` (its stdin).
struct idle_stepd {
  int fd = -1;
};

/// posix_spawn of `stepd_path` with `args` and `stdin_fd` as its stdin, signals at their defaults
/// and unblocked (shoald blocks its shutdown signals in every thread). Returns the pid.
shoal::expected<pid_t> spawn_stepd_process(const std::string& stepd_path,
                                           const std::vector<std::string>& args, int stdin_fd) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, stdin_fd, 0);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none;
  sigemptyset(&none);
  sigset_t all;
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<std::string> words{stepd_path};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  // A bare name (no shoal-stepd beside the running binary) is looked up in PATH.
  auto spawn = stepd_path.find('/') == std::string::npos ? ::posix_spawnp : ::posix_spawn;
  int err = spawn(&pid, stepd_path.c_str(), &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (err != 0) return system_error("posix_spawn(" + stepd_path + ")", err);
  return pid;
}

shoal::expected<idle_stepd> spawn_idle(const std::string& stepd_path) {
  // One socket pair as the daemon's stdin: the setup goes down it (then our half-close), the
  // daemon's start-up error (or nothing, once it listens) comes back. A socket rather than a
  // pipe, so that a daemon dying early costs us no SIGPIPE.
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
    return system_error("socketpair", errno);
  int ours = raise_fd(pair[0]);
  int theirs = raise_fd(pair[1]);
  auto pid = spawn_stepd_process(stepd_path, {}, theirs);
  ::close(theirs);
  if (!pid) {
    ::close(ours);
    return std::move(pid.error());
  }
  // The first process only forks the detached daemon and exits: reap it. The daemon (init's
  // child from now on) waits for its setup.
  int status = 0;
  while (::waitpid(*pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    // It could not even fork: its message, if any, is on the socket.
    std::string said;
    char buf[512];
    ssize_t n;
    while ((n = ::read(ours, buf, sizeof buf)) > 0) said.append(buf, static_cast<size_t>(n));
    ::close(ours);
    while (!said.empty() && said.back() == '\n') said.pop_back();
    return shoal::error(errc::system_error,
                        "shoal-stepd: " + (said.empty() ? stepd_path + " failed to start" : said));
  }
  return idle_stepd{ours};
}

/// What handing a setup over gave: a connection, or why not, and whether the daemon was dead
/// before it could read the setup (a spare killed meanwhile: worth a fresh one).
struct hand_over_result {
  shoal::expected<step_connection> conn{shoal::error{}};
  bool dead_before_setup = false;
};

hand_over_result hand_over(idle_stepd daemon, const msg::stepd_setup& setup,
                           const std::string& stepd_path) {
  hand_over_result out;
  auto bytes = msg::encode(setup);
  int write_err = write_all(daemon.fd, bytes.data(), bytes.size());
  ::shutdown(daemon.fd, SHUT_WR);
  std::string said;
  char buf[512];
  for (;;) {
    auto n = ::read(daemon.fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    said.append(buf, static_cast<size_t>(n));
  }
  ::close(daemon.fd);
  if (!said.empty()) {
    while (!said.empty() && said.back() == '\n') said.pop_back();
    out.conn = shoal::error(errc::system_error, "shoal-stepd: " + said);
    return out;
  }
  if (write_err != 0) {
    // Gone before it read its setup (a spare someone killed): nothing listens for this step.
    out.conn =
        shoal::error(errc::system_error, stepd_path + " ended before its setup was written (" +
                                             errno_text(write_err) + ")");
    out.dead_before_setup = true;
    return out;
  }
  out.conn = connect_stepd(setup.socket_path);
  // Closed without a word and nobody listens: it died (was killed) before it could start.
  out.dead_before_setup = !out.conn && out.conn.error() == errc::unreachable;
  return out;
}

}  // namespace

shoal::expected<step_connection> start_stepd(const std::string& stepd_path,
                                             const msg::stepd_setup& setup) {
  auto daemon = spawn_idle(stepd_path);
  if (!daemon) return std::move(daemon.error());
  return std::move(hand_over(*daemon, setup, stepd_path).conn);
}

// -- spares -------------------------------------------------------------------

stepd_spares::stepd_spares(std::string stepd_path) : stepd_path_(std::move(stepd_path)) {
  std::lock_guard<std::mutex> guard{mutex_};
  start_zygote();
  refill();
}

stepd_spares::~stepd_spares() {
  std::lock_guard<std::mutex> guard{mutex_};
  // EOF without a setup: the spare exits at once; EOF on its stdin ends the zygote.
  if (spare_fd_ >= 0) ::close(spare_fd_);
  stop_zygote();
}

void stepd_spares::replenish() {
  std::lock_guard<std::mutex> guard{mutex_};
  if (spare_fd_ < 0) refill();
}

int stepd_spares::zygote_pid() {
  std::lock_guard<std::mutex> guard{mutex_};
  return zygote_pid_;
}

void stepd_spares::start_zygote() {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) return;
  int ours = raise_fd(pair[0]);
  int theirs = raise_fd(pair[1]);
  auto pid = spawn_stepd_process(stepd_path_, {"--zygote"}, theirs);
  ::close(theirs);
  if (!pid) {
    ::close(ours);
    return;
  }
  zygote_fd_ = ours;
  zygote_pid_ = *pid;
}

void stepd_spares::stop_zygote() {
  if (zygote_fd_ < 0) return;
  ::close(zygote_fd_);
  zygote_fd_ = -1;
  int status = 0;
  while (::waitpid(zygote_pid_, &status, 0) < 0 && errno == EINTR) {
  }
  zygote_pid_ = -1;
}

int stepd_spares::fork_idle() {
  if (zygote_fd_ < 0) return -1;
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) return -1;
  int ours = raise_fd(pair[0]);
  int theirs = raise_fd(pair[1]);
  bool sent = send_fd(zygote_fd_, theirs);
  ::close(theirs);
  if (!sent) {
    ::close(ours);
    return -1;
  }
  return ours;
}

void stepd_spares::refill() {
  int forked = fork_idle();
  if (forked < 0 && zygote_fd_ >= 0 && !zygote_restarted_) {
    // The zygote died (killed, or out of memory): one more, then spares of their own.
    stop_zygote();
    zygote_restarted_ = true;
    start_zygote();
    forked = fork_idle();
  }
  if (forked >= 0) {
    spare_fd_ = forked;
    return;
  }
  stop_zygote();
  auto next = spawn_idle(stepd_path_);
  if (!next) return;  // the launch that needs it starts one itself, and says why if it cannot
  spare_fd_ = next->fd;
}

shoal::expected<step_connection> stepd_spares::start(const msg::stepd_setup& setup) {
  idle_stepd taken;
  {
    std::lock_guard<std::mutex> guard{mutex_};
    taken = idle_stepd{spare_fd_};
    spare_fd_ = -1;
  }
  if (taken.fd >= 0) {
    auto got = hand_over(taken, setup, stepd_path_);
    if (!got.dead_before_setup) return std::move(got.conn);
  }
  return start_stepd(stepd_path_, setup);
}

namespace {

/// Reads the hello on a fresh connection; closes `fd` on failure.
shoal::expected<step_connection> greet(int fd, const std::string& socket_path, int timeout_ms) {
  step_connection conn;
  conn.fd = fd;
  conn.socket_path = socket_path;
  auto first = read_frame(conn.fd, conn.reader, timeout_ms);
  if (!first || kind_of(*first) != frame_kind::hello) {
    ::close(conn.fd);
    if (!first) return std::move(first.error());
    return shoal::error(errc::malformed_message,
                        "shoal-stepd on " + socket_path + " did not start with a hello");
  }
  conn.hello = std::move(first->hello);
  return conn;
}

}  // namespace

shoal::expected<step_connection> connect_stepd(const std::string& socket_path,
                                               int hello_timeout_ms) {
  auto fd = connect_socket(socket_path);
  if (!fd) return std::move(fd.error());
  return greet(*fd, socket_path, hello_timeout_ms);
}

spool_scan scan_spool_dir(const std::string& dir, int hello_timeout_ms) {
  spool_scan out;
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (auto* entry = ::readdir(d))
      if (is_step_socket(entry->d_name)) names.emplace_back(entry->d_name);
    ::closedir(d);
  }
  for (auto& name : names) {
    auto path = dir + "/" + name;
    auto fd = connect_socket(path);
    if (!fd) {
      if (fd.error() == errc::unreachable) {
        // Its daemon died (kill -9, a crash, a reboot): nobody will ever accept on it.
        ::unlink(path.c_str());
        out.removed.push_back(path);
      } else {
        out.problems.push_back(path + ": " + shoal::describe(fd.error()));
      }
      continue;
    }
    auto conn = greet(*fd, path, hello_timeout_ms);
    if (conn)
      out.live.push_back(std::move(*conn));
    else
      out.problems.push_back(path + ": " + shoal::describe(conn.error()));
  }
  return out;
}

size_t terminate_stepds(const std::string& dir) {
  size_t signalled = 0;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return 0;
  std::vector<std::string> names;
  while (auto* entry = ::readdir(d))
    if (is_step_socket(entry->d_name)) names.emplace_back(entry->d_name);
  ::closedir(d);
  for (auto& name : names) {
    auto fd = connect_socket(dir + "/" + name);
    if (!fd) continue;
    ucred cred{};
    socklen_t len = sizeof cred;
    if (::getsockopt(*fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && cred.pid > 0 &&
        ::kill(cred.pid, SIGTERM) == 0)
      ++signalled;
    ::close(*fd);
  }
  return signalled;
}

}  // namespace shoal::process
