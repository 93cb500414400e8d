#pragma once

#include <array>
#include <optional>

#include "messages/states.hpp"
#include "metrics/registry.hpp"

namespace shoal::cluster {

/// The cluster figures the controller keeps from the views its node and job actors publish:
/// nodes and jobs by state, and the job counts `shoal diag` shows. Every series is resolved
/// here, once; updates are relaxed atomics.
class cluster_meters {
 public:
  explicit cluster_meters(metrics::registry& reg);

  /// A node's view changed state (`from` empty: first view).
  void node_changed(std::optional<msg::node_state> from, msg::node_state to);
  /// A job's view changed state (`from` empty: first view); counts starts and ends.
  void job_changed(std::optional<msg::job_state> from, msg::job_state to);
  /// A job a restarted controller recovered from saved state, in state `s`: counted among the
  /// jobs it knows, but not as started or ended again (sdiag's counters begin at the start).
  void job_recovered(msg::job_state s);
  /// A finished job left the controller's memory (MinJobAge).
  void job_forgotten(msg::job_state s);
  void job_submitted() { submitted_->inc(); }

 private:
  static constexpr size_t node_states = 7;
  static constexpr size_t job_states = msg::job_state_count;
  std::array<metrics::gauge*, node_states> nodes_{};
  std::array<metrics::gauge*, job_states> jobs_{};
  std::array<metrics::counter*, job_states> finished_{};
  metrics::counter* submitted_;
  metrics::counter* started_;
};

/// The metric-name prefixes `shoal diag --reset` zeroes (sdiag -r): RPC and scheduler
/// statistics and the job counters, not the current states.
inline constexpr const char* diag_reset_prefixes[] = {"shoal_rpc_",
                                                      "shoal_scheduler_cycle",
                                                      "shoal_scheduler_last_cycle",
                                                      "shoal_scheduler_max_cycle",
                                                      "shoal_jobs_submitted",
                                                      "shoal_jobs_started",
                                                      "shoal_jobs_finished"};

}  // namespace shoal::cluster
