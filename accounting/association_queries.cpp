#include "accounting/associations.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

// The store's associations as the controller and sacctmgr's listings read them.

namespace shoal::accounting {

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> out;
  std::string item;
  for (char c : text) {
    if (c == ',') {
      if (!item.empty()) out.push_back(item);
      item.clear();
    } else {
      item += c;
    }
  }
  if (!item.empty()) out.push_back(item);
  return out;
}

const msg::association* find_association(const msg::association_data& d, std::string_view cluster,
                                         std::string_view user, std::string_view account,
                                         std::string_view partition) {
  const msg::association* any = nullptr;
  for (auto& a : d.associations) {
    if (a.user.empty() || a.cluster != cluster || a.user != user || a.account != account) continue;
    if (!partition.empty() && a.partition == partition) return &a;
    if (a.partition.empty()) any = &a;
  }
  return any;
}

std::string default_account_of(const msg::association_data& d, std::string_view user) {
  for (auto& u : d.users)
    if (u.name == user) return u.default_account;
  return {};
}

std::vector<const msg::association*> tree_order(const msg::association_data& d) {
  std::vector<const msg::association*> out;
  std::set<const msg::association*> seen;
  std::set<std::string> clusters;
  for (auto& a : d.associations) clusters.insert(a.cluster);
  for (auto& cluster : clusters) {
    std::function<void(const std::string&)> visit = [&](const std::string& account) {
      std::vector<const msg::association*> users, subs;
      for (auto& a : d.associations) {
        if (a.cluster != cluster) continue;
        if (!a.user.empty() && a.account == account) users.push_back(&a);
        if (a.user.empty() && a.parent == account && a.account != account) subs.push_back(&a);
      }
      std::sort(users.begin(), users.end(), [](auto* x, auto* y) {
        return std::tie(x->user, x->partition) < std::tie(y->user, y->partition);
      });
      std::sort(subs.begin(), subs.end(), [](auto* x, auto* y) { return x->account < y->account; });
      for (auto* u : users)
        if (seen.insert(u).second) out.push_back(u);
      for (auto* s : subs) {
        if (!seen.insert(s).second) continue;
        out.push_back(s);
        visit(s->account);
      }
    };
    for (auto& a : d.associations)
      if (a.cluster == cluster && a.user.empty() && a.account == "root" && seen.insert(&a).second) {
        out.push_back(&a);
        visit("root");
      }
  }
  for (auto& a : d.associations)
    if (seen.insert(&a).second) out.push_back(&a);
  return out;
}

std::string admin_level_name(std::string_view text) {
  auto t = lower(text);
  if (t.empty()) return {};
  for (const char* name : {"None", "Operator", "Administrator"})
    if (lower(name).rfind(t, 0) == 0) return name;
  if (t == "admin") return "Administrator";
  return {};
}

}  // namespace shoal::accounting
