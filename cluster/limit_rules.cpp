#include "cluster/limit_rules.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include "accounting/associations.hpp"

namespace shoal::cluster {

namespace {

std::optional<uint64_t> count_of(int64_t value) {
  if (value < 0) return std::nullopt;
  return static_cast<uint64_t>(value);
}

std::optional<int64_t> wall_of(int64_t minutes) {
  if (minutes < 0) return std::nullopt;
  return minutes * 60;
}

/// `1000`, `1000M`, `4G`: MiB for memory (K rounds up), a plain count for the other kinds.
std::optional<uint64_t> amount_of(const std::string& text, bool memory) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return std::nullopt;
  size_t end = 0;
  uint64_t n = 0;
  for (; end < text.size() && std::isdigit(static_cast<unsigned char>(text[end])); ++end) {
    if (n > (UINT64_MAX - 9) / 10) return std::nullopt;
    n = n * 10 + static_cast<uint64_t>(text[end] - '0');
  }
  auto suffix = text.substr(end);
  if (suffix.empty()) return n;
  if (suffix.size() != 1) return std::nullopt;
  char s = static_cast<char>(std::toupper(static_cast<unsigned char>(suffix[0])));
  uint64_t scale = 1;
  switch (s) {
    case 'K':
      if (!memory) return n * 1024;
      return (n + 1023) / 1024;
    case 'M':
      scale = memory ? 1 : 1024ull * 1024;
      break;
    case 'G':
      scale = memory ? 1024 : 1024ull * 1024 * 1024;
      break;
    case 'T':
      scale = memory ? 1024ull * 1024 : 1024ull * 1024 * 1024 * 1024;
      break;
    case 'P':
      scale = memory ? 1024ull * 1024 * 1024 : 1024ull * 1024 * 1024 * 1024 * 1024;
      break;
    default:
      return std::nullopt;
  }
  if (n > UINT64_MAX / scale) return UINT64_MAX;
  return n * scale;
}

bool any(const policy::tres_caps& c) {
  return c.cpus || c.memory_mb || c.nodes;
}

/// Account associations of `cluster` by account name.
std::map<std::string, const msg::association*> accounts_of(const msg::association_data& data,
                                                           const std::string& cluster) {
  std::map<std::string, const msg::association*> out;
  for (const auto& a : data.associations)
    if (a.cluster == cluster && a.user.empty()) out.emplace(a.account, &a);
  return out;
}

}  // namespace

policy::tres_caps parse_tres_caps(const std::string& text) {
  policy::tres_caps caps;
  size_t at = 0;
  while (at <= text.size()) {
    auto comma = text.find(',', at);
    auto item = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    at = comma == std::string::npos ? text.size() + 1 : comma + 1;
    auto eq = item.find('=');
    if (eq == std::string::npos) continue;
    std::string kind;
    for (char c : item.substr(0, eq))
      kind += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto value = item.substr(eq + 1);
    if (kind == "cpu")
      caps.cpus = amount_of(value, false);
    else if (kind == "mem")
      caps.memory_mb = amount_of(value, true);
    else if (kind == "node")
      caps.nodes = amount_of(value, false);
  }
  return caps;
}

std::shared_ptr<const policy::limit_rules> limit_rules_of(
    const msg::association_data& data, const std::string& cluster,
    const std::unordered_map<std::string, size_t>& partitions) {
  auto rules = std::make_shared<policy::limit_rules>();
  bool limited = false;
  auto fill = [&](policy::assoc_limits& out, const msg::association& a) {
    out.grp_jobs = count_of(a.grp_jobs);
    out.grp_tres = parse_tres_caps(a.grp_tres);
    out.max_jobs = count_of(a.max_jobs);
    out.max_tres_per_job = parse_tres_caps(a.max_tres);
    out.max_wall_s = wall_of(a.max_wall_min);
    limited = limited || out.grp_jobs || any(out.grp_tres) || out.max_jobs ||
              any(out.max_tres_per_job) || out.max_wall_s;
  };
  // Accounts first, so users can point at them; then each account's parent.
  std::map<std::string, uint32_t> account_index;
  auto accounts = accounts_of(data, cluster);
  for (const auto& [name, a] : accounts) {
    account_index.emplace(name, static_cast<uint32_t>(rules->assocs.size()));
    fill(rules->assocs.emplace_back(), *a);
  }
  for (const auto& [name, a] : accounts) {
    auto parent = account_index.find(a->parent);
    if (!a->parent.empty() && parent != account_index.end())
      rules->assocs[account_index[name]].parent = parent->second;
  }
  for (const auto& a : data.associations) {
    if (a.cluster != cluster || a.user.empty()) continue;
    size_t partition = SIZE_MAX;
    if (!a.partition.empty()) {
      auto p = partitions.find(a.partition);
      if (p == partitions.end()) continue;
      partition = p->second;
    }
    auto index = static_cast<uint32_t>(rules->assocs.size());
    auto& own = rules->assocs.emplace_back();
    fill(own, a);
    auto parent = account_index.find(a.account);
    if (parent != account_index.end()) own.parent = parent->second;
    // Slurm propagates the per-job limits down: a user association without its own takes the
    // nearest ancestor's.
    for (uint32_t up = own.parent, steps = 0;
         up != policy::assoc_limits::no_parent && steps <= rules->assocs.size(); ++steps) {
      const auto& anc = rules->assocs[up];
      if (!own.max_jobs) own.max_jobs = anc.max_jobs;
      if (!own.max_wall_s) own.max_wall_s = anc.max_wall_s;
      if (!own.max_tres_per_job.cpus) own.max_tres_per_job.cpus = anc.max_tres_per_job.cpus;
      if (!own.max_tres_per_job.memory_mb)
        own.max_tres_per_job.memory_mb = anc.max_tres_per_job.memory_mb;
      if (!own.max_tres_per_job.nodes) own.max_tres_per_job.nodes = anc.max_tres_per_job.nodes;
      up = anc.parent;
    }
    rules->users.emplace(std::make_tuple(a.user, a.account, partition), index);
  }
  for (const auto& q : data.qos) {
    policy::qos_limits l;
    l.grp_jobs = count_of(q.grp_jobs);
    l.grp_tres = parse_tres_caps(q.grp_tres);
    l.max_tres_per_job = parse_tres_caps(q.max_tres);
    l.max_wall_s = wall_of(q.max_wall_min);
    l.max_jobs_per_user = count_of(q.max_jobs_per_user);
    l.max_tres_per_user = parse_tres_caps(q.max_tres_per_user);
    l.max_jobs_per_account = count_of(q.max_jobs_per_account);
    l.max_tres_per_account = parse_tres_caps(q.max_tres_per_account);
    bool any_limit = l.grp_jobs || any(l.grp_tres) || any(l.max_tres_per_job) || l.max_wall_s ||
                     l.max_jobs_per_user || any(l.max_tres_per_user) || l.max_jobs_per_account ||
                     any(l.max_tres_per_account);
    if (!any_limit) continue;
    limited = true;
    rules->qos.emplace(q.name, std::move(l));
  }
  if (!limited) return nullptr;
  return rules;
}

std::optional<int64_t> max_wall_of(const msg::association_data& data, const std::string& cluster,
                                   const std::string& user, const std::string& account,
                                   const std::string& partition, const std::string& qos) {
  for (const auto& q : data.qos)
    if (q.name == qos && q.max_wall_min >= 0) return wall_of(q.max_wall_min);
  const auto* a = accounting::find_association(data, cluster, user, account, partition);
  if (!a) return std::nullopt;
  if (a->max_wall_min >= 0) return wall_of(a->max_wall_min);
  auto accounts = accounts_of(data, cluster);
  std::string up = a->account;
  for (size_t steps = 0; steps <= accounts.size(); ++steps) {
    auto it = accounts.find(up);
    if (it == accounts.end()) break;
    if (it->second->max_wall_min >= 0) return wall_of(it->second->max_wall_min);
    up = it->second->parent;
  }
  return std::nullopt;
}

void give_max_wall(const config::cluster_config& cfg, const msg::association_data* assocs,
                   msg::job_request& req) {
  if (!cfg.accounting.enforce_limits || !assocs) return;
  const auto* assoc = accounting::find_association(*assocs, cfg.cluster_name, req.user,
                                                   req.workload.account, req.partition);
  if (!assoc) return;
  auto qos = !req.workload.qos.empty()     ? req.workload.qos
             : !assoc->default_qos.empty() ? assoc->default_qos
                                           : std::string{"normal"};
  auto wall =
      max_wall_of(*assocs, cfg.cluster_name, req.user, req.workload.account, req.partition, qos);
  if (!wall) return;
  int64_t limit = *wall;
  for (const auto& p : cfg.partitions)
    if (p.name == req.partition && p.max_time_s > 0) limit = std::min(limit, p.max_time_s);
  req.time_limit_s = limit;
}

bool has_submit_limits(const msg::association_data& data, const std::string& cluster) {
  for (const auto& a : data.associations)
    if (a.cluster == cluster && (a.max_submit >= 0 || a.grp_submit >= 0)) return true;
  for (const auto& q : data.qos)
    if (q.grp_submit >= 0 || q.max_submit_per_user >= 0 || q.max_submit_per_account >= 0)
      return true;
  return false;
}

shoal::error check_submit_limits(const msg::association_data& data, const std::string& cluster,
                                 const std::string& user, const std::string& account,
                                 const std::string& partition, const std::string& qos,
                                 uint64_t count, const std::vector<submitted_jobs>& active) {
  auto refused = [] { return shoal::error{errc::invalid_request, submit_limit_text}; };
  auto total = [&](auto&& counts) {
    uint64_t n = 0;
    for (const auto& j : active)
      if (counts(j)) n += j.count;
    return n;
  };
  auto over = [&](int64_t cap, uint64_t used) {
    return cap >= 0 && used + count > static_cast<uint64_t>(cap);
  };
  const msg::qos_info* q = nullptr;
  for (const auto& candidate : data.qos)
    if (candidate.name == qos) q = &candidate;
  if (q) {
    auto same_qos = [&](const submitted_jobs& j) { return j.qos == qos; };
    if (over(q->grp_submit, total(same_qos))) return refused();
    if (over(q->max_submit_per_user,
             total([&](const submitted_jobs& j) { return same_qos(j) && j.user == user; })))
      return refused();
    if (over(q->max_submit_per_account,
             total([&](const submitted_jobs& j) { return same_qos(j) && j.account == account; })))
      return refused();
  }
  const auto* own = accounting::find_association(data, cluster, user, account, partition);
  if (!own) return {};
  auto accounts = accounts_of(data, cluster);
  // Each account of the tree with the jobs charged to it or below it.
  std::map<std::string, uint64_t> below;
  for (const auto& j : active) {
    std::string up{j.account};
    for (size_t steps = 0; steps <= accounts.size(); ++steps) {
      auto it = accounts.find(up);
      if (it == accounts.end()) break;
      below[up] += j.count;
      up = it->second->parent;
    }
  }
  uint64_t users_own =
      total([&](const submitted_jobs& j) { return j.user == user && j.account == account; });
  // MaxSubmitJobs propagates down as the other per-user limits do.
  int64_t max_submit = own->max_submit;
  std::string up = own->account;
  for (size_t steps = 0; max_submit < 0 && steps <= accounts.size(); ++steps) {
    auto it = accounts.find(up);
    if (it == accounts.end()) break;
    max_submit = it->second->max_submit;
    up = it->second->parent;
  }
  bool qos_per_user = q && q->max_submit_per_user >= 0;
  bool qos_grp = q && q->grp_submit >= 0;
  if (!qos_per_user && over(max_submit, users_own)) return refused();
  if (qos_grp) return {};
  if (over(own->grp_submit, users_own)) return refused();
  up = own->account;
  for (size_t steps = 0; steps <= accounts.size(); ++steps) {
    auto it = accounts.find(up);
    if (it == accounts.end()) break;
    if (over(it->second->grp_submit, below[up])) return refused();
    up = it->second->parent;
  }
  return {};
}

}  // namespace shoal::cluster
