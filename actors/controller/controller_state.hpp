#pragma once

// The controller's private state and the functions its concerns share. One file per concern
// (submission.cpp, arrays.cpp, job_views.cpp, job_control.cpp, administration.cpp, recovery.cpp,
// registration.cpp, persistence.cpp); controller.cpp wires them into the behavior. Nothing outside
// actors/controller/ includes this header.

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <caf/all.hpp>

#include "actors/accounting_writer.hpp"
#include "actors/collector_manager.hpp"
#include "actors/controller/controller.hpp"
#include "actors/job.hpp"
#include "actors/node.hpp"
#include "actors/partition.hpp"
#include "actors/power.hpp"
#include "actors/saved_state.hpp"
#include "actors/scheduler.hpp"
#include "cluster/cluster_meters.hpp"
#include "cluster/reservation.hpp"
#include "config/log.hpp"
#include "messages/caf/error.hpp"
#include "policy/access.hpp"
#include "policy/array_spec.hpp"
#include "policy/parsed_workload.hpp"

namespace shoal::actors::ctl {

constexpr const char* diag_reset_help =
    "When `shoal diag --reset` last zeroed the statistics (Unix seconds; the "
    "start at first).";

/// A job array: the request its tasks are made from, and which tasks run now. Pending tasks are the
/// scheduler's (a range list there); a task gets an actor only when it starts.
struct array_entry {
  job_setup task_template;
  std::vector<policy::index_range> spec;
  uint64_t task_count = 0;
  uint32_t min_index = 0;
  uint32_t max_index = 0;
  /// index -> task job id, while the task's actor lives: started, or pending as a job of its own
  /// (split off to be updated, or requeued).
  std::map<uint32_t, uint64_t> running;
  std::string spec_text;     ///< the --array it was submitted with
  std::string pending_text;  ///< the tasks not started yet, in --array syntax ("": none)
};

struct controller_state {
  static inline const char* name = "controller";
  config::cluster_config cfg;
  std::unordered_map<std::string, node_actor> nodes;
  std::map<std::string, msg::node_info> node_view;
  std::map<uint64_t, job_actor> jobs;
  std::map<uint64_t, msg::job_info> job_view;
  /// Each job's running steps as its actor last published them (only jobs that run some).
  std::map<uint64_t, std::vector<msg::step_info>> step_view;
  /// The ids of job_view whose job may not have finished: every view put in since the last purge,
  /// plus those unfinished at it. A listing of the unfinished walks these, not every job kept for
  /// MinJobAge, and drops the ones it finds finished or gone.
  std::set<uint64_t> maybe_unfinished;
  /// When purge_old_jobs last walked job_view: listings come many times a second, and ages are in
  /// whole seconds, so one walk a second is enough.
  int64_t last_purge = 0;
  scheduler_actor scheduler;
  /// Owns the allocation map; answers `shoal map` and hears every node view.
  topology_actor topology;
  collector_manager_actor collectors;  ///< null without CollectorNodes
  power_actor power;                   ///< null without power saving (power_saving.cpp)
  caf::actor health_checks;            ///< null without HealthCheckInterval and a program
  /// Writes finished jobs to the accounting store; null with accounting_storage/none.
  accounting_writer_actor accounting;
  /// The store's associations as the writer last sent them (null until it did): the
  /// controller's read-only copy, which submissions are checked against without waiting for
  /// the database. The store (through the writer) owns them.
  std::shared_ptr<const msg::association_data> associations;
  /// Finished jobs the store holds: with a store, a job is forgotten (MinJobAge) only once
  /// in it. Emptied as they are forgotten; after a restart every recovered job is sent again.
  std::unordered_set<uint64_t> stored;
  std::map<uint64_t, array_entry> arrays;
  uint64_t next_job_id = 1;
  /// Who may do what (policy/access.hpp): the same rules the front door and every job ask.
  std::shared_ptr<const policy::access_rules> access;
  daemon_gate_actor gate;  ///< null: registrations are believed and launches go unsigned
  /// Submission tokens seen recently -> job id, so a client that lost a reply and retries gets its
  /// job back instead of a second one. Oldest first, for pruning.
  std::unordered_map<std::string, uint64_t> tokens;
  std::deque<std::pair<int64_t, std::string>> token_order;
  metrics::registry* meters = nullptr;                         ///< null: CollectMetrics=NO
  std::shared_ptr<interconnect::switch_manager> interconnect;  ///< SwitchType's plugin
  std::optional<cluster::cluster_meters> cluster;              ///< set with `meters`
  state_keeper_actor keeper;  ///< where the state a restart must not lose goes; null: nowhere
  /// Recovered jobs whose steps a node has not yet confirmed: node -> job ids. The node's next
  /// registration reports what it still runs.
  std::map<std::string, std::set<uint64_t>> unconfirmed;
  /// Every partition's actor, which owns its row. `cfg.partitions` holds the rows as they last
  /// answered (the controller's view: listings and submission checks read it) in the partitions'
  /// order, the one fact about them the controller owns along with which one is the default.
  std::map<std::string, partition_actor> partitions;
  /// Every configured node's name in config order, as partitions' Nodes= resolve against.
  std::shared_ptr<const std::vector<std::string>> node_names;
  /// The partition edits made at run time, as a restart replays them (short: see
  /// config::record_partition_edit).
  std::vector<msg::partition_edit> partition_edits;
  /// Partition name -> its slot in the tables the scheduler and the topology actor get (a slot
  /// is never reused, so a queued job's stays its partition's); see slotted().
  std::unordered_map<std::string, size_t> partition_slots;
  /// The reservations (scontrol create reservation), in creation order: the controller owns
  /// them, saves them whole (state key "reservations") and hands a copy to the topology actor.
  std::vector<cluster::reservation> reservations;
  /// Attributes the request being handled to a user in the RPC statistics (shoal_rpc_user_seconds);
  /// set by the behavior to its actor_probe's.
  std::function<void(const std::string&)> attribute_to = [](const std::string&) {};
  /// uid -> user name, as submissions named them (no user-database lookup in a handler): RPCs
  /// that carry only a uid are attributed to the same user as those carrying the name.
  std::unordered_map<uint32_t, std::string> user_names;
};

using controller_self = controller_actor::stateful_pointer<controller_state>;

/// Answers `reply` once everything handed to the keeper so far is durable; with the disk failing,
/// the client hears why instead of an acknowledgement that would be a lie.
template <class T>
void deliver_once_saved(controller_self self, caf::typed_response_promise<T> rp, T reply) {
  auto& st = self->state;
  if (!st.keeper) {
    rp.deliver(std::move(reply));
    return;
  }
  self->request(st.keeper, caf::infinite, msg::sync_atom_v)
      .then([rp, reply](caf::ok_atom) mutable { rp.deliver(std::move(reply)); },
            [rp](caf::error& err) mutable {
              rp.deliver(make_error(errc::system_error,
                                    "the controller cannot save its state: " + describe(err)));
            });
}

/// As deliver_once_saved, for a handler's own reply.
template <class T>
caf::result<T> once_saved(controller_self self, T reply) {
  if (!self->state.keeper) return reply;
  auto rp = self->make_response_promise<T>();
  deliver_once_saved(self, rp, std::move(reply));
  return rp;
}

/// Records that failed to decode are logged and skipped: one bad record must not cost the rest.
template <class T>
std::optional<T> decode_record(const std::string& key, const state::value_ptr& value) {
  auto rec = decoded<T>(value);
  if (!rec) {
    config::log().error("saved state: record {} unreadable, skipped: {}", key,
                        describe(rec.error()));
    return std::nullopt;
  }
  return std::move(*rec);
}

// -- persistence.cpp: what the controller saves, and when a reply may go --

/// Hands one record to the state keeper (null value: forget the key).
void persist(controller_self self, std::string key, state::value_ptr value);
void save_next_job_id(controller_self self);
/// Sends every request; ok once all answered ok and what the keeper holds is durable, else the
/// first error.
caf::result<caf::ok_atom> all_ok(controller_self self,
                                 std::vector<std::pair<caf::actor, caf::message>> requests);

// -- job_views.cpp: the listings' views of jobs --

/// Puts a job's listing view in place: the one way views are added or replaced.
void put_view(controller_state& st, uint64_t id, msg::job_info info);
/// Forgets the finished jobs past MinJobAge (with a store, once it holds them); at most one walk
/// a second. Listings call it, and the controller's own tick (purge_interval) does.
void purge_old_jobs(controller_self self);
/// How often the tick purges: Slurm's 60 s (PURGE_JOB_INTERVAL), sooner for a shorter MinJobAge.
std::chrono::seconds purge_interval(const config::cluster_config& cfg);
/// A job actor's news: its view replaces the last one; a finished job's actor is forgotten.
void on_job_view(controller_self self, msg::job_info& info);
/// A job actor's running steps replace those it published before; none once it finished.
void on_step_view(controller_self self, uint64_t job_id, std::vector<msg::step_info>& steps);
/// squeue -s and scontrol show steps: see the controller's interface.
caf::result<std::vector<msg::step_info>> list_steps(controller_self self, uint64_t job_id,
                                                    uint32_t step_id);

// -- accounting.cpp --

/// sacct's query, answered by the accounting writer from the store (nothing without one;
/// errc::unreachable while it is away).
caf::result<std::vector<msg::accounted_job>> query_accounting(controller_self self,
                                                              msg::accounting_query query);
/// sacctmgr list/show and add/modify/delete, passed to the accounting writer (errc::unreachable
/// without a store).
caf::result<msg::association_data> list_associations(controller_self self);
caf::result<std::string> edit_associations(controller_self self, msg::acctmgr_edit edit);
/// The writer's copy of the associations replaces the controller's (and the scheduler's).
void adopt_associations(controller_self self, msg::association_data data);
/// sshare's lines, from the scheduler (which owns the fair-share usage).
caf::result<std::vector<msg::share_info>> list_shares(controller_self self);
/// Every job, finished ones (kept MinJobAge) only when asked, in id order.
std::vector<msg::job_info> list_jobs(controller_self self, bool include_finished);
/// As list_jobs, only the jobs `filter` passes, each with only the fields of `fields`
/// (messages/field_mask.hpp; 0: all).
std::vector<msg::job_info> list_job_fields(controller_self self, bool include_finished,
                                           msg::field_mask fields, const msg::job_filter& filter);
std::vector<msg::job_info> list_all_jobs(controller_self self);
caf::result<msg::job_info> show_job(controller_self self, uint64_t id);
caf::result<msg::accounted_job> live_step_usage(controller_self self, uint64_t id, uint32_t step);

// -- cluster_views.cpp: nodes, partitions, the configuration, the scheduler's
// views --

/// A node actor's news: its view replaces the last one, and the scheduler hears it.
void on_node_view(controller_self self, msg::node_info& info);
std::vector<msg::node_info> list_nodes(controller_self self);
std::vector<msg::partition_info> list_partitions(controller_self self);
/// `shoal info`'s default view: a group per partition and node state.
std::vector<msg::partition_summary> summarize_partitions(controller_self self);
std::string render_config(controller_self self);
caf::result<std::vector<msg::pending_detail>> list_pending(controller_self self);
caf::result<msg::topology_view> allocation_map(controller_self self);
caf::result<std::vector<msg::collector_info>> list_collectors(controller_self self);

// -- submission.cpp: new jobs, steps and --test-only --

/// A submission token's job, so a client's retry gets it back (see controller_state::tokens).
void remember_token(controller_self self, const std::string& token, uint64_t id);
/// Parses --array and --dependency once, before a job exists: a bad value is the submitter's error,
/// not a job stuck pending.
caf::expected<policy::workload_ptr> parse_workload(controller_self self,
                                                   const msg::job_request& req);
job_setup make_setup(controller_self self, uint64_t id, msg::job_request req,
                     policy::workload_ptr workload, caf::actor client);
/// A new job's first view, computed once: its first record (durable before the client hears of
/// the job; the job's own later records replace it) and its listing from now, not from its
/// actor's first news (a `queue` sent right after the reply must find it). The job actor starts
/// from the same view: initial_job_info is a function of the setup alone.
void record_new_job(controller_self self, const job_setup& setup);
/// A new job (job_id 0) or a step in a running job's allocation.
caf::result<msg::job_info> submit(controller_self self, msg::job_request& req, caf::actor& client);
/// --test-only: where and when the job would start now; nothing is recorded.
caf::result<msg::start_estimate> will_run(controller_self self, msg::job_request& req);

// -- arrays.cpp: job arrays, one record each until their tasks start --

void save_array(controller_self self, uint64_t id);
/// What each task of an array is made from: the array's request and workload without the array
/// (and its hold, the array record's), the dependency, GRES and licenses kept.
std::pair<msg::job_request, policy::workload_ptr> task_parts(
    const msg::job_request& array_req, const policy::parsed_workload& array_workload);
msg::job_info submit_array(controller_self self, msg::job_request req,
                           policy::workload_ptr workload);
/// The scheduler started task `index` of an array: it gets a job actor, already placed.
void start_array_task(controller_self self, uint64_t array_id, uint32_t index, uint64_t task_id,
                      std::vector<std::string>& names, std::vector<caf::actor>& actors,
                      std::vector<uint32_t>& cpus, std::string& nodelist,
                      std::vector<msg::gres_held>& gres);
/// Task `index` of an array, which the scheduler split off to pend as job `task_id` of its own
/// (so that `scontrol update` changes it alone): a job actor that queues itself, recorded.
void split_array_task(controller_self self, uint64_t array_id, uint32_t index, uint64_t task_id);
/// `workload` marked as that of task `index` of array `array_id` queued as a job of its own
/// (policy::parsed_workload::array_task), so that it counts in the array's throttle and
/// dependencies when it is split off, requeued or recovered pending.
policy::workload_ptr as_array_task(const policy::workload_ptr& workload, uint64_t array_id,
                                   uint32_t index);
/// The scheduler's news of an array's pending tasks: their reason, or that none are left.
void on_array_view(controller_self self, uint64_t array_id, const std::string& reason,
                   const std::string& folded);

// -- job_control.cpp: cancel, signal, hold/release/top/requeue, attach, an
// allocation's end --

caf::result<caf::ok_atom> cancel_by_text(controller_self self, const std::string& job,
                                         int32_t signo, uint32_t uid);
caf::result<caf::ok_atom> cancel_by_id(controller_self self, uint64_t id, int32_t signo,
                                       uint32_t uid);
/// Ctrl-C forwarded by `shoal run`.
void signal_job(controller_self self, uint64_t id, int32_t signo);
void preempt_job(controller_self self, uint64_t id, uint64_t for_job, uint8_t mode,
                 int64_t grace_s);
/// The scheduler resumes a job suspended for a preemptor.
void resume_preempted(controller_self self, uint64_t id);
caf::result<caf::ok_atom> control_jobs(controller_self self, const msg::job_control& ctl);

// -- job_update.cpp: scontrol update JobId= --

caf::result<caf::ok_atom> update_jobs(controller_self self, const msg::job_update& update);
/// `scontrol reconfigure`: every node actor tells its shoald to read its file again.
void reconfigure_nodes(controller_self self);
caf::result<caf::ok_atom> complete(controller_self self, uint64_t id, int32_t code, int32_t signo,
                                   uint32_t uid);
/// A client back after a restart: the job's own (step msg::all_steps) or a step's.
caf::result<msg::job_info> attach(controller_self self, uint64_t id, uint32_t step,
                                  caf::actor& client);
void relay_node_down(controller_self self, const std::string& node, uint64_t job);
/// A step its node knows by job id only ended: handed to the job, or logged and dropped.
void relay_step_exit(controller_self self, msg::step_exit& ex);

// -- partitions.cpp: which partitions exist, their actors, and the edits a restart replays --

/// The partitions as the saved edits left them (before any actor is spawned from the config).
void replay_partitions(controller_state& st, const state::record_map& saved);
/// One partition actor per partition of the view.
void spawn_partitions(controller_self self);
/// `shoal control update|create|delete partitionname=P ...`.
caf::result<caf::ok_atom> edit_partitions(controller_self self, const msg::partition_edit& edit);
/// The view changed: the nodes that joined or left a partition, the topology actor (placement),
/// the power actor and the scheduler (priorities) hear the new table.
void publish_partitions(controller_self self);
/// A partition actor for `row`, which it owns from now on.
void start_partition(controller_self self, const config::partition_config& row);
/// The edits made at run time (controller_state::partition_edits), as a restart replays them.
void save_partition_edits(controller_self self);

/// (controller.cpp) The health-check rounds over the node actors as they are now (again, after
/// a reconfigure changed them); none without HealthCheckProgram and an interval.
void start_health_checks(controller_self self);

// -- layout.cpp: a reconfigure's nodes and partitions --

/// The file read again (scontrol reconfigure, SIGHUP): see the controller's interface.
caf::result<std::string> reconfigure_layout(controller_self self, config_ptr fresh,
                                            std::string user);

// -- reservations.cpp: scontrol create|update|delete|show reservation --

/// create, update or delete, for an admin (policy::operation::edit_reservation): the text
/// scontrol prints ("Reservation created: NAME"), once saved; refusals in Slurm's words.
caf::result<std::string> edit_reservations(controller_self self, const msg::reservation_edit& edit,
                                           uint32_t uid);
std::vector<msg::reservation_info> list_reservations(controller_self self);
/// The topology actor gets the table as it is now.
void publish_reservations(controller_self self);
/// A reconfigure removed `removed`: the reservations hold them no longer (saved, published).
void drop_reserved_nodes(controller_self self, const std::vector<std::string>& removed);
/// --reservation at submission: it must exist and the job's user or account be one of its.
std::optional<caf::error> check_reservation_use(const controller_state& st,
                                                const msg::job_request& req);
/// Nodes of active MAINT reservations get NodeInfo.maint; sinfo's groups split by it.
void mark_maint_nodes(const controller_state& st, std::vector<msg::node_info>& nodes);
void split_maint_groups(const controller_state& st, std::vector<msg::partition_summary>& sums);
/// The saved reservations (before the topology actor is told of them).
void recover_reservations(controller_state& st, const state::record_map& saved);

// -- administration.cpp: nodes, debug levels, statistics, handover --

caf::result<caf::ok_atom> update_nodes(controller_self self, const msg::node_update& up);
caf::result<std::string> set_debug_level(controller_self self, const std::string& text,
                                         const std::string& user);
caf::result<std::string> set_debug_flags(controller_self self, const std::string& changes,
                                         const std::string& user);
/// How RPCs that carry only a uid are attributed: the user name a submission gave for it, root
/// for 0, else "uid:N" (no user-database lookup).
std::string uid_label(const controller_state& st, uint32_t uid);
caf::result<caf::ok_atom> hand_over(controller_self self);
caf::result<caf::ok_atom> reset_diag(controller_self self, uint32_t uid);

// -- power_saving.cpp: the power actor beside the controller --

/// The power actor, when the config asks for power saving (saved: its records power/NAME).
void spawn_power_saving(controller_self self, const state::record_map& saved);
/// POWER_DOWN, POWER_UP, POWER_DOWN_ASAP, POWER_DOWN_FORCE (upper case).
bool is_power_word(const std::string& upper);
/// Those words for `names`, answered by the power actor; errc::invalid_request without one.
caf::result<caf::ok_atom> update_power(controller_self self, const std::vector<std::string>& names,
                                       const std::string& upper);

// -- recovery.cpp: the state a restart or a takeover resumes --

void recover(controller_self self, state::record_map& saved);

// -- registration.cpp: node daemons and their collectors joining --

caf::result<caf::actor> register_daemon(controller_self self, msg::machine_status& rep,
                                        caf::actor& daemon);
/// As register_daemon, reconciling the steps the daemon reports with the controller's jobs.
caf::result<caf::actor> register_daemon_with_report(controller_self self, msg::machine_status& rep,
                                                    caf::actor& daemon, msg::node_report& report);
caf::result<caf::ok_atom> announce_collector(controller_self self, std::string& name, uint16_t port,
                                             caf::actor& collector);

}  // namespace shoal::actors::ctl
