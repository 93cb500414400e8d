#pragma once

// The node actor's private state and what its files share (actors/node.cpp, the actor;
// actors/node_reboot.cpp, `scontrol reboot`). Nothing but those files includes it.

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "actors/node.hpp"
#include "cluster/node_health.hpp"
#include "config/defaults.hpp"
#include "policy/cpu_ids.hpp"

namespace shoal::actors {

using cluster::node_flags;

/// A reboot `scontrol reboot` asked for: REBOOT_REQUESTED until the node is free, then
/// REBOOT_ISSUED (DOWN, RebootProgram started) until its daemon registers with a later boot
/// time, or ResumeTimeout passes.
struct node_reboot_plan {
  uint64_t gen = 0;  ///< the live ResumeTimeout timer's generation
  bool requested = false;
  bool issued = false;
  std::string next_state;  ///< nextstate=: DOWN, RESUME or UNDRAIN; "": none given
  bool undrain = false;    ///< ASAP drained a node that was not drained
  int64_t boot_time = 0;   ///< the node's boot time when the reboot was issued
};

struct node_state_t {
  static inline const char* name = "node";
  config::node_config cfg;
  caf::actor controller;
  caf::actor daemon;
  std::chrono::milliseconds timeout{config::defaults::heartbeat_timeout_ms};
  node_flags flags;
  msg::node_info info;
  std::optional<msg::node_info> published;  ///< the view the controller has
  std::map<uint64_t, uint32_t> jobs;        ///< job -> CPUs it holds here (0: the whole node)
  /// Which CPUs the jobs sharing this node hold, so that its daemon confines their tasks.
  policy::cpu_occupancy occupancy;
  std::map<uint64_t, std::vector<uint32_t>> cpu_ids;        ///< job -> its CPUs (shared jobs only)
  std::map<uint64_t, std::vector<msg::gres_held>> devices;  ///< job -> the devices it holds
  std::set<uint64_t> completing;
  uint64_t check_gen = 0;  ///< generation of the live silence timer
  std::chrono::steady_clock::time_point last_heard;
  std::chrono::milliseconds interval{
      config::defaults::heartbeat_interval_ms};    ///< HeartBeatInterval
  metrics::histogram* heartbeat_lag = nullptr;     ///< null when not metered
  metrics::counter* heartbeat_messages = nullptr;  ///< null when not metered
  /// The collector the daemon beats to (collector manager's word); empty: it beats here.
  std::string collector;
  std::string collector_host;
  uint16_t collector_port = 0;
  state_keeper_actor keeper;  ///< null: admin changes are not saved
  daemon_gate_actor gate;     ///< null: the daemon hears us directly
  /// Output sinks reattached after a controller restart, per (job, step): a daemon that
  /// registers after the attach gets them then.
  std::map<std::pair<uint64_t, uint32_t>, caf::actor> sinks;
  /// The actors of jobs that told the node of their start for their Prolog (prolog_atom).
  std::map<uint64_t, caf::actor> script_jobs;
  caf::actor power;  ///< the power actor (null: no power saving), told of each registration
  /// The node's own figures as its daemon last sent them; they go out with the next view.
  msg::node_usage usage;
  node_reboot_plan reboot;  ///< `scontrol reboot`: asked, issued (node_reboot.cpp)
};

/// The public interface plus the silence timer's and the reboot timeout's ticks, which only the
/// actor sends itself.
using node_impl = node_actor::extend<caf::reacts_to<msg::check_atom, uint64_t>,
                                     caf::reacts_to<msg::reboot_atom, uint64_t>>;
using node_self = node_impl::stateful_pointer<node_state_t>;

/// Recomputes the visible state and tells the controller only when something users see changed.
void publish(node_self self);
void set_reason(node_self self, std::string reason, std::string user);
/// Hands the keeper what an admin set on the node (nothing kept: the record is erased).
void persist_admin_state(node_self self);

// -- node_reboot.cpp --

/// `scontrol reboot` (REBOOT, REBOOT_ASAP) or `cancel_reboot` (CANCEL_REBOOT) for this node.
caf::result<caf::ok_atom> on_reboot_update(node_self self, const msg::node_update& up);
/// A requested reboot is issued once no job holds the node and its daemon is there: the
/// daemon runs RebootProgram; the node is DOWN, REBOOT_ISSUED, until it registers again.
void issue_reboot_when_free(node_self self);
/// A registration (before its report is merged): a later boot time ends an issued reboot.
void on_reboot_registration(node_self self, const msg::machine_status& rep);
/// ResumeTimeout passed since the reboot was issued (`gen`: the timer's).
void on_reboot_timeout(node_self self, uint64_t gen);

}  // namespace shoal::actors
