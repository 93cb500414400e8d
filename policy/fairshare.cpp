#include "policy/fairshare.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

namespace shoal::policy {

void usage_ledger::decay_to(int64_t now) {
  if (now <= at_) return;
  if (half_life_s_ > 0 && at_ != 0) {
    double keep =
        std::pow(2.0, -static_cast<double>(now - at_) / static_cast<double>(half_life_s_));
    for (auto& [who, u] : usage_) u *= keep;
  }
  at_ = now;
}

void usage_ledger::charge(const usage_key& who, double cpu_seconds, int64_t now) {
  decay_to(now);
  usage_[who] += cpu_seconds;
}

int64_t period_start(reset_period period, int64_t now, int64_t tz_offset_s) {
  if (period == reset_period::none || period == reset_period::now) return 0;
  // Days since 1970-01-01 (a Thursday) in local time, then the civil date (H. Hinnant's
  // days_from_civil inverse) for the month-based periods.
  int64_t local = now + tz_offset_s;
  int64_t days = local >= 0 ? local / 86400 : (local - 86399) / 86400;
  auto back_to_utc = [&](int64_t d) { return d * 86400 - tz_offset_s; };
  if (period == reset_period::daily) return back_to_utc(days);
  if (period == reset_period::weekly) {
    int64_t weekday = ((days % 7) + 7 + 3) % 7;  // 0: Monday
    return back_to_utc(days - weekday);
  }
  int64_t z = days + 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = yoe + era * 400;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int64_t m = mp < 10 ? mp + 3 : mp - 9;
  if (m <= 2) ++y;
  if (period == reset_period::quarterly) m = (m - 1) / 3 * 3 + 1;
  if (period == reset_period::yearly) m = 1;
  // days_from_civil(y, m, 1)
  int64_t yy = m <= 2 ? y - 1 : y;
  int64_t era2 = (yy >= 0 ? yy : yy - 399) / 400;
  int64_t yoe2 = yy - era2 * 400;
  int64_t doy2 = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5;
  int64_t doe2 = yoe2 * 365 + yoe2 / 4 - yoe2 / 100 + doy2;
  return back_to_utc(era2 * 146097 + doe2 - 719468);
}

bool reset_due(reset_period period, int64_t reset_at, int64_t first_seen, int64_t now,
               int64_t tz_offset_s) {
  auto boundary = period_start(period, now, tz_offset_s);
  if (boundary == 0) return false;
  int64_t since = reset_at != 0 ? reset_at : first_seen;
  return boundary > since;
}

std::string priority_shares::qos_name_of(const std::string& user, const std::string& account,
                                         const std::string& qos_name) const {
  if (!qos_name.empty()) return qos_name;
  auto d = default_qos.find({user, account});
  return d != default_qos.end() && !d->second.empty() ? d->second : "normal";
}

double priority_shares::qos_of(const std::string& user, const std::string& account,
                               const std::string& qos_name) const {
  auto it = qos.find(qos_name_of(user, account, qos_name));
  return it == qos.end() ? 0.0 : it->second;
}

std::vector<share_row> compute_shares(const std::vector<share_input>& assocs,
                                      const std::map<usage_key, double>& usage) {
  // Children of each account: its users first, then its sub-accounts, each by name.
  std::map<std::string, std::vector<const share_input*>> children;
  const share_input* root = nullptr;
  for (auto& a : assocs) {
    if (a.user.empty() && a.account == "root") {
      root = &a;
      continue;
    }
    children[a.user.empty() ? a.parent : a.account].push_back(&a);
  }
  for (auto& [parent, list] : children)
    std::sort(list.begin(), list.end(), [](const share_input* x, const share_input* y) {
      if (x->user.empty() != y->user.empty()) return !x->user.empty();
      return (x->user.empty() ? x->account : x->user) < (y->user.empty() ? y->account : y->user);
    });
  std::vector<share_row> out;
  if (!root) return out;
  // Raw usage of a subtree: an account's is its users' and sub-accounts' together.
  std::function<double(const share_input&)> raw_of = [&](const share_input& a) -> double {
    if (!a.user.empty()) {
      auto it = usage.find({a.user, a.account});
      return it == usage.end() ? 0.0 : it->second;
    }
    double sum = 0;
    if (auto it = children.find(a.account); it != children.end())
      for (auto* c : it->second) sum += raw_of(*c);
    return sum;
  };
  double root_raw = raw_of(*root);
  share_row top;
  top.account = "root";
  top.raw_shares = root->shares;
  top.norm_shares = 1.0;
  top.raw_usage = root_raw;
  top.norm_usage = root_raw > 0 ? 1.0 : 0.0;
  top.effective_usage = top.norm_usage;
  top.fairshare = std::pow(2.0, -top.effective_usage);
  out.push_back(top);
  std::function<void(const std::string&, const share_row&, int, bool)> visit =
      [&](const std::string& account, const share_row& parent, int depth, bool parent_is_root) {
        auto it = children.find(account);
        if (it == children.end()) return;
        double level_shares = 0;
        for (auto* c : it->second) level_shares += c->shares;
        for (auto* c : it->second) {
          share_row r;
          r.account = c->account;
          r.user = c->user;
          r.parent = account;
          r.depth = depth;
          r.raw_shares = c->shares;
          r.norm_shares = level_shares > 0 ? parent.norm_shares * c->shares / level_shares : 0;
          r.raw_usage = raw_of(*c);
          r.norm_usage = root_raw > 0 ? std::min(1.0, r.raw_usage / root_raw) : 0;
          // _set_assoc_usage_efctv: under root a child's own; below, mixed with its parent's by
          // its part of the level's shares.
          if (parent_is_root)
            r.effective_usage = r.norm_usage;
          else if (level_shares <= 0)
            r.effective_usage = parent.effective_usage;
          else
            r.effective_usage =
                r.norm_usage + (parent.effective_usage - r.norm_usage) * (c->shares / level_shares);
          r.fairshare =
              r.norm_shares > 0 ? std::pow(2.0, -(r.effective_usage / r.norm_shares)) : 0.0;
          out.push_back(r);
          // `r`, not out.back(): the recursion grows `out`.
          if (c->user.empty()) visit(c->account, r, depth + 1, false);
        }
      };
  visit("root", top, 1, true);
  return out;
}

}  // namespace shoal::policy
