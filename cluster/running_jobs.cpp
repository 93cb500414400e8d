#include "cluster/running_jobs.hpp"

#include <utility>

#include "policy/lending.hpp"

namespace shoal::cluster {

void running_jobs::put(policy::running_job run) {
  auto [at, added] = index_.emplace(run.id, jobs_.size());
  if (added)
    jobs_.push_back(std::move(run));
  else
    jobs_[at->second] = std::move(run);
}

void running_jobs::erase(uint64_t id) {
  auto at = index_.find(id);
  if (at == index_.end()) return;
  auto pos = at->second;
  index_.erase(at);
  // The last job takes the gap: the order means nothing to a pass.
  if (pos + 1 != jobs_.size()) {
    jobs_[pos] = std::move(jobs_.back());
    index_[jobs_[pos].id] = pos;
  }
  jobs_.pop_back();
}

void running_jobs::mark_preempted(uint64_t id, uint64_t for_job) {
  auto at = index_.find(id);
  if (at != index_.end()) jobs_[at->second].preempted_for = for_job;
}

void running_jobs::lend(uint64_t id, int64_t now,
                        const std::function<uint64_t(size_t)>& node_memory) {
  auto at = index_.find(id);
  if (at != index_.end()) policy::lend(jobs_[at->second], now, node_memory);
}

void running_jobs::take_back(uint64_t id, int64_t now) {
  auto at = index_.find(id);
  if (at != index_.end()) policy::take_back(jobs_[at->second], now);
}

}  // namespace shoal::cluster
