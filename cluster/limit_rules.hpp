#pragma once

// AccountingStorageEnforce=limits: the accounting store's association and QOS limits of one
// cluster as the scheduler's passes count them (policy/usage_limits.hpp), and the time limit a
// job without one is given under MaxWall. Pure.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

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

}  // namespace shoal::cluster
