#pragma once

// Fair-share as Slurm 22.05's priority/multifactor computes it without PriorityFlags=FAIR_TREE
// (src/plugins/priority/multifactor/priority_multifactor.c, "classic" fair-share): usage in
// CPU-seconds decayed by PriorityDecayHalfLife, normalised shares and usage down the association
// tree, the effective usage that mixes a child's usage with its parent's, and the factor
// 2^(-EffectvUsage/NormShares) that PriorityWeightFairshare weighs. Pure: time is an argument.

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace shoal::policy {

/// Who a job's usage is charged to: its user and account.
using usage_key = std::pair<std::string, std::string>;  // user, account

/// Decayed CPU-seconds per user and account. Usage decays continuously: what was charged `dt`
/// seconds ago counts 2^(-dt/half_life); a half life of 0 keeps it whole (PriorityDecayHalfLife=0).
class usage_ledger {
 public:
  explicit usage_ledger(int64_t half_life_s = 7 * 24 * 3600) : half_life_s_(half_life_s) {}

  /// Decays everything to `now` (seconds); an earlier `now` than the last does nothing.
  void decay_to(int64_t now);

  /// Adds `cpu_seconds` of usage at `now` (decaying what was there to `now` first).
  void charge(const usage_key& who, double cpu_seconds, int64_t now);

  /// The usage of each user and account at the last decay_to or charge.
  const std::map<usage_key, double>& usage() const { return usage_; }
  /// When the usage was last decayed to (seconds; 0: never).
  int64_t at() const { return at_; }
  /// When the usage was last wiped (PriorityUsageResetPeriod; seconds, 0: never).
  int64_t reset_at() const { return reset_at_; }

  /// Takes back a saved ledger: its usage as of `at`, last wiped at `reset_at`.
  void restore(std::map<usage_key, double> usage, int64_t at, int64_t reset_at) {
    usage_ = std::move(usage);
    at_ = at;
    reset_at_ = reset_at;
  }

  /// Forgets all usage at `now` (a PriorityUsageResetPeriod boundary, or NOW).
  void reset(int64_t now) {
    usage_.clear();
    at_ = now;
    reset_at_ = now;
  }

 private:
  int64_t half_life_s_;
  int64_t at_ = 0;
  int64_t reset_at_ = 0;
  std::map<usage_key, double> usage_;
};

/// PriorityUsageResetPeriod's choices (config::usage_reset has the same order).
enum class reset_period : uint8_t { none, now, daily, weekly, monthly, quarterly, yearly };

/// The latest boundary of `period` at or before `now` (seconds; local time as `tz_offset_s`
/// east of UTC): the start of the day, of the week (Monday), month, quarter (January, April,
/// July, October) or year. 0 for none and now, which have no boundaries.
int64_t period_start(reset_period period, int64_t now, int64_t tz_offset_s = 0);

/// True when usage last wiped at `reset_at` (0: never) is due to be wiped at `now`: a boundary
/// of `period` passed since. A ledger never wiped is due only once a boundary comes after
/// `first_seen` (when it started counting), so a fresh ledger is not wiped at once.
bool reset_due(reset_period period, int64_t reset_at, int64_t first_seen, int64_t now,
               int64_t tz_offset_s = 0);

/// What the priority reads of fair-share and QOS, made once per change of usage or
/// associations: each (user, account)'s fair-share factor, each QOS's priority over the largest,
/// and each association's default QOS.
struct priority_shares {
  std::map<usage_key, double> fairshare;
  std::map<std::string, double> qos;
  std::map<usage_key, std::string> default_qos;

  /// The factor of `user` in `account`; 0 without an association.
  double fairshare_of(const std::string& user, const std::string& account) const {
    auto it = fairshare.find({user, account});
    return it == fairshare.end() ? 0.0 : it->second;
  }
  /// The factor of `qos`, or when empty of the association's default QOS, else of "normal".
  double qos_of(const std::string& user, const std::string& account,
                const std::string& qos_name) const;
  /// The QOS a job of `user` in `account` asking `qos_name` runs under: that one, or when empty
  /// its association's default QOS, else "normal" (Slurm's job_ptr->qos_ptr).
  std::string qos_name_of(const std::string& user, const std::string& account,
                          const std::string& qos_name) const;
};

/// One association of the fair-share tree, as the accounting store keeps it.
struct share_input {
  std::string account;
  std::string user;     ///< empty: the account's own association
  std::string parent;   ///< an account's parent account ("" for root); a user's: its account
  uint32_t shares = 1;  ///< Fairshare= (RawShares)
};

/// One line of sshare: an association with its computed figures.
struct share_row {
  std::string account;
  std::string user;  ///< empty for an account
  std::string parent;
  int depth = 0;  ///< levels below root (root 0), for sshare's indented account names
  uint32_t raw_shares = 1;
  double norm_shares = 0;  ///< shares / siblings' shares x the parent's norm shares
  double raw_usage = 0;    ///< CPU-seconds, decayed (an account: its subtree's)
  double norm_usage = 0;   ///< raw / root's raw
  double effective_usage = 0;
  double fairshare = 0;  ///< 2^(-effective_usage / norm_shares); 0 for no shares
};

/// The tree of `assocs` (one cluster's: root first, or any order) with `usage` charged to the
/// users' associations, computed as Slurm's classic fair-share does, in sshare's order (each
/// account, its users, then its sub-accounts, by name). Associations whose parent is missing
/// are left out.
std::vector<share_row> compute_shares(const std::vector<share_input>& assocs,
                                      const std::map<usage_key, double>& usage);

}  // namespace shoal::policy
