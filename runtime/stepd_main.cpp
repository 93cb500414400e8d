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
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "interconnect/switch_node.hpp"
#include "messages/codec.hpp"
#include "messages/errc.hpp"
#include "process/fd_passing.hpp"
#include "process/pmix_server.hpp"
#include "process/stepd_server.hpp"
#include "process/task_launch.hpp"

namespace {

/// Steps a step daemon forked by the zygote serves, one after another, before it exits: each
/// after the first costs no fork, no exit and none of the copy-on-write faults of a new process
/// (about half a step daemon's CPU), and whatever one step might leave behind in it can only
/// grow this far.
constexpr int steps_per_daemon = 64;

/// Closes descriptors [first, last].
void close_range_of(unsigned first, unsigned last) {
  if (first > last) return;
#ifdef SYS_close_range
  if (::syscall(SYS_close_range, first, last, 0u) == 0) return;
#endif
  long max_fd = ::sysconf(_SC_OPEN_MAX);
  for (long fd = first; fd < max_fd && fd <= static_cast<long>(last); ++fd)
    ::close(static_cast<int>(fd));
}

/// Descriptors shoald did not mean to hand down (its listening /metrics socket, its connection
/// to the controller) would otherwise live as long as the step and keep a restarted shoald from
/// binding its port. `keep` (above 2) stays open: a zygote's child's link to the zygote.
void close_inherited_fds(int keep = -1) {
  if (keep < 3) return close_range_of(3, ~0u);
  close_range_of(3, static_cast<unsigned>(keep) - 1);
  close_range_of(static_cast<unsigned>(keep) + 1, ~0u);
}

std::string parent_dir(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
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

/// Ends a step daemon. After a PMIx step the library may hold a lock of its own forever
/// (process/pmix_server.cpp), which its teardown at exit would wait on: it leaves without.
[[noreturn]] void leave(int code) {
  if (shoal::process::pmix_server_has_run()) {
    spdlog::shutdown();
    std::fflush(nullptr);
    ::_exit(code);
  }
  std::exit(code);
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
/// each child of a zygote does for each step it is given. `detach`: fork once more first (a
/// child of shoald's). `keep`: a descriptor to leave open. False when no step came (the spare's
/// shoald ended first).
bool serve_one_step(bool detach, int keep = -1) {
  close_inherited_fds(keep);
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
  ::setsid();  // fails, harmlessly, in a step daemon serving its second step
  auto logger = std::make_shared<spdlog::logger>("shoal-stepd",
                                                 std::make_shared<spdlog::sinks::stderr_sink_st>());
  logger->set_pattern("[%Y-%m-%dT%H:%M:%S.%e] %n[%P] %l: %v");
  spdlog::set_default_logger(logger);
  auto bytes = read_to_end(0);
  // A spare whose shoald ended before it had a step for it.
  if (bytes.empty()) return false;
  shoal::process::stepd_options opt;
  if (auto err = shoal::msg::decode(std::vector<char>(bytes.begin(), bytes.end()), opt.setup))
    fail("cannot read the step's setup: " + shoal::describe(err));
  auto job_id = opt.setup.request.job_id;
  auto step = shoal::msg::step_label(opt.setup.request.step_id);
  auto socket_path = opt.setup.socket_path;
  opt.env = shoal::process::task_env_from_environment();
  // The interconnect's grant (interconnect/switch_node.hpp) is in place before any task execs;
  // its variables join the request's environment, which every task's starts from.
  auto& req = opt.setup.request;
  shoal::interconnect::node_step switch_step;
  switch_step.job_id = req.job_id;
  switch_step.step_id = req.step_id;
  switch_step.node_name = opt.setup.node_name;
  switch_step.node_index = req.node_index;
  switch_step.uid = req.uid;
  switch_step.gid = req.gid;
  switch_step.dir = shoal::interconnect::switch_dir(parent_dir(socket_path));
  auto switch_data = req.switch_data;
  if (!switch_data.empty()) {
    auto grant = shoal::interconnect::apply_switch_data(switch_step, switch_data);
    if (!grant) fail("interconnect: " + shoal::describe(grant.error()));
    for (auto& [name, value] : grant->env) shoal::process::set_env(req.env, name, value);
  }
  auto server = shoal::process::stepd_server::listen(std::move(opt));
  // A second stepd for a step that runs already fails here; the file it wrote over carries the
  // same launch's grant, so the running step keeps it.
  if (!server) fail(shoal::describe(server.error()));
  // Listening: closing our end of shoald's socket says so.
  point_at_dev_null(0, O_RDONLY);
  point_at_dev_null(1, O_WRONLY);
  logger->debug("stepd started job={} step={} socket={}", job_id, step, socket_path);
  auto done = (*server)->run();
  shoal::interconnect::release_switch_data(switch_step, switch_data);
  logger->debug("stepd done job={} step={} tasks={}", job_id, step, done.tasks.size());
  return true;
}

/// A zygote's child: serves the step whose socket is its stdin, then tells the zygote over
/// `link` that it is free and serves the socket the zygote hands it next, up to
/// steps_per_daemon steps. Ends when no step comes or the zygote is gone.
int serve_steps(int link) {
  for (int served = 1;; ++served) {
    if (!serve_one_step(false, link) || served >= steps_per_daemon) return 0;
    // PMIx's server library cannot be initialized again once finalized (pmix_server_has_run):
    // the zygote forks a fresh daemon for the next step instead.
    if (shoal::process::pmix_server_has_run()) return 0;
    // The step's server took SIGTERM and SIGINT through a signalfd; idle, they end us again.
    sigset_t ending;
    sigemptyset(&ending);
    sigaddset(&ending, SIGTERM);
    sigaddset(&ending, SIGINT);
    ::sigprocmask(SIG_UNBLOCK, &ending, nullptr);
    char free = 'f';
    if (::send(link, &free, 1, MSG_NOSIGNAL) != 1) return 0;
    int next = shoal::process::receive_fd(link);
    if (next < 0) return 0;
    ::dup2(next, 0);  // clears close-on-exec on the copy
    ::close(next);
  }
}

/// The zygote's step daemons, each known by its end of a socket pair.
struct step_daemons {
  std::vector<int> busy;  ///< serving a step
  std::vector<int> idle;  ///< waiting for the next one

  /// Hands `step_fd` (a spare's socket from shoald) to an idle daemon, or forks a new one. Closes
  /// `step_fd` either way; on failure shoald reads EOF on it and starts a step daemon itself.
  void hand_out(int step_fd, char* mode_arg) {
    while (!idle.empty()) {
      int link = idle.back();
      idle.pop_back();
      if (shoal::process::send_fd(link, step_fd)) {
        busy.push_back(link);
        ::close(step_fd);
        return;
      }
      ::close(link);  // it ended while idle
    }
    int pair[2] = {-1, -1};
    bool linked = ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) == 0;
    pid_t child = ::fork();
    if (child == 0) {
      // A step daemon waits for its own tasks: their exits must not be reaped away.
      ::signal(SIGCHLD, SIG_DFL);
      // ps shows a step's daemon as `shoal-stepd`, not as the zygote it came from.
      std::memset(mode_arg, 0, std::strlen(mode_arg));
      ::dup2(step_fd, 0);  // clears close-on-exec on the copy; the control socket is gone
      ::close(step_fd);
      // Without a link it serves this one step only. exit(), as main() returning would.
      leave(linked ? serve_steps(pair[1]) : (serve_one_step(false), 0));
    }
    ::close(step_fd);
    if (!linked) return;
    ::close(pair[1]);
    if (child > 0)
      busy.push_back(pair[0]);
    else
      ::close(pair[0]);
  }

  /// A daemon's link is readable: a busy one is free again, or it ended.
  void on_readable(int link) {
    char byte = 0;
    ssize_t n;
    do {
      n = ::recv(link, &byte, 1, 0);
    } while (n < 0 && errno == EINTR);
    auto at = std::find(busy.begin(), busy.end(), link);
    if (n == 1 && at != busy.end()) {
      busy.erase(at);
      idle.push_back(link);
      return;
    }
    // Ended (EOF), or spoke out of turn: forgotten either way.
    busy.erase(std::remove(busy.begin(), busy.end(), link), busy.end());
    idle.erase(std::remove(idle.begin(), idle.end(), link), idle.end());
    ::close(link);
  }
};

/// `shoal-stepd --zygote`: loaded once, it gives each socket shoald sends over stdin
/// (process/stepd_client.hpp, stepd_spares) to a step daemon of its own: one that finished its
/// last step, or a fork of itself, so a step costs no exec with its dynamic loading and, mostly,
/// no fork either. The step daemon goes on as a shoal-stepd started for one step would, that
/// socket as its stdin, in a session of its own; the kernel reaps it (SIGCHLD ignored here), and
/// when the zygote ends first it is reparented and runs on, then ends after its step. Ends at
/// EOF on stdin.
int run_zygote(char* mode_arg) {
  // Only stdin (the control socket) and stderr (shoald's log) are ours to keep.
  close_inherited_fds();
  ::signal(SIGPIPE, SIG_IGN);
  ::signal(SIGCHLD, SIG_IGN);
  step_daemons daemons;
  std::vector<pollfd> watched;
  for (;;) {
    watched.assign(1, pollfd{0, POLLIN, 0});
    for (auto* set : {&daemons.busy, &daemons.idle})
      for (int link : *set) watched.push_back(pollfd{link, POLLIN, 0});
    if (::poll(watched.data(), watched.size(), -1) < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    for (size_t i = 1; i < watched.size(); ++i)
      if (watched[i].revents != 0) daemons.on_readable(watched[i].fd);
    if (watched[0].revents == 0) continue;
    int step_fd = shoal::process::receive_fd(0);
    // shoald is gone: idle daemons read EOF on their links and end.
    if (step_fd < 0) return 0;
    daemons.hand_out(step_fd, mode_arg);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--zygote") == 0) return run_zygote(argv[1]);
  serve_one_step(true);
  leave(0);
}
