#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include "messages/errc.hpp"

namespace shoal::policy {

/// Slurm's dependency types (sbatch --dependency).
enum class dependency_kind : uint8_t {
  after,       ///< the target started (or was cancelled) `minutes` ago
  afterany,    ///< the target ended, whatever its state
  afterok,     ///< the target completed with exit code 0
  afternotok,  ///< the target ended failed, cancelled, timed out or on a failed node
  aftercorr,   ///< task i of this array after task i of the target completed ok
  singleton,   ///< no other job of the same name and user is running or ahead of this one
};

const char* to_string(dependency_kind kind);

/// One condition: `afterok:123`, `after:123_4+10`, `singleton`.
struct dependency_term {
  dependency_kind kind = dependency_kind::afterany;
  uint64_t job = 0;              ///< target job or array id (unused for singleton)
  std::optional<uint32_t> task;  ///< `123_4`: one task of array 123; none: the whole job
  uint32_t minutes = 0;          ///< `after:ID+MIN` only
};

/// A parsed `--dependency`: all terms must hold (`,`), or any one (`?`). Slurm forbids mixing.
struct dependency {
  bool any_of = false;
  std::vector<dependency_term> terms;
};

/// Parses `after|afterany|afterok|afternotok|aftercorr:ID[+MIN][:ID...]`, `singleton`, and lists
/// joined by `,` (all of) or `?` (any of). IDs are `123` (a job or a whole array) or `123_4` (one
/// array task); a bare ID means afterany, as in Slurm. `+MIN` is allowed for `after` only.
/// Errors: errc::invalid_request naming the 1-based column, e.g.
/// "--dependency: column 9: ',' and '?' cannot be mixed; use one of them".
shoal::expected<dependency> parse_dependency(std::string_view text);

/// Canonical text, e.g. `afterok:12:13_2,singleton` (terms of one kind are not regrouped).
std::string to_string(const dependency& dep);

/// What the controller knows about a target: one job, one array task, or a whole array (then
/// the counts cover all its tasks). A plain job counts as one task.
struct job_outcome {
  bool known = false;           ///< false: no such job (never existed, or purged after MinJobAge)
  uint32_t pending = 0;         ///< tasks not started yet
  uint32_t running = 0;         ///< tasks running (or completing)
  uint32_t succeeded = 0;       ///< tasks that completed with exit code 0
  uint32_t failed = 0;          ///< tasks failed, cancelled, timed out, out of memory, node failed
  int64_t left_pending_at = 0;  ///< seconds: when the last task started or ended unstarted
};

/// The read-only view of job outcomes an evaluation needs; the controller answers from its
/// tables. `outcome(job, task)` answers for the task when `task` is set, else for the job or the
/// whole array. `singleton_busy()` tells whether another job of the evaluated job's name and user
/// is running, or pending ahead of it.
struct dependency_view {
  std::function<job_outcome(uint64_t job, std::optional<uint32_t> task)> outcome;
  std::function<bool()> singleton_busy;
};

enum class dependency_state : uint8_t {
  satisfied,         ///< the job may be scheduled
  waiting,           ///< pending reason "Dependency"
  never_satisfiable  ///< pending reason "DependencyNeverSatisfied" (or cancel with
                     ///< --kill-on-invalid-dep)
};

/// Slurm's pending reason for a state: "Dependency", "DependencyNeverSatisfied", or "" when
/// satisfied.
const char* dependency_reason(dependency_state state);

/// Evaluates `dep` at `now` (seconds). `self_task` is the evaluated job's array index (for
/// aftercorr; a job that is not an array task treats aftercorr as afterok on the whole target).
/// A target that is not known counts as satisfied, as in Slurm (the job it waited for is gone);
/// reject unknown IDs at submission with `unknown_targets`.
dependency_state evaluate(const dependency& dep, const dependency_view& view, int64_t now,
                          std::optional<uint32_t> self_task = std::nullopt);

/// The targets of `dep` that `view` does not know, for a submission-time error
/// ("Job dependency problem" in Slurm).
std::vector<dependency_term> unknown_targets(const dependency& dep, const dependency_view& view);

}  // namespace shoal::policy
