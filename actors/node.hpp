#pragma once

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/typed_actor.hpp>

#include <optional>

#include "actors/daemon_gate.hpp"
#include "actors/state_keeper.hpp"
#include "config/config.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "metrics/registry.hpp"

namespace shoal::actors {

/// One compute node in the controller: its configuration, the static probe its shoald sent at
/// registration, its state machine, and the handle of that shoald (launches and signals pass
/// through here). Sends (view_atom, node_info) to `controller` only when something users see
/// changes (and at most once a minute to refresh LastResponse), and (nodedown_atom, string node,
/// uint64 job) for each job on it when it goes DOWN. Each heartbeat later than
/// `heartbeat_interval_ms` after the previous one adds its lateness to
/// shoal_heartbeat_lag_seconds{collector="shoalctld"} in `meters` (null: not metered).
using node_actor = caf::typed_actor<
    /// A shoald (re)registers with its static machine probe, sent once per registration; the
    /// answer is this actor's own handle, where the daemon sends its heartbeats. One daemon per
    /// node: while another holds it and answers a liveness check (within 3 s), the answer is
    /// errc::invalid_request naming that one (its pid, host and address); one that does not
    /// answer, or whose connection dropped, is replaced.
    caf::replies_to<msg::register_atom, msg::machine_status, caf::actor>::with<caf::actor>,
    /// The daemon is alive: sent straight here, never through the controller.
    caf::reacts_to<msg::heartbeat_atom>,
    /// The node's own figures (load, CPU times, memory), from its daemon when they moved: kept
    /// for the next view the node publishes (at the latest with its once-a-minute refresh), so
    /// they add no message to the controller.
    caf::reacts_to<msg::usage_atom, msg::node_usage>,
    /// (job, step): what the step used on this node so far, asked of the daemon now (sstat).
    /// errc::unreachable while no daemon is registered.
    caf::replies_to<msg::usage_atom, uint64_t, uint32_t>::with<msg::step_usage>,
    /// (collector, host, port) from the collector manager: the daemon beats to that collector
    /// from now on (told now and at each registration), and the manager, not this actor, times
    /// its silence. An empty collector: back to beating here, timed here.
    caf::reacts_to<msg::collector_atom, std::string, std::string, uint16_t>,
    /// From the collector manager: the node stopped beating past HeartBeatTimeout (false: DOWN,
    /// "Not responding") or beats again (true).
    caf::reacts_to<msg::responding_atom, bool>,
    /// The partitions holding the node now (a partition changed at run time), in partition order.
    caf::reacts_to<msg::parts_atom, std::vector<std::string>>,
    /// A job takes the node, holding this many CPUs (0: the whole node) and these devices
    /// (GresUsed; stamped on the job's launches here).
    caf::reacts_to<msg::start_atom, uint64_t, uint32_t, std::vector<msg::gres_held>>,
    /// The job is ending here (COMPLETING until it releases the node).
    caf::reacts_to<msg::done_atom, uint64_t>,
    /// The job frees the node.
    caf::reacts_to<msg::release_atom, uint64_t>,
    /// `scontrol reconfigure`: relayed to the node's shoald, which reads its file again.
    caf::reacts_to<msg::reconfig_atom>,
    /// (job, job actor) from the job as it starts here: relayed to the daemon for the job's
    /// Prolog and Epilog (only when a Prolog or Epilog is configured).
    caf::reacts_to<msg::prolog_atom, msg::launch_request, caf::actor>,
    /// (job, reason) from the daemon: the job's Prolog failed here; the node is drained with
    /// the reason and the job hears (prolog_atom, node, reason), which requeues it.
    caf::reacts_to<msg::prolog_atom, uint64_t, std::string>,
    /// (job, reason) from the daemon: the job's Epilog failed here; the node is drained.
    caf::reacts_to<msg::epilog_atom, uint64_t, std::string>,
    /// Run HealthCheckProgram now (the health-check actor's tick): relayed to the shoald.
    caf::reacts_to<msg::check_atom>,
    /// (reason) from the daemon: its HealthCheckProgram failed; the node is drained with the
    /// reason, unless drained already (a program that drained it with `scontrol update` keeps
    /// its own reason). A passing check resumes nothing: an admin does, as in Slurm.
    caf::reacts_to<msg::check_atom, std::string>,
    /// (launch_request, sink, job): relayed to the shoald; without one the job gets a
    /// step_exit with a launch_error.
    caf::reacts_to<msg::launch_atom, msg::launch_request, caf::actor, caf::actor>,
    /// (job, step, sink): a step's output goes to `sink` from now on; relayed to the shoald.
    caf::reacts_to<msg::attach_atom, uint64_t, uint32_t, caf::actor>,
    /// (job, step, signo): relayed to the shoald (step 0xffffffff: every step).
    caf::reacts_to<msg::signal_atom, uint64_t, uint32_t, int32_t>,
    /// `shoal control update nodename=...`: errc::invalid_request for a bad state or a missing
    /// reason.
    caf::replies_to<msg::nodeupd_atom, msg::node_update>::with<caf::ok_atom>,
    /// The end of a step whose job its shoald knows only by id (it adopted the step after a
    /// restart, or the job's handle predates a controller restart): relayed to the controller,
    /// which hands it to the job.
    caf::replies_to<msg::step_exit>::with<caf::ok_atom>,
    /// The power actor, which hears each registration (node, previous boot time, boot time).
    caf::reacts_to<msg::power_atom, caf::actor>,
    /// (msg::power_state, POWER_DOWN asked) from the power actor: shown with the state (idle~,
    /// alloc#, idle%, idle!); powered down, up or down-going, silence is not DOWN.
    caf::reacts_to<msg::power_atom, uint8_t, bool>,
    /// From the power actor: DOWN with this reason until an admin resumes it (a resume past
    /// ResumeTimeout, a reboot nobody asked for).
    caf::reacts_to<msg::nodedown_atom, std::string>,
    /// From the power actor (POWER_DOWN_FORCE): every job on the node ends as if the node failed.
    caf::reacts_to<msg::cancel_atom, std::string>>;

/// `keeper` saves what an admin set (drain or down, with the reason) under node_key (null: not
/// saved); `saved` is that record from before a restart. With a `gate` (auth/munge), all the
/// node actor sends its daemon goes through it, launches signed (null: straight to the daemon).
node_actor spawn_node(caf::actor_system& sys, config::node_config cfg, caf::actor controller,
                      int64_t heartbeat_timeout_ms, int64_t heartbeat_interval_ms,
                      metrics::registry* meters, state_keeper_actor keeper = {},
                      std::optional<msg::node_record> saved = std::nullopt,
                      daemon_gate_actor gate = {});

}  // namespace shoal::actors
