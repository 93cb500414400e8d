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

#include "actors/shepherd.hpp"
#include "config/config.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "messages/types.hpp"
#include "metrics/registry.hpp"
#include "topology/machine_probe.hpp"

namespace shoal::actors {

struct node_daemon_setup {
  /// The SlurmctldHost lines, primary first: the daemon registers with the one in control.
  std::vector<config::controller_host> controllers;
  int64_t heartbeat_interval_ms = config::defaults::heartbeat_interval_ms;
  /// MessageTimeout=: how long a request to the controller, a collector or a node waits.
  int64_t message_timeout_s = config::defaults::message_timeout_s;
  msg::machine_status status;  ///< what this node reports; status.node_name is who we are
  std::vector<topology::core_info> cores;  ///< the probe's core table, for --cpu-bind
  metrics::registry* meters = nullptr;     ///< the daemon and its shepherds meter themselves here
  std::string spool_dir;  ///< this node's step sockets (SlurmdSpoolDir), created already
  std::shared_ptr<process::stepd_spares> spares;  ///< null: a fresh shoal-stepd per step
  /// Steps whose shoal-stepd outlived the previous shoald (adopt_steps): the daemon signals them
  /// like its own and relays their step_exit to the controller.
  std::vector<adopted_step> adopted;
  /// Puts this daemon's credential on each registration (auth/munge: runtime/bootstrap's
  /// sign_registration; blocks once per registration). Null: registrations go unsigned.
  std::function<shoal::error(msg::machine_status&, const msg::node_report&)> sign_registration;
  /// Checks each launch came from the controller before its tasks start (see shepherd_setup).
  std::function<shoal::error(msg::launch_request&)> check_launch;
  /// Checks a signal's credential (job, step, signo, credential) before it reaches a step: a
  /// signal the controller did not sign is dropped. Blocks on munged. Null: every signal counts.
  std::function<shoal::error(uint64_t, uint32_t, int32_t, const std::string&)> check_signal;
  /// `shoald --simulate`: no process runs; each step ends as process::simulate_step says (a
  /// signal that ends a task ends it at once), while the controller's side is the real one.
  bool simulate = false;
  /// This node is a CollectorNode: its collector (actors/collector.hpp), published on
  /// `collector_port`, which the daemon announces to the controller after each registration.
  caf::actor collector;
  uint16_t collector_port = 0;
  /// This shoald's door for its peers (actors/peer_door.hpp), which its shepherds name to the
  /// job so that their children in a step's tree connect directly. Port 0: none.
  std::string door_host;
  uint16_t door_port = 0;
  /// What `scontrol reconfigure` (through the controller) starts: the daemon's SIGHUP
  /// reconfigure, which reads a file and so must not run here (shoald raises SIGHUP at itself).
  /// Must return at once. Null: the request is logged and ignored.
  std::function<void()> reconfigure;
  /// Prolog=, Epilog=, PrologFlags=, TaskProlog=, ... of this daemon's config, with the
  /// ClusterName and config path their environment names.
  config::prolog_settings prologs;
  /// HealthCheckProgram= and HealthCheckInterval=: the check runs at start when both are set
  /// (the daemon registers once it ended), then whenever the controller asks.
  config::health_settings health;
  std::string cluster_name;
  std::string conf_path;
};

/// The heart of shoald (seed 000's Machine Status Daemon plus seed 001's ServerDaemon): connects
/// to the controller in control (trying the SlurmctldHost lines in order, a round every second,
/// and again whenever the connection drops: so it follows a backup's takeover), registers its
/// machine status once (the static hwloc probe) with the steps it runs and those that ended since
/// the job last heard (a restarted controller reconciles its jobs with them), then heartbeats
/// every interval straight to the node actor the registration returned (or to the collector the
/// controller names, under CollectorNodes), and starts one shepherd
/// per job step (each step runs in a shoal-stepd of its own, which outlives this daemon; see
/// shepherd.hpp). Tasks keep running while the controller is away.
///
/// Quits with errc::unknown_node if the controller does not know this node's name, with
/// errc::authentication_failed if it refuses the daemon's credential, and with
/// errc::invalid_request if the node already has a live shoald (the text names it). What the
/// controller's node actor sends it:
using node_daemon_actor = caf::typed_actor<
    /// (request, sink, job): start a step's tasks here, in a shepherd of their own.
    caf::reacts_to<msg::launch_atom, msg::launch_request, caf::actor, caf::actor>,
    /// (job, step, signo, credential): signal a step's tasks (step 0xffffffff: every step of the
    /// job); the credential is the controller's under auth/munge (see check_signal).
    caf::reacts_to<msg::signal_atom, uint64_t, uint32_t, int32_t, std::string>,
    /// A step ended (from its shepherd; an adopted one asks until it is answered): kept, and
    /// reported at each registration, until the job releases the node; passed to the job, or
    /// by job id through the node actor (answered once the controller has it;
    /// errc::unreachable while no controller is connected).
    caf::replies_to<msg::step_exit>::with<caf::ok_atom>,
    /// (job, step, sink): the step's output goes to `sink` from now on (its `shoal run`
    /// reattached after a controller restart).
    caf::reacts_to<msg::attach_atom, uint64_t, uint32_t, caf::actor>,
    /// The job released the node: its ended steps need not be reported again.
    caf::reacts_to<msg::release_atom, uint64_t>,
    /// (job, step): what the step used here so far, sampled now by its shoal-stepd (sstat); an
    /// ended step's final figures, a simulated one's zeros. errc::unknown_job for a step not
    /// known here.
    caf::replies_to<msg::usage_atom, uint64_t, uint32_t>::with<msg::step_usage>,
    /// (collector, host, port): beat to that collector from now on (connecting to it, and again
    /// whenever it drops, every second); an empty collector: beat to the node actor again.
    caf::reacts_to<msg::collector_atom, std::string, std::string, uint16_t>,
    /// `scontrol reconfigure`: read the configuration file again, as on SIGHUP
    /// (node_daemon_setup::reconfigure).
    caf::reacts_to<msg::reconfig_atom>,
    /// Run HealthCheckProgram now (the controller asks every HealthCheckInterval when the node's
    /// state matches HealthCheckNodeState); a failure sends the node actor (check_atom, reason).
    /// Ignored while a check runs.
    caf::reacts_to<msg::check_atom>,
    /// `scontrol reboot`, once the node is free: run RebootProgram as root, not waited on (the
    /// machine goes down under it); the node registers again once it is back.
    caf::reacts_to<msg::reboot_atom>,
    /// (job): the job starts on this node (its user, nodes and partition in the request's
    /// fields), for its Prolog (at once under PrologFlags=Alloc; else at its first launch
    /// here) and its Epilog (at its release). A Prolog that fails tells the node actor
    /// (prolog_atom, job, reason), which drains the node and requeues the job; launches of the
    /// job fail with step_exit::prolog_failed; a failing Epilog sends (epilog_atom, job,
    /// reason), which drains the node. Launches wait while the job's Prolog runs.
    caf::reacts_to<msg::prolog_atom, msg::launch_request>>;

node_daemon_actor spawn_node_daemon(caf::actor_system& sys, node_daemon_setup setup);

}  // namespace shoal::actors
