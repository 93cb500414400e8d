#include "policy/scheduling_pass.hpp"

#include <algorithm>
#include <functional>
#include <optional>
#include <utility>

#include "policy/lending.hpp"

namespace shoal::policy {

namespace {

/// The sizes that make a job hard to place. Within a pass, free resources only shrink, so once
/// a shape fails to start now, every job of its partition at least as hard fails too.
struct job_shape {
  uint32_t min_nodes;
  uint32_t max_nodes;  // 0 = no bound
  uint64_t cpus;
  uint32_t cpus_per_task;
  uint64_t mem_per_node;
  uint64_t mem_per_cpu;
  bool exclusive;
  uint32_t shared_by;
  int64_t limit;
  uint32_t tasks_per_node;  // 0 = no bound
  uint32_t min_cpus;
  std::vector<gres_need> gres;  // a copy: the request may be a temporary (OverSubscribe)

  bool at_least_as_hard_as(const job_shape& a) const {
    bool fewer_max = a.max_nodes == 0 || (max_nodes != 0 && max_nodes <= a.max_nodes);
    bool fewer_per_node =
        a.tasks_per_node == 0 || (tasks_per_node != 0 && tasks_per_node <= a.tasks_per_node);
    return min_nodes >= a.min_nodes && fewer_max && fewer_per_node && min_cpus >= a.min_cpus &&
           cpus >= a.cpus && cpus_per_task >= a.cpus_per_task && mem_per_node >= a.mem_per_node &&
           mem_per_cpu >= a.mem_per_cpu && (exclusive || !a.exclusive) &&
           shared_by == a.shared_by && limit >= a.limit && more_gres_than(a);
  }

  /// Needs at least the devices `a` needs: the same kinds, as many or more of each.
  bool more_gres_than(const job_shape& a) const {
    if (a.gres.empty()) return true;
    if (gres.size() != a.gres.size()) return false;
    for (size_t i = 0; i < gres.size(); ++i)
      if (gres[i].kinds != a.gres[i].kinds || gres[i].count < a.gres[i].count) return false;
    return true;
  }
};

constexpr size_t max_failed_shapes = 32;

/// Equal weights order nodes as no weights do; without them, place() looks at nodes only until
/// a job fits instead of ranking them all.
placement_options without_uniform_weights(placement_options options) {
  const auto& w = options.weights;
  if (std::adjacent_find(w.begin(), w.end(), std::not_equal_to<>{}) == w.end())
    options.weights = {};
  return options;
}

uint32_t gcd(uint32_t a, uint32_t b) {
  while (b != 0) a = std::exchange(b, a % b);
  return a;
}

/// CPU units per CPU for the pass (see free_view): a multiple of every partition's
/// OverSubscribe count, so that N sharing jobs fill a CPU exactly; when the least common
/// multiple gets too large, the largest count (other counts then round their share up).
uint32_t units_per_cpu_for(const std::vector<partition_info>& partitions,
                           const std::vector<node_capacity>& nodes) {
  uint32_t most_cpus = 1;
  for (const auto& n : nodes) most_cpus = std::max(most_cpus, n.cpus);
  const uint64_t bound = std::min<uint64_t>(27'720, UINT32_MAX / most_cpus);
  uint64_t lcm = 1;
  uint32_t largest = 1;
  for (const auto& p : partitions) {
    uint32_t n = std::max<uint32_t>(1, p.oversubscribe);
    largest = std::max(largest, n);
    if (lcm <= bound) lcm = lcm / gcd(uint32_t(lcm), n) * n;
  }
  if (lcm <= bound) return uint32_t(lcm);
  return uint32_t(std::min<uint64_t>(largest, bound));
}

/// Who holds licenses when: running jobs until their ends, starts of this pass and
/// reservations over [from, to). Only jobs that hold licenses are kept, so a pass without any
/// costs nothing.
class license_pool {
 public:
  license_pool(const license_list& total, const std::vector<running_job>& running, int64_t now)
      : total_(total) {
    for (const auto& r : running)
      if (!r.licenses.empty() && r.end > now) take(now, r.end, r.licenses);
  }

  void take(int64_t from, int64_t to, const license_list& held) {
    if (!held.empty()) spans_.push_back({from, to, &held});
  }

  /// Whether `wanted` fits over [from, to): the most in use at any moment of it, plus `wanted`,
  /// is within the total of each name.
  bool fits(int64_t from, int64_t to, const license_list& wanted) const {
    for (const auto& w : wanted) {
      auto t =
          std::find_if(total_.begin(), total_.end(), [&](auto& l) { return l.name == w.name; });
      if (t == total_.end() || w.count > t->count) return false;
      // Use only rises where a span begins: look at `from` and at every start inside.
      uint64_t most = used_at(from, w.name);
      for (const auto& s : spans_)
        if (s.from > from && s.from < to) most = std::max(most, used_at(s.from, w.name));
      if (most + w.count > t->count) return false;
    }
    return true;
  }

 private:
  struct span {
    int64_t from;
    int64_t to;
    const license_list* held;  // the job's own list, alive for the pass
  };

  uint64_t used_at(int64_t t, const std::string& name) const {
    uint64_t used = 0;
    for (const auto& s : spans_) {
      if (s.from > t || s.to <= t) continue;
      for (const auto& l : *s.held)
        if (l.name == name) used += l.count;
    }
    return used;
  }

  const license_list& total_;
  std::vector<span> spans_;
};

struct partition_state {
  uint64_t free_units = 0;  // CPUs free now over usable members, in units (free_view)
  size_t idle_nodes = 0;    // now: members with nothing allocated
  bool blocked = false;     // a job of this partition could not start
  bool reserved = false;    // EASY: its reservation is made
  std::vector<job_shape> failed;
};

class pass {
 public:
  pass(const std::vector<pending_job>& queue, const std::vector<running_job>& running,
       const std::vector<partition_info>& partitions, const std::vector<node_capacity>& nodes,
       int64_t now, const pass_config& config)
      : queue_(queue),
        running_(running),
        partitions_(partitions),
        nodes_(nodes),
        now_(now),
        config_(config),
        units_(units_per_cpu_for(partitions, nodes)),
        placement_(without_uniform_weights(config.placement)),
        profile_(nodes, running, now, config.backfill ? config.resolution : 1, units_, units_ > 1),
        scratch_{
            std::vector<uint32_t>(nodes.size()), std::vector<uint64_t>(nodes.size()), {}, {}, {}},
        state_(partitions.size()),
        node_partitions_(nodes.size()),
        licenses_(config.licenses, running, now) {
    if (config.limits)
      for (const auto& c : config.limits->counters) limit_used_.push_back(c.used);
    // A reservation's ends are where its nodes come free for everyone: the backfill's search for
    // a start must look there, so each bounds a slot (nothing is taken: the pass leaves the
    // held nodes out of the members it places on instead, see usable_members).
    for (const auto& r : config.reservations)
      if (r.end > now && r.end < forever)
        profile_.consume(std::max(r.start, now), r.end, {}, false);
    auto free = profile_.slot(0);
    for (size_t p = 0; p < partitions.size(); ++p) {
      for (auto n : partitions[p].nodes) {
        if (n >= nodes.size()) continue;
        node_partitions_[n].push_back(uint32_t(p));
        state_[p].free_units += free.cpus[n];
        if (nodes[n].usable && idle(nodes[n], free, n)) ++state_[p].idle_nodes;
      }
    }
  }

  pass_result run() {
    // Sorting compact keys, not the jobs, keeps a 100,000-job sort in cache; the keys also
    // carry what the cheap rejection needs, so a job that cannot start is decided without
    // touching its (randomly placed) record.
    struct key {
      int64_t priority;
      uint64_t id;
      int64_t time_limit;
      uint64_t total_units;  // CPUs in units (free_view)
      uint32_t index;
      uint32_t tier;
      uint32_t rank;  // preempt/qos: its QOS's
      uint32_t partition;
      uint32_t min_nodes;
      bool plain;  // no -w/-x/-C: the cheap rejection applies
      bool whole;  // needs idle nodes
    };
    std::vector<key> order;
    order.reserve(queue_.size());
    for (uint32_t i = 0; i < queue_.size(); ++i) {
      const auto& j = queue_[i];
      // Nothing to start: consider() would pass over it. A kept candidate list holds many such.
      if (j.task_count == 0) continue;
      const auto& r = j.request;
      bool known_part = j.partition < partitions_.size();
      bool exclusive_part = known_part && partitions_[j.partition].exclusive;
      uint32_t sb = known_part ? shared_by(partitions_[j.partition], r.sharing) : 1;
      bool whole = takes_whole_nodes(r, config_.placement.select) || exclusive_part;
      const auto* rules = config_.preempt_by_qos ? rules_of(j.qos) : nullptr;
      order.push_back({j.priority, j.id, j.time_limit, cpu_units(r.total_cpus(), sb, units_), i,
                       tier(j), rules ? rules->rank : 0u,
                       uint32_t(std::min<size_t>(j.partition, UINT32_MAX)), r.min_nodes,
                       r.required.empty() && r.excluded.empty() && !r.features &&
                           j.task_count > 0 && j.reservation == 0,
                       whole && sb == 1});
    }
    std::sort(order.begin(), order.end(), [](const key& x, const key& y) {
      if (x.tier != y.tier) return x.tier > y.tier;
      if (x.rank != y.rank) return x.rank > y.rank;
      if (x.priority != y.priority) return x.priority > y.priority;
      return x.id < y.id;
    });
    result_.waiting.reserve(queue_.size());
    const auto stopped = suspended_in_turn();
    size_t next_stopped = 0;
    // The suspended jobs of a tier (and QOS rank), and of those above, before its pending jobs.
    auto stopped_down_to = [&](std::pair<uint32_t, uint32_t> floor) {
      for (; next_stopped < stopped.size() && turn_of(*stopped[next_stopped]) >= floor;
           ++next_stopped)
        take_back(*stopped[next_stopped]);
    };
    for (const auto& k : order) {
      stopped_down_to({k.tier, k.rank});
      if (k.plain && k.partition < partitions_.size()) {
        // Behind a blocked job whose reservation is made (or with backfill off): a job that
        // cannot fit now, even ignoring reservations, just waits with Priority.
        const auto& part = partitions_[k.partition];
        const auto& ps = state_[k.partition];
        bool settled = !config_.backfill || (config_.mode == backfill_mode::easy && ps.reserved);
        bool in_limits = part.up && !(part.max_time > 0 && k.time_limit > part.max_time);
        bool might_fit =
            ps.free_units >= k.total_units && (!k.whole || ps.idle_nodes >= k.min_nodes);
        // With preemption, a job that cannot fit may still start by preempting: consider it.
        if (in_limits && ps.blocked && settled && (!config_.backfill || !might_fit) &&
            !config_.preempt) {
          result_.waiting.push_back({k.id, "Priority", k.index});
          continue;
        }
        if (in_limits && !budget_left() && (config_.backfill || !ps.blocked)) {
          // Past bf_max_job_test: no test, as consider() would decide without one.
          auto& mutable_ps = state_[k.partition];
          result_.waiting.push_back({k.id, mutable_ps.blocked ? "Priority" : "Resources", k.index});
          mutable_ps.blocked = true;
          continue;
        }
      }
      consider(queue_[k.index]);
    }
    stopped_down_to({0, 0});
    return std::move(result_);
  }

 private:
  uint32_t tier(const pending_job& j) const {
    return j.partition < partitions_.size() ? partitions_[j.partition].priority_tier : 0;
  }

  uint32_t tier_of(const running_job& r) const {
    return r.partition < partitions_.size() ? partitions_[r.partition].priority_tier : 0;
  }

  /// Where a running job's turn would be among the pending ones: its tier, then (preempt/qos)
  /// its QOS's rank, as the pass orders them.
  std::pair<uint32_t, uint32_t> turn_of(const running_job& r) const {
    const auto* rules = config_.preempt_by_qos ? rules_of(r.qos) : nullptr;
    return {tier_of(r), rules ? rules->rank : 0u};
  }

  /// The jobs suspended for a preemptor, in the order the pending ones go.
  std::vector<const running_job*> suspended_in_turn() const {
    std::vector<const running_job*> out;
    for (const auto& r : running_)
      if (!r.lent.empty()) out.push_back(&r);
    std::sort(out.begin(), out.end(), [&](const running_job* a, const running_job* b) {
      if (turn_of(*a) != turn_of(*b)) return turn_of(*a) > turn_of(*b);
      if (a->priority != b->priority) return a->priority > b->priority;
      return a->id < b->id;
    });
    return out;
  }

  /// Whether the shares `lent` are free over [slot_start(i), to) on their own nodes.
  bool free_for(const allocation& lent, size_t i, int64_t to) {
    lent_nodes_.clear();
    for (const auto& s : lent) lent_nodes_.push_back(s.node);
    auto free = profile_.dips_within(i, to) ? profile_.window_min(i, to, lent_nodes_, scratch_)
                                            : profile_.slot(i);
    return std::all_of(lent.begin(), lent.end(), [&](const node_share& s) {
      return s.node < nodes_.size() && free.cpus[s.node] >= units_of(s, units_) &&
             free.memory_mb[s.node] >= s.memory_mb && kind_allows(free, s.node, s.shared_by > 1);
    });
  }

  /// A suspended job resumes when what it lent is free now for the rest of its time limit;
  /// otherwise that is reserved for it from the first moment it is.
  void take_back(const running_job& r) {
    int64_t until = later(now_, r.remaining);
    if (free_for(r.lent, 0, until)) {
      start(r.lent, until);
      result_.resumed.push_back(r.id);
      resumed_.push_back({r.id, r.lent, until, {}});
      return;
    }
    for (size_t i = 1; profile_.has_slot(i); ++i) {
      int64_t t = profile_.slot_start(i);
      int64_t end = later(t, r.remaining);
      if (!free_for(r.lent, i, end)) continue;
      profile_.consume(t, end, r.lent, true);
      return;
    }
  }

  void wait(const pending_job& job, const char* reason) {
    result_.waiting.push_back({job.id, reason, static_cast<size_t>(&job - queue_.data())});
  }

  bool budget_left() const {
    return config_.max_job_test == 0 || result_.tested < config_.max_job_test;
  }

  void consider(const pending_job& job) {
    if (job.task_count == 0) return;
    if (job.partition >= partitions_.size()) return wait(job, "PartitionDown");
    const auto& part = partitions_[job.partition];
    auto& ps = state_[job.partition];
    if (!part.up) return wait(job, part.inactive ? "PartitionInactive" : "PartitionDown");
    if (part.max_time > 0 && job.time_limit > part.max_time) return wait(job, "PartitionTimeLimit");
    int64_t limit =
        job.time_limit > 0 ? job.time_limit : (part.max_time > 0 ? part.max_time : forever);
    for (auto r : job.request.required) {
      if (r >= nodes_.size() || !nodes_[r].usable ||
          std::find(part.nodes.begin(), part.nodes.end(), r) == part.nodes.end())
        return wait(job, "ReqNodeNotAvail");
    }
    if (job.reservation != 0 && !reservation_begun(job)) return wait(job, "Reservation");
    if (!config_.backfill && ps.blocked && job.reservation == 0) return wait(job, "Priority");

    // OverSubscribe: a copy with --exclusive set (EXCLUSIVE) or its sharing count (YES, FORCE);
    // the common path copies nothing.
    std::optional<resource_request> forced;
    if (part.exclusive && !job.request.exclusive) {
      forced = job.request;
      forced->exclusive = true;
    }
    if (auto sb = shared_by(part, job.request.sharing); sb != job.request.shared_by) {
      if (!forced) forced = job.request;
      forced->shared_by = sb;
    }
    const resource_request& req = forced ? *forced : job.request;
    bool counted = false;
    uint32_t started = 0;
    const bool limited = config_.limits && job.limits != 0;
    const auto use = limited ? requested_use(req) : tres_use{};
    for (; started < job.task_count; ++started) {
      int64_t end = later(now_, limit);
      // Limits and licenses before nodes, as Slurm tests them: the job waits without a test.
      if (limited) {
        if (const char* reason = over_limits(*config_.limits, limit_used_, job.limits, use))
          return wait(job, reason);
      }
      if (!licenses_.fits(now_, end, job.licenses)) return wait(job, "Licenses");
      auto alloc = try_now(job, req, limit, counted);
      if (!alloc) break;
      start(*alloc, end);
      if (limited) take_limits(*config_.limits, limit_used_, job.limits, use);
      licenses_.take(now_, end, job.licenses);
      result_.started.push_back({job.id, started, std::move(*alloc), end});
    }
    if (started == job.task_count) return;
    // A reservation's jobs wait for its own nodes: they hold back nobody outside it.
    if (job.reservation != 0) return wait(job, "Resources");
    if (config_.preempt) preempt_for(job, req);

    if (!config_.backfill) {
      // sched/builtin: a job waiting for particular busy nodes does not hold back the others.
      if (!req.required.empty() && !required_free(req)) return wait(job, "ReqNodeNotAvail");
      ps.blocked = true;
      return wait(job, "Resources");
    }
    wait(job, ps.blocked ? "Priority" : "Resources");
    ps.blocked = true;
    bool wants_reservation = config_.mode == backfill_mode::conservative || !ps.reserved;
    if (!wants_reservation) return;
    if (!counted) {
      if (!budget_left()) return;
      ++result_.tested;
    }
    if (auto plan = earliest_start(job, req, part.nodes, limit)) {
      profile_.consume(plan->start, later(plan->start, limit), plan->alloc, true);
      licenses_.take(plan->start, later(plan->start, limit), job.licenses);
      // A reservation at now (the test budget hid a fit) takes slot 0 too: recount.
      if (plan->start == now_) recount();
      ps.reserved = true;
      plan->job = job.id;
      result_.planned.push_back(std::move(*plan));
    }
  }

  /// What preempt/qos says of QOS `qos` (pending_job::qos), or null.
  const qos_preemption* rules_of(uint32_t qos) const {
    if (!config_.qos || qos == 0 || qos > config_.qos->size()) return nullptr;
    return &(*config_.qos)[qos - 1];
  }

  /// The PreemptMode running job `r` is preempted with: its QOS's (else the cluster's) under
  /// preempt/qos, its partition's under preempt/partition_prio.
  preempt_mode mode_of(const running_job& r) const {
    if (config_.preempt_by_qos) {
      const auto* q = rules_of(r.qos);
      return q && q->mode ? *q->mode : config_.cluster_preempt;
    }
    return r.partition < partitions_.size() ? partitions_[r.partition].preempt : preempt_mode::off;
  }

  int64_t grace_of(const running_job& r) const {
    if (config_.preempt_by_qos) {
      const auto* q = rules_of(r.qos);
      return q ? q->grace_time : 0;
    }
    return r.partition < partitions_.size() ? partitions_[r.partition].grace_time : 0;
  }

  /// Whom a preemptor takes first: the lowest tier (QOS priority under preempt/qos).
  uint32_t rank_of(const running_job& r) const {
    if (!config_.preempt_by_qos) return tier_of(r);
    const auto* q = rules_of(r.qos);
    return q ? q->priority : 0;
  }

  /// Whether `waiter` outranks running job `r`: a partition of a higher tier, or under
  /// preempt/qos a QOS whose Preempt= names r's.
  bool outranks(const pending_job& waiter, const running_job& r) const {
    if (config_.preempt_by_qos) {
      const auto* q = rules_of(waiter.qos);
      return q && r.qos != 0 && std::binary_search(q->preempts.begin(), q->preempts.end(), r.qos);
    }
    return r.partition < partitions_.size() && tier_of(r) < tier(waiter);
  }

  /// Whether running job `r` may be preempted for `waiter` (of partition `part`).
  bool preemptable_for(const running_job& r, const pending_job& waiter,
                       const partition_info& part) {
    if (!r.lent.empty()) return false;  // suspended for a preemptor already
    if (r.preempted_for != 0 && still_queued(r.preempted_for)) return false;
    if (r.end <= now_ || !outranks(waiter, r) || mode_of(r) == preempt_mode::off) return false;
    if (config_.preempt_exempt > 0 && now_ - r.start < config_.preempt_exempt) return false;
    if (std::find(claimed_.begin(), claimed_.end(), r.id) != claimed_.end()) return false;
    return std::any_of(r.alloc.begin(), r.alloc.end(), [&](const node_share& s) {
      return std::find(part.nodes.begin(), part.nodes.end(), s.node) != part.nodes.end();
    });
  }

  /// Whether job `id` is in this pass's queue. A job preempted for a job that left it (cancelled,
  /// held) may be taken again: its mark would otherwise keep it from preemption for good.
  bool still_queued(uint64_t id) {
    if (queued_ids_.empty()) {
      for (const auto& j : queue_) queued_ids_.push_back(j.id);
      std::sort(queued_ids_.begin(), queued_ids_.end());
    }
    return std::binary_search(queued_ids_.begin(), queued_ids_.end(), id);
  }

  /// Whether `req` would start now in partition `p` were `gone` not running (this pass's starts
  /// still hold theirs; reservations are not looked at).
  bool fits_without(const resource_request& req, size_t p,
                    const std::vector<const running_job*>& gone) const {
    std::vector<running_job> left;
    left.reserve(running_.size() + result_.started.size());
    for (const auto& r : running_) {
      bool stays = std::find(gone.begin(), gone.end(), &r) == gone.end();
      // Suspended (or to be), a job keeps its devices and the memory it asked for.
      bool suspends = mode_of(r) == preempt_mode::suspend;
      if (stays || !r.lent.empty() || suspends) left.push_back(r);
      if (!stays && suspends)
        lend(left.back(), now_, [this](size_t n) { return nodes_[n].memory_mb; });
    }
    for (const auto& d : result_.started) left.push_back({d.job, d.alloc, d.end, {}});
    left.insert(left.end(), resumed_.begin(), resumed_.end());
    availability_profile free_then(nodes_, left, now_, 1, units_, units_ > 1);
    return place(req, partitions_[p].nodes, nodes_, free_then.slot(0), placement_).has_value();
  }

  /// Preemption for a job that cannot start now (see schedule()).
  /// Running jobs only free resources over time, so now is the tightest moment of its limit.
  void preempt_for(const pending_job& job, const resource_request& req) {
    const auto& part = partitions_[job.partition];
    std::vector<const running_job*> chosen, candidates;
    for (const auto& r : running_) {
      if (r.preempted_for == job.id)
        chosen.push_back(&r);
      else if (preemptable_for(r, job, part))
        candidates.push_back(&r);
    }
    // Told already and enough: wait for them to let go.
    if (!chosen.empty() && fits_without(req, job.partition, chosen)) return;
    if (candidates.empty()) return;
    std::sort(candidates.begin(), candidates.end(),
              [&](const running_job* a, const running_job* b) {
                auto ta = rank_of(*a);
                auto tb = rank_of(*b);
                if (ta != tb) return ta < tb;
                if (a->priority != b->priority) return a->priority < b->priority;
                if (a->start != b->start) return a->start > b->start;  // the youngest loses least
                return a->id > b->id;
              });
    const size_t told = chosen.size();
    bool enough = false;
    for (const auto* c : candidates) {
      chosen.push_back(c);
      if ((enough = fits_without(req, job.partition, chosen))) break;
    }
    if (!enough) return;  // even all of them would not do: preempt none
    // Leave out again each one the job can do without, the highest priority first.
    for (size_t i = chosen.size(); i-- > told;) {
      auto without = chosen;
      without.erase(without.begin() + static_cast<std::ptrdiff_t>(i));
      if (fits_without(req, job.partition, without)) chosen = std::move(without);
    }
    // Fewest first: one job alone that frees enough beats several of lower priority.
    if (chosen.size() > told + 1) {
      for (const auto* c : candidates) {
        auto alone = std::vector<const running_job*>(chosen.begin(), chosen.begin() + told);
        alone.push_back(c);
        if (fits_without(req, job.partition, alone)) {
          chosen = std::move(alone);
          break;
        }
      }
    }
    for (size_t i = told; i < chosen.size(); ++i) {
      const auto& r = *chosen[i];
      result_.preempted.push_back({r.id, job.id, mode_of(r), grace_of(r)});
      claimed_.push_back(r.id);
    }
  }

  bool required_free(const resource_request& req) const {
    auto free = profile_.slot(0);
    bool whole = takes_whole_nodes(req, config_.placement.select);
    uint32_t sb = share_count(req);
    for (auto r : req.required) {
      uint32_t cpus = whole ? nodes_[r].cpus : req.cpus_per_task;
      if (whole && sb == 1
              ? !idle(nodes_[r], free, r)
              : free.cpus[r] < cpu_units(cpus, sb, units_) || !kind_allows(free, r, sb > 1))
        return false;
    }
    return true;
  }

  job_shape shape_of(const resource_request& req, int64_t limit) const {
    bool whole = takes_whole_nodes(req, config_.placement.select);
    return {req.min_nodes,
            req.max_nodes,
            req.total_cpus(),
            req.cpus_per_task,
            req.mem_per_node_mb,
            req.mem_per_cpu_mb,
            whole,
            share_count(req),
            limit,
            req.tasks_per_node,
            req.min_cpus,
            req.gres};
  }

  /// An allocation free from now for `limit` seconds that no reservation needs, or nullopt.
  std::optional<allocation> try_now(const pending_job& job, const resource_request& req,
                                    int64_t limit, bool& counted) {
    size_t p = job.partition;
    auto& ps = state_[p];
    bool whole = takes_whole_nodes(req, config_.placement.select);
    uint32_t sb = share_count(req);
    size_t want_nodes = std::max<size_t>(req.min_nodes, req.required.size());
    if (ps.free_units < cpu_units(req.total_cpus(), sb, units_)) return std::nullopt;
    if (whole && sb == 1 && ps.idle_nodes < want_nodes) return std::nullopt;
    bool plain =
        req.required.empty() && req.excluded.empty() && !req.features && job.reservation == 0;
    auto shape = shape_of(req, limit);
    if (plain) {
      for (const auto& f : ps.failed)
        if (shape.at_least_as_hard_as(f)) return std::nullopt;
    }
    if (!counted) {
      if (!budget_left()) return std::nullopt;
      counted = true;
      ++result_.tested;
    }
    int64_t end = later(now_, limit);
    const auto& members = usable_members(job, partitions_[p].nodes, now_, end);
    auto free = profile_.dips_within(0, end) ? profile_.window_min(0, end, members, scratch_)
                                             : profile_.slot(0);
    auto alloc = place(req, members, nodes_, free, placement_);
    if (!alloc && plain) {
      if (ps.failed.size() >= max_failed_shapes) ps.failed.erase(ps.failed.begin());
      ps.failed.push_back(shape);
    }
    return alloc;
  }

  /// The first slot from which `req` fits for `limit` seconds, within bf_window.
  std::optional<planned_start> earliest_start(const pending_job& job, const resource_request& req,
                                              const std::vector<size_t>& part_nodes,
                                              int64_t limit) {
    const auto& licenses = job.licenses;
    int64_t horizon = config_.window > 0 ? later(now_, config_.window) : forever;
    uint32_t sb = share_count(req);
    bool needs_idle = takes_whole_nodes(req, config_.placement.select) && sb == 1;
    uint64_t need_units = cpu_units(req.total_cpus(), sb, units_);
    size_t want_nodes = std::max<size_t>(req.min_nodes, req.required.size());
    for (size_t i = 0; profile_.has_slot(i); ++i) {
      int64_t t = profile_.slot_start(i);
      if (t > horizon) break;
      int64_t end = later(t, limit);
      // Not enough free in the whole cluster: no need to look at the nodes.
      auto most = profile_.window_bounds(i, end);
      if (most.free_units < need_units || (needs_idle && most.idle_nodes < want_nodes)) continue;
      if (!licenses_.fits(t, end, licenses)) continue;
      const auto& members = usable_members(job, part_nodes, t, end);
      auto free = profile_.dips_within(i, end) ? profile_.window_min(i, end, members, scratch_)
                                               : profile_.slot(i);
      auto alloc = place(req, members, nodes_, free, placement_);
      if (alloc) return planned_start{0, t, std::move(*alloc)};
    }
    return std::nullopt;
  }

  const reserved_nodes* own_reservation(const pending_job& job) const {
    const auto& all = config_.reservations;
    if (job.reservation == 0 || job.reservation > all.size()) return nullptr;
    return &all[job.reservation - 1];
  }

  bool reservation_begun(const pending_job& job) const {
    const auto* own = own_reservation(job);
    return own != nullptr && own->start <= now_ && now_ < own->end;
  }

  /// `members` without the nodes that reservations other than the job's own hold over any of
  /// [from, to); a job in a reservation keeps only its nodes (FLEX: also the unheld others).
  /// Without reservations, `members` itself.
  const std::vector<size_t>& usable_members(const pending_job& job,
                                            const std::vector<size_t>& members, int64_t from,
                                            int64_t to) {
    const auto& all = config_.reservations;
    if (all.empty()) return members;
    const auto* own = own_reservation(job);
    auto holds = [](const reserved_nodes& r, size_t n) {
      return std::binary_search(r.nodes.begin(), r.nodes.end(), n);
    };
    member_scratch_.clear();
    for (auto n : members) {
      bool in_own = own != nullptr && holds(*own, n);
      if (own != nullptr && !own->flex && !in_own) continue;
      bool held = false;
      for (size_t k = 0; k < all.size() && !held && !in_own; ++k)
        held = &all[k] != own && all[k].start < to && from < all[k].end && holds(all[k], n);
      if (!held) member_scratch_.push_back(n);
    }
    return member_scratch_;
  }

  void start(const allocation& alloc, int64_t end) {
    auto before = snapshot(alloc);
    profile_.consume(now_, end, alloc, false);
    update_counters(alloc, before);
  }

  std::vector<std::pair<uint32_t, bool>> snapshot(const allocation& alloc) const {
    auto free = profile_.slot(0);
    std::vector<std::pair<uint32_t, bool>> out;
    out.reserve(alloc.size());
    for (const auto& s : alloc)
      out.push_back(
          {free.cpus[s.node], nodes_[s.node].usable && idle(nodes_[s.node], free, s.node)});
    return out;
  }

  void update_counters(const allocation& alloc,
                       const std::vector<std::pair<uint32_t, bool>>& before) {
    auto free = profile_.slot(0);
    for (size_t k = 0; k < alloc.size(); ++k) {
      auto n = alloc[k].node;
      uint32_t used = before[k].first - free.cpus[n];
      bool was_idle = before[k].second;
      bool is_idle = nodes_[n].usable && idle(nodes_[n], free, n);
      for (auto p : node_partitions_[n]) {
        state_[p].free_units -= std::min<uint64_t>(state_[p].free_units, used);
        if (was_idle && !is_idle && state_[p].idle_nodes > 0) --state_[p].idle_nodes;
      }
    }
  }

  void recount() {
    auto free = profile_.slot(0);
    for (auto& ps : state_) {
      ps.free_units = 0;
      ps.idle_nodes = 0;
    }
    for (size_t p = 0; p < partitions_.size(); ++p) {
      for (auto n : partitions_[p].nodes) {
        if (n >= nodes_.size()) continue;
        state_[p].free_units += free.cpus[n];
        if (nodes_[n].usable && idle(nodes_[n], free, n)) ++state_[p].idle_nodes;
      }
    }
  }

  const std::vector<pending_job>& queue_;
  const std::vector<running_job>& running_;
  const std::vector<partition_info>& partitions_;
  const std::vector<node_capacity>& nodes_;
  int64_t now_;
  const pass_config& config_;
  uint32_t units_;  ///< CPU units per CPU (free_view)
  placement_options placement_;
  availability_profile profile_;
  availability_profile::window scratch_;
  std::vector<partition_state> state_;
  std::vector<std::vector<uint32_t>> node_partitions_;
  license_pool licenses_;
  std::vector<uint64_t> limit_used_;    ///< what each of config_.limits' counters holds so far
  std::vector<size_t> member_scratch_;  ///< usable_members' answer when reservations exist
  pass_result result_;
  std::vector<uint64_t> claimed_;     ///< jobs this pass preempts (for some waiter)
  std::vector<uint64_t> queued_ids_;  ///< the queue's ids, sorted once asked (still_queued)
  std::vector<running_job> resumed_;  ///< suspended jobs this pass resumes, as they hold again
  std::vector<size_t> lent_nodes_;    ///< free_for's scratch
};

}  // namespace

uint32_t shared_by(const partition_info& part, share_request sharing) {
  if (part.exclusive || part.oversubscribe <= 1 || sharing == share_request::exclusive) return 1;
  if (part.force || sharing == share_request::oversubscribe) return part.oversubscribe;
  return 1;
}

pass_result schedule(const std::vector<pending_job>& queue, const std::vector<running_job>& running,
                     const std::vector<partition_info>& partitions,
                     const std::vector<node_capacity>& nodes, int64_t now,
                     const pass_config& config) {
  return pass{queue, running, partitions, nodes, now, config}.run();
}

}  // namespace shoal::policy
