#pragma once

// The scheduler actor's own state and the pieces its sources share (scheduler.cpp, the actor and
// its passes; scheduler_shares.cpp, fair-share). Private to them: other actors talk to the
// scheduler through scheduler.hpp's interface.

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <caf/all.hpp>

#include "actors/scheduler.hpp"
#include "cluster/fair_share.hpp"
#include "cluster/qos_numbering.hpp"
#include "policy/job_queue.hpp"

namespace shoal::actors::sched {

struct scheduler_state {
  static inline const char* name = "scheduler";
  config::scheduler_settings settings;
  bool torus = false;  ///< select/torus3d: every job needs a prism
  /// Places whole passes and owns which job holds which nodes.
  topology_actor topology;
  std::vector<caf::actor> node_actors;  ///< config order, as start sites name them
  /// Partition name -> the slot the controller gave it (see slotted).
  std::unordered_map<std::string, size_t> partition_index;
  policy::priority_scale scale;
  policy::job_queue queue{policy::priority_config{}, true};
  /// Null when not metered.
  metrics::histogram* cycle = nullptr;
  metrics::gauge* last_cycle = nullptr;
  metrics::gauge* max_cycle = nullptr;
  metrics::gauge* queue_length = nullptr;
  std::unordered_map<uint64_t, caf::actor> job_actors;  ///< pending jobs; arrays: the controller
  caf::actor controller;
  std::unordered_map<uint64_t, std::string> told_folded;  ///< arrays: pending tasks last told
  bool pass_requested = false;
  /// A pass is at the topology actor: the next one waits for its answer.
  bool pass_in_flight = false;
  bool tick_armed = false;
  int64_t wakeup_at = 0;
  /// Fair-share: the usage ledger and the associations its factors come from.
  std::optional<cluster::fair_share_book> shares;
  state_keeper_actor keeper;  ///< where the ledger is saved; null: nowhere
  /// Each node's configured CPUs, for a recovered job that holds whole nodes.
  std::unordered_map<std::string, uint32_t> node_cpus;
  /// Jobs suspended for a preemptor: passes run for them with nothing queued (to resume them).
  std::unordered_set<uint64_t> lent;
  cluster::qos_numbering qos;   ///< preempt/qos: the QOS as passes number them, and their rules
  bool enforce_limits = false;  ///< AccountingStorageEnforce=limits: passes hold jobs by them
  std::string cluster_name;
};

/// The public interface plus the ticks the scheduler sends itself: a pass's, and
/// PriorityCalcPeriod's (usage_atom: decay, reset, save).
using scheduler_impl =
    scheduler_actor::extend<caf::reacts_to<msg::check_atom>, caf::reacts_to<msg::usage_atom>>;
using scheduler_self = scheduler_impl::stateful_pointer<scheduler_state>;

/// Has a pass run soon (once, however many ask before it starts).
void request_pass(scheduler_self self);

// -- fair-share (scheduler_shares.cpp) --

/// The factors the next pass reads, and (usage_too) the ledger saved.
void shares_changed(scheduler_self self, bool usage_too);
/// A job the queue counted as started ended: its use is charged to its user and account.
void charge_usage(scheduler_self self, uint64_t id, int64_t now);
/// PriorityCalcPeriod's tick: reset, decay, save, and the next tick armed.
void calc_tick(scheduler_self self);
/// sshare's lines.
std::vector<msg::share_info> list_shares(scheduler_self self);

}  // namespace shoal::actors::sched
