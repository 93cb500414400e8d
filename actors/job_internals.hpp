#pragma once

// The job actor's private parts: its state, the data an event brings, and the functions that
// job.cpp (the behavior and its handlers) and job_effects.cpp (the effects of the lifecycle's
// transitions) share. Nothing else includes this header.

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <caf/all.hpp>

#include "actors/job.hpp"
#include "policy/job_lifecycle.hpp"

namespace shoal::actors::job_detail {

using policy::effect_kind;
using policy::event_kind;
using policy::verdict;

/// An allocation's main step id: none of its steps (they count from 0) ever has it.
constexpr uint32_t no_main_step = 0xfffffffd;

/// A step's shepherd as it introduced itself: its handle, and the door of its shoald
/// (actors/peer_door.hpp; port 0: none) through which its children reach it directly.
struct step_peer {
  caf::actor handle;
  std::string door_host;
  uint16_t door_port = 0;
};

struct step_run {
  std::vector<size_t> nodes;  ///< indices into the job's node list
  /// With a PMI server: the step's shepherds by node index in the step, as they introduced
  /// themselves (each hears its parent's in the all-gather's tree; see actors/exchange_tree.hpp).
  std::map<uint32_t, step_peer> shepherds;
  std::set<std::string> waiting;  ///< nodes whose tasks have not reported yet
  int32_t exit_code = 0;          ///< highest task exit code so far
  int32_t exit_signal = 0;        ///< the signal behind exit_code (0: the task exited)
  caf::actor client;
  std::string error;           ///< first launch error
  bool out_of_memory = false;  ///< a node killed its tasks for exceeding the memory limit
  /// When its launch requests went to the node actors (steady clock, ns; 0: not yet, or
  /// recovered): a daemon's report taken before then cannot know the step.
  int64_t sent_ns = 0;
  msg::step_usage usage;   ///< over the nodes that reported so far (cluster/step_usage.hpp)
  int64_t start_time = 0;  ///< Unix seconds it was launched
  uint32_t ntasks = 0;
  std::string nodelist;
  /// What step listings show of it that the step alone knows (its name, limit, CPUs, memory,
  /// distribution, client); publish_steps fills in the job's fields.
  msg::step_info listing;
};

/// How a step ended, kept for its client when none was attached to hear it.
struct step_outcome {
  int32_t exit_code = 0;
  std::string error;
};

/// At most this many unheard step ends are kept per job (the oldest step ids go first): a
/// client that never comes back must not grow the job.
constexpr size_t max_unheard_ends = 256;

/// The interface plus the actor's own timer ticks (they carry the timer generation).
using job_impl = job_actor::extend<caf::reacts_to<msg::tlimit_atom, uint64_t>,
                                   caf::reacts_to<msg::escalate_atom, uint64_t>,
                                   caf::reacts_to<msg::warn_atom, uint64_t>>;

struct job_state_t {
  static inline const char* name = "job";
  job_setup setup;
  msg::job_info info;  ///< state and reason mirror `life` (to_job_state)
  policy::lifecycle life;
  msg::job_state logged = msg::job_state::pending;  ///< the state last published (and logged)
  std::vector<std::string> nodes;
  std::vector<caf::actor> node_actors;
  std::vector<uint32_t> node_cpus;        ///< CPUs held on each node (shared nodes), else empty
  std::vector<msg::gres_held> node_gres;  ///< devices held (gres_held::node: index in nodes)
  std::map<uint32_t, step_run> steps;
  /// Steps that ended, as accounting records them (JobRecord.doneSteps), in the order they ended.
  std::vector<msg::step_record> done_steps;
  uint32_t next_step = 0;
  uint32_t main_step = 0;
  uint64_t timer_gen = 0;
  /// Recovered jobs only: node -> the steps it had not reported when the controller stopped,
  /// until the node re-registers and says which it still runs.
  std::map<std::string, std::set<uint32_t>> unconfirmed;
  /// Steps (not the main one) that ended with no client attached: after a controller restart
  /// their `shoal run` attaches again and hears the end from here.
  std::map<uint32_t, step_outcome> unheard_ends;
  /// SLURM_NODE_ALIASES of its cloud nodes, from the power actor once they are up ("": none).
  std::string node_aliases;
  /// The hold the scheduler is told of once the job is queued again: a failed Prolog's
  /// (JobHeldUser), a requeued suspended job's (JobHeldAdmin); nullptr: none.
  const char* hold_when_queued = nullptr;
};

using job_self = job_impl::stateful_pointer<job_state_t>;

/// What the message behind an event brought, for the effects that act on it.
struct event_data {
  /// placed: the allocation.
  std::vector<std::string> names;
  std::vector<caf::actor> actors;
  std::vector<uint32_t> cpus;
  std::string nodelist;  ///< as listings show it (box form on a torus)
  std::vector<msg::gres_held> gres;
  /// pending reasons: the scheduler's priority for the job.
  uint64_t priority = 0;
  /// step_ended: the step that ended; step_requested: the new step's id, nodes, request, client.
  uint32_t step_id = 0;
  step_run step;
  std::vector<size_t> step_nodes;
  const msg::job_request* request = nullptr;
  caf::actor client;
};

/// Events that effects lead to (launched, release_done, step ends), handled after the effects.
using follow_ups = std::vector<std::pair<policy::event, event_data>>;

caf::actor handle_of(job_self self);

/// Everything a restarted controller needs to resume the job (its saved record).
msg::job_record record_of(const job_state_t& st);

/// Ok once the job's record (sent before) is durable: the keeper answers the client itself, so
/// the answer comes even when the job has already stopped.
caf::result<caf::ok_atom> once_saved(job_self self);

/// Queued: pending, held, waiting on a dependency never satisfied, or requeued.
bool queued(policy::lifecycle_state s);

/// `scontrol update`'s revised request (job_update.cpp): a queued job takes it whole (and its
/// workload) and queues with it; a running one only its time limit (the timer follows), name,
/// comment, nice and priority. Ok once the record is durable; errc::invalid_request "Job is no
/// longer pending execution" when a change is for queued jobs only and the job started since
/// the controller looked, or "Job has already finished".
caf::result<caf::ok_atom> on_update(job_self self, msg::job_request& req,
                                    policy::workload_ptr& workload);

/// Sends the listing view and saves the record (unless `save_record` is false: the first view,
/// whose record the controller saved before spawning the job); a changed state is logged here,
/// once per publication.
void publish(job_self self, bool save_record = true);

/// Sends the controller the job's running steps as step listings show them (squeue -s,
/// scontrol show steps): after each launch and end, and once recovered.
void publish_steps(job_self self);

/// The --signal warning's timer for the run that started at `start` (Unix seconds): WarnTime
/// before the limit, at once when the limit is shorter; none without a limit, a signal or a
/// time (Slurm sends a warning with time 0 never).
void arm_warning(job_self self, int64_t start);
void arm_remaining_time(job_self self);

void signal_steps(job_self self, uint32_t step, int32_t signo);

/// Takes a step whose nodes all reported out of the table: the event its end is.
std::pair<policy::event, event_data> step_done(job_self self, uint32_t step_id);

/// Runs one effect of a transition; events it leads to go to `then`.
void run_effect(job_self self, const policy::effect& e, event_data& data, follow_ups& then);

/// The lifecycle's answer to `ev` now.
policy::transition decide(job_self self, const policy::event& ev);

/// Takes the transition's lifecycle and runs its effects in order, then the events they led to.
void execute(job_self self, const policy::transition& t, event_data& data);

/// The job's running steps with what they used so far, asked of their nodes now (job_usage.cpp).
caf::result<msg::accounted_job> live_usage(job_self self, uint32_t step);

/// A Prolog of the job failed on `node` ("": PrologSlurmctld) for `reason`: requeued or ended
/// as the lifecycle says (job_scripts.cpp).
void on_prolog_failed(job_self self, const std::string& node, const std::string& reason);

/// Tells the nodes of the job's start for their Prolog and Epilog (job_scripts.cpp; also for a
/// recovered job, whose nodes may have forgotten nothing); with neither configured, nothing.
void tell_nodes_for_scripts(job_self self);

/// Runs PrologSlurmctld for a job that was just placed (job_scripts.cpp), if configured.
void start_prolog_ctld(job_self self);

/// Runs EpilogSlurmctld for the job that just ended (job_scripts.cpp).
void run_epilog_ctld(job_self self);

/// decide, then execute.
policy::transition handle(job_self self, const policy::event& ev, event_data data = {});

}  // namespace shoal::actors::job_detail
