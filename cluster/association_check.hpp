#pragma once

#include "config/config.hpp"
#include "messages/errc.hpp"
#include "messages/types.hpp"

namespace shoal::cluster {

/// Slurm's words when a job's user has no association with its account in its partition.
inline constexpr const char* invalid_account_text =
    "Invalid account or account/partition combination specified";

/// A new job against the accounting store's associations (`assocs`, the controller's copy; null
/// while it has none). A job that names no account (-A) is charged to its user's default
/// account when the store knows the user. Under AccountingStorageEnforce=associations (or
/// limits, qos) the job's user must have an association with that account, for the job's
/// partition or every partition, on this cluster (ClusterName=): otherwise errc::invalid_request
/// with invalid_account_text, as slurmctld refuses it. With no copy yet, enforcing refuses with
/// errc::unreachable (the associations are not loaded). Pure; `req` has its partition resolved.
shoal::expected<msg::job_request> check_association(const config::cluster_config& cfg,
                                                    const msg::association_data* assocs,
                                                    msg::job_request req);

}  // namespace shoal::cluster
