#pragma once

// What the chaos test checks once every daemon is back and the job stream has stopped.

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "bench/chaos/cluster.hpp"
#include "bench/chaos/faults.hpp"
#include "bench/chaos/job_stream.hpp"

namespace shoal::chaos {

/// One check's verdict, with a line for each thing that failed it.
struct check_outcome {
  std::string name;
  std::vector<std::string> failed;
  bool passed() const { return failed.empty(); }
};

/// What became of the acknowledged jobs.
struct job_tally {
  size_t acknowledged = 0;
  size_t ended = 0;                        ///< listed once, in a final state
  std::map<std::string, size_t> by_state;  ///< the final states of those
  /// "sim FAILED: REASON" -> how many, for the jobs that did not complete (simulated node names
  /// in REASON read nodeN)
  std::map<std::string, size_t> not_completed;
  size_t listed_unacknowledged = 0;  ///< chaos-N jobs listed whose id no CLI printed
  double drain_s = -1;               ///< from the stream's end until none was left
};

/// Waits up to `bound` until every acknowledged job is in a final state; fills tally.drain_s
/// (-1 when the bound passed).
void drain(chaos_cluster& cluster, const std::vector<submission>& subs, std::chrono::seconds bound,
           job_tally& tally);

/// The checks, in the order printed: jobs ended once, the real node's markers, nodes IDLE,
/// collectors UP, the controllers agree, no daemon exited by itself (`driver`'s record and now),
/// no log with CAF's "*** unexpected message". The cluster-wide ones are waited for up to
/// `settle`.
std::vector<check_outcome> final_checks(chaos_cluster& cluster, fault_driver& driver,
                                        const std::vector<submission>& subs,
                                        std::chrono::seconds settle, job_tally& tally);

}  // namespace shoal::chaos
