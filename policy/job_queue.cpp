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

void job_queue::enqueue(queued_job job) {
  auto id = job.id;
  queue_.insert_or_assign(id, std::move(job));
}

void job_queue::add_array(uint64_t id, std::vector<policy::index_range> spec) {
  array_record rec;
  for (auto& r : spec) rec.task_count += r.count();
  rec.spec = std::move(spec);
  arrays_[id] = std::move(rec);
}

uint64_t job_queue::cancel(uint64_t id, uint32_t lo, uint32_t hi, int64_t now) {
  auto it = queue_.find(id);
  if (it == queue_.end()) return 0;
  if (!it->second.is_array) {
    queue_.erase(it);
    return 1;
  }
  auto removed = it->second.pending.erase(lo, hi);
  auto& arr = arrays_[id];
  arr.failed += static_cast<uint32_t>(removed);
  if (it->second.pending.empty()) {
    arr.left_pending_at = now;
    queue_.erase(it);
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
  auto it = queue_.find(id);
  return it == queue_.end() ? nullptr : &it->second;
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
          pending == queue_.end() ? 0 : static_cast<uint32_t>(pending->second.pending.count());
      o.running = arr->second.running;
      o.succeeded = arr->second.succeeded;
      o.failed = arr->second.failed;
      o.left_pending_at = arr->second.left_pending_at;
      return o;
    }
    auto id = task_job_id(job, *task);
    if (!id) return policy::job_outcome{};
    if (pending != queue_.end() && pending->second.pending.contains(*task)) {
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
  if (!multifactor_) return policy::priority_factors{};  // priority/basic: submit order
  policy::priority_input in;
  in.eligible_time = std::max(q.submit_time, q.begin_time);
  in.nodes = q.pass.request.min_nodes;
  in.cpus = q.pass.request.total_cpus();
  in.partition_job_factor =
      q.pass.partition < partition_factors_.size() ? partition_factors_[q.pass.partition] : 1;
  in.nice = q.nice;
  return policy::multifactor_priority(in, scale_, priority_, now);
}

pass_plan job_queue::prepare(int64_t now, size_t max_array_tasks_per_pass) {
  pass_plan plan;
  std::unordered_map<std::string, uint64_t> first_singleton;
  for (auto& [id, q] : queue_)
    if (has_singleton(q)) first_singleton.emplace(name_key(q.user, q.name), id);  // ids ascend
  for (auto& [id, q] : queue_) {
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
    if (!reason.empty()) {
      plan.blocked.emplace_back(id, std::move(reason));
      continue;
    }
    auto candidate = q.pass;
    candidate.id = id;
    candidate.priority = q.factors.total;
    candidate.task_count = tasks;
    plan.candidates.push_back(std::move(candidate));
  }
  // `top`: above every other pending job of the same owner in the same partition.
  std::map<std::pair<uint32_t, size_t>, int64_t> highest;
  bool any_top = false;
  for (auto& c : plan.candidates) {
    auto& q = queue_.at(c.id);
    any_top = any_top || q.top_rank > 0;
    auto& h = highest[{q.uid, c.partition}];
    h = std::max(h, c.priority);
  }
  if (any_top) {
    for (auto& c : plan.candidates) {
      auto& q = queue_.at(c.id);
      if (q.top_rank == 0) continue;
      c.priority = highest[{q.uid, c.partition}] + static_cast<int64_t>(q.top_rank);
      q.factors.total = c.priority;
    }
  }
  return plan;
}

std::pair<uint64_t, uint32_t> job_queue::start(const policy::start_decision& d, int64_t now) {
  auto it = queue_.find(d.job);
  auto& q = it->second;
  started_job s;
  s.start = now;
  s.end = d.end;
  s.name = q.name;
  s.user = q.user;
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
      queue_.erase(it);
    }
  } else {
    queue_.erase(it);
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
