#pragma once

// AccountingStorageEnforce=limits: the accounting store's association and QOS limits of one
// cluster as the scheduler's passes count them (policy/usage_limits.hpp), and the time limit a
// job without one is given under MaxWall. Pure.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include <string_view>
#include <vector>

#include "config/config.hpp"
#include "messages/errc.hpp"
#include "messages/types.hpp"
#include "policy/usage_limits.hpp"

namespace shoal::cluster {

/// A TRES list as sacctmgr keeps it (`cpu=8,mem=1000M,node=2`; mem in MiB without a suffix, K
/// M G T P as powers of 1024) as caps; other kinds (gres/gpu, billing, ...) are not counted.
policy::tres_caps parse_tres_caps(const std::string& text);

/// The limits of `cluster` in `data`, user associations keyed by `partitions`' indices (an
/// association for a partition the config lacks is left out). Null when no association and no
/// QOS sets a limit the passes count, so that passes then cost nothing more.
std::shared_ptr<const policy::limit_rules> limit_rules_of(
    const msg::association_data& data, const std::string& cluster,
    const std::unordered_map<std::string, size_t>& partitions);

/// The MaxWall (seconds) a job of `user` charging `account` in `partition` under QOS `qos`
/// (its default resolved) runs under: the QOS's, else its association's or its nearest
/// ancestor's; nullopt when none is set. Slurm gives a job that names no time limit this one.
std::optional<int64_t> max_wall_of(const msg::association_data& data, const std::string& cluster,
                                   const std::string& user, const std::string& account,
                                   const std::string& partition, const std::string& qos);

/// AccountingStorageEnforce=limits: a job submitted without a time limit (-t) is given its MaxWall
/// (max_wall_of; `req` has its partition, account and default time resolved), capped by the
/// partition's MaxTime, as acct_policy_validate does. Nothing changes without enforcement, without
/// a copy of the associations, or when no MaxWall applies.
void give_max_wall(const config::cluster_config& cfg, const msg::association_data* assocs,
                   msg::job_request& req);

/// Slurm's words (ESLURM_ACCOUNTING_POLICY) for a submission past a submit limit.
inline constexpr const char* submit_limit_text =
    "Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)";

/// Jobs not finished yet (pending or running; an array's pending tasks count one each) of one
/// user, account and QOS (its default resolved), as the submit limits count them.
struct submitted_jobs {
  std::string_view user;
  std::string_view account;
  std::string_view qos;
  uint64_t count = 1;
};

/// Whether any association or QOS of `cluster` sets a submit limit (MaxSubmitJobs,
/// GrpSubmitJobs, a QOS's MaxSubmitJobsPerUser/PerAccount): only then need the unfinished jobs
/// be counted at all.
bool has_submit_limits(const msg::association_data& data, const std::string& cluster);

/// Whether `count` more jobs of `user` charging `account` in `partition` under `qos` stay within
/// the submit limits, `active` being every unfinished job: the QOS's GrpSubmitJobs,
/// MaxSubmitJobsPerUser and MaxSubmitJobsPerAccount, then the association's MaxSubmitJobs (its
/// own or its nearest ancestor's; not where the QOS sets a per-user one) and every GrpSubmitJobs
/// from the user's association up to the root (not where the QOS sets one), each over the jobs of
/// its subtree. Past one: errc::invalid_request with submit_limit_text, as slurmctld refuses it.
shoal::error check_submit_limits(const msg::association_data& data, const std::string& cluster,
                                 const std::string& user, const std::string& account,
                                 const std::string& partition, const std::string& qos,
                                 uint64_t count, const std::vector<submitted_jobs>& active);

}  // namespace shoal::cluster
