#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "messages/errc.hpp"
#include "messages/types.hpp"

namespace shoal::config {

/// What `scontrol update JobId=N KEY=VALUE ...` asks to change, each key read as scontrol reads
/// it. Unset: unchanged.
struct job_update_spec {
  std::vector<std::string> jobs;        ///< JobId= (comma lists split): "12", "12_4"
  std::optional<int64_t> time_limit_s;  ///< TimeLimit=: seconds, -1 UNLIMITED
  /// TimeLimit=+N / TimeLimit+=N (1) or -N / -=N (-1): time_limit_s is added to or taken from
  /// the job's limit; 0: set.
  int time_limit_sign = 0;
  std::optional<std::string> partition;
  std::optional<uint32_t> min_nodes;      ///< NumNodes=N or N-M
  std::optional<uint32_t> max_nodes;      ///< NumNodes=N-M's M (N alone: 0, the job's minimum)
  std::optional<uint32_t> ntasks;         ///< NumTasks=
  std::optional<uint32_t> priority;       ///< Priority=
  std::optional<int32_t> nice;            ///< Nice= (Nice alone: 100)
  std::optional<std::string> dependency;  ///< "" clears
  std::optional<int64_t> begin_time;      ///< StartTime= (EligibleTime=), Unix seconds
  std::optional<std::string> name;        ///< Name= (JobName=)
  std::optional<std::string> comment;
  std::optional<std::string> features;  ///< Features= (-C's syntax; "" clears)
  std::optional<std::string> qos;
  std::optional<std::string> account;
  std::optional<std::string> exclude;  ///< ExcNodeList= ("" clears)
  /// StartTime='s text as given (a client resolves it: begin_time stays unset until then).
  std::optional<std::string> start_text;
};

/// Reads scontrol's words (after `update`): `KEY=VALUE` or `KEY VALUE`, keys case-insensitive
/// and abbreviated as scontrol takes them (`TimeL`, `Pa`, `NumN`...: a key's prefix at least as
/// long as scontrol asks). StartTime='s text is kept in start_text; begin_time is set from it
/// when `now` is non-zero (the client's clock and time zone; see config/begin_time.hpp), else
/// left for the caller. Errors (errc::invalid_request, scontrol's words): a key shoal does not
/// update ("Update of this parameter is not supported: X"), a bad value ("Invalid TimeLimit
/// value", "Invalid Priority value: X", ...), nothing to change ("No changes specified").
/// JobId= is optional here (the caller checks that some job is named).
shoal::expected<job_update_spec> parse_job_update(const std::vector<std::string>& words,
                                                  int64_t now);

/// The keys of `spec` as names for logs, "TimeLimit,Partition".
std::string changed_keys(const job_update_spec& spec);

/// `req` with `spec`'s changes. TimeLimit's +/- apply to the request's limit (errc::invalid_request
/// "TimeLimit decrement larger than current time limit", or for an UNLIMITED one, "TimeLimit
/// increment or decrement of an UNLIMITED time limit"), and a limit of 0 is refused ("Invalid
/// TimeLimit value": a request's 0 is its partition's default, no limit). NumNodes=N sets the
/// request's node count exactly (nodesMax N); NumNodes=0, NumTasks=0 are refused as Slurm's
/// controller does
/// ("Node count specification invalid", "Task count specification invalid"), as is a maximum
/// below the minimum.
shoal::expected<msg::job_request> apply_job_update(const job_update_spec& spec,
                                                   msg::job_request req);

/// The keys whose values differ between `before` and `after` that Slurm changes on pending jobs
/// only (Partition, NumNodes, NumTasks, Dependency, StartTime, Features, QOS, Account,
/// ExcNodeList); a key set to what the job has already is no change, as in slurmctld.
std::vector<std::string> pending_only_changes(const msg::job_request& before,
                                              const msg::job_request& after);

/// Whether the change from `before` to `after` is one only an admin may make (Slurm's operator):
/// a higher time limit, except on a queued job up to its partition's MaxTime
/// (`partition_max_s`, -1: none); any Priority=; a negative Nice.
bool needs_admin(const msg::job_request& before, const msg::job_request& after, bool queued,
                 int64_t partition_max_s, bool priority_given);

}  // namespace shoal::config
