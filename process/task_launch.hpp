#pragma once

// The process side of the job shepherd: building a task's environment, resolving its program and
// forking it. No actors here; `shepherd.cpp` drives these functions from its detached thread.

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "messages/types.hpp"
#include "topology/cpu_binding.hpp"

namespace shoal::process {

// -- environment --------------------------------------------------------------

/// Sets `key=value` in `env`, replacing the first existing entry for `key` (and dropping later
/// duplicates) or appending when there is none.
void set_env(std::vector<std::string>& env, const std::string& key, const std::string& value);

/// The `key=value` entry of `key` in `env`, or nullptr when absent.
const std::string* find_env(const std::vector<std::string>& env, const std::string& key);

/// Removes every entry for `key` from `env`.
void unset_env(std::vector<std::string>& env, const std::string& key);

/// The folder, beside the node daemon's binaries, that holds the Slurm command names (`sbatch`,
/// `srun`, ...) as links to `shoal` in a build tree. An install puts them beside `shoal` instead
/// (-DSHOAL_SLURM_NAMES=ON); CMakeLists.txt creates the folder under the same name.
inline constexpr const char* slurm_names_folder = "slurm-names";

/// What the node adds to every task's environment, besides what the launch says. shoal-stepd
/// reads no config: it takes these from the environment shoald started it with.
struct task_env_settings {
  /// SHOAL_CONF for the tasks; "" leaves the request's.
  std::string shoal_conf;
  /// SlurmEnv=: also set Slurm's SLURM_* variables and put `slurm_names_dir` on PATH.
  bool slurm_env = true;
  /// SLURM_CLUSTER_NAME (ClusterName=); "" leaves it unset.
  std::string cluster_name;
  /// The folder holding `shoal`, put first on PATH unless PATH has it already; "" for none.
  std::string shoal_dir;
  /// The folder of the Slurm-name links, put on PATH after `shoal_dir` (under the same rule)
  /// when `slurm_env`; "" for none.
  std::string slurm_names_dir;
  /// The PATH behind those folders when the request's environment has none.
  std::string default_path = "/usr/local/bin:/usr/bin:/bin";
};

/// The folders of `exe_dir` (the folder of the running shoal-stepd, where shoald and shoal
/// live too) that task_env_settings puts on PATH: `exe_dir` itself when it holds an executable
/// `shoal`, and its slurm_names_folder when that is a directory. A folder that does not exist
/// is left out ("").
void find_command_dirs(const std::string& exe_dir, task_env_settings& settings);

/// shoald's half of task_env_settings: puts SHOAL_CONF (`conf_path` made absolute; nothing when
/// empty), SlurmEnv= and ClusterName= into this process's environment, which every shoal-stepd
/// it starts inherits. setenv: call before any other thread exists.
void export_task_env(const std::string& conf_path, bool slurm_env, const std::string& cluster_name);

/// shoal-stepd's half: the settings export_task_env left in the environment (SlurmEnv on when
/// it left none), PATH as the default path, and find_command_dirs on the folder of the running
/// binary.
task_env_settings task_env_from_environment();

/// The PATH tasks of a launch whose environment is `env` run with (and programs are looked up
/// in): the request's PATH (or `settings.default_path` when it has none), behind whichever of
/// `settings.shoal_dir` and (with slurm_env) `settings.slurm_names_dir` it does not hold yet. The
/// user's own entries keep their order: an install in a folder the user has on PATH already
/// (/usr/bin) moves nothing.
std::string task_path(const std::vector<std::string>& env, const task_env_settings& settings);

/// The environment of task `rank` (the `local_id`-th task of the step on this node): `req.env`
/// with the SHOAL_* variables documented in shepherd.hpp set over it, PATH as task_path says,
/// SHOAL_CONF from `settings` unless that is empty, and with `settings.slurm_env` Slurm's
/// SLURM_* variables with Slurm's names and formats (see the definition for each one and where
/// it differs from Slurm). SHOAL_STEP_ID is "batch" for `req.batch` or msg::batch_step_id.
std::vector<std::string> build_task_env(const msg::launch_request& req, uint32_t rank,
                                        uint32_t local_id, const std::string& node_name,
                                        const task_env_settings& settings);

/// Sets what srun's task/affinity sets for `--cpu-bind`, under SHOAL_ names:
/// SHOAL_CPU_BIND_VERBOSE (quiet|verbose), SHOAL_CPU_BIND_TYPE (none, rank, map_cpu: or
/// mask_cpu:, the automatic types showing as mask_cpu: since each task gets a mask),
/// SHOAL_CPU_BIND_LIST (the masks, or for map_cpu the CPU numbers, of all the step's tasks on
/// this node, in local task order, masks zero-padded to `width_bits` bits as Slurm pads them to
/// the node's CPU count) and SHOAL_CPU_BIND (VERBOSE,TYPE LIST, e.g. "quiet,mask_cpu:0x1,0x2").
/// `plan` is plan_cpu_binding's result for this step and node. With `slurm_names` (SlurmEnv=)
/// the same four are also set under Slurm's names (SLURM_CPU_BIND_VERBOSE, ...).
void set_cpu_bind_env(std::vector<std::string>& env, const topology::cpu_bind_spec& spec,
                      const std::vector<topology::cpu_list>& plan, uint32_t width_bits,
                      bool slurm_names = false);

/// The calling thread's CPU affinity (OS CPU numbers), empty when it cannot be read.
topology::cpu_list current_affinity();

// -- program lookup -----------------------------------------------------------

/// Outcome of looking a program up in PATH.
struct resolved_program {
  /// Absolute (or caller-relative, when `name` holds a '/') path; empty when `error` is set.
  std::string path;
  /// 0, ENOENT (found nowhere) or EACCES (found, but no candidate is executable).
  int error = 0;
};

/// Looks `name` up as execvp does: a name containing '/' is returned unchanged (the child
/// resolves it after its chdir); otherwise each entry of `path_var` (colon-separated, an empty
/// entry meaning ".") is tried, relative entries taken against `base_dir`.
resolved_program resolve_program(const std::string& name, const std::string& path_var,
                                 const std::string& base_dir);

// -- fork/exec ----------------------------------------------------------------

/// Where a child failed before its program started.
enum class launch_stage : int32_t {
  none = 0,
  pipe = 1,       ///< creating pipes in the parent
  fork = 2,       ///< clone() in the parent
  setgroups = 3,  ///< dropping supplementary groups
  setgid = 4,
  setuid = 5,
  chdir = 6,      ///< no working directory candidate worked
  stdio = 7,      ///< /dev/null or dup2 onto 0/1/2
  open_out = 8,   ///< opening the stdout file
  open_err = 9,   ///< opening the stderr file
  exec = 10,      ///< execve itself
  parent = 11,    ///< the parent died before the child could arm PR_SET_PDEATHSIG
  affinity = 12,  ///< sched_setaffinity refused the task's CPUs
  cgroup = 13,    ///< joining the step's memory cgroup
  open_in = 14,   ///< opening the stdin file (-i FILE)
  terminal = 15,  ///< making the pseudo-terminal the task's controlling terminal (--pty)
};

/// A launch failure: the stage and its errno.
struct launch_failure {
  launch_stage stage = launch_stage::none;
  int error = 0;
};

/// Exit code reported for a task that never started: 126 when the program was found but is not
/// executable (EACCES, ENOEXEC at the exec stage), 1 when it could not be bound to its CPUs (the
/// status Slurm's task gets when task/affinity fails), 127 otherwise.
int32_t exit_code_for(const launch_failure& f);

/// Where a task's standard input comes from.
enum class stdin_source : uint8_t {
  null,      ///< /dev/null
  pipe,      ///< a pipe whose write end the caller gets (spawned_task::stdin_fd)
  file,      ///< `task_spec::stdin_path`, opened after the user switch and chdir
  terminal,  ///< a new pseudo-terminal, also the task's stdout, stderr and controlling terminal;
             ///< the caller gets its master (spawned_task::terminal_fd)
};

/// Everything a child needs. Built before clone: the child only reads it.
struct task_spec {
  /// Path handed to execve: resolved already, or containing a '/'.
  std::string exec_path;
  std::vector<std::string> argv;
  std::vector<std::string> env;
  /// Working directories to try in order; the first one chdir accepts wins.
  std::vector<std::string> cwd_candidates;
  stdin_source input = stdin_source::null;
  std::string stdin_path;  ///< stdin_source::file: relative to the working directory
  /// stdin_source::terminal: the window size the terminal starts with (0: the kernel's default).
  uint16_t terminal_rows = 0;
  uint16_t terminal_cols = 0;
  /// true: stdout/stderr go to fresh pipes whose read ends the caller gets (stderr to
  /// `stderr_path` instead when that is set: srun -e alone). false: they go to
  /// `stdout_path`/`stderr_path` (an empty stderr_path shares stdout's file), opened
  /// O_WRONLY|O_CREAT|O_APPEND, 0644, after the child switched user and directory.
  bool capture_output = true;
  std::string stdout_path;
  std::string stderr_path;
  /// With capture_output false: also O_TRUNC, so earlier contents go (--open-mode=truncate).
  bool truncate_output = false;
  /// Switch to uid/gid/groups before anything else touches the file system.
  bool switch_user = false;
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;
  /// CPUs (OS numbers) the child binds itself to with sched_setaffinity, after its standard
  /// descriptors are in place and just before exec; empty: keep the inherited affinity.
  topology::cpu_list cpus;
  /// A batch script held in memory (memfd_create): it stays open in the task, without
  /// O_CLOEXEC, so that its interpreter can read it as /dev/fd/N. With `exec_script_fd` the
  /// script itself is executed (execveat: the kernel reads its #! line) instead of `exec_path`.
  int script_fd = -1;
  bool exec_script_fd = false;
  /// A descriptor the task inherits under its own number (O_CLOEXEC cleared in the child): the
  /// step's PMI server's end for this task (PMI_FD). Not with `script_fd`. -1: none.
  int inherit_fd = -1;
  /// The step's memory cgroup: its cgroup.procs, open for writing (the child joins it before
  /// anything else, while still root), and its directory for messages. -1: none.
  int cgroup_procs_fd = -1;
  std::string cgroup_dir;
  /// With --cpu-bind=verbose: the child writes `bind_report.head`, its PID and
  /// `bind_report.tail` (`failed_tail` when binding failed) to its stderr before exec.
  bool report_binding = false;
  topology::verbose_bind_line bind_report;
};

/// "execvp(PROGRAM): strerror" for exec failures, e.g. "open(PATH): strerror",
/// "setuid(UID): strerror" or "sched_setaffinity(CPUs 0-1): strerror" for the earlier stages;
/// empty for launch_stage::none.
std::string describe(const launch_failure& f, const task_spec& spec, const std::string& program);

/// A forked child as the parent sees it. Owns its file descriptors (all O_CLOEXEC; the output
/// ends are also O_NONBLOCK) until `close_all` or until the caller takes them.
struct spawned_task {
  pid_t pid = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
  /// stdin_source::pipe: the write end of the task's stdin (O_NONBLOCK); -1 otherwise.
  int stdin_fd = -1;
  /// stdin_source::terminal: the pseudo-terminal's master (O_NONBLOCK), read for the task's
  /// output and written with its input; stdout_fd and stderr_fd are -1 then.
  int terminal_fd = -1;
  /// Read end of the child's CLOEXEC status pipe: EOF means exec succeeded, 8 bytes are a
  /// launch_failure (stage, errno) after which the child _exit()s.
  int status_fd = -1;
};

/// Forks one task into its own process group (set by both parent and child), with
/// PR_SET_PDEATHSIG=SIGKILL tied to the calling thread, stdin as `spec.input` says (a terminal
/// task leads a session of its own, its process group the terminal's foreground), signal mask and
/// dispositions reset, every other descriptor closed. The child only makes async-signal-safe
/// calls. Returns the failure when pipe() or fork() fails (nothing is left open then); otherwise
/// the caller must watch `status_fd` (see read_launch_status) and reap `pid`.
launch_failure spawn_task(const task_spec& spec, spawned_task& out);

/// Reads the status pipe without blocking. Returns false while the child has neither exec'd nor
/// failed (EAGAIN); true once known, with `failure.stage == none` on a successful exec. Closes
/// `fd` and sets it to -1 once known.
bool read_launch_status(int& fd, launch_failure& failure);

/// Closes `fd` unless negative and sets it to -1.
void close_fd(int& fd);

/// strerror(err), thread-safe.
std::string errno_text(int err);

/// Creates `dir` and its missing parents with mode 0755 (mkdir -p). Returns 0 or errno.
int make_dirs(const std::string& dir);

}  // namespace shoal::process
