#pragma once

#include <string>

namespace shoal::bench {

/// The simulated cloud burst (issue 32): State=CLOUD simulated nodes, all powered down, resumed
/// for a queue of jobs by a ResumeProgram that starts one front-end `shoald --simulate` for the
/// hostlist it is given.
struct power_burst_options {
  unsigned nodes = 10000;
  unsigned jobs = 1000;
  unsigned job_nodes = 10;   ///< nodes per job
  unsigned job_s = 5;        ///< each job runs `sleep` this long (simulated)
  unsigned resume_rate = 0;  ///< ResumeRate, nodes a minute; 0: no limit
  int resume_timeout_s = 300;
  std::string scheduler_parameters;  ///< SchedulerParameters=, when not empty
  bool keep = false;                 ///< keep the logs and the ResumeProgram's files
};

/// Starts a controller with one ordinary node and `nodes` CLOUD nodes in partition `cloud`,
/// submits every job there (pipelined over one controller connection) and samples the
/// controller's /metrics until every job has started. Prints the ResumeProgram calls (how many,
/// nodes and argument bytes per call), the time from the first submission until every job ran,
/// the median job's submit-to-running, the scheduling pass meanwhile and the controller's RSS.
/// False when the run is invalid (the cluster does not come up, a submission is refused, a job
/// never starts, a node is resumed twice).
bool run_power_burst_bench(const power_burst_options& opt);

}  // namespace shoal::bench
