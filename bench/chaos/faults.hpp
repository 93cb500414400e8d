#pragma once

// The chaos test's faults: the plan's rounds played on the cluster (kill -9, a pause, start
// again), and how long each victim took to be back.

#include <array>
#include <chrono>
#include <string>
#include <vector>

#include "bench/chaos/cluster.hpp"
#include "bench/chaos/plan.hpp"

namespace shoal::chaos {

using steady = std::chrono::steady_clock;

/// One kill -9 and its recovery.
struct fault_record {
  size_t round = 0;
  victim who = victim::primary;
  double down_s = 0;               ///< from the kill to the start again, as planned
  double back_s = -1;              ///< from the kill until back (see faults.cpp); -1: never
  double back_after_start_s = -1;  ///< from the start again until back
  bool step_running = false;       ///< the real node ran a job's step when it was killed
  bool alone = true;               ///< the only kill of its round
};

/// What went wrong while the faults were played.
struct fault_failure {
  bool exited = false;  ///< a daemon exited by itself; else a victim was not back in time
  std::string what;
};

class fault_driver {
 public:
  /// `recovery_bound`: how long after its start again a victim may take to be back.
  fault_driver(chaos_cluster& cluster, plan& rounds, std::chrono::seconds recovery_bound);

  /// Plays rounds (printing each) until `seconds` from now have passed; a round under way when
  /// the time is up is finished. Stops early when a victim is not back within the bound.
  void play(double seconds);

  /// Every daemon not down on purpose still runs; one that exited by itself is a failure, and is
  /// started again so the run goes on. `when` says when, for the failure line.
  void check_daemons(const std::string& when);

  const std::vector<fault_record>& faults() const { return faults_; }
  const std::vector<fault_failure>& failures() const { return failures_; }

  /// The definition of "back" that the figures use, for the output.
  static const char* back_definition();

 private:
  /// Plays one round; false when a victim was not back in time.
  bool play_round(size_t number, const planned_round& round);
  /// Waits up to 10 s for a job to hold the real node (so its kill catches a running step).
  bool wait_for_real_step();
  bool is_back(const fault_record& f, const chaos_cluster::look& look,
               const std::vector<victim>& killed_in_round);

  chaos_cluster& cluster_;
  plan& plan_;
  std::chrono::seconds recovery_bound_;
  std::vector<fault_record> faults_;
  std::vector<fault_failure> failures_;
  std::array<bool, victim_count> down_{};  ///< killed here and not started yet
};

}  // namespace shoal::chaos
