#pragma once

// AccountingStorageEnforce=limits: the association and QOS limits that hold a pending job back
// (GrpJobs, GrpTRES, MaxJobs, MaxTRESPerJob, MaxWall; the QOS's MaxJobsPerUser/PerAccount and
// MaxTRESPerUser/PerAccount), as rules the accounting copy gives, and what one pass counts
// against them. Pure: no actors, no clock.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "policy/resources.hpp"

namespace shoal::policy {

/// What a limit counts: jobs (GrpJobs, MaxJobs, MaxJobsPer*) or one kind of TRES.
enum class limit_kind : uint8_t { jobs, cpus, memory_mb, nodes };

/// The TRES kinds a limit names (`cpu=8,mem=1000M,node=2`); nullopt: no limit on that kind.
struct tres_caps {
  std::optional<uint64_t> cpus;
  std::optional<uint64_t> memory_mb;
  std::optional<uint64_t> nodes;

  const std::optional<uint64_t>& of(limit_kind kind) const;
};

/// One association's limits: an account's place in the tree, or a user's right to an account.
struct assoc_limits {
  static constexpr uint32_t no_parent = UINT32_MAX;
  uint32_t parent = no_parent;  ///< index in limit_rules::assocs; no_parent: the root
  std::optional<uint64_t> grp_jobs;
  tres_caps grp_tres;
  /// A user association's per-job limits: its own, or where it sets none its nearest
  /// ancestor's (Slurm propagates MaxJobs, MaxTRESPerJob and MaxWall down the tree).
  std::optional<uint64_t> max_jobs;
  tres_caps max_tres_per_job;
  std::optional<int64_t> max_wall_s;
};

/// One QOS's limits. Where a QOS sets a limit, the association's limit of the same kind is
/// not looked at (Slurm's order: the QOS's limit overrides the association's).
struct qos_limits {
  std::optional<uint64_t> grp_jobs;
  tres_caps grp_tres;
  tres_caps max_tres_per_job;
  std::optional<int64_t> max_wall_s;
  std::optional<uint64_t> max_jobs_per_user;
  tres_caps max_tres_per_user;
  std::optional<uint64_t> max_jobs_per_account;
  tres_caps max_tres_per_account;
};

/// The limits in force, from the accounting store's associations of this cluster.
struct limit_rules {
  std::vector<assoc_limits> assocs;
  /// {user, account, partition index (SIZE_MAX: every partition)} -> index in assocs.
  std::map<std::tuple<std::string, std::string, size_t>, uint32_t> users;
  std::map<std::string, qos_limits> qos;

  /// The association a job of `user` charging `account` in partition `partition` counts in:
  /// the partition's own, else the one for every partition; nullopt when it has none.
  std::optional<uint32_t> user_assoc(const std::string& user, const std::string& account,
                                     size_t partition) const;
};

/// What a job holds of each kind while it runs (one task of an array).
struct tres_use {
  uint64_t cpus = 0;
  uint64_t memory_mb = 0;
  uint64_t nodes = 0;

  uint64_t of(limit_kind kind) const;
};

/// What a pending job asks, as the limits count it: its CPUs, its memory (per node times
/// nodes, or per CPU times CPUs) and its minimum node count.
tres_use requested_use(const resource_request& req);

/// One group limit for one pass: its cap, what running jobs hold of it, and the reason a job
/// that would pass it waits with (a static string, Slurm's words).
struct limit_counter {
  limit_kind kind = limit_kind::jobs;
  uint64_t cap = 0;
  uint64_t used = 0;
  const char* reason = "";
};

/// The group limits of one pass. A pending job's `limits` (1 + index into sets; 0: none) names
/// the counters its start counts against, in the order they are checked.
struct usage_limits {
  std::vector<limit_counter> counters;
  std::vector<std::vector<uint32_t>> sets;
};

/// A job as the limits see it.
struct limited_job {
  const std::string* user = nullptr;
  const std::string* account = nullptr;
  const std::string* qos = nullptr;  ///< the QOS it runs under (its default resolved)
  size_t partition = SIZE_MAX;
  tres_use use;
};

/// Builds one pass's usage_limits: first every running job, then each pending one.
class limit_counting {
 public:
  explicit limit_counting(std::shared_ptr<const limit_rules> rules);

  /// A running job (or task) holds `job.use` and counts as one job in its groups.
  void count_running(const limited_job& job);

  /// Why `job` cannot start whatever runs (a per-job limit: MaxTRESPerJob, MaxWall against its
  /// `time_limit_s`, 0 = none), or null.
  const char* per_job_block(const limited_job& job, int64_t time_limit_s) const;

  /// The counter set `job`'s start counts against: 1 + its index, or 0 when no limit applies.
  uint32_t set_of(const limited_job& job);

  /// The counters and sets, for the pass (null when no job counts against any). The pass reads
  /// them as they are: call it once every job has its set.
  std::shared_ptr<const usage_limits> finish();

 private:
  struct group_use {
    uint64_t jobs = 0;
    tres_use use;
  };
  enum class scope : uint8_t { assoc, qos, qos_user, qos_account };
  using counter_key = std::tuple<scope, uint32_t, std::string, limit_kind>;

  void add_counter(std::vector<uint32_t>& set, scope where, uint32_t assoc, const std::string& name,
                   limit_kind kind, uint64_t cap, const char* reason);
  void add_tres(std::vector<uint32_t>& set, scope where, uint32_t assoc, const std::string& name,
                const tres_caps& caps, const tres_caps* overridden, const char* const reasons[3]);
  const group_use& use_of(scope where, uint32_t assoc, const std::string& name) const;

  std::shared_ptr<const limit_rules> rules_;
  std::vector<group_use> assoc_use_;  ///< parallel to rules_->assocs: each subtree's
  std::map<std::pair<scope, std::string>, group_use> named_use_;
  std::map<counter_key, uint32_t> counter_index_;
  std::map<std::tuple<uint32_t, std::string, std::string, std::string>, uint32_t> set_index_;
  std::shared_ptr<usage_limits> out_;
};

/// Why one more task of a job in counter set `set` (pending_job::limits) taking `use` would
/// pass a limit, with `used` what each counter holds so far: the first such counter's reason,
/// or null when it fits.
const char* over_limits(const usage_limits& limits, const std::vector<uint64_t>& used, uint32_t set,
                        const tres_use& use);

/// The task started: each counter of `set` holds `use` more.
void take_limits(const usage_limits& limits, std::vector<uint64_t>& used, uint32_t set,
                 const tres_use& use);

}  // namespace shoal::policy
