#pragma once

// The node daemon actor's private state and its extended interface: only actors/node_daemon.cpp
// includes this header (it keeps that file within the project's size for one source).

#include <functional>
#include <map>
#include <optional>
#include <set>

#include <caf/all.hpp>

#include "actors/node_daemon.hpp"
#include "actors/node_scripts.hpp"
#include "actors/node_usage_meters.hpp"
#include "actors/shepherd.hpp"
#include "messages/caf/type_ids.hpp"
#include "process/node_usage.hpp"
#include "process/simulated_step.hpp"

namespace shoal::actors {

struct node_daemon_state {
  static inline const char* name = "node_daemon";
  node_daemon_setup setup;
  caf::actor controller;
  caf::actor node;  ///< our node actor in the controller: heartbeats go straight to it
  /// Under CollectorNodes: the collector we beat to instead (name, where, and its handle once
  /// connected; no beat goes anywhere while it is not).
  std::string collector_name;
  std::string collector_host;
  uint16_t collector_port = 0;
  caf::actor collector;
  uint64_t collector_gen = 0;  ///< counts assignments: a retry for an older one is dropped
  bool warned_collector = false;
  bool registered = false;
  bool warned_unreachable = false;
  size_t line = 0;  ///< the SlurmctldHost line being tried (0: the primary)
  uint64_t beat_gen = 0;
  std::map<std::pair<uint64_t, uint32_t>, shepherd_actor> shepherds;
  /// Each running step's job actor, which hears of the step's end through the daemon.
  std::map<std::pair<uint64_t, uint32_t>, caf::actor> step_jobs;
  /// Steps that ended, until their job releases the node: a controller that restarted meanwhile
  /// learns their outcome from the next registration.
  std::map<std::pair<uint64_t, uint32_t>, msg::step_exit> ended;
  /// Simulated steps still "running" (setup.simulate), with their launch and output sink.
  struct simulated_step {
    msg::launch_request req;
    caf::actor sink;
    int32_t exit_code = 0;  ///< what its tasks end with when their time is up
  };
  std::map<std::pair<uint64_t, uint32_t>, simulated_step> simulated;
  /// The node's own figures last sent to the node actor (sampled_at 0: none since registering).
  msg::node_usage sent_usage;
  std::optional<node_usage_gauges> gauges;  ///< this node's figures in /metrics (unset: none)
  /// Jobs known here for their Prolog and Epilog (from a launch, or the start the node actor
  /// relayed), until their Epilog ran; each with its launches waiting for its Prolog.
  struct held_launch {
    msg::launch_request req;
    caf::actor sink;
    caf::actor job;
  };
  struct job_scripts {
    msg::launch_request job;  ///< whose and where, for the scripts' environment
    enum class phase : uint8_t { idle, running, done, failed } prolog = phase::idle;
    std::string failure;            ///< why its Prolog failed
    std::vector<held_launch> held;  ///< launches waiting for its Prolog
    bool released = false;          ///< released while its Prolog ran: the Epilog follows it
    int32_t killed = 0;             ///< the signal that ended the job's tasks while it ran
  };
  std::map<uint64_t, job_scripts> scripts;
  std::vector<node_script> serial_queue;      ///< PrologFlags=Serial: scripts waiting their turn
  bool script_running = false;                ///< PrologFlags=Serial: one runs
  bool health_running = false;                ///< a HealthCheckProgram runs
  bool connecting = false;                    ///< the start-up health check ended (or none)
  std::optional<std::string> health_failure;  ///< a failed check's reason, for the node actor
};

/// A simulated step's time is up (setup.simulate).
using simdone_atom = caf::atom_constant<caf::atom("simdone")>;

/// The public interface plus what the daemon sends itself: connection retries and heartbeat
/// ticks (with the generation of the live heartbeat loop).
using daemon_impl = node_daemon_actor::extend<
    caf::reacts_to<script_done_atom, uint64_t, bool, bool, std::string>,
    caf::reacts_to<msg::check_atom, bool, std::string>, caf::reacts_to<caf::connect_atom>,
    caf::reacts_to<msg::heartbeat_atom, uint64_t>, caf::reacts_to<msg::collector_atom, uint64_t>,
    caf::reacts_to<simdone_atom, uint64_t, uint32_t>>;
using daemon_self = daemon_impl::stateful_pointer<node_daemon_state>;

}  // namespace shoal::actors
