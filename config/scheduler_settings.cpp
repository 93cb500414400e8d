#include "config/scheduler_settings.hpp"

#include "config/config_syntax.hpp"
#include "config/duration.hpp"

namespace shoal::config {

namespace cs = config_syntax;

namespace {

/// SchedulerParameters: comma-separated options; the backfill ones shoal knows are applied,
/// the others Slurm has are accepted and ignored (they tune Slurm internals).
bool apply_scheduler_parameters(scheduler_settings& s, const std::string& value,
                                std::string& error) {
  size_t pos = 0;
  while (pos <= value.size()) {
    auto comma = std::min(value.find(',', pos), value.size());
    auto item = value.substr(pos, comma - pos);
    pos = comma + 1;
    if (item.empty()) continue;
    auto eq = item.find('=');
    auto name = cs::to_lower(item.substr(0, eq));
    auto arg = eq == std::string::npos ? std::string{} : item.substr(eq + 1);
    auto number = [&](uint64_t max, uint64_t& out) {
      auto n = cs::parse_unsigned(arg, max);
      if (!n) {
        error = name + " needs a whole number up to " + std::to_string(max);
        return false;
      }
      out = *n;
      return true;
    };
    uint64_t n = 0;
    if (name == "bf_max_job_test") {
      if (!number(cs::max_u32, n)) return true;
      s.bf_max_job_test = static_cast<uint32_t>(n);
    } else if (name == "bf_window") {
      if (!number(525'600, n)) return true;
      s.bf_window_s = static_cast<int64_t>(n) * 60;
    } else if (name == "bf_resolution") {
      if (!number(3'600, n)) return true;
      if (n == 0) {
        error = "bf_resolution must be at least 1 second";
        return true;
      }
      s.bf_resolution_s = static_cast<int64_t>(n);
    } else if (name == "bf_conservative") {
      s.conservative = true;
    } else if (name == "nohold_on_prolog_fail") {
      s.nohold_on_prolog_fail = true;
    }
  }
  return true;
}

const char* const reset_names[] = {"NONE",    "NOW",       "DAILY", "WEEKLY",
                                   "MONTHLY", "QUARTERLY", "YEARLY"};

/// The fair-share keys (PriorityDecayHalfLife, PriorityUsageResetPeriod, PriorityCalcPeriod);
/// false when `k` is none of them.
bool apply_fairshare_key(scheduler_settings& s, const std::string& k, const std::string& value,
                         std::string& error) {
  if (k == "prioritydecayhalflife") {
    auto seconds = parse_time_limit(value);
    if (!seconds || *seconds < 0)
      error = "expected a time such as 7-0 or 14-0 (0: no decay)";
    else
      s.decay_half_life_s = *seconds;
    return true;
  }
  if (k == "prioritycalcperiod") {
    auto seconds = parse_time_limit(value);
    if (!seconds || *seconds <= 0)
      error = "expected a time of at least a minute, such as 5 or 0:30:00";
    else
      s.calc_period_s = *seconds;
    return true;
  }
  if (k == "priorityusageresetperiod") {
    auto v = cs::to_lower(value);
    for (size_t i = 0; i < std::size(reset_names); ++i)
      if (v == cs::to_lower(reset_names[i])) {
        s.usage_reset_period = static_cast<usage_reset>(i);
        return true;
      }
    error = "expected NONE, NOW, DAILY, WEEKLY, MONTHLY, QUARTERLY or YEARLY";
    return true;
  }
  return false;
}

/// PreemptType, PreemptMode, PreemptExemptTime; false when `k` is none of them.
bool apply_preempt_key(scheduler_settings& s, const std::string& k, const std::string& value,
                       std::string& error) {
  if (k == "preempttype") {
    auto v = cs::to_lower(value);
    s.preempt_partition_prio = v == "preempt/partition_prio";
    s.preempt_qos = v == "preempt/qos";
    if (v != "preempt/none" && v != "preempt/partition_prio" && v != "preempt/qos")
      error = "'" + value +
              "' is not supported (use preempt/partition_prio, preempt/qos or preempt/none)";
    return true;
  }
  if (k == "preemptmode") {
    bool gang = false;
    if (auto m = parse_preempt_mode_value(value, gang, error)) {
      s.preempt_mode = *m;
      s.preempt_gang = gang;
    }
    return true;
  }
  if (k == "preemptexempttime") {
    auto seconds = parse_time_limit(value);
    if (!seconds || *seconds < 0)
      error = "expected a time such as 0:05:00 or 10 (minutes)";
    else
      s.preempt_exempt_s = *seconds;
    return true;
  }
  return false;
}

}  // namespace

std::optional<policy::preempt_mode> parse_preempt_mode_value(const std::string& value, bool& gang,
                                                             std::string& error) {
  std::optional<policy::preempt_mode> mode;
  gang = false;
  size_t from = 0;
  while (from <= value.size()) {
    auto comma = value.find(',', from);
    auto word = value.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
    from = comma == std::string::npos ? value.size() + 1 : comma + 1;
    if (cs::to_upper(word) == "GANG") {
      gang = true;
      continue;
    }
    auto m = policy::parse_preempt_mode(word);
    if (!m || mode) {
      error = "expected OFF, CANCEL, REQUEUE or SUSPEND, optionally with ,GANG";
      return std::nullopt;
    }
    mode = m;
  }
  if (!mode) mode = policy::preempt_mode::off;  // GANG alone: gang scheduling, no preemption
  return mode;
}

std::string to_string(usage_reset r) {
  auto i = static_cast<size_t>(r);
  return i < std::size(reset_names) ? reset_names[i] : "NONE";
}

bool apply_scheduler_key(scheduler_settings& s, const std::string& k, const std::string& value,
                         std::string& error) {
  auto v = cs::to_lower(value);
  auto weight = [&](uint32_t& out) {
    auto n = cs::parse_unsigned(value, cs::max_u32);
    if (!n)
      error = "expected a non-negative integer";
    else
      out = static_cast<uint32_t>(*n);
    return true;
  };
  if (k == "schedulertype") {
    if (v == "sched/backfill")
      s.backfill = true;
    else if (v == "sched/builtin")
      s.backfill = false;
    else
      error = "'" + value + "' is not supported (use sched/backfill or sched/builtin)";
    return true;
  }
  if (k == "schedulerparameters") return apply_scheduler_parameters(s, value, error);
  if (k == "prioritytype") {
    if (v == "priority/multifactor")
      s.multifactor = true;
    else if (v == "priority/basic")
      s.multifactor = false;
    else
      error = "'" + value + "' is not supported (use priority/multifactor or priority/basic)";
    return true;
  }
  if (k == "priorityweightage") return weight(s.weight_age);
  if (k == "priorityweightjobsize") return weight(s.weight_job_size);
  if (k == "priorityweightpartition") return weight(s.weight_partition);
  if (k == "priorityweightfairshare") return weight(s.weight_fairshare);
  if (k == "priorityweightqos") return weight(s.weight_qos);
  if (apply_fairshare_key(s, k, value, error)) return true;
  if (apply_preempt_key(s, k, value, error)) return true;
  if (k == "prioritymaxage") {
    auto seconds = parse_time_limit(value);
    if (!seconds || *seconds <= 0)
      error = "expected a time such as 7-0 or 14-0";
    else
      s.priority_max_age_s = *seconds;
    return true;
  }
  if (k == "priorityfavorsmall") {
    if (auto yes = cs::parse_yes_no(value))
      s.favor_small = *yes;
    else
      error = "expected YES or NO";
    return true;
  }
  if (k == "maxarraysize") {
    auto n = cs::parse_unsigned(value, 4'000'001);
    if (!n || *n == 0)
      error = "expected a number from 1 to 4000001";
    else
      s.max_array_size = static_cast<uint32_t>(*n);
    return true;
  }
  return false;
}

std::vector<std::pair<std::string, std::string>> render_scheduler_keys(
    const scheduler_settings& s) {
  std::string params = "bf_max_job_test=" + std::to_string(s.bf_max_job_test) +
                       ",bf_window=" + std::to_string(s.bf_window_s / 60) +
                       ",bf_resolution=" + std::to_string(s.bf_resolution_s);
  if (s.conservative) params += ",bf_conservative";
  if (s.nohold_on_prolog_fail) params += ",nohold_on_prolog_fail";
  return {
      {"MaxArraySize", std::to_string(s.max_array_size)},
      {"PreemptExemptTime", format_duration(s.preempt_exempt_s)},
      {"PreemptMode",
       std::string{policy::to_string(s.preempt_mode)} + (s.preempt_gang ? ",GANG" : "")},
      {"PreemptType", s.preempt_partition_prio ? "preempt/partition_prio"
                      : s.preempt_qos          ? "preempt/qos"
                                               : "preempt/none"},
      {"PriorityCalcPeriod", format_duration(s.calc_period_s)},
      {"PriorityDecayHalfLife", format_duration(s.decay_half_life_s)},
      {"PriorityFavorSmall", s.favor_small ? "YES" : "NO"},
      {"PriorityMaxAge", format_duration(s.priority_max_age_s)},
      {"PriorityType", s.multifactor ? "priority/multifactor" : "priority/basic"},
      {"PriorityUsageResetPeriod", to_string(s.usage_reset_period)},
      {"PriorityWeightAge", std::to_string(s.weight_age)},
      {"PriorityWeightFairshare", std::to_string(s.weight_fairshare)},
      {"PriorityWeightJobSize", std::to_string(s.weight_job_size)},
      {"PriorityWeightPartition", std::to_string(s.weight_partition)},
      {"PriorityWeightQOS", std::to_string(s.weight_qos)},
      {"SchedulerParameters", params},
      {"SchedulerType", s.backfill ? "sched/backfill" : "sched/builtin"},
  };
}

}  // namespace shoal::config
