#pragma once

// The scripts a node daemon runs for a job (Prolog=, Epilog=): their environment, and a
// detached helper per run that reports the outcome by message, so no handler waits on one.

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "messages/types.hpp"

namespace shoal::actors {

/// What a finished Prolog or Epilog reports to the actor that started it: (script_done_atom,
/// job, prolog (true) or epilog, ok, the drain reason when not ok).
using script_done_atom = caf::atom_constant<caf::atom("scriptdone")>;

/// Slurm's Prolog/Epilog environment for `job` (a launch or the job's start relayed by the
/// controller) on `node`: SLURMD_NODENAME, SLURM_CLUSTER_NAME, SLURM_JOB_ID (and SLURM_JOBID),
/// SLURM_JOB_UID, SLURM_JOB_GID, SLURM_JOB_USER, SLURM_UID, SLURM_JOB_WORK_DIR,
/// SLURM_JOB_NODELIST (and SLURM_NODELIST), SLURM_JOB_PARTITION, SLURM_JOB_NAME,
/// SLURM_NODE_ALIASES when set, SLURM_CONF, SLURM_SCRIPT_CONTEXT (prolog_slurmd or
/// epilog_slurmd), each with its SHOAL_ twin; and a PATH, which Slurm does not set.
std::vector<std::string> node_script_env(const msg::launch_request& job, const std::string& node,
                                         const std::string& cluster, const std::string& conf,
                                         bool epilog);

/// One Prolog or Epilog to run for a job.
struct node_script {
  uint64_t job_id = 0;
  bool prolog = true;
  std::string program;
  std::vector<std::string> env;
  std::chrono::seconds timeout{0};  ///< PrologEpilogTimeout; 0: no limit
};

/// Runs `script` in a detached actor of its own, as the daemon's user (root), and sends
/// `reply_to` (script_done_atom, job, prolog, ok, reason) once it ended. The reason names the
/// script and its status, as a drain reason: "Prolog /etc/shoal/prolog failed: exit 1",
/// "Epilog /x timed out after 30 s".
void run_node_script(caf::actor_system& sys, caf::actor reply_to, node_script script);

/// Runs HealthCheckProgram `program` for `node` in a detached actor, as root, killed after
/// config::health_check_timeout_s (as slurmd), and sends `reply_to` (msg::check_atom, ok,
/// reason) once it ended: ok when it exited 0; else the drain reason
/// (config::health_failure_reason: its first line of output, or how it ended). Its
/// environment is SLURMD_NODENAME (and SHOALD_NODENAME) and a PATH, as slurmd's.
void run_health_check(caf::actor_system& sys, caf::actor reply_to, std::string program,
                      std::string node);

/// Starts RebootProgram `program` for `node` in a detached actor, as root, with the health
/// check's environment, and waits for nobody: the machine reboots under it. Logs an error when
/// no RebootProgram is set (the node then misses ResumeTimeout and goes DOWN).
void run_reboot_program(caf::actor_system& sys, std::string program, std::string node);

}  // namespace shoal::actors
