#include "policy/usage_limits.hpp"

#include <algorithm>

namespace shoal::policy {

namespace {

// Slurm 22.05's reasons (src/common/job_state_reason.c), per TRES kind: cpu, mem, node.
const char* const qos_grp_reasons[3] = {"QOSGrpCpuLimit", "QOSGrpMemLimit", "QOSGrpNodeLimit"};
const char* const qos_user_reasons[3] = {"QOSMaxCpuPerUserLimit", "QOSMaxMemoryPerUser",
                                         "QOSMaxNodePerUserLimit"};
const char* const qos_account_reasons[3] = {"MaxCpuPerAccount", "MaxMemoryPerAccount",
                                            "MaxNodePerAccount"};
const char* const assoc_grp_reasons[3] = {"AssocGrpCpuLimit", "AssocGrpMemLimit",
                                          "AssocGrpNodeLimit"};
const char* const qos_job_reasons[3] = {"QOSMaxCpuPerJobLimit", "QOSMaxMemoryPerJob",
                                        "QOSMaxNodePerJobLimit"};
const char* const assoc_job_reasons[3] = {"AssocMaxCpuPerJobLimit", "AssocMaxMemPerJob",
                                          "AssocMaxNodePerJobLimit"};

constexpr limit_kind tres_kinds[3] = {limit_kind::cpus, limit_kind::memory_mb, limit_kind::nodes};

const std::optional<uint64_t> no_cap;

/// The member of `s` (tres_caps or tres_use) that counts `kind`; null for jobs.
template <class Struct>
auto member_of(Struct& s, limit_kind kind) -> decltype(&s.cpus) {
  switch (kind) {
    case limit_kind::cpus:
      return &s.cpus;
    case limit_kind::memory_mb:
      return &s.memory_mb;
    case limit_kind::nodes:
      return &s.nodes;
    case limit_kind::jobs:
      break;
  }
  return nullptr;
}

}  // namespace

const std::optional<uint64_t>& tres_caps::of(limit_kind kind) const {
  const auto* m = member_of(*this, kind);
  return m ? *m : no_cap;
}

uint64_t tres_use::of(limit_kind kind) const {
  const auto* m = member_of(*this, kind);
  return m ? *m : 1;  // a job counts as one
}

std::optional<uint32_t> limit_rules::user_assoc(const std::string& user, const std::string& account,
                                                size_t partition) const {
  if (partition != SIZE_MAX) {
    auto it = users.find({user, account, partition});
    if (it != users.end()) return it->second;
  }
  auto it = users.find({user, account, SIZE_MAX});
  if (it == users.end()) return std::nullopt;
  return it->second;
}

tres_use requested_use(const resource_request& req) {
  tres_use use;
  use.cpus = std::max<uint64_t>(req.total_cpus(), req.min_cpus);
  use.nodes = std::max<uint32_t>(1, req.min_nodes);
  use.memory_mb =
      req.mem_per_node_mb > 0 ? req.mem_per_node_mb * use.nodes : req.mem_per_cpu_mb * use.cpus;
  return use;
}

limit_counting::limit_counting(std::shared_ptr<const limit_rules> rules)
    : rules_(std::move(rules)), out_(std::make_shared<usage_limits>()) {
  if (rules_) assoc_use_.resize(rules_->assocs.size());
}

void limit_counting::count_running(const limited_job& job) {
  if (!rules_) return;
  auto add = [&](group_use& g) {
    ++g.jobs;
    g.use.cpus += job.use.cpus;
    g.use.memory_mb += job.use.memory_mb;
    g.use.nodes += job.use.nodes;
  };
  if (auto leaf = rules_->user_assoc(*job.user, *job.account, job.partition)) {
    // A group limit counts its whole subtree: the job counts in every ancestor too. The walk is
    // bounded by the tree's size, so a cycle in bad data cannot hang it.
    uint32_t a = *leaf;
    for (size_t steps = 0; a < assoc_use_.size() && steps <= assoc_use_.size(); ++steps) {
      add(assoc_use_[a]);
      a = rules_->assocs[a].parent;
    }
  }
  if (job.qos && rules_->qos.count(*job.qos)) {
    add(named_use_[{scope::qos, *job.qos}]);
    add(named_use_[{scope::qos_user, *job.qos + '\n' + *job.user}]);
    add(named_use_[{scope::qos_account, *job.qos + '\n' + *job.account}]);
  }
}

const char* limit_counting::per_job_block(const limited_job& job, int64_t time_limit_s) const {
  if (!rules_) return nullptr;
  const qos_limits* q = nullptr;
  if (job.qos) {
    auto it = rules_->qos.find(*job.qos);
    if (it != rules_->qos.end()) q = &it->second;
  }
  auto leaf = rules_->user_assoc(*job.user, *job.account, job.partition);
  const assoc_limits* a = leaf ? &rules_->assocs[*leaf] : nullptr;
  for (size_t k = 0; k < 3; ++k) {
    auto kind = tres_kinds[k];
    if (q && q->max_tres_per_job.of(kind)) {
      if (job.use.of(kind) > *q->max_tres_per_job.of(kind)) return qos_job_reasons[k];
    } else if (a && a->max_tres_per_job.of(kind) &&
               job.use.of(kind) > *a->max_tres_per_job.of(kind)) {
      return assoc_job_reasons[k];
    }
  }
  // No time limit of its own (and none from the partition): unlimited, over any MaxWall.
  auto over = [&](int64_t cap) { return time_limit_s <= 0 || time_limit_s > cap; };
  if (q && q->max_wall_s) {
    if (over(*q->max_wall_s)) return "QOSMaxWallDurationPerJobLimit";
  } else if (a && a->max_wall_s && over(*a->max_wall_s)) {
    return "AssocMaxWallDurationPerJobLimit";
  }
  return nullptr;
}

const limit_counting::group_use& limit_counting::use_of(scope where, uint32_t assoc,
                                                        const std::string& name) const {
  static const group_use none;
  if (where == scope::assoc) return assoc < assoc_use_.size() ? assoc_use_[assoc] : none;
  auto it = named_use_.find({where, name});
  return it == named_use_.end() ? none : it->second;
}

void limit_counting::add_counter(std::vector<uint32_t>& set, scope where, uint32_t assoc,
                                 const std::string& name, limit_kind kind, uint64_t cap,
                                 const char* reason) {
  counter_key key{where, assoc, name, kind};
  auto it = counter_index_.find(key);
  if (it == counter_index_.end()) {
    const auto& g = use_of(where, assoc, name);
    uint64_t used = kind == limit_kind::jobs ? g.jobs : g.use.of(kind);
    it = counter_index_.emplace(key, static_cast<uint32_t>(out_->counters.size())).first;
    out_->counters.push_back({kind, cap, used, reason});
  }
  set.push_back(it->second);
}

void limit_counting::add_tres(std::vector<uint32_t>& set, scope where, uint32_t assoc,
                              const std::string& name, const tres_caps& caps,
                              const tres_caps* overridden, const char* const reasons[3]) {
  for (size_t k = 0; k < 3; ++k) {
    auto kind = tres_kinds[k];
    if (!caps.of(kind) || (overridden && overridden->of(kind))) continue;
    add_counter(set, where, assoc, name, kind, *caps.of(kind), reasons[k]);
  }
}

uint32_t limit_counting::set_of(const limited_job& job) {
  if (!rules_) return 0;
  auto leaf = rules_->user_assoc(*job.user, *job.account, job.partition);
  const qos_limits* q = nullptr;
  if (job.qos) {
    auto it = rules_->qos.find(*job.qos);
    if (it != rules_->qos.end()) q = &it->second;
  }
  if (!leaf && !q) return 0;
  std::string qos_name = q ? *job.qos : std::string{};
  auto key = std::make_tuple(leaf.value_or(UINT32_MAX), qos_name, q ? *job.user : std::string{},
                             q ? *job.account : std::string{});
  if (auto it = set_index_.find(key); it != set_index_.end()) return it->second;

  std::vector<uint32_t> set;
  // The QOS's limits first, then the association's that the QOS does not override, from the
  // user's own association up to the root (Slurm's order of checks).
  if (q) {
    if (q->grp_jobs)
      add_counter(set, scope::qos, 0, qos_name, limit_kind::jobs, *q->grp_jobs, "QOSGrpJobsLimit");
    add_tres(set, scope::qos, 0, qos_name, q->grp_tres, nullptr, qos_grp_reasons);
    auto per_user = qos_name + '\n' + *job.user;
    if (q->max_jobs_per_user)
      add_counter(set, scope::qos_user, 0, per_user, limit_kind::jobs, *q->max_jobs_per_user,
                  "QOSMaxJobsPerUserLimit");
    add_tres(set, scope::qos_user, 0, per_user, q->max_tres_per_user, nullptr, qos_user_reasons);
    auto per_account = qos_name + '\n' + *job.account;
    if (q->max_jobs_per_account)
      add_counter(set, scope::qos_account, 0, per_account, limit_kind::jobs,
                  *q->max_jobs_per_account, "MaxJobsPerAccount");
    add_tres(set, scope::qos_account, 0, per_account, q->max_tres_per_account, nullptr,
             qos_account_reasons);
  }
  if (leaf) {
    const auto& own = rules_->assocs[*leaf];
    if (own.max_jobs && !(q && q->max_jobs_per_user))
      add_counter(set, scope::assoc, *leaf, {}, limit_kind::jobs, *own.max_jobs,
                  "AssocMaxJobsLimit");
    uint32_t a = *leaf;
    for (size_t steps = 0; a < rules_->assocs.size() && steps <= rules_->assocs.size(); ++steps) {
      const auto& node = rules_->assocs[a];
      if (node.grp_jobs && !(q && q->grp_jobs))
        add_counter(set, scope::assoc, a, {}, limit_kind::jobs, *node.grp_jobs,
                    "AssocGrpJobsLimit");
      add_tres(set, scope::assoc, a, {}, node.grp_tres, q ? &q->grp_tres : nullptr,
               assoc_grp_reasons);
      a = node.parent;
    }
  }
  uint32_t index = 0;
  if (!set.empty()) {
    out_->sets.push_back(std::move(set));
    index = static_cast<uint32_t>(out_->sets.size());
  }
  set_index_.emplace(std::move(key), index);
  return index;
}

std::shared_ptr<const usage_limits> limit_counting::finish() {
  if (out_->sets.empty()) return nullptr;
  return out_;
}

const char* over_limits(const usage_limits& limits, const std::vector<uint64_t>& used, uint32_t set,
                        const tres_use& use) {
  if (set == 0 || set > limits.sets.size()) return nullptr;
  for (auto c : limits.sets[set - 1]) {
    const auto& counter = limits.counters[c];
    if (used[c] + use.of(counter.kind) > counter.cap) return counter.reason;
  }
  return nullptr;
}

void take_limits(const usage_limits& limits, std::vector<uint64_t>& used, uint32_t set,
                 const tres_use& use) {
  if (set == 0 || set > limits.sets.size()) return;
  for (auto c : limits.sets[set - 1]) used[c] += use.of(limits.counters[c].kind);
}

}  // namespace shoal::policy
