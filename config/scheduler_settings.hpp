#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "policy/preemption.hpp"

namespace shoal::config {

/// When the fair-share usage is wiped (PriorityUsageResetPeriod): never, at the controller's
/// start, or at the start of each day, week (Monday), month, quarter or year (local time).
enum class usage_reset : uint8_t { none, now, daily, weekly, monthly, quarterly, yearly };

/// How the controller orders and starts jobs: slurm.conf's SchedulerType, SchedulerParameters,
/// PriorityType, PriorityWeight*, PriorityMaxAge, PriorityFavorSmall, the fair-share keys
/// (PriorityDecayHalfLife, PriorityUsageResetPeriod, PriorityCalcPeriod) and MaxArraySize, and
/// the consumable-resources half of SelectType.
struct scheduler_settings {
  bool backfill = true;              ///< SchedulerType=sched/backfill (default) | sched/builtin
  bool conservative = false;         ///< SchedulerParameters=bf_conservative (shoal's addition)
  uint32_t bf_max_job_test = 500;    ///< SchedulerParameters=bf_max_job_test=
  int64_t bf_window_s = 86'400;      ///< SchedulerParameters=bf_window= (minutes in the file)
  int64_t bf_resolution_s = 60;      ///< SchedulerParameters=bf_resolution= (seconds)
  bool multifactor = true;           ///< PriorityType=priority/multifactor (default) | basic
  uint32_t weight_age = 1000;        ///< PriorityWeightAge=
  uint32_t weight_job_size = 1000;   ///< PriorityWeightJobSize=
  uint32_t weight_partition = 1000;  ///< PriorityWeightPartition=
  uint32_t weight_fairshare = 0;     ///< PriorityWeightFairshare= (Slurm's default 0: off)
  uint32_t weight_qos = 0;           ///< PriorityWeightQOS= (Slurm's default 0: off)
  /// PriorityDecayHalfLife= (a time; 0: usage never decays). Slurm's default 7-0.
  int64_t decay_half_life_s = 7 * 86'400;
  usage_reset usage_reset_period = usage_reset::none;  ///< PriorityUsageResetPeriod=
  /// PriorityCalcPeriod= (minutes in the file, Slurm's default 5): how often the decayed usage
  /// is saved while nothing ends; factors are recomputed at every charge.
  int64_t calc_period_s = 300;
  int64_t priority_max_age_s = 7 * 86'400;  ///< PriorityMaxAge= (a time: 7-0 is 7 days)
  bool favor_small = false;                 ///< PriorityFavorSmall=YES|NO
  uint32_t max_array_size = 1001;           ///< MaxArraySize=: array indices 0..MaxArraySize-1
  bool consumable = false;                  ///< SelectType=select/cons_tres or select/cons_res
  /// SchedulerParameters=nohold_on_prolog_fail: a job requeued for a failed Prolog is not held
  bool nohold_on_prolog_fail = false;
  /// PreemptType=preempt/partition_prio (true) | preempt/none (false)
  bool preempt_partition_prio = false;
  /// PreemptType=preempt/qos: the QOS's Preempt= lists say who preempts whom
  bool preempt_qos = false;
  /// PreemptMode=: the mode of partitions without their own PreemptMode= (GANG: preempt_gang)
  policy::preempt_mode preempt_mode = policy::preempt_mode::off;
  bool preempt_gang = false;
  int64_t preempt_exempt_s = 0;  ///< PreemptExemptTime= (a time; 0: every job may be preempted)
};

/// PreemptMode's value (OFF, CANCEL, REQUEUE, "SUSPEND,GANG", ...): the mode, and whether GANG
/// was named; `error` set (and nullopt) for anything else. (SUSPEND needs GANG in the main
/// PreemptMode: the whole file's check, suspend_needs_gang.)
std::optional<policy::preempt_mode> parse_preempt_mode_value(const std::string& value, bool& gang,
                                                             std::string& error);

/// Why PreemptMode=SUSPEND cannot be used where the main PreemptMode lacks GANG (Slurm's gang
/// scheduler is what resumes a suspended job).
inline const char* suspend_needs_gang =
    "PreemptMode=SUSPEND needs GANG in the main PreemptMode (PreemptMode=SUSPEND,GANG), as "
    "Slurm's: the gang scheduler is what resumes the suspended jobs";

/// NONE, NOW, DAILY, ... as slurm.conf spells them.
std::string to_string(usage_reset r);

/// Applies one scheduling key (lower-cased) to `s`. Returns false when `lower_key` is not a
/// scheduling key; otherwise true, with `error` set (no location) when the value is bad.
bool apply_scheduler_key(scheduler_settings& s, const std::string& lower_key,
                         const std::string& value, std::string& error);

/// The keys as `shoal control show config` prints them: pairs of (Key, value), sorted by key.
std::vector<std::pair<std::string, std::string>> render_scheduler_keys(const scheduler_settings& s);

}  // namespace shoal::config
