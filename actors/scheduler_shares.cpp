// The scheduler's fair-share book as the actor uses it: charging ended jobs, PriorityCalcPeriod's
// tick, and sshare's lines (the book itself is cluster/fair_share.hpp, pure).

#include <algorithm>
#include <ctime>

#include "actors/saved_state.hpp"
#include "actors/scheduler_internals.hpp"
#include "cluster/clock.hpp"
#include "config/log.hpp"

namespace shoal::actors::sched {

using cluster::unix_now;

namespace {

/// Local time's offset east of UTC now, for PriorityUsageResetPeriod's day boundaries.
int64_t local_offset(int64_t now) {
  time_t t = static_cast<time_t>(now);
  std::tm tm{};
  if (::localtime_r(&t, &tm) == nullptr) return 0;
  return tm.tm_gmtoff;
}

}  // namespace

/// The factors the next pass reads, and the ledger saved.
void shares_changed(scheduler_self self, bool usage_too) {
  auto& st = self->state;
  st.queue.set_shares(st.shares->shares());
  if (usage_too && st.keeper)
    self->send(st.keeper, msg::persist_atom_v, fairshare_key, encoded(st.shares->record()));
  request_pass(self);
}

/// A job the queue counted as started ended: its CPUs x elapsed go to its user and account, as
/// Slurm's usage_raw (charged once, at the end).
void charge_usage(scheduler_self self, uint64_t id, int64_t now) {
  auto& st = self->state;
  auto it = st.queue.running().find(id);
  if (it == st.queue.running().end()) return;
  auto& run = it->second;
  auto elapsed = std::max<int64_t>(0, now - run.start);
  // The job's QOS's UsageFactor scales it, as Slurm's usage_raw.
  auto cpu_seconds = static_cast<double>(run.cpus) * static_cast<double>(elapsed) *
                     st.shares->usage_factor(run.user, run.account, run.qos);
  if (!st.shares->charge(run.user, run.account, cpu_seconds, now)) return;
  SHOAL_DEBUG(priority, "fairshare charge job={} user={} account={} cpu_seconds={}", id, run.user,
              run.account, cpu_seconds);
  shares_changed(self, true);
}

/// PriorityCalcPeriod's tick: a reset boundary passed wipes the usage; the decay is saved.
void calc_tick(scheduler_self self) {
  auto& st = self->state;
  auto now = unix_now();
  bool wiped = st.shares->tick(now, local_offset(now));
  if (wiped)
    config::log().info("fairshare usage reset period={}",
                       config::to_string(st.settings.usage_reset_period));
  shares_changed(self, true);
  self->delayed_send(self, std::chrono::seconds{std::max<int64_t>(1, st.settings.calc_period_s)},
                     msg::usage_atom_v);
}

std::vector<msg::share_info> list_shares(scheduler_self self) {
  std::vector<msg::share_info> out;
  for (auto& row : self->state.shares->rows(unix_now())) out.push_back(cluster::to_share_info(row));
  return out;
}

}  // namespace shoal::actors::sched
