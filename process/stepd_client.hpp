#pragma once

// shoald's side of shoal-stepd: starting one for a step, connecting to one (again, after a
// restart), and finding the live ones in a node's spool directory. Blocking calls: the shepherd
// makes them on its own thread, shoald's main before its actors start.

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "messages/errc.hpp"
#include "messages/types.hpp"
#include "process/stepd_wire.hpp"

namespace shoal::process {

/// How long a step daemon may take to say hello on a new connection.
constexpr int stepd_hello_timeout_ms = 5000;

/// A connection to a step daemon, its hello read. It is a probe until its owner sends an
/// attach frame: only then do the step's output and exit come to it.
struct step_connection {
  int fd = -1;             ///< blocking, CLOEXEC; the caller closes it
  msg::stepd_hello hello;  ///< what the daemon said first
  frame_reader reader;     ///< holds whatever arrived after the hello
  std::string socket_path;
};

/// shoal-stepd beside the running binary (shoald, or a test in the build's bin/), found through
/// /proc/self/exe; "shoal-stepd" (looked up in PATH) when that fails.
std::string sibling_stepd_path();

/// `<dir>/job<J>.step<S>.sock`, S as Slurm names steps ("batch" for the batch script).
std::string step_socket_path(const std::string& dir, uint64_t job_id, uint32_t step_id);

/// Creates `dir` and its missing parents, and makes `dir` itself mode 0700: step sockets take
/// signals for jobs, so only shoald's user may reach them. Error: errc::system_error.
shoal::error prepare_spool_dir(const std::string& dir);

/// Starts `stepd_path` for `setup` (setsid, detached from this process: it outlives it), hands
/// it the setup, waits until it listens on setup.socket_path and connects. Errors:
/// errc::system_error naming what failed (the daemon's own message when it could not start).
shoal::expected<step_connection> start_stepd(const std::string& stepd_path,
                                             const msg::stepd_setup& setup);

/// shoal-stepd processes started ahead of need: one waits, libraries loaded, for the next
/// launch's setup, so a launch does not wait for a process to start. Each start() takes the
/// waiting one; replenish() starts the next.
/// The spares come from a zygote: one `shoal-stepd --zygote`, this process's child, loaded once,
/// forks each (runtime/stepd_main.cpp). A fork of that small single-threaded process costs a
/// fraction of an exec with its dynamic loading and page faults, which made shoal-stepd a third
/// of a busy node's CPU (docs/benchmarks.md, "Serial submission"). A zygote that died is started
/// again once; failing that, spares are started as separate processes.
/// A spare is already detached (its own session, init's child) and only reads its stdin: the
/// EOF it gets when shoald ends without using it ends it.
/// Thread-safe: every shepherd of a shoald shares one.
class stepd_spares {
 public:
  /// Starts the zygote and the first spare (none when `stepd_path` cannot be started; start()
  /// then says why).
  explicit stepd_spares(std::string stepd_path);
  /// Ends the waiting spare and the zygote.
  ~stepd_spares();
  stepd_spares(const stepd_spares&) = delete;
  stepd_spares& operator=(const stepd_spares&) = delete;

  /// As start_stepd, with the waiting spare (a fresh process when there is none, or when the
  /// spare died before it could read the setup).
  shoal::expected<step_connection> start(const msg::stepd_setup& setup);

  /// Starts a spare unless one waits. Called once a step is over, not when one starts: making
  /// the next spare then would take CPU from the step being launched.
  void replenish();

  /// The zygote's pid, -1 when none runs (for tests).
  int zygote_pid();

 private:
  void refill();        ///< needs mutex_
  int fork_idle();      ///< a spare from the zygote, its socket; -1 when it cannot
  void start_zygote();  ///< needs mutex_
  void stop_zygote();   ///< needs mutex_

  std::string stepd_path_;
  std::mutex mutex_;
  int spare_fd_ = -1;   ///< its stdin; -1: no spare waits
  int zygote_fd_ = -1;  ///< the zygote's stdin; -1: none runs
  int zygote_pid_ = -1;
  bool zygote_restarted_ = false;
};

/// Connects to the step daemon listening on `socket_path` and reads its hello. Errors:
/// errc::unreachable when nobody listens there (a stale socket) or it says nothing within
/// `hello_timeout_ms`; errc::system_error or errc::malformed_message otherwise.
shoal::expected<step_connection> connect_stepd(const std::string& socket_path,
                                               int hello_timeout_ms = stepd_hello_timeout_ms);

/// What a node's spool directory held.
struct spool_scan {
  std::vector<step_connection> live;  ///< connected, hello read
  std::vector<std::string> removed;   ///< stale sockets (nobody listened), deleted
  std::vector<std::string> problems;  ///< "PATH: why" for sockets left alone
};

/// Connects to every step socket (`job*.step*.sock`) in `dir`, removing those nobody listens
/// on. A missing directory holds nothing.
spool_scan scan_spool_dir(const std::string& dir, int hello_timeout_ms = stepd_hello_timeout_ms);

/// SIGTERM to every step daemon listening in `dir` (found by its socket's peer credentials):
/// each kills its tasks and exits at once, reporting to nobody. For throwaway clusters (tests,
/// `shoal start`), whose steps must not outlive them. Returns how many were signalled.
size_t terminate_stepds(const std::string& dir);

}  // namespace shoal::process
