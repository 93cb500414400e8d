#include "policy/job_queue.hpp"

#include <algorithm>

namespace shoal::policy {

namespace {

/// How long outcomes are remembered for dependencies: a day, far beyond Slurm's MinJobAge, after
/// which a dependency on the job counts as satisfied (as Slurm treats a job it no longer knows).
constexpr int64_t outcome_memory_s = 86'400;

std::string name_key(const std::string& user, const std::string& name) {
  return user + '/' + name;
}

bool has_singleton(const queued_job& q) {
  if (!q.dependency) return false;
  for (auto& t : q.dependency->terms)
    if (t.kind == policy::dependency_kind::singleton) return true;
  return false;
}

const char* held_reason(hold_kind kind) {
  return kind == hold_kind::user ? "JobHeldUser" : "JobHeldAdmin";
}

}  // namespace

job_queue::job_queue(policy::priority_config priority, bool multifactor)
    : priority_(priority), multifactor_(multifactor) {}

job_queue::job_queue(const job_queue& other)
    : priority_(other.priority_),
      multifactor_(other.multifactor_),
      scale_(other.scale_),
      partition_factors_(other.partition_factors_),
      shares_(other.shares_),
      limits_(other.limits_),
      queue_(other.queue_),
      running_(other.running_),
      arrays_(other.arrays_),
      finished_(other.finished_),
      finished_order_(other.finished_order_),
      running_by_name_(other.running_by_name_),
      awaited_(other.awaited_),
      top_counter_(other.top_counter_) {
  // The other's slots point into its own map.
  slots_.reserve(queue_.size());
  for (auto& [id, q] : queue_) slots_.push_back({id, &q, true});
}

job_queue& job_queue::operator=(const job_queue& other) {
  if (this != &other) *this = job_queue{other};
  return *this;
}

std::vector<job_queue::slot>::iterator job_queue::slot_of(uint64_t id) {
  return std::lower_bound(slots_.begin(), slots_.end(), id,
                          [](const slot& s, uint64_t key) { return s.id < key; });
}

void job_queue::enqueue(queued_job job) {
  auto id = job.id;
  if (job.array_id != 0) {
    // A detached task: counted in its array from its detach on, or from now if it comes back
    // (requeued, or after a restart) without one.
    if (auto a = awaited_.find(id); a != awaited_.end()) {
      if (job.hold == hold_kind::none) job.hold = a->second;
      awaited_.erase(a);
    } else if (queue_.count(id) == 0) {
      ++arrays_[job.array_id].detached;
    }
  }
  auto* q = &queue_.insert_or_assign(id, std::move(job)).first->second;
  auto at = slot_of(id);
  if (at != slots_.end() && at->id == id) {
    // Queued again (or still): the entry takes the new request at the next pass.
    if (at->job == nullptr) --gone_;
    at->job = q;
    at->stale = true;
    return;
  }
  // Ids come ascending, so this is nearly always the end; a requeued job's lower id is not.
  if (at != slots_.end()) realign_ = true;
  slots_.insert(at, slot{id, q, true});
}

void job_queue::erase_queued(std::map<uint64_t, queued_job>::iterator it) {
  if (auto array_id = it->second.array_id; array_id != 0) {
    auto& arr = arrays_[array_id];
    if (arr.detached > 0) --arr.detached;
  }
  auto at = slot_of(it->first);
  at->job = nullptr;
  ++gone_;
  queue_.erase(it);
}

void job_queue::add_array(uint64_t id, std::vector<policy::index_range> spec,
                          uint32_t max_running) {
  array_record rec;
  for (auto& r : spec) rec.task_count += r.count();
  rec.spec = std::move(spec);
  rec.max_running = max_running;
  arrays_[id] = std::move(rec);
}

std::optional<uint64_t> job_queue::detach(uint64_t array_id, uint32_t index) {
  auto it = queue_.find(array_id);
  if (it == queue_.end() || !it->second.is_array || !it->second.pending.contains(index))
    return std::nullopt;
  auto task = task_job_id(array_id, index);
  if (!task) return std::nullopt;
  auto hold = it->second.hold;
  it->second.pending.erase(index, index);
  // The array's line loses the task at the next pass, as when a task starts; it has not left
  // pending (left_pending_at) while its own job waits.
  if (it->second.pending.empty()) erase_queued(it);
  ++arrays_[array_id].detached;
  awaited_[*task] = hold;
  return task;
}

uint64_t job_queue::cancel(uint64_t id, uint32_t lo, uint32_t hi, int64_t now) {
  auto it = queue_.find(id);
  if (it == queue_.end()) return 0;
  if (!it->second.is_array) {
    // A detached task cancelled before it started counts as its array's failure, as the
    // array's own pending tasks do.
    if (auto array_id = it->second.array_id; array_id != 0) ++arrays_[array_id].failed;
    erase_queued(it);
    return 1;
  }
  auto removed = it->second.pending.erase(lo, hi);
  auto& arr = arrays_[id];
  arr.failed += static_cast<uint32_t>(removed);
  if (it->second.pending.empty()) {
    arr.left_pending_at = now;
    erase_queued(it);
  }
  return removed;
}

std::optional<uint64_t> job_queue::task_job_id(uint64_t array_id, uint32_t index) const {
  auto it = arrays_.find(array_id);
  if (it == arrays_.end()) return std::nullopt;
  uint64_t ordinal = 0;
  for (auto& r : it->second.spec) {
    if (r.contains(index)) return array_id + 1 + ordinal + (index - r.first) / r.step;
    ordinal += r.count();
  }
  return std::nullopt;
}

queued_job* job_queue::find(uint64_t id) {
  // The slots are a sorted array: a pass looks up every waiting job, and this touches far
  // fewer cache lines than the map's nodes.
  auto at = slot_of(id);
  return at != slots_.end() && at->id == id ? at->job : nullptr;
}

queued_job* job_queue::find(uint64_t id, size_t position) {
  // Entry i of the list belongs to slot i until a lower id queues or the next pass compacts.
  if (position < slots_.size() && slots_[position].id == id) return slots_[position].job;
  return find(id);
}

std::string job_queue::hold(uint64_t id, hold_kind kind) {
  auto* q = find(id);
  if (q == nullptr) return "Job is no longer pending execution";
  // An admin hold is not weakened by a later user hold.
  if (q->hold != hold_kind::admin) q->hold = kind;
  return "";
}

std::string job_queue::release(uint64_t id, bool by_admin) {
  auto* q = find(id);
  if (q == nullptr) return "Job is no longer pending execution";
  if (q->hold == hold_kind::admin && !by_admin)
    return "Access/permission denied: only an admin may release an admin hold";
  q->hold = hold_kind::none;
  return "";
}

std::string job_queue::top(uint64_t id) {
  auto* q = find(id);
  if (q == nullptr) return "Job is no longer pending execution";
  q->top_rank = ++top_counter_;
  return "";
}

policy::job_outcome job_queue::outcome(uint64_t job, std::optional<uint32_t> task) const {
  policy::job_outcome o;
  auto finished_as = [&](uint64_t id) {
    auto f = finished_.find(id);
    if (f == finished_.end()) return false;
    (f->second.ok ? o.succeeded : o.failed) = 1;
    o.left_pending_at = f->second.started > 0 ? f->second.started : f->second.ended;
    return true;
  };
  auto arr = arrays_.find(job);
  if (arr != arrays_.end()) {
    o.known = true;
    auto pending = queue_.find(job);
    if (!task) {
      o.pending =
          (pending == queue_.end() ? 0 : static_cast<uint32_t>(pending->second.pending.count())) +
          arr->second.detached;
      o.running = arr->second.running;
      o.succeeded = arr->second.succeeded;
      o.failed = arr->second.failed;
      o.left_pending_at = arr->second.left_pending_at;
      return o;
    }
    auto id = task_job_id(job, *task);
    if (!id) return policy::job_outcome{};
    if ((pending != queue_.end() && pending->second.pending.contains(*task)) ||
        queue_.count(*id) > 0 || awaited_.count(*id) > 0) {
      o.pending = 1;
      return o;
    }
    if (auto r = running_.find(*id); r != running_.end()) {
      o.running = 1;
      o.left_pending_at = r->second.start;
      return o;
    }
    if (!finished_as(*id)) o.failed = 1;  // cancelled before it started
    return o;
  }
  if (task) return o;  // a task of something that is not an array
  if (queue_.count(job) > 0) {
    o.known = true;
    o.pending = 1;
  } else if (auto r = running_.find(job); r != running_.end()) {
    o.known = true;
    o.running = 1;
    o.left_pending_at = r->second.start;
  } else if (finished_as(job)) {
    o.known = true;
  }
  return o;
}

policy::priority_factors job_queue::priority_of(const queued_job& q, int64_t now) const {
  if (q.hold != hold_kind::none) {
    policy::priority_factors held;
    held.total = 0;
    return held;
  }
  if (q.fixed_priority != 0) {
    // An admin's Priority= stands in for every factor, as Slurm's direct_set_prio.
    policy::priority_factors fixed;
    fixed.total = q.fixed_priority;
    fixed.nice = q.nice;
    return fixed;
  }
  if (!multifactor_) return policy::priority_factors{};  // priority/basic: submit order
  policy::priority_input in;
  in.eligible_time = std::max(q.submit_time, q.begin_time);
  in.nodes = q.pass.request.min_nodes;
  in.cpus = q.pass.request.total_cpus();
  in.partition_job_factor =
      q.pass.partition < partition_factors_.size() ? partition_factors_[q.pass.partition] : 1;
  in.nice = q.nice;
  if (shares_) {
    in.fairshare = shares_->fairshare_of(q.user, q.account);
    in.qos = shares_->qos_of(q.user, q.account, q.qos);
  }
  return policy::multifactor_priority(in, scale_, priority_, now);
}

std::vector<policy::pending_job>& job_queue::own_candidates() {
  // Whoever the list was given to (the last pass, at the topology actor) may still read it while
  // it holds it; it never takes it again once it lets go, so a count of 1 is final.
  bool shared = candidates_ && candidates_.use_count() > 1;
  if (candidates_ && !shared && !realign_ && gone_ * 8 <= slots_.size()) {
    // Entries line up with the slots: the slots that came since get theirs at the end.
    auto& list = *candidates_;
    for (size_t i = list.size(); i < slots_.size(); ++i) {
      list.emplace_back().id = slots_[i].id;
      slots_[i].stale = true;
    }
    return list;
  }
  // Built anew, reusing the entries of the slots that stay: the old list is still read by the
  // last pass's holder (then copied from), or has too many gone entries, or no longer lines up.
  // Both are in id order, so one merge pairs them.
  auto fresh = std::make_shared<std::vector<policy::pending_job>>();
  fresh->reserve(slots_.size() - gone_);
  size_t from = 0;
  size_t kept = 0;
  for (auto& s : slots_) {
    if (s.job == nullptr) continue;
    if (candidates_) {
      auto& old = *candidates_;
      while (from < old.size() && old[from].id < s.id) ++from;
      if (from < old.size() && old[from].id == s.id)
        fresh->push_back(shared ? old[from] : std::move(old[from]));
    }
    if (fresh->size() == kept) {
      fresh->emplace_back().id = s.id;
      s.stale = true;
    }
    slots_[kept++] = s;
  }
  slots_.resize(kept);
  gone_ = 0;
  realign_ = false;
  candidates_ = std::move(fresh);
  return *candidates_;
}

pass_plan job_queue::prepare(int64_t now, size_t max_array_tasks_per_pass) {
  pass_plan plan;
  auto& list = own_candidates();
  // The limits count what runs now, then each offered job takes its set of counters.
  std::optional<limit_counting> limits;
  if (limits_) {
    limits.emplace(limits_);
    for (const auto& [id, r] : running_) {
      auto qos = qos_name_of(r.user, r.account, r.qos);
      limited_job held{&r.user, &r.account, &qos, r.partition, {r.cpus, r.memory_mb, r.nodes}};
      limits->count_running(held);
    }
  }
  // Singleton dependencies wait for the lowest id of their user and name; the walk goes up the
  // ids, so what it has seen so far answers whether a lower one exists.
  std::unordered_map<std::string, uint64_t> first_singleton;
  bool any_top = false;
  for (size_t i = 0; i < slots_.size(); ++i) {
    auto& s = slots_[i];
    auto& candidate = list[i];
    candidate.task_count = 0;  // not offered, until it is
    if (s.job == nullptr) continue;
    auto& q = *s.job;
    auto id = s.id;
    if (s.stale) {
      candidate = q.pass;
      candidate.id = id;
      candidate.task_count = 0;
      s.stale = false;
    }
    candidate.limits = 0;
    if (has_singleton(q)) first_singleton.emplace(name_key(q.user, q.name), id);
    // Held, a job stays as it was last told (this reason, priority 0) until it is released: a
    // pass passes over it, so held jobs in the queue cost each submission next to nothing. Until
    // a pass has zeroed its factors and its priority 0 is told, it goes through as any job.
    if (q.hold != hold_kind::none && q.reason == held_reason(q.hold) && q.factors.total == 0 &&
        q.told_priority == 0)
      continue;
    q.factors = priority_of(q, now);
    std::string reason;
    if (q.hold != hold_kind::none) {
      reason = held_reason(q.hold);
    } else if (q.begin_time > now) {
      reason = "BeginTime";
      if (plan.next_wakeup == 0 || q.begin_time < plan.next_wakeup) plan.next_wakeup = q.begin_time;
    } else if (q.dependency) {
      policy::dependency_view view;
      view.outcome = [this](uint64_t job, std::optional<uint32_t> task) {
        return outcome(job, task);
      };
      auto key = name_key(q.user, q.name);
      view.singleton_busy = [&, id = id] {
        auto r = running_by_name_.find(key);
        if (r != running_by_name_.end() && r->second > 0) return true;
        auto first = first_singleton.find(key);
        return first != first_singleton.end() && first->second < id;
      };
      auto state = policy::evaluate(*q.dependency, view, now);
      if (state == policy::dependency_state::never_satisfiable && q.kill_on_invalid_dep) {
        plan.to_cancel.push_back(id);
        continue;
      }
      reason = policy::dependency_reason(state);
    }
    uint32_t tasks = 1;
    if (reason.empty() && q.array_id != 0) {
      auto arr = arrays_.find(q.array_id);
      if (arr != arrays_.end() &&
          !policy::may_start_task(arr->second.max_running, arr->second.running))
        reason = "JobArrayTaskLimit";
    }
    if (reason.empty() && q.is_array) {
      auto running = arrays_[id].running;
      if (!policy::may_start_task(q.max_running, running)) {
        reason = "JobArrayTaskLimit";
      } else {
        uint64_t room = q.pending.count();
        if (q.max_running > 0) room = std::min<uint64_t>(room, q.max_running - running);
        room = std::min<uint64_t>(room, max_array_tasks_per_pass);
        tasks = static_cast<uint32_t>(std::max<uint64_t>(room, 1));
      }
    }
    if (reason.empty() && limits) {
      auto qos = qos_name_of(q.user, q.account, q.qos);
      limited_job wanted{&q.user, &q.account, &qos, q.pass.partition,
                         requested_use(q.pass.request)};
      if (const char* over = limits->per_job_block(wanted, q.pass.time_limit))
        reason = over;
      else
        candidate.limits = limits->set_of(wanted);
    }
    if (!reason.empty()) {
      plan.blocked.emplace_back(id, std::move(reason));
      continue;
    }
    candidate.priority = q.factors.total;
    candidate.task_count = tasks;
    ++plan.offered;
    if (q.is_array) plan.arrays.push_back(id);
    any_top = any_top || q.top_rank > 0;
  }
  if (any_top) {
    // `top`: above every other pending job of the same owner in the same partition.
    std::map<std::pair<uint32_t, size_t>, int64_t> highest;
    for (size_t i = 0; i < slots_.size(); ++i) {
      if (list[i].task_count == 0) continue;
      auto& h = highest[{slots_[i].job->uid, list[i].partition}];
      h = std::max(h, list[i].priority);
    }
    for (size_t i = 0; i < slots_.size(); ++i) {
      auto& c = list[i];
      if (c.task_count == 0) continue;  // a stale slot: no job behind it
      auto& q = *slots_[i].job;
      if (q.top_rank == 0) continue;
      c.priority = highest[{q.uid, c.partition}] + static_cast<int64_t>(q.top_rank);
      q.factors.total = c.priority;
    }
  }
  plan.candidates = candidates_;
  if (limits) plan.limits = limits->finish();
  return plan;
}

std::string job_queue::qos_name_of(const std::string& user, const std::string& account,
                                   const std::string& qos) const {
  if (shares_) return shares_->qos_name_of(user, account, qos);
  return qos.empty() ? std::string{"normal"} : qos;
}

std::pair<uint64_t, uint32_t> job_queue::start(const policy::start_decision& d, int64_t now,
                                               uint64_t cpus) {
  auto it = queue_.find(d.job);
  auto& q = it->second;
  started_job s;
  s.start = now;
  s.end = d.end;
  s.name = q.name;
  s.user = q.user;
  s.account = q.account;
  s.cpus = cpus;
  s.qos = q.qos;
  s.partition = q.pass.partition;
  s.nodes = static_cast<uint32_t>(d.alloc.size());
  for (const auto& share : d.alloc) s.memory_mb += share.memory_mb;
  uint64_t job_id = d.job;
  uint32_t index = 0;
  ++running_by_name_[name_key(q.user, q.name)];
  if (q.is_array) {
    index = *q.pending.take_first();
    job_id = *task_job_id(d.job, index);
    s.array_id = d.job;
    s.index = index;
    auto& arr = arrays_[d.job];
    ++arr.running;
    if (q.pending.empty()) {
      arr.left_pending_at = now;
      erase_queued(it);
    }
  } else if (q.array_id != 0) {
    auto array_id = q.array_id;
    s.array_id = array_id;
    s.index = q.array_index;
    erase_queued(it);
    auto& arr = arrays_[array_id];
    ++arr.running;
    if (arr.detached == 0 && queue_.count(array_id) == 0) arr.left_pending_at = now;
  } else {
    erase_queued(it);
  }
  running_.insert_or_assign(job_id, std::move(s));
  return {job_id, index};
}

void job_queue::release(uint64_t id) {
  auto it = running_.find(id);
  if (it == running_.end()) return;
  auto key = name_key(it->second.user, it->second.name);
  if (auto n = running_by_name_.find(key); n != running_by_name_.end() && --n->second == 0)
    running_by_name_.erase(n);
  if (it->second.array_id != 0) {
    auto& arr = arrays_[it->second.array_id];
    if (arr.running > 0) --arr.running;
  }
  running_.erase(it);
}

void job_queue::adopt(uint64_t id, started_job job) {
  ++running_by_name_[name_key(job.user, job.name)];
  if (job.array_id != 0) ++arrays_[job.array_id].running;
  running_[id] = std::move(job);
}

void job_queue::ended(uint64_t id, bool ok, int64_t started, int64_t now) {
  auto r = running_.find(id);
  uint64_t array_id = r != running_.end() ? r->second.array_id : 0;
  release(id);
  if (array_id != 0) {
    auto& arr = arrays_[array_id];
    (ok ? arr.succeeded : arr.failed) += 1;
  }
  finished_[id] = {ok, started, now};
  finished_order_.emplace_back(now, id);
  forget_old_outcomes(now);
}

void job_queue::forget_old_outcomes(int64_t now) {
  while (!finished_order_.empty() && finished_order_.front().first < now - outcome_memory_s) {
    finished_.erase(finished_order_.front().second);
    finished_order_.pop_front();
  }
}

}  // namespace shoal::policy
