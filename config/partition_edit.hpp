#pragma once

// Partitions changed while the controller runs: `shoal control update|create|delete
// partitionname=P Key=Value ...` (scontrol's), the same keys a PartitionName= line takes, and the
// record of those edits that a restart replays over the config file's partitions.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.hpp"
#include "messages/errc.hpp"
#include "messages/types.hpp"

namespace shoal::config {

/// Why a partition setting did not apply: `text` says why (without a file:line), `unknown` is
/// set for a key no partition takes.
struct setting_error {
  std::string text;
  bool unknown = false;
};

/// One `Key=Value` of a PartitionName= line (key in any case) set on `part`; Nodes= goes to
/// `nodes_expr` as written (resolved against the nodes later). Nullopt when it applied.
std::optional<setting_error> apply_partition_setting(partition_config& part,
                                                     std::string& nodes_expr, std::string_view key,
                                                     const std::string& value);

/// Whether `edit` may apply to `parts` at all (nullopt: it may): errc::unknown_partition for a name
/// that is not a partition (update, delete), errc::invalid_request for a bad action or name, a
/// create of a name that exists, or settings given to delete. Whether jobs still use a deleted
/// partition is the caller's to check.
std::optional<shoal::error> check_partition_edit(const std::vector<partition_config>& parts,
                                                 const msg::partition_edit& edit);

/// `part` after the `Key=Value` settings of an update or a create, or errc::invalid_request naming
/// the first bad one. Nodes= takes a hostlist of `node_names` (the configured nodes, in config
/// order), ALL, or nothing. Other partitions' Default= is the caller's (see takes_default).
shoal::expected<partition_config> apply_partition_settings(
    partition_config part, const std::vector<std::string>& settings,
    const std::vector<std::string>& node_names);

/// Whether `settings` make their partition the default (Default=YES), which no other then is.
bool takes_default(const std::vector<std::string>& settings);

/// The row a `create` starts from, before its settings.
partition_config created_partition(const std::string& name);

/// The partitions of `cfg` after `edit`, in order (a created partition goes last), or why the
/// edit cannot apply: errc::unknown_partition for a name that is not a partition (update,
/// delete), errc::invalid_request for a bad action, name, setting or value, a create of a name
/// that exists, or settings given to delete. Nodes= takes a hostlist of configured nodes, ALL,
/// or nothing; Default=YES takes the default from the partition that had it. Whether jobs still
/// use a deleted partition is the caller's to check.
shoal::expected<std::vector<partition_config>> apply_partition_edit(
    const cluster_config& cfg, const msg::partition_edit& edit);

/// Sets every node's `partitions` (names, in partition order) from `cfg.partitions`.
void assign_node_partitions(cluster_config& cfg);

/// Adds `edit` (already applied) to the edits a restart replays, keeping them short: an update
/// merges into the partition's last create or update (a later value of a key replaces the
/// earlier); a delete drops the partition's earlier edits and is kept only when the partition
/// existed before them (came from the config file).
void record_partition_edit(std::vector<msg::partition_edit>& edits,
                           const msg::partition_edit& edit);

/// `edits` applied in order over `cfg`'s partitions; each one that no longer applies (the config
/// file changed under it) is skipped, and its error text added to `skipped`.
void replay_partition_edits(cluster_config& cfg, const std::vector<msg::partition_edit>& edits,
                            std::vector<std::string>& skipped);

}  // namespace shoal::config
