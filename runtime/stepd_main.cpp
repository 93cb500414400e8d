// shoal-stepd: one job step on one node, in a process of its own (as Slurm's slurmstepd), so
// that its tasks outlive a restart or a kill -9 of shoald. shoald starts it with a socket on
// stdin; it forks once more and detaches (setsid), reads a msg::stepd_setup from stdin (an
// empty one: its shoald ended first, nothing to do), listens on the step's socket in the node's
// spool directory, reports "ready" by closing stdin's socket (or writes why it could not start),
// runs the tasks and serves whichever shoald connects until one acknowledges the step's exit.
// No actor system: a poll loop (process/stepd_server.hpp).
// `shoal-stepd --zygote` is shoald's step factory: it forks a child per step, which detaches
// with setsid alone (below).

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "messages/codec.hpp"
#include "messages/errc.hpp"
#include "process/fd_passing.hpp"
#include "process/stepd_server.hpp"
#include "process/task_launch.hpp"

namespace {

/// Descriptors shoald did not mean to hand down (its listening /metrics socket, its connection
/// to the controller) would otherwise live as long as the step and keep a restarted shoald from
/// binding its port.
void close_inherited_fds() {
#ifdef SYS_close_range
  if (::syscall(SYS_close_range, 3u, ~0u, 0u) == 0) return;
#endif
  long max_fd = ::sysconf(_SC_OPEN_MAX);
  for (int fd = 3; fd < max_fd; ++fd) ::close(fd);
}

std::string read_to_end(int fd) {
  std::string bytes;
  char buf[64 * 1024];
  for (;;) {
    auto n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return bytes;
    bytes.append(buf, static_cast<size_t>(n));
  }
}

/// Tells shoald why we cannot run (it becomes the step's launch error) and exits.
[[noreturn]] void fail(const std::string& why) {
  auto line = why + "\n";
  (void)shoal::process::write_all(0, line.data(), line.size());
  std::_Exit(1);
}

void point_at_dev_null(int fd, int flags) {
  int null = ::open("/dev/null", flags | O_CLOEXEC);
  if (null < 0) return;
  ::dup2(null, fd);
  ::close(null);
}

/// One step, its setup coming on stdin: what a shoal-stepd started for one step does, and what
/// each child of a zygote does. `detach`: fork once more first (a child of shoald's).
int serve_one_step(bool detach) {
  close_inherited_fds();
  // Sockets are written with MSG_NOSIGNAL, but stderr may be a pipe whose reader is gone.
  ::signal(SIGPIPE, SIG_IGN);
  // A step daemon spawned by shoald detaches first: the first process exits at once (shoald
  // reaps it), the second leads a session of its own, so neither shoald's end nor a signal to
  // its process group reaches the step. A zygote's child is no child of shoald's, and the zygote
  // does not wait for it: its own session is enough. A spare (process/stepd_client.hpp) does all
  // of this before its step is known.
  if (detach) {
    pid_t child = ::fork();
    if (child < 0) fail(std::string{"fork: "} + shoal::process::errno_text(errno));
    if (child > 0) std::_Exit(0);
  }
  ::setsid();
  auto logger = std::make_shared<spdlog::logger>("shoal-stepd",
                                                 std::make_shared<spdlog::sinks::stderr_sink_st>());
  logger->set_pattern("[%Y-%m-%dT%H:%M:%S.%e] %n[%P] %l: %v");
  spdlog::set_default_logger(logger);
  auto bytes = read_to_end(0);
  // A spare whose shoald ended before it had a step for it.
  if (bytes.empty()) return 0;
  shoal::process::stepd_options opt;
  if (auto err = shoal::msg::decode(std::vector<char>(bytes.begin(), bytes.end()), opt.setup))
    fail("cannot read the step's setup: " + shoal::describe(err));
  auto job_id = opt.setup.request.job_id;
  auto step = shoal::msg::step_label(opt.setup.request.step_id);
  auto socket_path = opt.setup.socket_path;
  opt.env = shoal::process::task_env_from_environment();
  auto server = shoal::process::stepd_server::listen(std::move(opt));
  if (!server) fail(shoal::describe(server.error()));
  // Listening: closing our end of shoald's socket says so.
  point_at_dev_null(0, O_RDONLY);
  point_at_dev_null(1, O_WRONLY);
  logger->debug("stepd started job={} step={} socket={}", job_id, step, socket_path);
  auto done = (*server)->run();
  logger->debug("stepd done job={} step={} tasks={}", job_id, step, done.tasks.size());
  return 0;
}

/// `shoal-stepd --zygote`: loaded once, it forks a step daemon for each socket shoald sends over
/// stdin (process/stepd_client.hpp, stepd_spares), so a step costs one fork of this small
/// single-threaded process instead of an exec with its dynamic loading. The child goes on as a
/// shoal-stepd started for one step would, that socket as its stdin, in a session of its own;
/// the kernel reaps it (SIGCHLD ignored here), and when the zygote ends first it is reparented
/// and runs on. Ends at EOF on stdin.
int run_zygote(char* mode_arg) {
  // Only stdin (the control socket) and stderr (shoald's log) are ours to keep.
#ifdef SYS_close_range
  if (::syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
#endif
  {
    long max_fd = ::sysconf(_SC_OPEN_MAX);
    for (int fd = 3; fd < max_fd; ++fd) ::close(fd);
  }
  ::signal(SIGPIPE, SIG_IGN);
  ::signal(SIGCHLD, SIG_IGN);
  for (;;) {
    int step_fd = shoal::process::receive_fd(0);
    if (step_fd < 0) return 0;
    pid_t child = ::fork();
    if (child == 0) {
      // A step daemon waits for its own tasks: their exits must not be reaped away.
      ::signal(SIGCHLD, SIG_DFL);
      // ps shows a step's daemon as `shoal-stepd`, not as the zygote it came from.
      std::memset(mode_arg, 0, std::strlen(mode_arg));
      ::dup2(step_fd, 0);  // clears close-on-exec on the copy; the control socket is gone
      ::close(step_fd);
      std::exit(serve_one_step(false));  // as main() returning would
    }
    // On failure shoald reads EOF on the socket and starts a step daemon itself.
    ::close(step_fd);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--zygote") == 0) return run_zygote(argv[1]);
  return serve_one_step(true);
}
