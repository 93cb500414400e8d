#pragma once

// The stream of jobs the chaos test submits while it kills daemons, on a thread of its own: the
// plan's jobs one after the other, each with its gap. A job counts as acknowledged when the CLI
// printed its id.

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bench/chaos/cluster.hpp"
#include "bench/chaos/plan.hpp"

namespace shoal::chaos {

/// One submission and what came of it.
struct submission {
  size_t index = 0;  ///< the plan's job number, from 1; also the job's name chaos-N
  planned_job job;
  uint64_t id = 0;      ///< 0: not acknowledged
  std::string failure;  ///< why not, when not
  std::string marker;   ///< a real job's marker file: a line "start", later "end"
};

class job_stream {
 public:
  /// Starts submitting the plan's jobs to `cluster` at once. Both must outlive the stream.
  job_stream(chaos_cluster& cluster, plan& jobs);
  /// Stops (see stop).
  ~job_stream();
  job_stream(const job_stream&) = delete;
  job_stream& operator=(const job_stream&) = delete;

  /// Submits nothing more; returns once the submission under way, if any, is answered.
  void stop();

  /// A copy of every submission so far.
  std::vector<submission> submissions() const;

 private:
  void run();
  submission submit(size_t index, const planned_job& job);

  chaos_cluster& cluster_;
  plan& plan_;
  std::atomic<bool> stopping_{false};
  mutable std::mutex mutex_;
  std::vector<submission> done_;
  std::thread thread_;
};

}  // namespace shoal::chaos
