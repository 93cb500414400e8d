#pragma once

// Fair-share between the accounting store's associations and the scheduler's usage ledger
// (policy/fairshare.hpp): one cluster's tree of associations as compute_shares reads it, the
// factors the priority reads, sshare's lines on the wire, and the ledger as its saved record.
// Pure.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/scheduler_settings.hpp"
#include "messages/types.hpp"
#include "policy/fairshare.hpp"

namespace shoal::cluster {

/// The associations of `cluster` in `data` as compute_shares reads them: accounts with their
/// parents, users under their accounts (one line per user and account: a partition's own
/// association adds nothing the tree has not).
std::vector<policy::share_input> share_inputs(const msg::association_data& data,
                                              const std::string& cluster);

/// What the priority reads, from `rows` (compute_shares over `data`'s tree of `cluster`):
/// each user association's fair-share factor, each QOS's priority over the largest (all 0 when
/// none is above 0), and each association's DefaultQOS.
policy::priority_shares priority_shares_of(const msg::association_data& data,
                                           const std::string& cluster,
                                           const std::vector<policy::share_row>& rows);

/// sshare's line on the wire.
msg::share_info to_share_info(const policy::share_row& row);

/// The ledger as it is saved (StateSaveLocation), and back into `ledger`.
msg::usage_record to_record(const policy::usage_ledger& ledger);
void restore(policy::usage_ledger& ledger, const msg::usage_record& rec);

/// The scheduler's fair-share book: the usage ledger (decayed by PriorityDecayHalfLife, wiped
/// at PriorityUsageResetPeriod's boundaries), the associations' copy, and the factors made from
/// both, made again only when either changes (a uniform decay leaves every normalised figure as
/// it was). Time is an argument (Unix seconds); `tz_offset_s` is local time's offset east of UTC.
class fair_share_book {
 public:
  /// Starts from `saved` (the ledger a previous controller saved) when given. Under
  /// PriorityUsageResetPeriod=NOW the usage starts from zero at `now`.
  fair_share_book(const config::scheduler_settings& settings, std::string cluster, int64_t now,
                  const std::optional<msg::usage_record>& saved = std::nullopt);

  /// The store's associations (the writer's latest copy) replace the ones the factors read.
  void set_associations(msg::association_data data);

  /// Charges `cpu_seconds` to `user` in `account` at `now`. False when there is nothing to
  /// charge (no CPU-seconds).
  bool charge(const std::string& user, const std::string& account, double cpu_seconds, int64_t now);

  /// The UsageFactor of the QOS a job of `user` in `account` asking `qos` runs under (its -q,
  /// else its association's DefaultQOS, else normal): what its CPU-seconds are multiplied by
  /// when charged (Slurm's usage_raw). 1 for a QOS the store does not have.
  double usage_factor(const std::string& user, const std::string& account, const std::string& qos);

  /// Wipes the usage when a PriorityUsageResetPeriod boundary passed since the last wipe, and
  /// decays it to `now`. True when the usage was wiped.
  bool tick(int64_t now, int64_t tz_offset_s = 0);

  /// The factors the priority reads; null without associations.
  std::shared_ptr<const policy::priority_shares> shares();

  /// sshare's lines at `now` (the usage decayed to it), in sshare's order; empty without
  /// associations.
  std::vector<policy::share_row> rows(int64_t now);

  /// The ledger as it is saved.
  msg::usage_record record() const { return to_record(ledger_); }

 private:
  std::string cluster_;
  policy::reset_period period_;
  int64_t started_at_;
  policy::usage_ledger ledger_;
  std::shared_ptr<const msg::association_data> associations_;
  std::shared_ptr<const policy::priority_shares> shares_;  ///< null: to be made again
};

}  // namespace shoal::cluster
