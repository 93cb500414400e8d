#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "actors/accounting_writer.hpp"
#include "actors/in_process_types.hpp"
#include "actors/power.hpp"
#include "actors/scheduler.hpp"
#include "actors/state_keeper.hpp"
#include "config/defaults.hpp"
#include "interconnect/switch_manager.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "messages/types.hpp"
#include "metrics/registry.hpp"
#include "policy/access.hpp"

namespace shoal::actors {

/// Everything a job actor starts from; the controller has validated and resolved the request
/// (partition, node count, task count, time limit).
struct job_setup {
  uint64_t id = 0;
  /// When the job was submitted (an array task: its array), stamped once by the controller.
  int64_t submit_time = 0;
  msg::job_request req;
  policy::workload_ptr workload;  ///< req's --array and --dependency, parsed at submission
  int64_t kill_wait_s = config::defaults::kill_wait_s;
  /// PMIxTimeout=: how long a step's PMI fence waits for its every node.
  int64_t pmi_timeout_s = config::defaults::pmi_timeout_s;
  /// MailProg=, run on the job's --mail-type events (empty: no mail), and ClusterName= for its
  /// SLURM_CLUSTER_NAME.
  std::string mail_prog;
  std::string cluster_name;
  /// Prolog= or Epilog= is configured: each node hears of the job's start (prolog_atom) for
  /// them. PrologSlurmctld= and EpilogSlurmctld= ("": none) run here, within
  /// PrologEpilogTimeout (0: no limit); nohold_on_prolog_fail: a job requeued for a failed
  /// Prolog is held only after its 5th requeue (Slurm's MAX_BATCH_REQUEUE), not at once.
  bool node_scripts = false;
  std::string prolog_ctld;
  std::string epilog_ctld;
  int64_t script_timeout_s = 0;
  bool nohold_on_prolog_fail = false;
  /// Who may act on the job besides its owner: the same rules the front door and the
  /// controller ask (policy/access.hpp). Null: root only.
  std::shared_ptr<const policy::access_rules> access;
  caf::actor client;  ///< the waiting `shoal run`, or invalid for batch jobs
  caf::actor controller;
  scheduler_actor scheduler;  ///< typed: what the job tells it is checked at compile time
  /// Array tasks only: the task's place in its array, and the nodes the scheduler already
  /// picked (a task is spawned when it starts, so it never queues).
  uint64_t array_job_id = 0;
  int64_t array_task_id = -1;
  std::vector<std::string> start_nodes;
  std::vector<caf::actor> start_node_actors;
  std::vector<uint32_t> start_cpus;
  std::string start_nodelist;              ///< as listings show it (box form on a torus)
  std::vector<msg::gres_held> start_gres;  ///< devices held (gres_held::node: in start_nodes)
  /// The interconnect plugin (SwitchType=): each step's switch data comes from it. Null: none.
  std::shared_ptr<interconnect::switch_manager> interconnect;
  /// Power saving's actor: a placed job waits for it to power its nodes up (CONFIGURING) before
  /// its time limit and its launch. Null: no power saving; a placed job starts at once.
  power_actor power;
  /// SelectType=select/cons_tres: nodes are shared, so the job's CPUs on each node count.
  bool shared_nodes = false;
  metrics::registry* meters = nullptr;  ///< where the job actor meters itself; null: nowhere
  /// Where the job saves its record (job_key) on every change; null: nowhere. Its steps launch
  /// only once the record naming them is durable, so a restarted controller knows every step
  /// that may be running.
  state_keeper_actor keeper;
  /// Where the job's final record goes once it ended (actors/accounting_writer.hpp); null: no
  /// accounting store.
  accounting_writer_actor accounting;
  /// A job recovered from saved state: it resumes from this record instead of queueing anew
  /// (start_node_actors then holds its nodes' actors, in the record's order).
  std::optional<msg::job_record> restored;
};

/// One job's lifecycle (an allocation, `shoal alloc`, has no main step and runs until released):
/// PENDING -> RUNNING -> COMPLETING -> COMPLETED | FAILED | CANCELLED |
/// TIMEOUT | NODE_FAIL | OUT_OF_MEMORY (or back to PENDING when requeued). The transitions are
/// policy::on_event's (policy/job_lifecycle.hpp); the actor turns messages into its events and
/// carries out the effects. Publishes (view_atom, job_info) to the controller on every change;
/// sends job_event to the client (queued, allocated, message, ended). Quits once the job has
/// finished. Messages others send it (callers may hold it as a plain caf::actor):
using job_actor = caf::typed_actor<
    /// The scheduler placed it: node names, node actors, CPUs held on each node, the
    /// nodelist as listings show it (box form on a torus), and the devices it holds
    /// (gres_held::node: position in the node names).
    caf::reacts_to<msg::start_atom, std::vector<std::string>, std::vector<caf::actor>,
                   std::vector<uint32_t>, std::string, std::vector<msg::gres_held>>,
    /// The scheduler's pending reason (holds and DependencyNeverSatisfied included) and
    /// priority for the job.
    caf::reacts_to<msg::view_atom, std::string, uint64_t>,
    /// As above, for a hold or release a client waits for: ok once the job's record holding it
    /// is durable.
    caf::replies_to<msg::view_atom, std::string, uint64_t, msg::sync_atom>::with<caf::ok_atom>,
    /// One node's tasks of one step ended.
    caf::reacts_to<msg::step_exit>,
    /// A step inside the allocation for `client`; errc::invalid_request unless running,
    /// errc::unsatisfiable when it needs more nodes than the job has.
    caf::replies_to<msg::step_atom, msg::job_request, caf::actor>::with<msg::job_event>,
    /// (signo, uid): signo 0 cancels the job (SIGTERM, then SIGKILL after KillWait); otherwise
    /// signals its tasks (errc::invalid_request unless running). errc::permission_denied unless
    /// uid is root, the owner or the admin.
    caf::replies_to<msg::cancel_atom, int32_t, uint32_t>::with<caf::ok_atom>,
    /// From the waiting client (Ctrl-C): to every task while running, else dropped.
    caf::reacts_to<msg::signal_atom, int32_t>,
    /// A node of the job stopped responding.
    caf::reacts_to<msg::nodedown_atom, std::string>,
    /// ("requeue", uid): kill a running batch job's tasks and queue it again (scontrol
    /// requeue); ok at once when still pending.
    caf::replies_to<msg::jobctl_atom, std::string, uint32_t>::with<caf::ok_atom>,
    /// (policy::preempt_mode, grace seconds): the scheduler preempts the running job. CANCEL
    /// and REQUEUE: SIGCONT and SIGTERM, SIGKILL after the grace time (at once without one); it
    /// ends PREEMPTED, or a batch job under REQUEUE is queued again. SUSPEND: its tasks stop and
    /// it tells the scheduler its CPUs are lent (lent_atom). Ignored unless running.
    caf::reacts_to<msg::preempt_atom, uint8_t, int64_t>,
    /// The scheduler gives a job suspended for a preemptor its CPUs back: its tasks go on.
    caf::reacts_to<msg::resume_atom>,
    /// The job's listing view.
    caf::replies_to<msg::jobs_atom>::with<msg::job_info>,
    /// `scontrol update`: the job's record now, from which the controller revises its request.
    caf::replies_to<msg::update_atom>::with<msg::job_record>,
    /// (request, workload): the revised request, checked by the controller. A queued job takes
    /// it whole and queues with it; a running one takes its time limit (the timer follows),
    /// name, comment, nice and priority. Ok once the record is durable; errc::invalid_request
    /// ("Job is no longer pending execution") when it changes what only a queued job may and
    /// the job started since, or "Job has already finished".
    caf::replies_to<msg::update_atom, msg::job_request, policy::workload_ptr>::with<caf::ok_atom>,
    /// A `shoal run` whose controller restarted found the job again: it becomes the job's
    /// client (and its main step's output sink); answers the job's view.
    caf::replies_to<msg::attach_atom, caf::actor>::with<msg::job_info>,
    /// (step, client): the `shoal run` of a step inside the job (a batch script's, an
    /// allocation's) whose controller restarted found the step again: it becomes the step's
    /// client and output sink; answers the job's view. A step that ended while its client was
    /// away is told to it at once (an `ended` event, with the step's outcome);
    /// errc::unknown_job for a step the job does not know.
    caf::replies_to<msg::attach_atom, uint32_t, caf::actor>::with<msg::job_info>,
    /// (node, steps): a node re-registered after the controller restarted and runs these steps
    /// of the job; a recovered step it neither runs nor reported ended is lost.
    caf::reacts_to<msg::adopt_atom, std::string, std::vector<uint32_t>>,
    /// (node, steps it runs, since): the node's daemon registered again (restarted, or back
    /// after a lost connection) and runs these of the job's steps; a step launched there before
    /// `since` (steady clock, ns) that it neither runs nor reported ended is lost.
    caf::reacts_to<msg::adopt_atom, std::string, std::vector<uint32_t>, int64_t>,
    /// (exit code, signal, uid): an allocation's client (shoal alloc) is done: its steps are
    /// killed and it ends COMPLETED (code 0) or FAILED, with that code; a pending one is
    /// withdrawn (CANCELLED). ok once the record saying so is durable (also when it was
    /// already ending); errc::invalid_request for a job that is not an allocation,
    /// errc::permission_denied unless uid is root, the owner or the admin.
    caf::replies_to<msg::complete_atom, int32_t, int32_t, uint32_t>::with<caf::ok_atom>,
    /// (step, node index, shepherd, door host, door port): a step's shepherd with a PMI server
    /// introduces itself with its shoald's door (actors/peer_door.hpp; port 0: none); it hears
    /// `(peers, parent, door host, door port)` of its parent in the all-gather's tree, once that
    /// one came.
    caf::reacts_to<msg::peers_atom, uint32_t, uint32_t, caf::actor, std::string, uint16_t>,
    /// (node, reason): a Prolog of the job failed there (node "": PrologSlurmctld): the job is
    /// requeued (held, unless nohold_on_prolog_fail) or, an allocation, ends FAILED.
    caf::reacts_to<msg::prolog_atom, std::string, std::string>,
    /// The accounting writer stored these ended steps: the job's record no longer keeps them.
    caf::reacts_to<msg::stored_atom, std::vector<uint32_t>>,
    /// (step; 0xffffffff: every step): the job's view and its running steps (that step alone
    /// when named) with what they used so far: the nodes that still run a step are asked now
    /// (sstat), those that reported add their final figures. Step ids as the store numbers them
    /// (accounting::store_step_id); a node that does not answer adds nothing.
    caf::replies_to<msg::usage_atom, uint32_t>::with<msg::accounted_job>>;

/// Spawns the job actor for `setup`: it queues itself with the scheduler, or starts at once on
/// `setup.start_nodes` (array tasks).
job_actor spawn_job(caf::actor_system& sys, job_setup setup);

/// What listings show of a job before anything happened to it (state PENDING): a function of
/// the setup alone (the submit time is the setup's), so the controller and the job agree.
msg::job_info initial_job_info(const job_setup& setup);

}  // namespace shoal::actors
