#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "policy/profile.hpp"

namespace shoal::cluster {

/// Every job holding nodes, as a scheduling pass takes them (policy::schedule's `running`): kept
/// as that vector, in no particular order, so that a pass reads it instead of copying a map.
class running_jobs {
 public:
  /// Adds the job, or replaces what it held.
  void put(policy::running_job run);

  /// Removes the job; does nothing when it holds nothing.
  void erase(uint64_t id);

  /// The job is being preempted for `for_job` (policy::running_job::preempted_for); nothing
  /// when it holds nothing.
  void mark_preempted(uint64_t id, uint64_t for_job);

  /// The job is suspended for a preemptor at `now` (policy::lend): nothing when it holds
  /// nothing or lends already. `node_memory`: a node's whole memory.
  void lend(uint64_t id, int64_t now, const std::function<uint64_t(size_t)>& node_memory);

  /// The job resumes at `now` (policy::take_back); nothing unless it lends.
  void take_back(uint64_t id, int64_t now);

  const std::vector<policy::running_job>& all() const { return jobs_; }

 private:
  std::vector<policy::running_job> jobs_;
  std::unordered_map<uint64_t, size_t> index_;  ///< id -> position in jobs_
};

}  // namespace shoal::cluster
