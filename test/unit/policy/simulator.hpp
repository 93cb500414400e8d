#pragma once

// A small discrete-event simulator on a virtual clock for the scheduling policy: jobs run for
// their actual runtime (at most their time limit), the pass runs whenever something ends, and
// an observer sees every pass. Pure and deterministic: no threads, no wall clock.

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "policy/array_spec.hpp"
#include "policy/dependency.hpp"
#include "policy/scheduling_pass.hpp"

namespace shoal::policy::sim {

struct job {
  uint64_t id = 0;
  int64_t priority = 1;
  size_t partition = 0;
  resource_request req;
  int64_t limit = 60;    ///< time limit, seconds
  int64_t runtime = 60;  ///< actual runtime, <= limit
  bool fails = false;    ///< ends with a non-zero exit
  std::optional<dependency> dep;
  std::string name;  ///< for singleton
  index_set tasks;   ///< pending task indices (one index 0 for a plain job)
  uint32_t max_running = 0;
  uint32_t total_tasks = 1;
};

struct run {
  uint64_t job = 0;
  uint32_t task = 0;
  int64_t start = 0;
  int64_t actual_end = 0;
  int64_t limit_end = 0;
  allocation alloc;
};

class simulator {
 public:
  std::vector<node_capacity> nodes;
  std::vector<partition_info> partitions;
  pass_config config;
  std::vector<job> jobs;  ///< index = id - 1
  int64_t now = 0;
  std::vector<run> running;
  std::vector<run> finished;
  std::map<uint64_t, dependency_state> last_dependency_state;
  /// Called after each pass with the queue it saw and the jobs running before it.
  std::function<void(const pass_result&, const std::vector<pending_job>&,
                     const std::vector<running_job>&)>
      observer;

  job& add(job j) {
    j.id = jobs.size() + 1;
    if (j.tasks.empty()) j.tasks.insert({0, j.total_tasks - 1, 1});
    jobs.push_back(std::move(j));
    return jobs.back();
  }

  /// Runs passes until nothing runs and nothing can start (or `max_passes`).
  void run_all(int max_passes = 100000) {
    int idle_minutes = 0;
    for (int pass = 0; pass < max_passes; ++pass) {
      bool started = step();
      if (started) idle_minutes = 0;
      if (running.empty() && !started) {
        // The tests' after:ID+MIN use at most 10 minutes: longer idle means stuck for good.
        if (++idle_minutes > 10) return;
        // Only a timed dependency (after:ID+MIN) can still change: let a minute pass.
        bool timed = std::any_of(jobs.begin(), jobs.end(), [&](const job& j) {
          auto it = last_dependency_state.find(j.id);
          return !j.tasks.empty() && it != last_dependency_state.end() &&
                 it->second == dependency_state::waiting;
        });
        if (!timed) return;
        now += 60;
        continue;
      }
      advance();
    }
  }

  job_outcome outcome(uint64_t id, std::optional<uint32_t> task) const {
    job_outcome o;
    if (id == 0 || id > jobs.size()) return o;
    o.known = true;
    const auto& j = jobs[id - 1];
    auto counts = [&](uint32_t t) { return !task || *task == t; };
    for (uint32_t t = 0; t < j.total_tasks; ++t)
      if (counts(t) && j.tasks.contains(t)) ++o.pending;
    for (const auto& r : running)
      if (r.job == id && counts(r.task)) {
        ++o.running;
        o.left_pending_at = std::max(o.left_pending_at, r.start);
      }
    for (const auto& r : finished)
      if (r.job == id && counts(r.task)) {
        (j.fails ? o.failed : o.succeeded) += 1;
        o.left_pending_at = std::max(o.left_pending_at, r.start);
      }
    return o;
  }

  uint32_t running_tasks(uint64_t id) const {
    return uint32_t(
        std::count_if(running.begin(), running.end(), [&](const run& r) { return r.job == id; }));
  }

 private:
  bool singleton_busy(const job& self) const {
    for (const auto& r : running)
      if (jobs[r.job - 1].name == self.name && r.job != self.id) return true;
    for (const auto& other : jobs)
      if (other.id < self.id && other.name == self.name && !other.tasks.empty()) return true;
    return false;
  }

  bool step() {
    std::vector<pending_job> queue;
    for (auto& j : jobs) {
      if (j.tasks.empty()) continue;
      if (j.dep) {
        dependency_view view{
            [this](uint64_t id, std::optional<uint32_t> t) { return outcome(id, t); },
            [this, &j] { return singleton_busy(j); }};
        auto st = evaluate(*j.dep, view, now);
        last_dependency_state[j.id] = st;
        if (st != dependency_state::satisfied) continue;
      }
      uint32_t room = uint32_t(j.tasks.count());
      if (j.max_running > 0) {
        uint32_t r = running_tasks(j.id);
        room = r >= j.max_running ? 0 : std::min(room, j.max_running - r);
      }
      if (room == 0) continue;
      pending_job p;
      p.id = j.id;
      p.priority = j.priority;
      p.partition = j.partition;
      p.request = j.req;
      p.time_limit = j.limit;
      p.task_count = room;
      queue.push_back(std::move(p));
    }
    std::vector<running_job> before;
    for (const auto& r : running) before.push_back({r.job, r.alloc, r.limit_end, {}});
    auto result = schedule(queue, before, partitions, nodes, now, config);
    if (observer) observer(result, queue, before);
    for (auto& d : result.started) {
      auto& j = jobs[d.job - 1];
      auto task = j.tasks.take_first();
      running.push_back({d.job, *task, now, now + j.runtime, d.end, d.alloc});
    }
    return !result.started.empty();
  }

  void advance() {
    if (running.empty()) return;
    int64_t next = running.front().actual_end;
    for (const auto& r : running) next = std::min(next, r.actual_end);
    now = std::max(now, next);
    auto ended = std::stable_partition(running.begin(), running.end(),
                                       [&](const run& r) { return r.actual_end > now; });
    finished.insert(finished.end(), ended, running.end());
    running.erase(ended, running.end());
  }
};

/// The order the pass uses: higher priority first, then lower id (one partition tier).
inline bool ahead(const pending_job& a, const pending_job& b) {
  return a.priority != b.priority ? a.priority > b.priority : a.id < b.id;
}

}  // namespace shoal::policy::sim
