#pragma once

namespace shoal::bench {

/// The scale figure (issue 14, item 4): a simulated cluster (`shoald --simulate` front ends,
/// runtime::local_cluster::launch_simulated) at a realistic HeartBeatInterval.
struct scale_options {
  unsigned nodes = 10000;
  unsigned front_ends = 4;
  unsigned collectors =
      0;  ///< CollectorNodes, spread evenly (0: every node beats to the controller)
  int heartbeat_interval_s = 30;
  int slurmd_timeout_s = 90;  ///< HeartBeatTimeout: how long a silent node stays up
  double window_s = 60;       ///< the steady-state sample of the controller's CPU
  unsigned runs = 10;         ///< of each listing
};

/// Prints, for `opt`: the bring-up time (launch to every node IDLE), the controller's CPU share
/// and RSS in steady state, `shoal info` and `shoal queue` latency, and the time from killing
/// one front end to all its nodes DOWN. False when the run is invalid (the cluster does not come
/// up, a listing fails, the nodes never go DOWN).
bool run_scale_bench(const scale_options& opt);

}  // namespace shoal::bench
