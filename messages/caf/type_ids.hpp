#pragma once

// The one registry of every type and atom that crosses a shoal process boundary. Every process
// calls `cfg.add_message_types<caf::id_block::shoal>()` (runtime/actor_system_setup) before it
// creates its actor system, so the wire names match everywhere.

#include <cstdint>
#include <string>
#include <vector>

#include <caf/type_id.hpp>

#include "messages/caf/inspect.hpp"
#include "messages/types.hpp"

CAF_BEGIN_TYPE_ID_BLOCK(shoal, caf::first_custom_type_id)

CAF_ADD_TYPE_ID(shoal, (shoal::msg::machine_status))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::node_info))
CAF_ADD_TYPE_ID(shoal, (std::vector<shoal::msg::node_info>))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::partition_info))
CAF_ADD_TYPE_ID(shoal, (std::vector<shoal::msg::partition_info>))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::job_request))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::job_info))
CAF_ADD_TYPE_ID(shoal, (std::vector<shoal::msg::job_info>))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::launch_request))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::task_output))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::step_exit))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::job_event))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::node_update))
CAF_ADD_TYPE_ID(shoal, (std::vector<uint64_t>))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::pending_detail))
CAF_ADD_TYPE_ID(shoal, (std::vector<shoal::msg::pending_detail>))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::job_control))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::topology_view))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::node_report))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::job_record))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::array_record))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::node_record))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::controller_record))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::controller_status))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::collector_list))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::collector_report))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::collector_info))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::collector_map_record))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::partition_summary))
CAF_ADD_TYPE_ID(shoal, (std::vector<shoal::msg::partition_summary>))
CAF_ADD_TYPE_ID(shoal, (std::vector<shoal::msg::collector_info>))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::partition_edit))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::partition_edits_record))
// gres: the devices a job holds, scheduler -> job -> node actor (one process).
CAF_ADD_TYPE_ID(shoal, (std::vector<shoal::msg::gres_held>))

// Between processes.
CAF_ADD_ATOM(shoal, shoal::msg, register_atom, "register")
CAF_ADD_ATOM(shoal, shoal::msg, heartbeat_atom, "heartbeat")
CAF_ADD_ATOM(shoal, shoal::msg, submit_atom, "submit")
CAF_ADD_ATOM(shoal, shoal::msg, launch_atom, "launch")
CAF_ADD_ATOM(shoal, shoal::msg, signal_atom, "signal")
CAF_ADD_ATOM(shoal, shoal::msg, cancel_atom, "cancel")
CAF_ADD_ATOM(shoal, shoal::msg, jobs_atom, "jobs")
CAF_ADD_ATOM(shoal, shoal::msg, nodes_atom, "nodes")
CAF_ADD_ATOM(shoal, shoal::msg, parts_atom, "parts")
CAF_ADD_ATOM(shoal, shoal::msg, config_atom, "config")
CAF_ADD_ATOM(shoal, shoal::msg, nodeupd_atom, "nodeupd")
// The wire version handshake: answered with two plain integers, readable across versions.
CAF_ADD_ATOM(shoal, shoal::msg, map_atom, "map")
CAF_ADD_ATOM(shoal, shoal::msg, setdebug_atom, "setdebug")
CAF_ADD_ATOM(shoal, shoal::msg, dbgflags_atom, "dbgflags")
CAF_ADD_ATOM(shoal, shoal::msg, diagreset_atom, "diagreset")
// Heartbeat fan-in: a collector announces itself, gets its list, reports each round; a node
// daemon learns where to beat; `shoal control show collectors`.
CAF_ADD_ATOM(shoal, shoal::msg, collector_atom, "collector")
CAF_ADD_ATOM(shoal, shoal::msg, collect_atom, "collect")
CAF_ADD_ATOM(shoal, shoal::msg, collectors_atom, "collectors")
CAF_ADD_ATOM(shoal, shoal::msg, responding_atom, "responding")
// `shoal info`'s default view, grouped in the controller.
CAF_ADD_ATOM(shoal, shoal::msg, summary_atom, "summary")
// `shoal control update|create|delete partitionname=`.
CAF_ADD_ATOM(shoal, shoal::msg, partedit_atom, "partedit")
// Between controllers (the backup controller): make state durable before control moves, and a
// backup's word to a returning primary that it handed control back.
CAF_ADD_ATOM(shoal, shoal::msg, handover_atom, "handover")
CAF_ADD_ATOM(shoal, shoal::msg, handback_atom, "handback")
// Inside the controller.
CAF_ADD_ATOM(shoal, shoal::msg, start_atom, "start")
CAF_ADD_ATOM(shoal, shoal::msg, release_atom, "release")
CAF_ADD_ATOM(shoal, shoal::msg, schedule_atom, "schedule")
CAF_ADD_ATOM(shoal, shoal::msg, check_atom, "check")
CAF_ADD_ATOM(shoal, shoal::msg, tlimit_atom, "tlimit")
CAF_ADD_ATOM(shoal, shoal::msg, escalate_atom, "escalate")
CAF_ADD_ATOM(shoal, shoal::msg, nodedown_atom, "nodedown")
CAF_ADD_ATOM(shoal, shoal::msg, view_atom, "view")
CAF_ADD_ATOM(shoal, shoal::msg, enqueue_atom, "enqueue")
CAF_ADD_ATOM(shoal, shoal::msg, step_atom, "step")
CAF_ADD_ATOM(shoal, shoal::msg, done_atom, "done")
CAF_ADD_ATOM(shoal, shoal::msg, jobctl_atom, "jobctl")
CAF_ADD_ATOM(shoal, shoal::msg, pending_atom, "pending")
CAF_ADD_ATOM(shoal, shoal::msg, ended_atom, "ended")
CAF_ADD_ATOM(shoal, shoal::msg, arraytask_atom, "arraytask")
// Recovery: a job takes its allocation back; a `shoal run` finds its job again.
CAF_ADD_ATOM(shoal, shoal::msg, adopt_atom, "adopt")
CAF_ADD_ATOM(shoal, shoal::msg, attach_atom, "attach")
// The state keeper (actors/state_keeper.hpp): save a change, wait until saved, snapshot now.
CAF_ADD_ATOM(shoal, shoal::msg, persist_atom, "persist")
CAF_ADD_ATOM(shoal, shoal::msg, sync_atom, "sync")
CAF_ADD_ATOM(shoal, shoal::msg, snapshot_atom, "snapshot")
// Inside shoald: a step's proxy and its shoal-stepd (whose own socket carries the stepd_* types
// in the shoal codec; their IDs let them travel as CAF values too, as every wire type can).
CAF_ADD_TYPE_ID(shoal, (shoal::msg::stepd_core))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::stepd_setup))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::stepd_hello))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::stepd_frame))
CAF_ADD_ATOM(shoal, shoal::msg, stepdgone_atom, "stepdgone")
// sbatch/srun --test-only and salloc (issue 18).
CAF_ADD_TYPE_ID(shoal, (shoal::msg::start_estimate))
CAF_ADD_ATOM(shoal, shoal::msg, willrun_atom, "willrun")
CAF_ADD_ATOM(shoal, shoal::msg, complete_atom, "complete")
CAF_ADD_ATOM(shoal, shoal::msg, warn_atom, "warn")
// srun's input (issue 33): a step's shepherds introduce themselves to its client's relay, which
// passes the client's standard input to those of the input tasks; shoal-stepd's word that a
// chunk is written paces it.
CAF_ADD_TYPE_ID(shoal, (shoal::msg::task_input))
CAF_ADD_ATOM(shoal, shoal::msg, stepio_atom, "stepio")
CAF_ADD_ATOM(shoal, shoal::msg, input_atom, "input")
CAF_ADD_ATOM(shoal, shoal::msg, inputack_atom, "inputack")
// Power saving (actors/power.hpp): a node's power state; a job waiting for its nodes to boot.
CAF_ADD_ATOM(shoal, shoal::msg, power_atom, "power")
CAF_ADD_ATOM(shoal, shoal::msg, ready_atom, "ready")
// PMI fences (issue 33): a step's shepherds all-gather their shoal-stepd's blobs along a tree;
// the job introduces them to each other.
CAF_ADD_TYPE_ID(shoal, (shoal::msg::step_exchange))
CAF_ADD_ATOM(shoal, shoal::msg, exchange_atom, "exchange")
CAF_ADD_ATOM(shoal, shoal::msg, peers_atom, "peers")
// A rank aborted the step on one node: its shepherd tells the others along the same tree.
CAF_ADD_ATOM(shoal, shoal::msg, abort_atom, "abort")
// Accounting (actors/accounting_writer.hpp): a finished job's record to the store; the ids stored.
CAF_ADD_ATOM(shoal, shoal::msg, account_atom, "account")
CAF_ADD_ATOM(shoal, shoal::msg, stored_atom, "stored")
CAF_ADD_TYPE_ID(shoal, (shoal::msg::accounting_query))
CAF_ADD_TYPE_ID(shoal, (std::vector<shoal::msg::accounted_job>))
// sacctmgr (actors/accounting_writer.hpp): the store's clusters, accounts, users, associations
// and QOS, listed or changed; the writer's copy of them to the controller.
CAF_ADD_ATOM(shoal, shoal::msg, acctmgr_atom, "acctmgr")
CAF_ADD_ATOM(shoal, shoal::msg, assocs_atom, "assocs")
CAF_ADD_TYPE_ID(shoal, (shoal::msg::acctmgr_edit))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::association_data))
// Step listings (squeue -s, scontrol show steps): each job's running steps, job -> controller.
CAF_ADD_TYPE_ID(shoal, (shoal::msg::step_info))
CAF_ADD_TYPE_ID(shoal, (std::vector<shoal::msg::step_info>))
CAF_ADD_ATOM(shoal, shoal::msg, steps_atom, "steps")
// Live use (sstat, issue 35): a running step's figures asked down the chain controller -> job ->
// node -> shoald -> shepherd -> shoal-stepd; a node's own figures with its beats.
CAF_ADD_ATOM(shoal, shoal::msg, usage_atom, "usage")
CAF_ADD_ATOM(shoal, shoal::msg, prolog_atom, "prolog")
CAF_ADD_ATOM(shoal, shoal::msg, epilog_atom, "epilog")
CAF_ADD_TYPE_ID(shoal, (shoal::msg::step_usage))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::accounted_job))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::node_usage))
// scontrol update JobId= (issue 37): the client's changes to the controller; inside it, a job's
// record asked and its revised request handed back, and the scheduler's queue entry replaced.
CAF_ADD_TYPE_ID(shoal, (shoal::msg::job_update))
CAF_ADD_ATOM(shoal, shoal::msg, update_atom, "jobupdate")
// scontrol reconfigure: the controller tells every node daemon to read its file again.
CAF_ADD_ATOM(shoal, shoal::msg, reconfig_atom, "reconfig")
// Fair-share (issue 35): sshare's lines, from the scheduler's usage ledger and the associations.
CAF_ADD_ATOM(shoal, shoal::msg, shares_atom, "shares")
CAF_ADD_TYPE_ID(shoal, (shoal::msg::share_info))
CAF_ADD_TYPE_ID(shoal, (std::vector<shoal::msg::share_info>))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::usage_record))
// scontrol reboot (issue 37): the node actor tells its shoald to run RebootProgram, and times
// the node's return.
CAF_ADD_ATOM(shoal, shoal::msg, reboot_atom, "reboot")
// Preemption (issue 37): the scheduler has the controller tell a running job it is preempted.
CAF_ADD_ATOM(shoal, shoal::msg, preempt_atom, "preempt")
// Reservations (issue 37): scontrol create|update|delete|show reservation.
CAF_ADD_ATOM(shoal, shoal::msg, resv_atom, "resv")
CAF_ADD_TYPE_ID(shoal, (shoal::msg::reservation_edit))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::reservation_info))
CAF_ADD_TYPE_ID(shoal, (std::vector<shoal::msg::reservation_info>))
CAF_ADD_TYPE_ID(shoal, (shoal::msg::reservations_record))
// Listings (issue 36): which jobs the controller lists for a CLI request.
CAF_ADD_TYPE_ID(shoal, (shoal::msg::job_filter))
// PreemptMode=SUSPEND (issue 37): a job suspended for a preemptor tells the scheduler (and it
// the topology actor) that its CPUs are lent; the scheduler has the controller resume it once
// they are free again.
CAF_ADD_ATOM(shoal, shoal::msg, lent_atom, "lent")
CAF_ADD_ATOM(shoal, shoal::msg, resume_atom, "resume")

CAF_END_TYPE_ID_BLOCK(shoal)
