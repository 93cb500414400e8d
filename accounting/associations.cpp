#include "accounting/associations.hpp"

#include <strings.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "accounting/edit_words.hpp"
#include "config/duration.hpp"

namespace shoal::accounting {

namespace {

using edit_words::contains;
using edit_words::qos_list_change;
using edit_words::read_words;
using edit_words::tres_value;
using edit_words::unknown_option;
using edit_words::words;

// -- the objects --

template <class T>
T* by_name(std::vector<T>& v, std::string_view name) {
  auto it = std::find_if(v.begin(), v.end(), [&](const T& x) { return x.name == name; });
  return it == v.end() ? nullptr : &*it;
}

msg::association* account_assoc(msg::association_data& d, std::string_view cluster,
                                std::string_view account) {
  for (auto& a : d.associations)
    if (a.cluster == cluster && a.account == account && a.user.empty()) return &a;
  return nullptr;
}

std::vector<std::string> cluster_names(const msg::association_data& d) {
  std::vector<std::string> out;
  for (auto& c : d.clusters) out.push_back(c.name);
  return out;
}

/// Sets an association's limits from `w`; returns an error for a bad TRES or an unknown QOS.
error set_limits(msg::association& a, const words& w, const msg::association_data& d) {
  if (w.shares) a.shares = static_cast<uint32_t>(*w.shares < 0 ? 1 : *w.shares);
  if (w.priority) a.priority = *w.priority;
  if (w.grp_jobs) a.grp_jobs = *w.grp_jobs;
  if (w.grp_submit) a.grp_submit = *w.grp_submit;
  if (w.grp_wall) a.grp_wall_min = *w.grp_wall;
  if (w.max_jobs) a.max_jobs = *w.max_jobs;
  if (w.max_submit) a.max_submit = *w.max_submit;
  if (w.max_wall) a.max_wall_min = *w.max_wall;
  if (w.grp_tres) {
    auto t = tres_value("GrpTRES", *w.grp_tres, a.grp_tres);
    if (!t) return t.error();
    a.grp_tres = *t;
  }
  if (w.max_tres) {
    auto t = tres_value("MaxTRES", *w.max_tres, a.max_tres);
    if (!t) return t.error();
    a.max_tres = *t;
  }
  auto known_qos = [&](const std::string& q) {
    return std::any_of(d.qos.begin(), d.qos.end(), [&](auto& x) { return x.name == q; });
  };
  if (w.qos) {
    for (auto& q : w.qos->names)
      if (q != "-1" && !known_qos(q)) return {errc::invalid_request, " Unknown QOS name: " + q};
    if (w.qos->op == '=') {
      a.qos.clear();
      for (auto& q : w.qos->names)
        if (q != "-1" && !contains(a.qos, q)) a.qos.push_back(q);
    } else if (w.qos->op == '+') {
      for (auto& q : w.qos->names)
        if (!contains(a.qos, q)) a.qos.push_back(q);
    } else {
      for (auto& q : w.qos->names)
        a.qos.erase(std::remove(a.qos.begin(), a.qos.end(), q), a.qos.end());
    }
    std::sort(a.qos.begin(), a.qos.end());
  }
  if (w.default_qos) {
    if (*w.default_qos == "-1" || w.default_qos->empty())
      a.default_qos.clear();
    else if (!known_qos(*w.default_qos))
      return {errc::invalid_request, " Unknown QOS name: " + *w.default_qos};
    else
      a.default_qos = *w.default_qos;
  }
  return {};
}

/// Preempt=, Preempt+=, Preempt-= of QOS `q`: names of other QOS that exist (Slurm's words).
error set_preempt_list(msg::qos_info& q, const qos_list_change& change,
                       const msg::association_data& d) {
  for (auto& name : change.names) {
    if (name == "-1" || name.empty()) continue;
    if (name == q.name) return {errc::invalid_request, " QOS " + name + " can't preempt itself"};
    if (!std::any_of(d.qos.begin(), d.qos.end(), [&](auto& x) { return x.name == name; }))
      return {errc::invalid_request, " Unknown QOS name: " + name};
  }
  if (change.op == '=') q.preempt.clear();
  for (auto& name : change.names) {
    if (name == "-1" || name.empty()) continue;
    if (change.op == '-')
      q.preempt.erase(std::remove(q.preempt.begin(), q.preempt.end(), name), q.preempt.end());
    else if (!contains(q.preempt, name))
      q.preempt.push_back(name);
  }
  std::sort(q.preempt.begin(), q.preempt.end());
  return {};
}

/// PreemptMode= of a QOS: OFF, CANCEL, REQUEUE, SUSPEND (any case), or cluster (or -1) for the
/// cluster's; kept as slurmdbd prints it.
error set_preempt_mode(msg::qos_info& q, const std::string& value) {
  std::string upper;
  for (char c : value) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper == "CLUSTER" || upper == "-1" || upper.empty()) {
    q.preempt_mode.clear();
    return {};
  }
  for (const char* mode : {"OFF", "CANCEL", "REQUEUE", "SUSPEND"})
    if (upper == mode) {
      q.preempt_mode = upper;
      return {};
    }
  return {errc::invalid_request, " Bad PreemptMode value: " + value};
}

error set_qos_fields(msg::qos_info& q, const words& w, const msg::association_data& d) {
  if (w.preempt)
    if (auto err = set_preempt_list(q, *w.preempt, d)) return err;
  if (w.preempt_mode)
    if (auto err = set_preempt_mode(q, *w.preempt_mode)) return err;
  if (w.description) q.description = *w.description;
  if (w.priority) q.priority = static_cast<uint32_t>(std::max<int64_t>(*w.priority, 0));
  if (w.flags) q.flags = *w.flags == "-1" ? std::string{} : *w.flags;
  if (w.usage_factor) q.usage_factor = *w.usage_factor;
  if (w.grace) q.grace_time_s = *w.grace;
  if (w.grp_jobs) q.grp_jobs = *w.grp_jobs;
  if (w.grp_submit) q.grp_submit = *w.grp_submit;
  if (w.grp_wall) q.grp_wall_min = *w.grp_wall;
  if (w.max_wall) q.max_wall_min = *w.max_wall;
  if (w.max_jobs) q.max_jobs_per_user = *w.max_jobs;
  if (w.max_submit) q.max_submit_per_user = *w.max_submit;
  if (w.max_jobs_pa) q.max_jobs_per_account = *w.max_jobs_pa;
  if (w.max_submit_pa) q.max_submit_per_account = *w.max_submit_pa;
  std::pair<const std::optional<std::string>*, std::string*> tres[] = {
      {&w.grp_tres, &q.grp_tres},
      {&w.max_tres, &q.max_tres},
      {&w.max_tres_pu, &q.max_tres_per_user},
      {&w.max_tres_pa, &q.max_tres_per_account},
      {&w.min_tres, &q.min_tres}};
  for (auto& [from, to] : tres) {
    if (!*from) continue;
    auto t = tres_value("TRES", **from, *to);
    if (!t) return t.error();
    *to = *t;
  }
  return {};
}

/// An association as slurmdbd names one it changed or removed.
std::string assoc_line(const msg::association& a) {
  char line[200];
  std::snprintf(line, sizeof line, "  C = %-10s A = %-20s", a.cluster.c_str(), a.account.c_str());
  std::string out = line;
  if (!a.user.empty()) {
    std::snprintf(line, sizeof line, " U = %-9s", a.user.c_str());
    out += line;
  }
  if (!a.partition.empty()) out += " P = " + a.partition;
  return out + "\n";
}

/// An association as sacctmgr add lists those it makes.
std::string added_line(const msg::association& a) {
  char line[200];
  if (a.user.empty())
    std::snprintf(line, sizeof line, "  A = %-10.10s C = %-10.10s\n", a.account.c_str(),
                  a.cluster.c_str());
  else
    std::snprintf(line, sizeof line, "  U = %-9.9s A = %-10.10s C = %-10.10s\n", a.user.c_str(),
                  a.account.c_str(), a.cluster.c_str());
  return line;
}

error nothing(const char* what) {
  return {errc::invalid_request, what};
}

/// Words an entity's edit may not use: anything set among `allowed`'s complement.
error only_names(const words& w, const std::vector<std::string>& items, bool condition,
                 std::initializer_list<const char*> allowed) {
  for (auto& item : items) {
    auto eq = item.find('=');
    if (eq == std::string::npos) continue;
    auto key_end = eq > 0 && (item[eq - 1] == '+' || item[eq - 1] == '-') ? eq - 1 : eq;
    auto key = lower(item.substr(0, key_end));
    if (std::none_of(allowed.begin(), allowed.end(), [&](const char* a) { return key == a; }))
      return unknown_option(item, condition);
  }
  (void)w;
  return {};
}

// The keys each entity takes besides the association limits.
#define SHOAL_LIMIT_KEYS                                                                          \
  "fairshare", "shares", "share", "priority", "grpjobs", "grpsubmitjobs", "grpsubmit", "grptres", \
      "grpwall", "maxjobs", "maxjobsperuser", "maxjobspu", "maxsubmitjobs", "maxsubmit",          \
      "maxsubmitjobsperuser", "maxsubmitpu", "maxtres", "maxtresperjob", "maxtrespj", "maxwall",  \
      "maxwalldurationperjob", "qos", "qoslevel", "defaultqos", "defqos"

// -- add --

shoal::expected<std::string> add_cluster(msg::association_data& d, const words& w) {
  if (w.names.empty()) return nothing(" Need name of cluster to add.");
  std::string report, added;
  for (auto& name : w.names) {
    if (by_name(d.clusters, name)) {
      report += " This cluster " + name + " already exists.  Not adding.\n";
      continue;
    }
    ensure_cluster(d, name);
    if (w.any_limit)
      if (auto err = set_limits(*account_assoc(d, name, "root"), w, d)) return err;
    added += "  Name           = " + name + "\n";
  }
  if (added.empty()) return error{errc::invalid_request, report + " Nothing new added."};
  return report + " Adding Cluster(s)\n" + added;
}

shoal::expected<std::string> add_account(msg::association_data& d, const words& w) {
  if (w.names.empty()) return nothing(" Need name of account to add.");
  auto clusters = w.clusters.empty() ? cluster_names(d) : w.clusters;
  for (auto& c : clusters)
    if (!by_name(d.clusters, c))
      return error{errc::invalid_request, " This cluster '" + c +
                                              "' doesn't exist.\n        Contact your admin "
                                              "to add it to accounting."};
  auto parent = w.parent.value_or("root");
  std::string accounts, assocs;
  for (auto& name : w.names) {
    if (!by_name(d.accounts, name)) {
      msg::acct_account a;
      a.name = name;
      a.description = w.description.value_or(name);
      a.organization = w.organization ? *w.organization : parent != "root" ? parent : name;
      d.accounts.push_back(a);
      accounts += "  " + name + "\n";
    }
    for (auto& c : clusters) {
      if (account_assoc(d, c, name)) continue;
      auto* up = account_assoc(d, c, parent);
      if (!up)
        return error{errc::invalid_request,
                     " Parent account '" + parent + "' doesn't exist on cluster " + c +
                         "\n        Contact your admin to add this account."};
      msg::association a;
      a.cluster = c;
      a.account = name;
      a.parent = parent;
      a.qos = up->qos;
      a.default_qos = up->default_qos;
      if (auto err = set_limits(a, w, d)) return err;
      d.associations.push_back(a);
      assocs += added_line(a);
    }
  }
  if (accounts.empty() && assocs.empty()) return nothing(" Nothing new added.");
  std::string out;
  if (!accounts.empty()) {
    out += " Adding Account(s)\n" + accounts + " Settings\n";
    out += "  Description     = " + w.description.value_or("Account Name") + "\n";
    out += "  Organization    = " + w.organization.value_or("Parent/Account Name") + "\n";
  }
  if (!assocs.empty()) out += " Associations\n" + assocs;
  return out;
}

shoal::expected<std::string> add_user(msg::association_data& d, const words& w) {
  if (w.names.empty()) return nothing(" Need name of user to add.");
  auto accounts = w.accounts;
  if (accounts.empty() && w.default_account) accounts.push_back(*w.default_account);
  if (accounts.empty()) return nothing(" Need name of account to add user to.");
  std::string level;
  if (w.admin_level) {
    level = admin_level_name(*w.admin_level);
    if (level.empty())
      return error{errc::invalid_request, " Unknown admin level: " + *w.admin_level};
  }
  auto clusters = w.clusters.empty() ? cluster_names(d) : w.clusters;
  for (auto& a : accounts)
    if (!by_name(d.accounts, a))
      return error{errc::invalid_request, " This account '" + a +
                                              "' doesn't exist.\n        Contact your admin "
                                              "to add this account."};
  auto partitions = w.partitions.empty() ? std::vector<std::string>{""} : w.partitions;
  std::string users, assocs;
  for (auto& name : w.names) {
    auto* user = by_name(d.users, name);
    if (!user) {
      msg::acct_user u;
      u.name = name;
      u.default_account = w.default_account.value_or(accounts.front());
      u.admin_level = level.empty() ? "None" : level;
      d.users.push_back(u);
      users += "  " + name + "\n";
    }
    for (auto& account : accounts)
      for (auto& c : clusters) {
        auto* up = account_assoc(d, c, account);
        if (!up)
          return error{errc::invalid_request,
                       " This account '" + account + "' doesn't exist on cluster " + c +
                           "\n        Contact your admin to add this account."};
        for (auto& p : partitions) {
          if (find_association(d, c, name, account, p) &&
              (p.empty() || find_association(d, c, name, account, p)->partition == p))
            continue;
          msg::association a;
          a.cluster = c;
          a.account = account;
          a.user = name;
          a.partition = p;
          a.parent = account;
          a.qos = up->qos;
          a.default_qos = up->default_qos;
          if (auto err = set_limits(a, w, d)) return err;
          d.associations.push_back(a);
          assocs += added_line(a);
        }
      }
  }
  if (users.empty() && assocs.empty()) return nothing(" Nothing new added.");
  std::string out;
  if (!users.empty()) {
    out += " Adding User(s)\n" + users;
    if (w.default_account || !level.empty()) out += " Settings =\n";
    if (w.default_account) out += "  Default Account = " + *w.default_account + "\n";
    if (!level.empty()) out += "  Admin Level     = " + level + "\n";
  }
  if (!assocs.empty()) out += " Associations =\n" + assocs;
  return out;
}

shoal::expected<std::string> add_qos(msg::association_data& d, const words& w) {
  if (w.names.empty()) return nothing(" Need name of qos to add.");
  std::string added;
  for (auto& name : w.names) {
    if (by_name(d.qos, name)) continue;
    msg::qos_info q;
    q.name = name;
    q.description = name;
    if (auto err = set_qos_fields(q, w, d)) return err;
    d.qos.push_back(q);
    added += "  " + name + "\n";
  }
  if (added.empty()) return nothing(" Nothing new added.");
  return " Adding QOS(s)\n" + added +
         " Settings\n  Description    = " + w.description.value_or("QOS Name") + "\n";
}

// -- modify --

/// The associations a where clause selects among those `pick` accepts.
std::vector<msg::association*> selected_assocs(
    msg::association_data& d, const words& where,
    const std::function<bool(const msg::association&)>& pick) {
  std::vector<msg::association*> out;
  for (auto& a : d.associations) {
    if (!where.clusters.empty() && !contains(where.clusters, a.cluster)) continue;
    if (!where.partitions.empty() && !contains(where.partitions, a.partition)) continue;
    if (pick(a)) out.push_back(&a);
  }
  return out;
}

shoal::expected<std::string> modify(msg::association_data& d, const std::string& entity,
                                    const words& where, const words& set) {
  std::string objects, assoc_objects;
  if (entity == "qos") {
    for (auto& q : d.qos) {
      if (!contains(where.names, q.name)) continue;
      if (auto err = set_qos_fields(q, set, d)) return err;
      objects += "  " + q.name + "\n";
    }
    if (objects.empty()) return nothing(" Nothing modified");
    return " Modified qos...\n" + objects;
  }
  if (entity == "cluster") {
    for (auto& c : d.clusters) {
      if (!contains(where.names, c.name)) continue;
      if (auto* root = account_assoc(d, c.name, "root"))
        if (auto err = set_limits(*root, set, d)) return err;
      objects += "  " + c.name + "\n";
    }
    if (objects.empty()) return nothing(" Nothing modified");
    return " Setting\n Modified cluster...\n" + objects;
  }
  if (entity == "account") {
    auto names = where.names.empty() ? where.accounts : where.names;
    if (set.parent && !by_name(d.accounts, *set.parent))
      return error{errc::invalid_request, " Parent account '" + *set.parent + "' doesn't exist."};
    for (auto& a : d.accounts) {
      if (!contains(names, a.name) || !(set.description || set.organization)) continue;
      if (set.description) a.description = *set.description;
      if (set.organization) a.organization = *set.organization;
      objects += "  " + a.name + "\n";
    }
    if (set.any_limit || set.parent)
      for (auto* a : selected_assocs(d, where, [&](const msg::association& x) {
             return contains(names, x.account) &&
                    (where.users.empty() ? x.user.empty() : contains(where.users, x.user));
           })) {
        if (set.parent && a->user.empty()) {
          if (a->account == "root" || *set.parent == a->account)
            return error{errc::invalid_request,
                         " Error with request: can't move account " + a->account};
          // A parent may not become its own descendant's child.
          for (std::string up = *set.parent; !up.empty();) {
            if (up == a->account)
              return error{errc::invalid_request, " Error with request: account " + *set.parent +
                                                      " is under " + a->account};
            auto* p = account_assoc(d, a->cluster, up);
            up = p ? p->parent : std::string{};
          }
          if (!account_assoc(d, a->cluster, *set.parent))
            return error{errc::invalid_request, " Parent account '" + *set.parent +
                                                    "' doesn't exist on cluster " + a->cluster};
          a->parent = *set.parent;
        }
        if (auto err = set_limits(*a, set, d)) return err;
        assoc_objects += assoc_line(*a);
      }
    if (objects.empty() && assoc_objects.empty()) return nothing(" Nothing modified");
    std::string out;
    if (!objects.empty()) out += " Modified accounts...\n" + objects;
    if (!assoc_objects.empty()) out += " Modified account associations...\n" + assoc_objects;
    return out;
  }
  // user
  auto names = where.names.empty() ? where.users : where.names;
  std::string level;
  if (set.admin_level) {
    level = admin_level_name(*set.admin_level);
    if (level.empty())
      return error{errc::invalid_request, " Unknown admin level: " + *set.admin_level};
  }
  for (auto& u : d.users) {
    if (!contains(names, u.name) || !(set.default_account || set.admin_level)) continue;
    if (set.default_account) {
      bool has = std::any_of(d.associations.begin(), d.associations.end(), [&](auto& a) {
        return a.user == u.name && a.account == *set.default_account;
      });
      if (!has)
        return error{errc::invalid_request,
                     " Can't modify because these users aren't associated with new default "
                     "account '" +
                         *set.default_account + "'...\n  U = " + u.name};
      u.default_account = *set.default_account;
    }
    if (!level.empty()) u.admin_level = level;
    objects += "  " + u.name + "\n";
  }
  if (set.any_limit)
    for (auto* a : selected_assocs(d, where, [&](const msg::association& x) {
           return !x.user.empty() && contains(names, x.user) &&
                  (where.accounts.empty() || contains(where.accounts, x.account));
         })) {
      if (auto err = set_limits(*a, set, d)) return err;
      assoc_objects += assoc_line(*a);
    }
  if (objects.empty() && assoc_objects.empty()) return nothing(" Nothing modified");
  std::string out;
  if (!objects.empty()) out += " Modified users...\n" + objects;
  if (!assoc_objects.empty()) out += " Modified user associations...\n" + assoc_objects;
  return out;
}

// -- delete --

void erase_assocs(msg::association_data& d,
                  const std::function<bool(const msg::association&)>& gone) {
  auto& v = d.associations;
  v.erase(std::remove_if(v.begin(), v.end(), gone), v.end());
}

shoal::expected<std::string> remove(msg::association_data& d, const std::string& entity,
                                    const words& w) {
  std::string out;
  if (entity == "qos") {
    for (auto& name : w.names) {
      if (!by_name(d.qos, name)) continue;
      d.qos.erase(
          std::remove_if(d.qos.begin(), d.qos.end(), [&](auto& q) { return q.name == name; }),
          d.qos.end());
      for (auto& a : d.associations) {
        a.qos.erase(std::remove(a.qos.begin(), a.qos.end(), name), a.qos.end());
        if (a.default_qos == name) a.default_qos.clear();
      }
      for (auto& q : d.qos)
        q.preempt.erase(std::remove(q.preempt.begin(), q.preempt.end(), name), q.preempt.end());
      out += "  " + name + "\n";
    }
    if (out.empty()) return nothing(" Nothing deleted");
    return " Deleting QOS(s)...\n" + out;
  }
  if (entity == "cluster") {
    for (auto& name : w.names) {
      if (!by_name(d.clusters, name)) continue;
      d.clusters.erase(std::remove_if(d.clusters.begin(), d.clusters.end(),
                                      [&](auto& c) { return c.name == name; }),
                       d.clusters.end());
      erase_assocs(d, [&](auto& a) { return a.cluster == name; });
      out += "  " + name + "\n";
    }
    if (out.empty()) return nothing(" Nothing deleted");
    return " Deleting clusters...\n" + out;
  }
  if (entity == "account") {
    auto names = w.names.empty() ? w.accounts : w.names;
    if (contains(names, "root"))
      return nothing(
          " You are not allowed to remove the root account.\n Use remove cluster instead.");
    auto picked = [&](const msg::association& a) {
      return contains(names, a.account) &&
             (w.clusters.empty() || contains(w.clusters, a.cluster)) &&
             (w.users.empty() ? true : contains(w.users, a.user));
    };
    for (auto& a : d.associations)
      if (a.user.empty() && !picked(a) && contains(names, a.parent) &&
          (w.clusters.empty() || contains(w.clusters, a.cluster)))
        return error{errc::invalid_request, " Error with request: account " + a.parent +
                                                " has sub-accounts (" + a.account +
                                                "): delete or move them first"};
    std::string defaults;
    for (auto& u : d.users)
      if (contains(names, u.default_account) && w.users.empty()) {
        bool keeps = std::any_of(d.associations.begin(), d.associations.end(),
                                 [&](auto& a) { return a.user == u.name && !picked(a); });
        if (keeps) defaults += "  U = " + u.name + " A = " + u.default_account + "\n";
      }
    if (!defaults.empty())
      return error{errc::invalid_request,
                   " Error with request: Can't remove the default account of a user\n" + defaults +
                       " Please either remove the accounts listed above from list and resubmit,\n"
                       " or change these users' default accounts to remove the account(s).\n"
                       " Changes Discarded"};
    std::string assocs;
    for (auto& a : d.associations)
      if (picked(a)) assocs += assoc_line(a);
    erase_assocs(d, picked);
    bool whole = w.clusters.empty() && w.users.empty();
    for (auto& name : names) {
      bool left = std::any_of(d.associations.begin(), d.associations.end(),
                              [&](auto& a) { return a.account == name; });
      if (whole && !left && by_name(d.accounts, name)) {
        d.accounts.erase(std::remove_if(d.accounts.begin(), d.accounts.end(),
                                        [&](auto& a) { return a.name == name; }),
                         d.accounts.end());
        out += "  " + name + "\n";
      }
    }
    if (out.empty() && assocs.empty()) return nothing(" Nothing deleted");
    if (!out.empty()) return " Deleting accounts...\n" + out;
    return " Deleting account associations...\n" + assocs;
  }
  // user
  auto names = w.names.empty() ? w.users : w.names;
  bool some = !w.accounts.empty() || !w.clusters.empty() || !w.partitions.empty();
  auto picked = [&](const msg::association& a) {
    return !a.user.empty() && contains(names, a.user) &&
           (w.accounts.empty() || contains(w.accounts, a.account)) &&
           (w.clusters.empty() || contains(w.clusters, a.cluster)) &&
           (w.partitions.empty() || contains(w.partitions, a.partition));
  };
  if (!some) {
    for (auto& name : names) {
      if (!by_name(d.users, name)) continue;
      d.users.erase(
          std::remove_if(d.users.begin(), d.users.end(), [&](auto& u) { return u.name == name; }),
          d.users.end());
      out += "  " + name + "\n";
    }
    erase_assocs(d, picked);
    if (out.empty()) return nothing(" Nothing deleted");
    return " Deleting users...\n" + out;
  }
  for (auto& u : d.users) {
    if (!contains(names, u.name)) continue;
    bool default_gone = false, others = false;
    for (auto& a : d.associations) {
      if (a.user != u.name) continue;
      if (picked(a) && a.account == u.default_account) default_gone = true;
      if (!picked(a) && a.account != u.default_account) others = true;
    }
    bool default_kept = std::any_of(d.associations.begin(), d.associations.end(), [&](auto& a) {
      return a.user == u.name && !picked(a) && a.account == u.default_account;
    });
    if (default_gone && !default_kept && others)
      return error{errc::invalid_request,
                   " Error with request: Can't remove the default account of a user\n  U = " +
                       u.name + " A = " + u.default_account + "\n Changes Discarded"};
  }
  for (auto& a : d.associations)
    if (picked(a)) out += assoc_line(a);
  erase_assocs(d, picked);
  if (out.empty()) return nothing(" Nothing deleted");
  return " Deleting user associations...\n" + out;
}

}  // namespace

bool ensure_cluster(msg::association_data& d, const std::string& cluster, const std::string& host,
                    uint32_t port) {
  bool changed = false;
  if (!by_name(d.qos, "normal")) {
    msg::qos_info q;
    q.name = "normal";
    q.description = "Normal QOS default";
    d.qos.push_back(q);
    changed = true;
  }
  auto* c = by_name(d.clusters, cluster);
  if (!c) {
    d.clusters.emplace_back();
    c = &d.clusters.back();
    c->name = cluster;
    changed = true;
  }
  if (!host.empty() && c->control_host != host) {
    c->control_host = host;
    changed = true;
  }
  if (port != 0 && c->control_port != port) {
    c->control_port = port;
    changed = true;
  }
  if (!by_name(d.accounts, "root")) {
    msg::acct_account root;
    root.name = "root";
    root.description = "default root account";
    root.organization = "root";
    d.accounts.push_back(root);
    changed = true;
  }
  if (!account_assoc(d, cluster, "root")) {
    msg::association a;
    a.cluster = cluster;
    a.account = "root";
    a.qos = {"normal"};
    d.associations.push_back(a);
    a.user = "root";
    a.parent = "root";
    if (!find_association(d, cluster, "root", "root", "")) d.associations.push_back(a);
    changed = true;
  }
  if (!by_name(d.users, "root")) {
    msg::acct_user root;
    root.name = "root";
    root.default_account = "root";
    root.admin_level = "Administrator";
    d.users.push_back(root);
    changed = true;
  }
  return changed;
}

shoal::expected<std::string> apply_edit(msg::association_data& data,
                                        const msg::acctmgr_edit& edit) {
  auto entity = lower(edit.entity);
  if (entity != "cluster" && entity != "account" && entity != "user" && entity != "qos")
    return error{errc::invalid_request, " Unknown entity: " + edit.entity};
  words where, set;
  auto copy = data;
  if (edit.action == "add") {
    if (!edit.conditions.empty()) return unknown_option(edit.conditions.front(), false);
    if (auto err = read_words(edit.names, false, set)) return err;
    if (auto err = read_words(edit.settings, false, set)) return err;
    shoal::expected<std::string> out{std::string{}};
    if (entity == "cluster") {
      if (auto err = only_names(set, edit.settings, false, {"name", "names", SHOAL_LIMIT_KEYS}))
        return err;
      out = add_cluster(copy, set);
    } else if (entity == "account") {
      if (auto err =
              only_names(set, edit.settings, false,
                         {"name", "names", "cluster", "clusters", "parent", "parentname",
                          "description", "descr", "desc", "organization", "org", SHOAL_LIMIT_KEYS}))
        return err;
      out = add_account(copy, set);
    } else if (entity == "user") {
      if (!set.users.empty())
        for (auto& u : set.users) set.names.push_back(u);
      if (auto err =
              only_names(set, edit.settings, false,
                         {"name", "names", "user", "users", "account", "accounts", "acct", "accts",
                          "cluster", "clusters", "partition", "partitions", "defaultaccount",
                          "defaultacct", "defacct", "adminlevel", "admin", SHOAL_LIMIT_KEYS}))
        return err;
      out = add_user(copy, set);
    } else {
      out = add_qos(copy, set);
    }
    if (out) data = std::move(copy);
    return out;
  }
  if (edit.action == "modify") {
    if (auto err = read_words(edit.names, true, where)) return err;
    if (auto err = read_words(edit.conditions, true, where)) return err;
    if (auto err = read_words(edit.settings, false, set)) return err;
    if (edit.settings.empty()) return nothing(" You didn't give me anything to set");
    if (entity == "user" && where.names.empty() && where.users.empty())
      return nothing(" You need to specify a user list here.");
    auto out = modify(copy, entity, where, set);
    if (out) data = std::move(copy);
    return out;
  }
  if (edit.action == "delete") {
    if (!edit.settings.empty()) return unknown_option(edit.settings.front(), true);
    if (auto err = read_words(edit.names, true, where)) return err;
    if (auto err = read_words(edit.conditions, true, where)) return err;
    if (where.names.empty() && where.users.empty() && where.accounts.empty())
      return nothing(" No conditions given to remove, not executing.");
    auto out = remove(copy, entity, where);
    if (out) data = std::move(copy);
    return out;
  }
  return error{errc::invalid_request, " Unknown action: " + edit.action};
}

}  // namespace shoal::accounting
