#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "policy/array_spec.hpp"
#include "policy/dependency.hpp"
#include "policy/fairshare.hpp"
#include "policy/priority.hpp"
#include "policy/scheduling_pass.hpp"
#include "policy/usage_limits.hpp"

namespace shoal::policy {

/// Who holds a pending job back: `shoal control uhold` (or -H) is a user hold, `hold` by an
/// admin an admin hold that only an admin may release (Slurm's JobHeldUser / JobHeldAdmin).
enum class hold_kind : uint8_t { none, user, admin };

/// A pending job, or the pending tasks of an array, as the scheduler keeps it.
struct queued_job {
  uint64_t id = 0;
  std::string name;
  std::string user;
  uint32_t uid = 0;
  std::string account;       ///< charged with its usage (-A, or the user's default account)
  std::string qos;           ///< -q; empty: its association's default QOS
  policy::pending_job pass;  ///< request, partition and time limit; priority is set per pass
  int32_t nice = 0;
  int64_t submit_time = 0;
  int64_t begin_time = 0;
  std::optional<policy::dependency> dependency;
  bool kill_on_invalid_dep = false;
  hold_kind hold = hold_kind::none;
  uint64_t top_rank = 0;  ///< > 0: moved to the top of its owner's jobs (later tops rank higher)
  uint32_t fixed_priority = 0;  ///< an admin's Priority= (scontrol update); 0: computed
  bool is_array = false;
  policy::index_set pending;  ///< arrays: task indices not started yet
  uint32_t max_running = 0;   ///< arrays: the `%N` throttle
  /// A task of array `array_id` queued as a job of its own (split off by `scontrol update`, or
  /// requeued): it counts in that array's throttle and in dependencies on the array. 0: none.
  uint64_t array_id = 0;
  uint32_t array_index = 0;
  // What the last pass found, for listings and to tell only changes.
  std::string reason;
  uint64_t told_priority = 0;  ///< the priority the job's actor last heard of (listings)
  policy::priority_factors factors;
  int64_t expected_start = 0;
};

/// A started job (or array task) until it ends. Which nodes it holds is the topology actor's
/// record (actors/topology_actor.hpp), not the queue's.
struct started_job {
  int64_t start = 0;
  int64_t end = policy::forever;  ///< start + time limit
  std::string name;
  std::string user;
  uint64_t array_id = 0;  ///< 0: not an array task
  uint32_t index = 0;
  std::string account;  ///< charged with its CPU-seconds when it ends
  uint64_t cpus = 0;    ///< CPUs allocated, over all its nodes
  // What the association and QOS limits count it in, and what it holds of them.
  std::string qos;  ///< -q as submitted (empty: its association's default)
  size_t partition = SIZE_MAX;
  uint64_t memory_mb = 0;  ///< memory allocated, over all its nodes
  uint32_t nodes = 0;
};

/// An array's whole history, kept after its last task started so dependencies on it resolve.
struct array_record {
  std::vector<policy::index_range> spec;  ///< every index the array was submitted with
  uint64_t task_count = 0;
  uint32_t running = 0;
  uint32_t succeeded = 0;
  uint32_t failed = 0;       ///< includes tasks cancelled before they started
  uint32_t detached = 0;     ///< tasks pending as jobs of their own (queued_job::array_id)
  uint32_t max_running = 0;  ///< the `%N` throttle, which detached tasks obey too
  int64_t left_pending_at = 0;
};

/// What one pass should do: the jobs to offer the policy, and the reasons others wait.
struct pass_plan {
  /// The queue's kept candidate list, in ascending id order. The jobs this pass offers are the
  /// entries with task_count > 0, each with its priority at the pass's time and the tasks it
  /// may start; an entry with task_count 0 is not offered (held, blocked, or no longer queued),
  /// as policy::schedule skips it. Shared, not copied: the queue changes the list only when it
  /// holds the last reference, so a holder may read it for as long as it keeps it.
  std::shared_ptr<const std::vector<policy::pending_job>> candidates;
  size_t offered = 0;            ///< entries of `candidates` with task_count > 0
  std::vector<uint64_t> arrays;  ///< the offered entries that are job arrays, ascending
  std::vector<std::pair<uint64_t, std::string>> blocked;  ///< job, reason (hold, begin, ...)
  std::vector<uint64_t> to_cancel;  ///< never-satisfiable dependency with --kill-on-invalid-dep
  int64_t next_wakeup = 0;          ///< earliest future --begin, 0 = none
  /// The group limits the offered jobs count against (pending_job::limits); null: none.
  std::shared_ptr<const policy::usage_limits> limits;
};

/// The scheduler's pending queue, running set and recent outcomes. Pure: no actors, no clock;
/// the scheduler actor feeds it events and runs policy::schedule over what it prepares.
///
/// Array tasks get job ids when the array is submitted: task with ordinal k (its position among
/// the array's indices, ascending) is job `array_id + 1 + k`, so starting a task needs no id
/// allocation round trip and an array costs its index ranges, not one record per task.
class job_queue {
 public:
  job_queue(policy::priority_config priority, bool multifactor);
  /// A copy builds its candidate list afresh from the queue at its first pass.
  job_queue(const job_queue& other);
  job_queue& operator=(const job_queue& other);
  job_queue(job_queue&&) = default;
  job_queue& operator=(job_queue&&) = default;

  /// The fair-share and QOS factors jobs' priorities read from the next pass on (null: none,
  /// every job's factors 0).
  void set_shares(std::shared_ptr<const policy::priority_shares> shares) {
    shares_ = std::move(shares);
  }

  /// AccountingStorageEnforce=limits: the association and QOS limits passes hold jobs by from
  /// the next pass on (null: none). A job a per-job limit (MaxTRESPerJob, MaxWall) forbids waits
  /// with its reason; the others count in the pass (pass_plan::limits).
  void set_limits(std::shared_ptr<const policy::limit_rules> rules) { limits_ = std::move(rules); }

  /// Cluster-wide denominators of the priority factors, and each partition's PriorityJobFactor.
  void set_scale(policy::priority_scale scale, std::vector<uint32_t> partition_factors) {
    scale_ = scale;
    partition_factors_ = std::move(partition_factors);
  }

  void enqueue(queued_job job);
  /// Registers an array's indices; its queued_job must also be enqueued (is_array).
  void add_array(uint64_t id, std::vector<policy::index_range> spec, uint32_t max_running = 0);

  /// Takes pending task `index` out of array `array_id` to pend as a job of its own (Slurm
  /// splits a task off so that `scontrol update` can change it alone). Returns its job id, or
  /// nullopt when the task no longer pends in the array. The task's own job is expected next
  /// (enqueue with array_id set); until then it counts as pending in the array, and it comes
  /// with the array's hold.
  std::optional<uint64_t> detach(uint64_t array_id, uint32_t index);

  /// Removes a pending job or, for an array, the pending tasks in [lo, hi] (all by default).
  /// Returns how many jobs or tasks were removed.
  uint64_t cancel(uint64_t id, uint32_t lo = 0, uint32_t hi = UINT32_MAX, int64_t now = 0);

  /// The job id of an array's task (see the class comment); nullopt when `index` is not one.
  std::optional<uint64_t> task_job_id(uint64_t array_id, uint32_t index) const;

  /// The queued job `id`, or null. Its `pass` must not be changed through this pointer (the
  /// kept candidate list copied it): enqueue the job again instead.
  queued_job* find(uint64_t id);
  /// The same, looked for first at `position` in the last pass's candidate list, where the job
  /// was then (pending_reason::position): no search while the list still lines up.
  queued_job* find(uint64_t id, size_t position);
  const std::map<uint64_t, queued_job>& queue() const { return queue_; }
  const std::unordered_map<uint64_t, started_job>& running() const { return running_; }
  bool is_array(uint64_t id) const { return arrays_.count(id) > 0; }

  /// hold / uhold / release / top. Error text (empty on success) in Slurm's words.
  std::string hold(uint64_t id, hold_kind kind);
  std::string release(uint64_t id, bool by_admin);
  std::string top(uint64_t id);

  /// Eligibility, priorities and the candidate list at `now`. The list is kept from pass to
  /// pass and follows the queue's events (enqueue, start, cancel): a pass updates each entry's
  /// priority and tasks in place instead of copying every job's request again.
  pass_plan prepare(int64_t now, size_t max_array_tasks_per_pass);

  /// Records a start decided by the pass, holding `cpus` CPUs in all. For an array it takes the
  /// next pending index and returns {task job id, index}; for a job, {id, 0}. Removes what no
  /// longer pends.
  std::pair<uint64_t, uint32_t> start(const policy::start_decision& d, int64_t now,
                                      uint64_t cpus = 0);

  /// A job ended (ok: COMPLETED with exit code 0), started at `started` (0: never). Frees its
  /// allocation and remembers the outcome for dependencies.
  void ended(uint64_t id, bool ok, int64_t started, int64_t now);
  /// A job that was started before (recovered from saved state) holds `job`'s allocation.
  void adopt(uint64_t id, started_job job);
  /// A started job gave its nodes back without ending (requeue): frees the allocation only.
  void release(uint64_t id);

 private:
  /// A queued job's place in the kept candidate list (pass_plan::candidates).
  struct slot {
    uint64_t id = 0;
    queued_job* job = nullptr;  ///< null: no longer queued; its entry goes at a compaction
    bool stale = true;          ///< its entry is to be copied from job->pass at the next pass
  };

  policy::job_outcome outcome(uint64_t job, std::optional<uint32_t> task) const;
  policy::priority_factors priority_of(const queued_job& q, int64_t now) const;
  /// The QOS a job runs under: its -q, else its association's default, else "normal".
  std::string qos_name_of(const std::string& user, const std::string& account,
                          const std::string& qos) const;
  void forget_old_outcomes(int64_t now);
  /// Removes a job from the queue and from the candidate list's index.
  void erase_queued(std::map<uint64_t, queued_job>::iterator it);
  std::vector<slot>::iterator slot_of(uint64_t id);
  /// The candidate list, this queue's alone and with entry i belonging to slots_[i].
  std::vector<policy::pending_job>& own_candidates();

  policy::priority_config priority_;
  bool multifactor_ = true;
  policy::priority_scale scale_;
  std::vector<uint32_t> partition_factors_;
  std::shared_ptr<const policy::priority_shares> shares_;
  std::shared_ptr<const policy::limit_rules> limits_;
  std::map<uint64_t, queued_job> queue_;
  std::unordered_map<uint64_t, started_job> running_;
  std::unordered_map<uint64_t, array_record> arrays_;
  struct outcome_entry {
    bool ok = false;
    int64_t started = 0;
    int64_t ended = 0;
  };
  std::unordered_map<uint64_t, outcome_entry> finished_;
  std::deque<std::pair<int64_t, uint64_t>> finished_order_;
  std::unordered_map<std::string, uint32_t> running_by_name_;  ///< "user/name" -> count
  /// Detached tasks whose own job has not queued yet, with the hold they carry from the array.
  std::unordered_map<uint64_t, hold_kind> awaited_;
  uint64_t top_counter_ = 0;
  // The kept candidate list; a member added above is also copied by job_queue(const job_queue&).
  /// Every queued job (and those gone since the last compaction), in ascending id order. Up to
  /// candidates_->size(), slot i owns entry i unless realign_; the slots past it came since.
  std::vector<slot> slots_;
  size_t gone_ = 0;       ///< slots whose job is null
  bool realign_ = false;  ///< a slot came in before others: entries no longer line up
  std::shared_ptr<std::vector<policy::pending_job>> candidates_;
};

}  // namespace shoal::policy
