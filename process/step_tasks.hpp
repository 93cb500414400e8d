#pragma once

// The tasks of one job step on this node, from fork/exec to the last exit code: what the job
// shepherd does at the process level (seed 001). shoal-stepd drives it from its poll loop; see
// actors/shepherd.hpp for the behaviour users see.

#include <poll.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "messages/types.hpp"
#include "process/memory_guard.hpp"
#include "process/mpi_server.hpp"
#include "process/step_io.hpp"
#include "process/step_usage.hpp"
#include "process/task_launch.hpp"
#include "process/task_scripts.hpp"
#include "topology/cpu_binding.hpp"
#include "topology/machine_probe.hpp"

namespace shoal::process {

/// What step_tasks needs from whoever runs it: somewhere to put output, and a share of its poll
/// loop so the owner can serve its own descriptors (a socket) while tasks start and run.
class step_host {
 public:
  virtual ~step_host() = default;

  /// A chunk of a task's output (never for batch steps: their output goes to files).
  virtual void on_output(msg::task_output out) = 0;

  /// True while no more output can be taken: the tasks' pipes are then left unread, so tasks
  /// block on a full pipe instead of losing output.
  virtual bool output_paused() const = 0;

  /// Appends the owner's descriptors to the poll set.
  virtual void add_fds(std::vector<pollfd>& fds) = 0;

  /// Serves the descriptors add_fds appended (`fds[0..count)`, in the same order) after poll
  /// returned; may call step_tasks::signal, kill_all or add_input.
  virtual void handle_fds(const pollfd* fds, size_t count) = 0;

  /// `count` chunks given to add_input are now in the input tasks' pipes (or dropped, their
  /// tasks gone): the sender may send as many more.
  virtual void on_input_taken(size_t count) = 0;
};

/// One step's tasks on this node. Not copyable; single-threaded.
class step_tasks {
 public:
  /// `cores` is this node's hwloc core table (for --cpu-bind and the job's CPUs); `env` is what
  /// the node adds to each task's environment (build_task_env); programs are looked up in the
  /// PATH the tasks get (task_path).
  step_tasks(msg::launch_request req, std::string node_name, std::vector<topology::core_info> cores,
             task_env_settings env);
  ~step_tasks();
  step_tasks(const step_tasks&) = delete;
  step_tasks& operator=(const step_tasks&) = delete;

  /// Starts every task, watches them until the last exited and its output is drained (at most
  /// 200 ms after the last exit), kills what is left in their process groups, and returns the
  /// step's exit. Serves `host` all along. Call once.
  msg::step_exit run(step_host& host);

  /// Sends `signo` to every task's process group; ranks still being started get it too, once
  /// started. Ignores signals outside 1..NSIG-1.
  void signal(int signo);

  /// SIGKILL to every task; ranks not started yet are not started and report signal 9.
  void kill_all();

  /// Standard input for the tasks that take the client's (StepIo.input, task 0 under --pty):
  /// appended to what each still has to write, its stdin closed after it on `in.eof`; a new
  /// window size (rows and cols set) goes to the terminal. The host hears on_input_taken once
  /// the data is written, or at once when no task here takes input any more. Held for tasks
  /// still starting.
  void add_input(const msg::task_input& in);

  /// True until every started task has been reaped.
  bool tasks_running() const;

  /// The step's PMI server (process/mpi_server.hpp; owned by the caller, outliving run()): told
  /// of each task before it starts, once it started and once it ended. Call before run().
  void use_mpi(mpi_server* server) { mpi_ = server; }

  /// Fails the step before any task starts, with `why` as its launch error (exit code 1): its
  /// PMI server could not start. Call before run().
  void refuse(std::string why) { refused_ = std::move(why); }

  /// Ends the step: `why` goes to the step's stderr as rank `rank`'s line, then every task is
  /// killed (a rank's PMI abort).
  void abort(uint32_t rank, const std::string& why);

  /// Writes `text` and a newline to the step's stderr as rank `rank`'s output.
  void report(uint32_t rank, const std::string& text);

  /// Samples the step's resource use every `every` while tasks run (default 5 s), and at each
  /// task's exit. Call before run().
  void sample_usage_every(std::chrono::milliseconds every) { usage_.set_interval(every); }

  /// The step's resource use on this node as of the last sample.
  const usage_figures& usage() const { return usage_.figures(); }

  /// Samples the step's resource use now (sstat asked), unless no task runs any more; the
  /// next periodic sample comes an interval after this one.
  void sample_usage_now();

  /// The step's resource use on this node in total, once run() returned (before: as usage()).
  usage_figures final_usage() const { return usage_.figures(); }

  const msg::launch_request& request() const { return req_; }

  /// TaskProlog= and TaskEpilog= around each task (process/task_scripts.hpp). Call before run.
  void use_task_scripts(task_scripts scripts) { scripts_ = std::move(scripts); }
  const std::string& node_name() const { return node_name_; }

 private:
  using clock_type = std::chrono::steady_clock;

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
    bool takes_input = false;  ///< reads the client's standard input
    bool terminal = false;     ///< --pty: out.fd is the pseudo-terminal's master
    int in_fd = -1;            ///< where its input is written (a pipe, or the terminal's master)
    std::string in_pending;    ///< input not yet written
    bool in_ended = false;     ///< the input ended: in_fd closes once in_pending is written
    std::vector<std::string> env;  ///< its environment, kept for a TaskEpilog (else empty)
    std::string cwd;               ///< where the TaskEpilog runs
  };

  // -- task scripts (step_tasks_scripts.cpp) --
  bool run_task_prolog(size_t i, task_spec& spec);
  void run_task_epilog(const task_state& t);

  // -- launching --
  void confine_to_job_cpus();
  bool write_script();
  bool switch_user() const;
  std::vector<gid_t> supplementary_groups() const;
  task_spec make_spec(uint32_t rank, uint32_t local_id);
  void fail_unstarted(size_t first, std::string what, int32_t code);
  bool plan_binding();
  void launch_all();
  launch_failure wait_for_exec(int& status_fd);
  std::string program_name() const;
  bool plan_programs();

  // -- input --
  void write_input(task_state& t);
  void settle_input();

  // -- watching --
  void watch();
  void limit_memory();
  void check_memory();
  bool any_open() const;
  int poll_timeout_ms(clock_type::time_point now, bool draining,
                      clock_type::time_point drain_deadline) const;
  void poll_once(int timeout_ms, bool read_output);
  void read_stream(task_state& t, output_stream& s);
  void emit(task_state& t, output_stream& s, bool all);
  void flush_stale_partials();
  void send_output(const task_state& t, const output_stream& s, std::string data);
  void reap();
  void signal_tasks(int signo);
  void kill_on_bad_exit(const task_state& t);
  msg::step_exit finish();

  // -- member variables --
  msg::launch_request req_;
  std::string node_name_;
  std::vector<topology::core_info> cores_;
  task_env_settings env_;
  step_host* host_ = nullptr;
  bool binding_ = false;  ///< --cpu-bind was given: set its variables, bind unless none
  topology::cpu_bind_spec bind_spec_;
  std::vector<topology::cpu_list> bind_plan_;  ///< per local task; empty for none
  uint32_t bind_width_ = 0;                    ///< highest CPU number + 1, for padded masks
  topology::cpu_list inherited_cpus_;          ///< what none shows and a failed bind keeps
  std::vector<task_state> tasks_;
  std::vector<gid_t> groups_;
  std::string program_path_;
  /// --multi-prog: each local task's command line and resolved program; empty otherwise.
  std::vector<std::vector<std::string>> task_argv_;
  std::vector<std::string> task_program_;
  size_t inputs_owed_ = 0;  ///< chunks added and not yet reported taken
  bool bad_exit_seen_ = false;
  int script_fd_ = -1;             ///< the batch script, in memory
  std::vector<uint32_t> job_pus_;  ///< the host CPUs the job holds here; empty: all
  memory_guard memory_;
  step_usage_sampler usage_;
  bool out_of_memory_ = false;
  clock_type::time_point next_memory_check_;
  std::string launch_error_;
  io_pattern_values pattern_values(uint32_t rank) const;
  void direct_output_to_files(task_spec& spec, uint32_t rank);
  std::set<std::string> opened_files_;  ///< srun -o/-e files a task here opened already
  mpi_server* mpi_ = nullptr;
  std::string refused_;
  bool launching_ = true;
  bool aborted_ = false;
  std::vector<int> early_signals_;
  std::vector<char> read_buf_;
  task_scripts scripts_;
};

}  // namespace shoal::process
