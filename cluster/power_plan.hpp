#pragma once

// Power saving's decisions as plain functions (the Cloud Scheduling Guide, docs/power.md): which
// idle nodes to power down now, how many programs a rate allows, and the resume file handed to
// ResumeProgram. The power actor (actors/power.hpp) owns the nodes' power states and calls these;
// nothing here sends a message, reads a clock or runs a program.

#include <cstdint>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "messages/states.hpp"

namespace shoal::cluster {

/// One node as power saving sees it: its power state and what its latest view says.
struct power_node {
  std::string name;
  msg::power_state power = msg::power_state::on;
  bool down_asked = false;  ///< POWER_DOWN (!): powered down once no job holds it
  bool cloud = false;       ///< State=CLOUD
  /// SuspendTime, SuspendTimeout and ResumeTimeout for the node (effective_power_timing).
  config::power_timing timing;
  std::vector<std::string> partitions;
  msg::node_state state = msg::node_state::unknown;  ///< from its latest view
  bool has_jobs = false;                             ///< a job holds it (or is ending on it)
  bool not_responding = false;                       ///< DOWN for silence, not by an admin
  int64_t idle_since = 0;  ///< when it last turned free (LastBusyTime), Unix seconds
};

/// Whether `n` is free of jobs and in a state power saving may take down (idle, unknown, down
/// or drained: the guide powers those down too unless SuspendExcStates names them).
bool is_free(const power_node& n);

/// The nodes (indices into `nodes`, in order) to power down at `now`, at most `budget`: powered
/// up and free, and either asked to power down (POWER_DOWN; PowerDownOnIdle asks it of a node
/// a job of its partition left) or idle for their SuspendTime (not INFINITE), and not excluded by
/// SuspendExcNodes (a `:count` item keeps that many of its set usable: idle, powered up, not asked
/// down), SuspendExcParts or SuspendExcStates. An admin's POWER_DOWN ignores the exclusions, as
/// Slurm's does.
std::vector<size_t> nodes_to_suspend(const std::vector<power_node>& nodes,
                                     const config::power_settings& settings, int64_t now,
                                     size_t budget);

/// SuspendRate/ResumeRate: nodes per minute, as a bucket that holds a minute's worth and refills
/// continuously. Rate 0: no limit.
class rate_limit {
 public:
  explicit rate_limit(uint32_t per_minute = 0, int64_t now_ms = 0);
  /// How many nodes may go now.
  size_t available(int64_t now_ms);
  /// `count` nodes went.
  void take(size_t count);

 private:
  uint32_t per_minute_;
  double tokens_;
  int64_t last_ms_;
};

/// One job in ResumeProgram's file (the guide's SLURM_RESUME_FILE): the job, its nodes and which
/// of them this call resumes.
struct resume_job {
  uint64_t job_id = 0;
  std::string features;       ///< --constraint ("" : null)
  std::string nodes_alloc;    ///< hostlist
  std::string nodes_resume;   ///< hostlist
  std::string oversubscribe;  ///< squeue's values: OK, NO, USER, MCS, ...
  std::string partition;
  std::string reservation;  ///< "": null
  std::string extra;        ///< --extra ("": null)
};

/// The JSON document of SLURM_RESUME_FILE: {"all_nodes_resume": "...", "jobs": [...]}, with
/// empty texts as null as the guide shows them.
std::string resume_file_json(const std::string& all_nodes_resume,
                             const std::vector<resume_job>& jobs);

}  // namespace shoal::cluster
