#pragma once

#include <cstdint>

namespace shoal::bench {

/// Throughput at scale (issue 14, item 5): many jobs of random size and simulated run time
/// through the backfill scheduler of a simulated cluster.
struct scale_throughput_options {
  unsigned nodes = 100000;
  unsigned front_ends = 8;
  unsigned collectors = 100;
  unsigned jobs = 100000;
  unsigned max_job_nodes = 64;  ///< each job takes 1..this many nodes, uniformly
  unsigned max_job_s = 60;      ///< and runs `sleep` 1..this many seconds, uniformly
  int heartbeat_interval_s = 30;
  unsigned seed = 1;
  /// MinJobAge= for the run (0: the config's default, 300 s). Set, the run goes on until the
  /// controller has forgotten every finished job (the accounting store keeps them) and prints
  /// its RSS then.
  int64_t min_job_age_s = 0;
};

/// Starts the cluster, submits every job (pipelined over one controller connection), and
/// samples the controller's /metrics every second until the queue is empty: prints jobs started
/// per second, the scheduling pass time (median, p99, from shoal_scheduler_cycle_seconds), and
/// how busy the nodes were while jobs were queued (allocated node share, mean and lowest), the
/// controller's RSS and CPU time at the end and, with min_job_age_s, its RSS once it has forgotten
/// the finished jobs and how many of them the accounting store holds. False
/// when the run is invalid (the cluster does not come up, a submission is refused, /metrics does
/// not answer).
bool run_scale_throughput_bench(const scale_throughput_options& opt);

}  // namespace shoal::bench
