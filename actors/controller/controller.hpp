#pragma once

#include <functional>
#include <memory>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/typed_actor.hpp>

#include "accounting/job_store.hpp"
#include "actors/daemon_gate.hpp"
#include "actors/in_process_types.hpp"
#include "actors/state_keeper.hpp"
#include "config/config.hpp"
#include "interconnect/switch_manager.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "messages/field_mask.hpp"
#include "messages/job_filter.hpp"
#include "metrics/registry.hpp"
#include "policy/access.hpp"

namespace shoal::actors {

/// The controller's front door (seed 001's ControlDaemon): spawns one actor per node and job plus
/// the scheduler, routes requests to them, validates submissions and serves listings from the
/// views its actors publish. A bad request is answered with an error; it never takes the
/// controller down. Its actors meter themselves into `meters` (see metering.hpp and
/// docs/metrics.md); null meters nothing (CollectMetrics=NO). The registry must outlive the
/// actors. shoalctld publishes it as a dynamic handle whose announced interface is the wire
/// version (msg::wire_interface), so the CLI and shoald learn it in CAF's handshake and need not
/// share this header; inside shoalctld every sender holds it typed.
using controller_actor = caf::typed_actor<
    // -- from shoald --
    /// A shoald registers its node's static probe; answers the node actor's handle.
    caf::replies_to<msg::register_atom, msg::machine_status, caf::actor>::with<caf::actor>,
    /// As above, with the steps the daemon runs and those that ended unheard: the controller
    /// reconciles them with its jobs (ended ones are recorded, unknown jobs' tasks killed).
    caf::replies_to<msg::register_atom, msg::machine_status, caf::actor,
                    msg::node_report>::with<caf::actor>,
    /// (node, port, collector): a CollectorNode's shoald announces its collector (handed to the
    /// collector manager; errc::invalid_request without CollectorNodes).
    caf::replies_to<msg::collector_atom, std::string, uint16_t, caf::actor>::with<caf::ok_atom>,
    // -- from the CLI --
    /// A new job (job_id 0), or a step in a running job's allocation (job_id set).
    caf::replies_to<msg::submit_atom, msg::job_request, caf::actor>::with<msg::job_info>,
    /// Every job, finished ones included (kept MinJobAge).
    caf::replies_to<msg::jobs_atom>::with<std::vector<msg::job_info>>,
    /// Every job; finished ones only when asked.
    caf::replies_to<msg::jobs_atom, bool>::with<std::vector<msg::job_info>>,
    /// As above, only the jobs the filter passes (messages/job_filter.hpp), each with only the
    /// fields of the mask (messages/field_mask.hpp; 0: all): what a listing's format, filters
    /// and sort read.
    caf::replies_to<msg::jobs_atom, bool, msg::field_mask,
                    msg::job_filter>::with<std::vector<msg::job_info>>,
    /// One job.
    caf::replies_to<msg::jobs_atom, uint64_t>::with<msg::job_info>,
    /// (job, step): the running steps (squeue -s, scontrol show steps) of every job (job 0),
    /// of the job or array `job`, and only step `step` of it (msg::all_steps: every step), in job
    /// then step order; errc::unknown_job for a job id the controller does not know.
    caf::replies_to<msg::steps_atom, uint64_t, uint32_t>::with<std::vector<msg::step_info>>,
    /// sacct's query of the accounting store, passed to its writer (actors/accounting_writer.hpp);
    /// nothing without a store, errc::unreachable while it is away.
    caf::replies_to<msg::account_atom,
                    msg::accounting_query>::with<std::vector<msg::accounted_job>>,
    /// sacctmgr list/show: the store's clusters, accounts, users, associations and QOS, from
    /// the writer; errc::unreachable without a store or while it is away.
    caf::replies_to<msg::acctmgr_atom>::with<msg::association_data>,
    /// sacctmgr add/modify/delete (admins only, the front door checks), applied by the writer:
    /// answers sacctmgr's report.
    caf::replies_to<msg::acctmgr_atom, msg::acctmgr_edit>::with<std::string>,
    /// (job, step; 0xffffffff: every step): sstat's live figures, from the job actor (see
    /// job_actor's usage_atom); a job that no longer runs answers its view and no steps.
    /// errc::unknown_job for a job the controller does not hold.
    caf::replies_to<msg::usage_atom, uint64_t, uint32_t>::with<msg::accounted_job>,
    /// sshare: the associations' fair-share tree with each one's usage and factor, from the
    /// scheduler, which owns the usage (empty without associations).
    caf::replies_to<msg::shares_atom>::with<std::vector<msg::share_info>>,
    caf::replies_to<msg::nodes_atom>::with<std::vector<msg::node_info>>,
    caf::replies_to<msg::parts_atom>::with<std::vector<msg::partition_info>>,
    /// `shoal info`'s default view: a group per partition and node state.
    caf::replies_to<msg::summary_atom>::with<std::vector<msg::partition_summary>>,
    /// The running configuration, rendered.
    caf::replies_to<msg::config_atom>::with<std::string>,
    /// (job, signo, uid): job is 12, 12_4 (an array task) or 12_[1-5]; signo 0 cancels.
    caf::replies_to<msg::cancel_atom, std::string, int32_t, uint32_t>::with<caf::ok_atom>,
    /// (id, signo, uid): as above for one job id.
    caf::replies_to<msg::cancel_atom, uint64_t, int32_t, uint32_t>::with<caf::ok_atom>,
    /// hold, uhold, release, top, requeue.
    caf::replies_to<msg::jobctl_atom, msg::job_control>::with<caf::ok_atom>,
    /// `shoal control update jobid=`: ok once every job named took the changes and its record is
    /// durable; otherwise the first refusal, in Slurm's words with " for job N".
    caf::replies_to<msg::update_atom, msg::job_update>::with<caf::ok_atom>,
    /// The scheduler's view of pending jobs.
    caf::replies_to<msg::pending_atom>::with<std::vector<msg::pending_detail>>,
    /// (id, step, client): a `shoal run` whose controller restarted finds its job again (step
    /// msg::all_steps), or its step inside a job (a batch job's, an allocation's); answers the
    /// job's view (a finished job's too, so the client can exit with its code).
    caf::replies_to<msg::attach_atom, uint64_t, uint32_t, caf::actor>::with<msg::job_info>,
    /// Ctrl-C forwarded by `shoal run`: (id, signo).
    caf::reacts_to<msg::signal_atom, uint64_t, int32_t>,
    /// From the scheduler: (job, for job, policy::preempt_mode, grace seconds): the running job
    /// is preempted (cancelled, requeued or suspended) so that `for job` can start.
    caf::reacts_to<msg::preempt_atom, uint64_t, uint64_t, uint8_t, int64_t>,
    /// From the scheduler: the job suspended for a preemptor has its CPUs back: it resumes.
    caf::reacts_to<msg::resume_atom, uint64_t>,
    /// --test-only: when and where this job would start now (the scheduler places it against
    /// what runs, queueing nothing); the request is checked as a submission is.
    caf::replies_to<msg::willrun_atom, msg::job_request>::with<msg::start_estimate>,
    /// (id, exit code, signal, uid): `shoal alloc`'s command ended: its allocation ends
    /// COMPLETED (code 0) or FAILED; ok too when the job already ended.
    caf::replies_to<msg::complete_atom, uint64_t, int32_t, int32_t, uint32_t>::with<caf::ok_atom>,
    /// The allocation map (`shoal map`).
    caf::replies_to<msg::map_atom>::with<msg::topology_view>,
    /// `shoal control show collectors`: empty without CollectorNodes.
    caf::replies_to<msg::collectors_atom>::with<std::vector<msg::collector_info>>,
    /// `shoal control update nodename=...`.
    caf::replies_to<msg::nodeupd_atom, msg::node_update>::with<caf::ok_atom>,
    /// (edit, uid) `shoal control create reservation ...`, `update|delete reservationname=R`:
    /// what scontrol prints, once durable.
    caf::replies_to<msg::resv_atom, msg::reservation_edit, uint32_t>::with<std::string>,
    /// `shoal control show reservation`.
    caf::replies_to<msg::resv_atom>::with<std::vector<msg::reservation_info>>,
    /// `shoal control update|create|delete partitionname=...`: ok once the edit is durable.
    caf::replies_to<msg::partedit_atom, msg::partition_edit>::with<caf::ok_atom>,
    /// (level, user): `shoal control setdebug`; answers the new level.
    caf::replies_to<msg::setdebug_atom, std::string, std::string>::with<std::string>,
    /// (changes, user): `shoal control setdebugflags`; answers the flags now on.
    caf::replies_to<msg::dbgflags_atom, std::string, std::string>::with<std::string>,
    /// `scontrol reconfigure`, from the front door once shoalctld read its own file: every node's
    /// shoald is told to read its file again (its SIGHUP); a shoald hosting several nodes
    /// hears it once a node.
    caf::reacts_to<msg::reconfig_atom>,
    /// (the file read again, user): the reconfigure's NodeName= and PartitionName= lines
    /// applied while the controller runs: new nodes and partitions appear, changed partitions
    /// take the file's settings (as slurmctld without ReconfigFlags=KeepPartInfo), removed ones
    /// go; refused whole, with nothing changed, when a removed node or partition is in use.
    /// Answers what it did.
    caf::replies_to<msg::reconfig_atom, config_ptr, std::string>::with<std::string>,
    /// (uid): `shoal diag --reset` (root or the controller's user only).
    caf::replies_to<msg::diagreset_atom, uint32_t>::with<caf::ok_atom>,
    // -- from shoalctld and other controllers (the backup controller) --
    /// `shoal control ping` and a controller watching this one: answers that it is in control.
    caf::replies_to<caf::ping_atom>::with<msg::controller_status>,
    /// Control passes to another shoalctld (or the process stops): answers ok once every change
    /// acknowledged so far is durable, and stops the job actors, which must not act on a
    /// cluster another controller runs. shoalctld then kills the controller.
    caf::replies_to<msg::handover_atom>::with<caf::ok_atom>,
    // -- from its own actors --
    /// A node actor's view.
    caf::reacts_to<msg::view_atom, msg::node_info>,
    /// A job actor's view.
    caf::reacts_to<msg::view_atom, msg::job_info>,
    /// A job actor's running steps, after each launch and end: (job, steps).
    caf::reacts_to<msg::view_atom, uint64_t, std::vector<msg::step_info>>,
    /// The accounting writer stored these finished jobs: they may be forgotten after MinJobAge.
    caf::reacts_to<msg::stored_atom, std::vector<uint64_t>>,
    /// Its own tick: finished jobs past MinJobAge are forgotten even while nothing lists jobs.
    caf::reacts_to<msg::check_atom>,
    /// The accounting writer's copy of the store's associations (once the store is open, and
    /// after each sacctmgr change): what submissions are checked against.
    caf::reacts_to<msg::assocs_atom, msg::association_data>,
    /// The scheduler's news of an array's pending tasks: (array, reason, folded tasks).
    caf::reacts_to<msg::view_atom, uint64_t, std::string, std::string>,
    /// The scheduler started an array task: (array, index, task id, nodes, node actors, CPUs,
    /// nodelist, devices).
    caf::reacts_to<msg::arraytask_atom, uint64_t, uint32_t, uint64_t, std::vector<std::string>,
                   std::vector<caf::actor>, std::vector<uint32_t>, std::string,
                   std::vector<msg::gres_held>>,
    /// A node holding the job went DOWN: (node, job).
    caf::reacts_to<msg::nodedown_atom, std::string, uint64_t>,
    /// A node actor relays the end of a step its shoald knows only by job id (adopted after a
    /// shoald restart, or from before a controller restart): handed to the job; dropped (and
    /// logged) when the job is unknown.
    caf::reacts_to<msg::step_exit>>;

/// What the controller saves its state through, and what it recovers from.
struct controller_recovery {
  state_keeper_actor keeper;  ///< null: nothing is saved (tests, StateSaveLocation unset)
  state::record_map saved;    ///< the saved state to resume (empty: a cold start)
  /// Opens the accounting store (AccountingStorageType) for the writer the controller starts
  /// (actors/accounting_writer.hpp). Null: no store, and finished jobs go after MinJobAge.
  std::function<shoal::expected<std::unique_ptr<accounting::job_store>>()> open_store;
};

/// `interconnect` is the SwitchType plugin every job's steps use; null builds it from the config
/// (switch/none when the name is unknown: shoalctld refuses such a config before it gets here).
/// `daemon_gate` (auth/munge) checks each node daemon's registration and signs the launches
/// the node actors send; the controller links to it. Null: daemons are believed (auth/none).
/// `access` says who may act on jobs and statistics (the front door's rules, AdminUsers and
/// SlurmUser resolved); the user the controller runs as is added to its daemon users.
controller_actor spawn_controller(
    caf::actor_system& sys, config::cluster_config cfg, metrics::registry* meters = nullptr,
    std::shared_ptr<interconnect::switch_manager> interconnect = nullptr,
    controller_recovery recovery = {}, daemon_gate_actor daemon_gate = {},
    policy::access_rules access = {});

}  // namespace shoal::actors
