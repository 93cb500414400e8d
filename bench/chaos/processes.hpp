#pragma once

// The chaos test's processes: daemons it starts, kills -9 and starts again, each start with a log
// of its own, and CLI runs with a deadline and captured output.

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "messages/errc.hpp"

namespace shoal::chaos {

/// One daemon, started again and again with the same command line. Its process is in its own
/// process group and gets SIGTERM when the thread that started it ends (PR_SET_PDEATHSIG): start
/// it from the main thread. Not thread-safe.
class daemon_process {
 public:
  /// `name` names its logs: `log_dir`/NAME.N.log for the N-th start.
  daemon_process(std::string name, std::vector<std::string> argv, std::string log_dir);
  ~daemon_process();
  daemon_process(const daemon_process&) = delete;
  daemon_process& operator=(const daemon_process&) = delete;

  /// Starts it (again). Precondition: not running. Error: errc::system_error (open, fork).
  shoal::error start();

  /// SIGKILL, as a crash, and reaps it; does nothing when it is not running.
  void kill_hard();

  /// SIGTERM, then SIGKILL after `grace`; reaps it. Does nothing when it is not running.
  void stop(std::chrono::milliseconds grace = std::chrono::seconds{5});

  /// True while it runs; reaps it once it has exited (see exit_text).
  bool running();

  /// How it ended the last time it exited without being killed here ("exit 1", "signal 6"); ""
  /// while it runs or when it was killed here.
  const std::string& exit_text() const { return exit_text_; }

  const std::string& name() const { return name_; }
  pid_t pid() const { return pid_; }
  unsigned starts() const { return starts_; }
  /// The log of the latest start (empty before the first).
  std::string log_path() const;

 private:
  std::string name_;
  std::vector<std::string> argv_;
  std::string log_dir_;
  pid_t pid_ = -1;
  unsigned starts_ = 0;
  std::string exit_text_;
};

/// What a finished command left behind.
struct command_result {
  int exit_code = -1;  ///< its exit status; 128 + signal when signalled; -1 when it timed out
  bool timed_out = false;
  std::string out;
  std::string err;
  /// "exit 1: first line of stderr", for failure lines.
  std::string describe() const;
};

/// Runs `argv` (argv[0] a path) with this process's environment without its SHOAL_* variables,
/// plus `env` ("NAME=value" each), stdin from /dev/null, in `cwd`; kills its process group when
/// it runs longer than `timeout`. Thread-safe.
command_result run_command(const std::vector<std::string>& argv,
                           const std::vector<std::string>& env, const std::string& cwd,
                           std::chrono::milliseconds timeout);

}  // namespace shoal::chaos
