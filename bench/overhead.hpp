#pragma once

// Figure (c): what metering costs. The same actor-API burst on two identical local clusters, one
// with metrics on (the default) and one with CollectMetrics=NO, alternated in one process run.

#include <string>
#include <vector>

#include "bench/throughput.hpp"

namespace shoal::bench {

struct overhead_result {
  std::vector<double> on_rates;   ///< jobs/s end to end, metrics on, one per round
  std::vector<double> off_rates;  ///< the same with metrics off
  double on_median = 0;
  double off_median = 0;
  double overhead_pct = 0;  ///< (off - on) / off * 100 on the medians; negative: noise won
  bool valid = true;        ///< every burst finished with every job COMPLETED
  std::vector<std::string> failures;
};

/// `rounds` times: one burst of `jobs` on each cluster, the order alternating (on first in even
/// rounds) so drift on the machine hits both alike. Bursts run in subdirectories of `dir`.
overhead_result measure_overhead(const cluster_access& on, const cluster_access& off, size_t jobs,
                                 unsigned rounds, const std::string& dir,
                                 std::chrono::seconds deadline);

}  // namespace shoal::bench
