#pragma once

// A job's lifecycle as a pure transition function: given what the job actor remembers of its
// lifecycle and one event, the next lifecycle and the effects the actor must carry out, in
// order. No actors, no clock, no I/O: the job actor (actors/job.cpp) turns its messages into
// events, calls on_event and executes the effects; it decides nothing about states itself.
//
//   pending|held|dependency_never|requeued --placed--> configuring --launched--> running
//   ... --placed--> booting --nodes_ready--> configuring (power saving: nodes resume first)
//   booting --cancel|client_gone|node_failed|admin_requeue|released--> completing (no tasks yet)
//   running --main_step_ended--> completing --release_done--> completed|failed|out_of_memory
//   running --cancel|time_limit|node_failed|admin_requeue--> completing (SIGTERM/SIGKILL)
//   configuring|running --prolog_failed--> completing --> requeued (an allocation: failed)
//   completing --main_step_ended, release_done--> cancelled|timeout|node_fail|requeued
//   pending|held|dependency_never|requeued --cancel--> cancelled
//   running --warning_due--> running (--signal: SIGCONT and the signal, once per run)
//   configuring|running --preempt--> preempting (SIGCONT+SIGTERM; RUNNING in listings)
//                          --kill_wait_expired (GraceTime over)--> completing (SIGKILL)
//                          --> preempted|requeued; without a GraceTime: completing (SIGKILL)
//   running --suspend--> suspended (SIGSTOP, clock stopped) --resume--> running (SIGCONT)
//   configuring|running --preempt (SUSPEND)--> suspended, lent (SIGSTOP, clock stopped, the
//                          scheduler told) --resume (the scheduler's)--> running (SIGCONT)
//   suspended --any other event--> as running, SIGCONT first when it leaves suspended (a
//                                  requeued suspended job is held, as Slurm's)
//
// An allocation (shoal alloc, salloc) has no main step: placed, it is running at once and holds
// its nodes for the steps its client starts, until the client releases it:
//   pending... --placed--> running --released--> completing --(last step ended)--> release_done
//   running --cancel|time_limit|client_gone|node_failed--> completing --(last step)--> ...
//
// The table test in test/unit/policy/job_lifecycle_test.cpp lists every (state, event) pair.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "messages/states.hpp"

namespace shoal::policy {

/// Where a job is in its life. Finer than msg::job_state: listings show to_job_state().
enum class lifecycle_state : uint8_t {
  pending,           ///< queued, waiting for the scheduler (reason: Resources, Priority, ...)
  held,              ///< queued but held (JobHeldUser, JobHeldAdmin): never placed until released
  dependency_never,  ///< queued; its dependency can never be satisfied (DependencyNeverSatisfied)
  requeued,          ///< queued again after its run was killed (NodeFail, Requeued)
  configuring,       ///< placed; its nodes are told and its main step is being launched
  running,           ///< its main step was launched on every node
  completing,        ///< ending: tasks are being killed or the main step ended; nodes held
  completed,         ///< final: the main step exited 0
  failed,            ///< final: the main step exited nonzero (or could not launch)
  cancelled,         ///< final: scancel, the waiting client went away, or an invalid dependency
  timeout,           ///< final: killed at its time limit
  node_fail,         ///< final: one of its nodes failed (without --requeue)
  out_of_memory,     ///< final: a node killed its tasks for exceeding the memory limit
  /// placed on nodes power saving must resume first (CONFIGURING until every one registered);
  /// after the others, so that saved records' numbers keep their meaning
  booting,
  /// final: preempted (PreemptMode=CANCEL) for a job of a higher PriorityTier
  preempted,
  /// scontrol suspend: its tasks are stopped (SIGSTOP), its nodes held, its time limit paused
  suspended,
  /// preempted with a GraceTime: SIGTERM sent, SIGKILL once the grace time is over; listings
  /// show RUNNING, as Slurm's; `ending` is where it goes (preempted, requeued); last (saved
  /// records' numbers)
  preempting,
};

/// How many lifecycle states there are (preempting is the last).
constexpr size_t lifecycle_state_count = static_cast<size_t>(lifecycle_state::preempting) + 1;

/// What happens to a job: a message the job actor received, or the end of an effect it ran.
enum class event_kind : uint8_t {
  placed,             ///< the scheduler started it on nodes (start_atom; array tasks at spawn)
  launched,           ///< the main step's launch requests went to every node
  step_ended,         ///< every node of a step other than the main one reported its tasks
  main_step_ended,    ///< every node of the main step (the batch script or the run) reported
  time_limit,         ///< the time limit tick of the current run fired
  cancel,             ///< scancel (signal 0) by its owner or an admin; or --kill-on-invalid-dep
  client_gone,        ///< the waiting `shoal run` went away (srun semantics: the job ends)
  signal,             ///< a signal for every task (scancel -s, Ctrl-C in the waiting client)
  kill_wait_expired,  ///< KillWait after SIGTERM passed
  node_failed,        ///< one of the job's nodes stopped responding
  admin_requeue,      ///< scontrol requeue (batch jobs; permission checked by the actor)
  hold,               ///< the scheduler reports a hold (JobHeldUser, JobHeldAdmin)
  release,            ///< a held job got a pending reason that is not a hold
  dependency_never,   ///< the scheduler reports DependencyNeverSatisfied
  pending_reason,     ///< any other new pending reason (Resources, Priority, BeginTime, ...)
  step_requested,     ///< a step inside the allocation (srun in a batch script)
  release_done,       ///< the job's nodes were told to release it
  warning_due,        ///< --signal's time before the limit came (the job's warning timer)
  released,           ///< an allocation's client is done with it (salloc's command ended)
  nodes_ready,        ///< power saving: every node of a booting job is up
  /// a Prolog of the job failed (a node's, or PrologSlurmctld): the job is queued again (held
  /// when `requeue` is set), an allocation ends FAILED; text: why
  prolog_failed,
  /// the scheduler preempts the job for a job of a higher PriorityTier: SIGCONT and SIGTERM,
  /// SIGKILL grace_time seconds later (at once without one); it ends PREEMPTED, or is queued
  /// again when `requeue` is set (PreemptMode=REQUEUE)
  preempt,
  suspend,  ///< scontrol suspend (admins; permission checked before): SIGSTOP, the clock stops
  resume,   ///< scontrol resume: SIGCONT, the time limit runs on from where it stopped
};

/// How many event kinds there are (resume is the last).
constexpr size_t event_kind_count = static_cast<size_t>(event_kind::resume) + 1;

/// One event and what it carries; fields not named for a kind are ignored.
struct event {
  event_kind kind = event_kind::placed;
  int32_t signo = 0;           ///< signal: the signal
  int32_t exit_code = 0;       ///< (main_)step_ended: highest shell exit code of its tasks;
                               ///< released: the command's (128+signal when signalled)
  int32_t exit_signal = 0;     ///< main_step_ended, released: the signal behind exit_code, or 0
  bool out_of_memory = false;  ///< main_step_ended: a node killed its tasks over the memory limit
  bool requeue = false;        ///< node_failed: the job asked --requeue; prolog_failed: held;
                               ///< preempt: PreemptMode=REQUEUE
  int64_t grace_time = 0;      ///< preempt: GraceTime, seconds
  /// preempt: PreemptMode=SUSPEND (requeue and grace_time then mean nothing); resume: the
  /// scheduler's, once what the job lent is free again (an admin's resume has it false)
  bool by_preemption = false;
  /// hold, release, dependency_never, pending_reason: the scheduler's priority for the job
  /// changed (published even when the reason did not).
  bool priority_changed = false;
  /// hold, release, dependency_never, pending_reason: the reason; node_failed: the node;
  /// (main_)step_ended: the step's first error ("" if none).
  std::string text;

  event() = default;
  event(event_kind k) : kind(k) {}  // NOLINT: implicit, so tables can name a bare kind
};

/// What the job actor knows besides its lifecycle, as far as a transition depends on it.
struct job_facts {
  uint64_t job_id = 0;         ///< for texts shown to the user
  bool steps_running = false;  ///< some step still has nodes that did not report
  /// An allocation (shoal alloc): no main step; it ends when released, or once its last step
  /// is gone after it began to end. Never requeued.
  bool allocation = false;
  /// Power saving runs: a placed job boots its nodes (waits for the power actor) first.
  bool power_managed = false;
  int32_t warn_signal = 0;       ///< --signal's signal; 0: none asked
  bool warn_batch_only = false;  ///< --signal=B:: the batch shell only
};

/// Which tasks a signal_tasks effect reaches.
enum class signal_scope : uint8_t {
  all,          ///< every step's tasks, the batch shell's included
  steps_only,   ///< every step's but the batch shell's (Slurm's KILL_STEPS_ONLY)
  batch_shell,  ///< the batch shell only (--signal=B:)
};

/// The events the waiting client gets (msg::job_event::kind).
enum class client_note : uint8_t {
  queued,     ///< "queued": the job waits (text: Resources or Priority); sent once
  allocated,  ///< "allocated": the job got its nodes
  message,    ///< "message": a line for the user (text)
  ended,      ///< "ended": the job's final state, exit code and node count
};

/// Something the job actor must do. Effects are values; the actor executes them in order.
enum class effect_kind : uint8_t {
  take_allocation,          ///< keep the nodes of the placed message; stamp the start time
  start_nodes,              ///< tell each node the job starts there (and its CPUs if shared)
  arm_time_limit,           ///< a new timer generation; the time limit tick if the job has one
  launch_main_step,         ///< launch the batch script or the run's tasks; then `launched`
  launch_step,              ///< launch the requested step on its nodes
  signal_tasks,             ///< signo to every step's tasks on every node
  nodes_done,               ///< tell each node the job is completing
  arm_kill_timer,           ///< the KillWait tick (kill_wait_expired) of the current generation
  forget_node,              ///< a failed node's tasks count as ended (text: node); step events
  record_exit_code,         ///< the job's exit code is the main step's (exit_code)
  release_nodes,            ///< tell each node to release the job; then `release_done`
  dequeue,                  ///< the scheduler drops the job from its queue
  tell_scheduler_ended,     ///< the scheduler frees the nodes and records the outcome (ok)
  tell_scheduler_released,  ///< the scheduler frees the nodes of a run that will be requeued
  drop_allocation,          ///< forget nodes, steps and start time; count one more requeue
  enqueue,                  ///< queue the job with the scheduler again
  stamp_end_time,           ///< the end time is now
  take_priority,            ///< keep the scheduler's priority that came with the pending reason
  publish,                  ///< send the job's listing view to the controller
  notify_client,            ///< tell the waiting client (note, text)
  notify_step_client,       ///< tell the step's client that the step ended
  forget_client,            ///< the waiting client is gone: tell it nothing more
  await_nodes,              ///< ask the power actor for the nodes; then `nodes_ready`
  stamp_start_time,         ///< the start time is now (the nodes finished booting)
  /// suspended: the suspend time is now; the time limit and --signal ticks of the run are void
  stop_clock,
  /// no longer suspended: the time since the suspend time counts as suspended; resume_clock
  /// with `ok` (resume) also re-arms the time limit and warning for what is left of them
  resume_clock,
  /// suspended for a preemptor: the scheduler lends the job's CPUs to it (lent_atom)
  lend_resources,
  stop,  ///< the actor quits
};

/// How many effect kinds there are (stop is the last).
constexpr size_t effect_kind_count = static_cast<size_t>(effect_kind::stop) + 1;

struct effect {
  effect_kind kind = effect_kind::publish;
  int32_t signo = 0;  ///< signal_tasks; record_exit_code: the signal behind it (0: none)
  signal_scope scope = signal_scope::all;   ///< signal_tasks
  int32_t exit_code = 0;                    ///< record_exit_code
  bool ok = false;                          ///< tell_scheduler_ended: the job completed
  client_note note = client_note::message;  ///< notify_client
  std::string text;                         ///< notify_client: text; forget_node: the node
  int64_t seconds = 0;                      ///< arm_kill_timer: the delay (GraceTime); 0: KillWait

  effect() = default;
  effect(effect_kind k) : kind(k) {}  // NOLINT: implicit, so tables can name a bare kind

  friend bool operator==(const effect& a, const effect& b) {
    return a.kind == b.kind && a.signo == b.signo && a.scope == b.scope &&
           a.exit_code == b.exit_code && a.ok == b.ok && a.note == b.note && a.text == b.text &&
           a.seconds == b.seconds;
  }
  friend bool operator!=(const effect& a, const effect& b) { return !(a == b); }
};

/// What the job actor keeps of its lifecycle between events.
struct lifecycle {
  lifecycle_state state = lifecycle_state::pending;
  /// The reason listings show: the pending reason, or why the job is ending or ended.
  std::string reason;
  /// Where `completing` (and `preempting`) leads (release_done): a final state or `requeued`.
  /// Meaningless in other states.
  lifecycle_state ending = lifecycle_state::completed;
  /// The pending reason once requeued (NodeFail, Requeued); set with ending = requeued.
  std::string requeue_reason;
  bool told_queued = false;  ///< the client got its "queued" note (only one is sent)
  bool warned = false;       ///< this run got its --signal warning (each run gets one)
  /// suspended for a preemptor (PreemptMode=SUSPEND): its CPUs are lent, so only the
  /// scheduler resumes it, when they are free again; an admin's resume is refused
  bool lent = false;

  friend bool operator==(const lifecycle& a, const lifecycle& b) {
    return a.state == b.state && a.reason == b.reason && a.ending == b.ending &&
           a.requeue_reason == b.requeue_reason && a.told_queued == b.told_queued &&
           a.warned == b.warned && a.lent == b.lent;
  }
};

/// How an event was taken.
enum class verdict : uint8_t {
  applied,  ///< `next` and `effects` hold (the state may stay the same)
  ignored,  ///< means nothing in this state: no change, no effects; a request is answered ok
  refused,  ///< not possible in this state: no change, no effects; a request gets an error
};

struct transition {
  verdict outcome = verdict::ignored;
  lifecycle next;
  std::vector<effect> effects;
};

/// The lifecycle of a new job: pending, or held with JobHeldUser when submitted with --hold.
lifecycle initial_lifecycle(bool held);

/// The transition for `ev` in `now`. Final states ignore every event. Never throws.
transition on_event(const lifecycle& now, const event& ev, const job_facts& facts);

/// The event a pending reason from the scheduler means in `current`: hold for JobHeldUser and
/// JobHeldAdmin, dependency_never for DependencyNeverSatisfied, release for any other reason
/// while held, pending_reason otherwise. `priority_changed`: the priority that came with it
/// differs from the one the job shows.
event pending_reason_event(lifecycle_state current, std::string reason,
                           bool priority_changed = false);

/// The state listings show. The queued states are PENDING; configuring shows RUNNING (its nodes
/// are up, so CONFIGURING would only flicker), booting CONFIGURING (CF: nodes resuming).
msg::job_state to_job_state(lifecycle_state s);

/// True for completed, failed, cancelled, timeout, node_fail, out_of_memory and preempted.
/// (suspended is not final: it holds its nodes.)
bool is_final(lifecycle_state s);

/// "pending", "dependency_never", ...
const char* to_string(lifecycle_state s);
const char* to_string(event_kind k);
const char* to_string(effect_kind k);
/// The kind and its payload, e.g. "signal_tasks(15)", "signal_tasks(10, steps_only)",
/// "notify_client(message, \"...\")".
std::string to_string(const effect& e);

}  // namespace shoal::policy
