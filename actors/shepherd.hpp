#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/error.hpp>
#include <caf/typed_actor.hpp>

#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "messages/types.hpp"
#include "metrics/registry.hpp"
#include "process/stepd_client.hpp"
#include "topology/machine_probe.hpp"

namespace shoal::actors {

/// Where an adopted step reports its end: its node daemon, which answers once the controller
/// has the step_exit (errc::unreachable while it has no controller: the shepherd retries).
using step_report_actor = caf::typed_actor<
    /// An adopted step ended: relay it to the job through the controller.
    caf::replies_to<msg::step_exit>::with<caf::ok_atom>>;

/// Watches the tasks of one job step on this node (seed 001's Job Shepherd). The tasks
/// themselves belong to a per-step process, shoal-stepd (as Slurm's slurmstepd), which shoald
/// starts detached from itself: the tasks outlive a restart, an upgrade or a kill -9 of shoald,
/// and the next shoald finds them again (adopt_steps). The shepherd is shoald's proxy for that
/// process: a detached actor relaying its socket's frames as CAF messages and CAF messages as
/// frames (process/stepd_wire.hpp).
///
/// shoal-stepd (process/stepd_server.hpp, process/step_tasks.hpp) forks a task in its own
/// process group for each rank in `req.ranks`, with PR_SET_PDEATHSIG bound to shoal-stepd (so
/// no task outlives a killed stepd; shoald's end no longer matters), in `req.cwd` (falling back
/// to $HOME, then /tmp), as `req.uid`/`req.gid` when shoald runs as root and they differ, with
/// `req.env` plus SHOAL_JOB_ID, SHOAL_STEP_ID, SHOAL_PROCID (rank), SHOAL_NTASKS, SHOAL_NODEID
/// (req.node_index), SHOAL_LOCALID (index in req.ranks), SHOAL_NNODES, SHOAL_JOB_NODELIST,
/// SHOAL_STEP_NODELIST, SHOAL_SUBMIT_DIR (req.cwd), SHOAL_CPUS_PER_TASK, SHOAL_JOB_NAME,
/// SHOAL_JOB_PARTITION, SHOAL_NODENAME and SHOAL_CONF (when set in shoald's environment), Slurm's
/// SLURM_* names beside them unless SlurmEnv=NO, and shoal's folders on PATH
/// (process::build_task_env).
/// argv[0] is looked up in PATH.
///
/// CPU binding (`req.cpu_bind`, srun's --cpu-bind): before starting anything, each task's CPUs
/// are planned from `cores` (this node's hwloc core table) with topology::plan_cpu_binding; the
/// k-th task here (local id k, the batch script being local task 0) gets plan entry k. The child
/// applies it with sched_setaffinity just before exec, after which --cpu-bind=verbose writes
/// srun's line ("cpu-bind=MASK - NODE, task  R  L [PID]: mask 0x1 set") to the task's stderr.
/// The task also sees SHOAL_CPU_BIND, SHOAL_CPU_BIND_TYPE, SHOAL_CPU_BIND_LIST and
/// SHOAL_CPU_BIND_VERBOSE (see process::set_cpu_bind_env). A plan this node cannot honour (map_cpu
/// naming a CPU it lacks, an empty core table) fails the step before any task starts, with exit
/// code 1 and the reason as launch_error; sched_setaffinity failing in a child fails the step like
/// any launch failure ("sched_setaffinity(CPUs 2-3): Invalid argument", exit code 1), since Slurm's
/// task exits 1 when task/affinity cannot bind it.
///
/// Batch (`req.batch`): one task (rank 0) runs `req.script`, held in a sealed in-memory file
/// (memfd, mode 0700) that the task reads as /dev/fd/N (its $0), stdout to `req.stdout_path` and
/// stderr to `req.stderr_path` (or stdout's file when empty), both opened O_APPEND|O_CREAT as the
/// job's user (and O_TRUNC when `req.open_mode` is "truncate").
///
/// Otherwise output is sent as it arrives, in chunks of whole lines where possible (at most
/// 64 KiB), as `msg::task_output` to `sink` (skipped when `sink` is invalid).
///
/// Messages it handles while tasks run:
/// - `(msg::signal_atom, int32_t signo)`: sends signo to every task's process group. Ranks still
///   being started when it arrives get it too, once started.
/// - `caf::exit_msg` with a non-normal reason (e.g. `anon_send_exit(shepherd, user_shutdown)`):
///   SIGKILL to every task; ranks not started yet report signal 9. step_exit is still sent.
/// - Anything else is dropped.
/// Once shoal-stepd runs, a step that is not a batch script introduces its shepherd to `sink`:
/// `(msg::stepio_atom, caf::actor shepherd, uint32_t input_nodes, bool kill_on_bad_exit)`, where
/// input_nodes is how many of the step's nodes take the client's standard input (1 for a task
/// id or --pty, every node for `all`) when this node is one of them, else 0. Input then comes as
/// `(msg::input_atom, msg::task_input)` requests (StepIo, process::step_tasks::add_input).
///
/// When every task has exited it sends one `msg::step_exit` (one entry per rank) to `sink` and
/// to `job` (once when they are the same actor), after all output; then it quits. If fork/exec
/// of any task fails, the tasks already started are killed and step_exit carries `launch_error`
/// (e.g. "execvp(foo): No such file or directory") with exit code 127 for ranks that never
/// started, or 126 when not executable. Failures before exec are reported alike, with 127:
/// "open(PATH): ..." for a batch output file, "setuid(UID): ...", "write(batch script): ...",
/// and "shoal-stepd: ..." when the step's process itself cannot start. A shoal-stepd that dies
/// before reporting (killed) ends the step with signal 9 for every rank and launch_error
/// "shoal-stepd died: ...".
///
/// Details:
/// - Program lookup uses PATH from `req.env`, else shoald's own PATH. A name containing '/' is
///   taken relative to the task's working directory. A file without a `#!` line or an ELF
///   header runs under /bin/sh, as with execvp.
/// - Output lines are sent whole; a partial line goes out when 64 KiB accumulate, when no
///   newline came for 50 ms, or at EOF. Ranks and streams are not ordered against each other.
/// - Once the last task exited, output still arriving from its descendants is read for at most
///   200 ms more; then whatever is left in the tasks' process groups gets SIGKILL.
/// - Batch: the script's memfd is owned by the job's user when shoald switches users; it stays
///   open in the task (the interpreter reads it through /dev/fd/N) and nothing is written to
///   disk. An empty `req.stdout_path` means "shoal-<job_id>.out" in the working directory.
/// - shoal-stepd listens on `<spool_dir>/job<J>.step<S>.sock` (process::step_socket_path) and
///   keeps the step_exit, and up to 4 MiB of output not yet delivered (beyond that it stops
///   reading the tasks' pipes, so they block rather than lose output), while no shoald is
///   connected; it exits once a shepherd acknowledged the exit, which this one does right
///   after sending it on. It reads SHOAL_CONF and PATH from the environment shoald gave it.
/// - It meters itself into `meters` as actor type "shepherd" (null: not metered).
using shepherd_actor = caf::typed_actor<
    /// Send signo to every task's process group (ranks still starting get it once started).
    caf::reacts_to<msg::signal_atom, int32_t>,
    /// An adopted step's reports go to this daemon (adopt_steps); until then it holds them.
    caf::reacts_to<msg::adopt_atom, step_report_actor>,
    /// Output (and the step's end) goes to this sink from now on: the step's `shoal run`
    /// reattached after the controller restarted.
    caf::reacts_to<msg::attach_atom, caf::actor>,
    /// Standard input for the step's input tasks here; answered once shoal-stepd wrote it into
    /// their pipes (or the step ended), which paces the client.
    caf::replies_to<msg::input_atom, msg::task_input>::with<caf::ok_atom>,
    /// What the step used on this node so far, sampled by shoal-stepd when asked (sstat); once
    /// the step ended, its final figures. errc::unreachable when shoal-stepd is gone.
    caf::replies_to<msg::usage_atom>::with<msg::step_usage>,
    /// (child, part): a child's subtree part of the step's all-gather round (PMI fences; see
    /// actors/exchange_tree.hpp).
    caf::reacts_to<msg::exchange_atom, uint32_t, msg::step_exchange>,
    /// The round's outcome from the parent.
    caf::reacts_to<msg::done_atom, msg::step_exchange>,
    /// The shepherd of this node's parent in the step's tree and its shoald's door (host, port;
    /// 0: none), from the job: the shepherd connects to the door before its parts go up.
    caf::reacts_to<msg::peers_atom, caf::actor, std::string, uint16_t>,
    /// (child, its shepherd): one of this node's children in the step's tree, from the job.
    caf::reacts_to<msg::peers_atom, uint32_t, caf::actor>,
    /// (from, why): the step was aborted on node index `from`'s side of the tree: this node's
    /// tasks get SIGKILL and the word goes on to the other neighbours.
    caf::reacts_to<msg::abort_atom, uint32_t, std::string>>;

/// Where and how a shepherd runs its step.
struct shepherd_setup {
  std::string node_name;                   ///< the node the step runs on (SHOAL_NODENAME)
  std::string spool_dir;                   ///< this node's step sockets (SlurmdSpoolDir)
  std::vector<topology::core_info> cores;  ///< the probe's core table, for --cpu-bind
  metrics::registry* meters = nullptr;     ///< null: not metered
  std::string stepd_path;                  ///< empty: shoal-stepd beside the running binary
  /// Pre-started shoal-stepd processes, shared by a shoald's shepherds (null: start one per
  /// step; `stepd_path` is then used).
  std::shared_ptr<process::stepd_spares> spares;
  /// Checks that the launch came from the controller (and removes its credential) before any
  /// task starts; an error fails the step with a launch error. Null: every launch runs. May
  /// block (the shepherd is detached).
  std::function<shoal::error(msg::launch_request&)> check_launch;
  /// The step's job actor: with a PMI server (StepIo::mpi) on several nodes, the shepherd
  /// introduces itself to it and hears its parent's handle in the all-gather's tree.
  caf::actor step_owner;
  /// Where this shoald's door listens (actors/peer_door.hpp), told to the job with the
  /// introduction so that this node's children in the tree connect to it directly. Port 0: no
  /// door (the rounds then pass through the process the handles came from).
  std::string door_host;
  uint16_t door_port = 0;
  /// TaskProlog= and TaskEpilog= ("": none) and PrologEpilogTimeout= (0: no limit), which
  /// shoal-stepd runs around each task.
  std::string task_prolog;
  std::string task_epilog;
  uint32_t script_timeout_s = 0;
};

/// Every rank of `req` with the same outcome: a step whose shoal-stepd never reported, or a
/// simulated one (`error` empty when it ran).
msg::step_exit exit_of_all(const msg::launch_request& req, const std::string& node_name,
                           std::string error, int32_t code, int32_t signal);

/// A launch its node refused (shepherd_setup::check_launch): logged once, every rank exited 1,
/// and the launch error naming the node and `why`.
msg::step_exit refused_launch(const msg::launch_request& req, const std::string& node_name,
                              const shoal::error& why);

/// Starts shoal-stepd for `req` and a shepherd relaying it to `sink` (output and step_exit) and
/// `job` (step_exit).
shepherd_actor spawn_shepherd(caf::actor_system& sys, msg::launch_request req, caf::actor sink,
                              caf::actor job, shepherd_setup setup);

/// A running step shoald found again at start.
struct adopted_step {
  uint64_t job_id = 0;
  uint32_t step_id = 0;
  shepherd_actor shepherd;
  msg::launch_request request;  ///< what the step runs, as its shoal-stepd said
};

/// Connects to every shoal-stepd listening in `spool_dir` (removing the sockets nobody listens
/// on: their step daemons died) and starts an adopted shepherd for each. Blocks (each daemon
/// says hello within a few seconds): call from main(), before the node daemon starts. An
/// adopted shepherd has no sink and no job: output arriving through it is dropped (its client
/// went with the old shoald), and it reports its step_exit to the actor it gets in
/// `(msg::adopt_atom, daemon)`, as a request, acknowledging the exit to shoal-stepd only once
/// that request succeeded (retried every second until then). `cores` and `meters` are as in
/// shepherd_setup; the step keeps the core table its shoal-stepd got at launch.
std::vector<adopted_step> adopt_steps(caf::actor_system& sys, const std::string& spool_dir,
                                      const std::string& node_name,
                                      std::vector<topology::core_info> cores,
                                      metrics::registry* meters);

}  // namespace shoal::actors
