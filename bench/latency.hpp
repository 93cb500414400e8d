#pragma once

// Figure (a): end-to-end latency of one CLI invocation against a running cluster.

#include <string>
#include <vector>

#include "bench/support.hpp"

namespace shoal::bench {

/// Samples of one CLI command run serially.
struct latency_result {
  std::string label;  ///< e.g. "shoal run -N1 true"
  unsigned warmup = 0;
  summary stats;                      ///< successful timed runs only
  std::vector<std::string> failures;  ///< one line per timed or warm-up run that did not exit 0
};

/// Runs `shoal_path ARGS...` `warmup` times untimed, then `runs` times timed, one after the other,
/// in `cwd` with SHOAL_CONF from the environment and output to /dev/null. A run that fails is
/// recorded in `failures` and left out of the statistics.
latency_result measure_cli_latency(const std::string& shoal_path,
                                   const std::vector<std::string>& args, unsigned warmup,
                                   unsigned runs, const std::string& cwd);

}  // namespace shoal::bench
