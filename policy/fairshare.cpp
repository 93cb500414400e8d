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
