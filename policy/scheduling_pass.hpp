#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "policy/preemption.hpp"
#include "policy/profile.hpp"
#include "policy/resources.hpp"
#include "policy/usage_limits.hpp"

namespace shoal::policy {

/// A partition as the pass sees it.
struct partition_info {
  bool up = true;              ///< State=UP or DRAIN; otherwise its jobs wait with PartitionDown
  bool inactive = false;       ///< State=INACTIVE: its jobs wait with PartitionInactive instead
  std::vector<size_t> nodes;   ///< member node indices, config order
  int64_t max_time = 0;        ///< MaxTime, seconds; 0 = UNLIMITED
  uint32_t priority_tier = 1;  ///< PriorityTier: higher tiers are scheduled first
  bool exclusive = false;      ///< OverSubscribe=EXCLUSIVE: every job gets whole nodes
  /// OverSubscribe=YES:N or FORCE:N: up to N sharing jobs hold each CPU (each node, under a
  /// whole-node SelectType) at once; 1 = NO. Memory is never shared.
  uint32_t oversubscribe = 1;
  bool force = false;  ///< FORCE: every job shares but --exclusive ones; YES: only -s ones
  /// PreemptMode of this partition (or the cluster's): what becomes of its running jobs when a
  /// job of a higher PriorityTier needs their resources (with pass_config::preempt).
  preempt_mode preempt = preempt_mode::off;
  int64_t grace_time = 0;  ///< GraceTime, seconds: SIGTERM first, SIGKILL this much later
};

/// The jobs that may hold one CPU of partition `part` at once for a job asking `sharing`
/// (Slurm's OverSubscribe table): 1 unless the partition allows it and the job shares.
uint32_t shared_by(const partition_info& part, share_request sharing);

/// A job (or the startable tasks of an array) that may start now: dependencies, --begin and
/// holds are the caller's filter. For an array, `task_count` is how many tasks may start this
/// pass (the pending tasks, capped by `%N` minus those running); they share one request. A job
/// with task_count 0 is passed over: no start, no reason, no test.
struct pending_job {
  uint64_t id = 0;
  int64_t priority = 1;  ///< higher first; ties go to the lower id
  size_t partition = 0;  ///< index into the partition list
  resource_request request;
  int64_t time_limit = 0;  ///< seconds; 0 = the partition's MaxTime (or unlimited)
  uint32_t task_count = 1;
  license_list licenses;  ///< -L: held from start to end, by each task (empty: none)
  /// --reservation: 1 + its index in pass_config::reservations; 0: none; no_reservation: one
  /// that no longer exists (the job waits with Reservation).
  uint32_t reservation = 0;
  /// PreemptType=preempt/qos: its QOS, 1 + its index in pass_config::qos; 0: none known.
  uint32_t qos = 0;
  /// AccountingStorageEnforce=limits: the group limits each task's start counts against, 1 +
  /// its index in pass_config::limits->sets; 0: none.
  uint32_t limits = 0;
};

/// PreemptType=preempt/qos: what one QOS says of preemption (sacctmgr's Preempt=, PreemptMode=,
/// GraceTime= and Priority=).
struct qos_preemption {
  std::vector<uint32_t>
      preempts;  ///< the QOS (pending_job::qos numbers) its jobs preempt, ascending
  std::optional<preempt_mode>
      mode;                ///< how its jobs are preempted; none: the cluster's PreemptMode
  int64_t grace_time = 0;  ///< its jobs' GraceTime, seconds
  uint32_t priority = 0;   ///< jobs of a lower QOS priority are preempted first
  /// Its place in the order of passes, as a tier's: 1 + the highest rank of the QOS it preempts
  /// (0: it preempts none), so a preemptor always goes before the jobs it took nodes from (a
  /// requeued one would otherwise take them back).
  uint32_t rank = 0;
};

constexpr uint32_t no_reservation = UINT32_MAX;

/// A reservation as the pass sees it (scontrol create reservation): its nodes are held over
/// [start, end) from every job not in it; a job in it runs only on them (FLEX: also elsewhere),
/// and only once it has begun.
struct reserved_nodes {
  std::vector<size_t> nodes;  ///< node indices, ascending
  int64_t start = 0;
  int64_t end = forever;
  bool flex = false;
};

/// Whether and how lower-priority jobs may start ahead of blocked higher-priority ones.
enum class backfill_mode : uint8_t {
  easy,          ///< the first blocked job of each partition gets a reservation
  conservative,  ///< every blocked job tested gets a reservation, in priority order
};

/// The pass's settings (slurm.conf SchedulerType/SchedulerParameters names in comments).
struct pass_config {
  bool backfill = true;  ///< sched/backfill; false = sched/builtin (strict order)
  backfill_mode mode = backfill_mode::easy;
  size_t max_job_test = 500;    ///< bf_max_job_test: jobs given a full placement test or
                                ///< reservation search per pass; 0 = no bound
  int64_t window = 0;           ///< bf_window, seconds; reservations beyond now+window are
                                ///< not made; 0 = no bound
  int64_t resolution = 60;      ///< bf_resolution, seconds: running jobs' ends are rounded up
  placement_options placement;  ///< SelectType, node weights, the node picker hook
  license_list licenses;        ///< Licenses=: the cluster's totals (a job naming another waits)
  bool preempt = false;         ///< PreemptType=preempt/partition_prio or preempt/qos
  int64_t preempt_exempt = 0;   ///< PreemptExemptTime, seconds: younger jobs are not preempted
  /// PreemptType=preempt/qos (with `preempt`): a job preempts the jobs of the QOS its QOS's
  /// Preempt= names (qos[i] is QOS i+1), whatever their partitions' tiers, with their QOS's
  /// PreemptMode (else cluster_preempt) and GraceTime.
  bool preempt_by_qos = false;
  preempt_mode cluster_preempt = preempt_mode::off;
  std::shared_ptr<const std::vector<qos_preemption>> qos;
  std::vector<reserved_nodes> reservations;  ///< at their windows as of the pass
  /// AccountingStorageEnforce=limits: the association and QOS group limits with what running
  /// jobs hold of them (pending_job::limits names a job's); null: none.
  std::shared_ptr<const usage_limits> limits;
};

/// Start job `job` (task `copy` of the tasks it may start this pass) on `alloc`, until `end`.
struct start_decision {
  uint64_t job = 0;
  uint32_t copy = 0;  ///< 0..task_count-1: the caller takes the next pending array index
  allocation alloc;
  int64_t end = forever;
};

/// Why a job is still pending after the pass (squeue's REASON).
struct pending_reason {
  uint64_t job = 0;
  const char* reason = "";  ///< Priority, Resources, Licenses, PartitionDown,
                            ///< PartitionTimeLimit, ReqNodeNotAvail, Reservation
                            ///< (static strings)
  size_t position = 0;      ///< the job's index in the queue given to schedule()
};

/// The start time and nodes the backfill reserved for a blocked job (squeue --start).
struct planned_start {
  uint64_t job = 0;
  int64_t start = 0;
  allocation alloc;
};

/// A running job to preempt so that `for_job` can start once it has let go of its nodes.
struct preemption {
  uint64_t job = 0;
  uint64_t for_job = 0;
  preempt_mode mode = preempt_mode::cancel;  ///< its partition's PreemptMode
  int64_t grace_time = 0;                    ///< its partition's GraceTime, seconds
};

struct pass_result {
  std::vector<start_decision> started;  ///< in start order (priority order, then backfill)
  std::vector<pending_reason> waiting;  ///< one per job with tasks left pending
  std::vector<planned_start> planned;   ///< reservations made this pass
  std::vector<preemption> preempted;    ///< jobs to preempt (the waiters stay pending)
  std::vector<uint64_t> resumed;        ///< suspended jobs whose lent resources are free again
  size_t tested = 0;                    ///< jobs that cost a full test (<= max_job_test)
};

/// One scheduling pass at `now`. Jobs go in order of partition PriorityTier (then, under
/// preempt/qos, their QOS's rank), priority, id.
/// A job starts now when its resources are free for its whole time limit without touching what
/// is reserved for a higher-priority job. With backfill off, the first job that cannot start
/// holds back the rest of its partition (reason Priority) as sched/builtin does. With backfill
/// (EASY), the first blocked job of a partition gets a reservation at its earliest start
/// (running jobs end at their time limits), and lower jobs start only where they do not delay
/// it; conservative gives every blocked job a reservation. Jobs past max_job_test wait with
/// Priority. Never allocates beyond the nodes' capacity. Pure: no clock, no I/O.
///
/// Licenses are one cluster-wide pool (config.licenses): running jobs hold theirs until their
/// ends, jobs started in the pass and reservations from their start to their end. A job whose
/// licenses are not free for its whole time limit (counting what reservations need) waits with
/// Licenses before its nodes are looked at, holds nothing back and gets no reservation (as
/// Slurm 22.05, whose backfill reserves no licenses); a reservation of a job blocked on nodes
/// takes its licenses too, so a backfilled job cannot take them from it.
///
/// Group limits (config.limits: GrpJobs, GrpTRES, MaxJobs, a QOS's per-user and per-account
/// limits) are checked as licenses are, before the nodes: a task that would pass one waits with
/// that limit's reason (AssocGrpJobsLimit, QOSMaxJobsPerUserLimit, ...), holds nothing back and
/// gets no reservation; the tasks this pass starts count against them at once.
///
/// Preemption (config.preempt): a job that cannot start now looks at the running jobs of
/// partitions of a lower PriorityTier whose PreemptMode is not OFF (preempt_by_qos: of the QOS
/// its QOS preempts, whose PreemptMode is not OFF), that hold nodes of its partition and ran at
/// least preempt_exempt seconds. Taken lowest tier (QOS priority), then lowest priority first,
/// until the job would fit with their resources free; then each one it can do without is left out
/// again, so the set is small and of the least priority. None when even all would not do. Jobs
/// already preempted for it (running_job::preempted_for) count as free: while they would suffice,
/// nothing more is preempted; jobs preempted for another job are never taken.
///
/// Suspended jobs (running_job::lent, PreemptMode=SUSPEND) take their turn before the pending
/// jobs of their tier and below: where what they lent is free now until their remaining time
/// ends, they are resumed (pass_result::resumed) and hold it again; otherwise it is reserved for
/// them from the earliest moment it is free, so no job of a lower place can keep them stopped.
/// A suspended job is never preempted again.
pass_result schedule(const std::vector<pending_job>& queue, const std::vector<running_job>& running,
                     const std::vector<partition_info>& partitions,
                     const std::vector<node_capacity>& nodes, int64_t now,
                     const pass_config& config);

}  // namespace shoal::policy
