#include "cluster/fair_share.hpp"

#include <algorithm>
#include <set>

namespace shoal::cluster {

std::vector<policy::share_input> share_inputs(const msg::association_data& data,
                                              const std::string& cluster) {
  std::vector<policy::share_input> out;
  std::set<policy::usage_key> seen;  // (user, account); users "" for accounts
  for (auto& a : data.associations) {
    if (a.cluster != cluster) continue;
    // An account's association, else a user's for every partition, wins over a partition's.
    if (!seen.insert({a.user, a.account}).second) {
      if (a.partition.empty())
        for (auto& in : out)
          if (in.user == a.user && in.account == a.account) in.shares = a.shares;
      continue;
    }
    policy::share_input in;
    in.account = a.account;
    in.user = a.user;
    in.parent = a.user.empty() ? a.parent : a.account;
    in.shares = a.shares;
    out.push_back(std::move(in));
  }
  return out;
}

policy::priority_shares priority_shares_of(const msg::association_data& data,
                                           const std::string& cluster,
                                           const std::vector<policy::share_row>& rows) {
  policy::priority_shares out;
  for (auto& r : rows)
    if (!r.user.empty()) out.fairshare[{r.user, r.account}] = r.fairshare;
  uint32_t top = 0;
  for (auto& q : data.qos) top = std::max(top, q.priority);
  for (auto& q : data.qos)
    out.qos[q.name] = top > 0 ? static_cast<double>(q.priority) / static_cast<double>(top) : 0.0;
  for (auto& a : data.associations)
    if (a.cluster == cluster && !a.user.empty() && !a.default_qos.empty())
      out.default_qos.emplace(policy::usage_key{a.user, a.account}, a.default_qos);
  return out;
}

msg::share_info to_share_info(const policy::share_row& row) {
  msg::share_info out;
  out.account = row.account;
  out.user = row.user;
  out.parent = row.parent;
  out.depth = static_cast<uint32_t>(std::max(0, row.depth));
  out.raw_shares = row.raw_shares;
  out.norm_shares = row.norm_shares;
  out.raw_usage = row.raw_usage;
  out.norm_usage = row.norm_usage;
  out.effective_usage = row.effective_usage;
  out.fairshare = row.fairshare;
  return out;
}

msg::usage_record to_record(const policy::usage_ledger& ledger) {
  msg::usage_record rec;
  rec.at = ledger.at();
  rec.reset_at = ledger.reset_at();
  for (auto& [who, seconds] : ledger.usage()) {
    msg::usage_entry e;
    e.user = who.first;
    e.account = who.second;
    e.cpu_seconds = seconds;
    rec.entries.push_back(std::move(e));
  }
  return rec;
}

void restore(policy::usage_ledger& ledger, const msg::usage_record& rec) {
  std::map<policy::usage_key, double> usage;
  for (auto& e : rec.entries) usage[{e.user, e.account}] += e.cpu_seconds;
  ledger.restore(std::move(usage), rec.at, rec.reset_at);
}

fair_share_book::fair_share_book(const config::scheduler_settings& settings, std::string cluster,
                                 int64_t now, const std::optional<msg::usage_record>& saved)
    : cluster_(std::move(cluster)),
      period_(static_cast<policy::reset_period>(settings.usage_reset_period)),
      started_at_(now),
      ledger_(settings.decay_half_life_s) {
  if (saved) restore(ledger_, *saved);
  if (period_ == policy::reset_period::now) ledger_.reset(now);
}

void fair_share_book::set_associations(msg::association_data data) {
  associations_ = std::make_shared<const msg::association_data>(std::move(data));
  shares_.reset();
}

bool fair_share_book::charge(const std::string& user, const std::string& account,
                             double cpu_seconds, int64_t now) {
  if (!(cpu_seconds > 0)) return false;
  ledger_.charge({user, account}, cpu_seconds, now);
  shares_.reset();
  return true;
}

double fair_share_book::usage_factor(const std::string& user, const std::string& account,
                                     const std::string& qos) {
  if (!associations_) return 1.0;
  auto made = shares();
  auto name =
      made ? made->qos_name_of(user, account, qos) : (qos.empty() ? std::string{"normal"} : qos);
  for (const auto& q : associations_->qos)
    if (q.name == name) return q.usage_factor >= 0 ? q.usage_factor : 1.0;
  return 1.0;
}

bool fair_share_book::tick(int64_t now, int64_t tz_offset_s) {
  bool wipe = policy::reset_due(period_, ledger_.reset_at(), started_at_, now, tz_offset_s);
  if (wipe) {
    ledger_.reset(now);
    shares_.reset();
  } else {
    ledger_.decay_to(now);
  }
  return wipe;
}

std::shared_ptr<const policy::priority_shares> fair_share_book::shares() {
  if (!associations_) return nullptr;
  if (!shares_) {
    auto rows = policy::compute_shares(share_inputs(*associations_, cluster_), ledger_.usage());
    shares_ = std::make_shared<const policy::priority_shares>(
        priority_shares_of(*associations_, cluster_, rows));
  }
  return shares_;
}

std::vector<policy::share_row> fair_share_book::rows(int64_t now) {
  if (!associations_) return {};
  ledger_.decay_to(now);
  return policy::compute_shares(share_inputs(*associations_, cluster_), ledger_.usage());
}

}  // namespace shoal::cluster
