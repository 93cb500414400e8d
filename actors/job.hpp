#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "messages/types.hpp"
#include "metrics/registry.hpp"

namespace shoal::actors {

/// Everything a job actor starts from; the controller has validated and resolved the request
/// (partition, node count, task count, time limit).
struct job_setup {
  uint64_t id = 0;
  msg::job_request req;
  int64_t kill_wait_s = 30;
  uint32_t admin_uid = 0;  ///< besides root, this uid may cancel any job (the controller's)
  caf::actor client;       ///< the waiting `shoal run`, or invalid for batch jobs
  caf::actor controller;
  caf::actor scheduler;
  /// Array tasks only: the task's place in its array, and the nodes the scheduler already
  /// picked (a task is spawned when it starts, so it never queues).
  uint64_t array_job_id = 0;
  int64_t array_task_id = -1;
  std::vector<std::string> start_nodes;
  std::vector<caf::actor> start_node_actors;
  std::vector<uint32_t> start_cpus;
  std::string start_nodelist;  ///< as listings show it (box form on a torus)
  /// SelectType=select/cons_tres: nodes are shared, so the job's CPUs on each node count.
  bool shared_nodes = false;
  metrics::registry* meters = nullptr;  ///< where the job actor meters itself; null: nowhere
};

/// One job's lifecycle: PENDING -> RUNNING -> COMPLETING -> COMPLETED | FAILED | CANCELLED |
/// TIMEOUT | NODE_FAIL (or back to PENDING when requeued after a node failure).
///
/// Messages:
/// - (start_atom, vector<string> nodes, vector<actor> node actors, vector<uint32> cpus, string
///   nodelist): the scheduler placed it; nodelist is the allocation as listings show it.
/// - (view_atom, string reason, uint64 priority): the scheduler's pending reason and priority.
/// - step_exit: one node's tasks of one step ended.
/// - (step_atom, job_request, actor client) -> job_event: a step inside the allocation.
/// - (cancel_atom, int32 signo, uint32 uid) -> ok_atom | error: signo 0 cancels the job
///   (SIGTERM, then SIGKILL after KillWait); otherwise signals its tasks only.
/// - (signal_atom, int32 signo): from the waiting client (Ctrl-C), to every task.
/// - (nodedown_atom, string node): a node of the job stopped responding.
/// - (jobctl_atom, string "requeue", uint32 uid) -> ok_atom: kill a running batch job's tasks
///   and queue it again (scontrol requeue).
/// Publishes (view_atom, job_info) to the controller on every change; sends job_event to the
/// client (queued, allocated, ended). Quits once the job has finished.
caf::actor spawn_job(caf::actor_system& sys, job_setup setup);

/// What listings show of a job before anything happened to it (state PENDING).
msg::job_info initial_job_info(const job_setup& setup);

}  // namespace shoal::actors
