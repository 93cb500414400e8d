#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace shoal::topology {

/// How the scheduler picks nodes among the available ones (the config's SelectType).
enum class selection_policy : uint8_t {
  /// select/linear: the first nodes in config order (after weight), fastest to decide.
  linear,
  /// select/consecutive: the smallest run of consecutive available nodes that fits; when no run
  /// fits, the fewest runs, largest first (Programmer's Guide, 2002).
  consecutive,
};

/// Picks `count` nodes among `available` (index = node position in config order).
/// `weights`, when non-empty, has one entry per node: lower weights are used first, and only when
/// the lower-weight nodes cannot satisfy the request are higher-weight ones considered (Slurm's
/// Weight). Returns the chosen indices in ascending order, or nullopt when fewer than `count`
/// nodes are available. `count` == 0 returns an empty selection.
///
/// Weight tiers: the policy runs once, over the available nodes whose weight is at most the
/// `count`-th smallest weight among available nodes, i.e. the lightest tier (with all lighter
/// ones) that can hold the request. Linear then takes the first `count` of them; consecutive
/// takes the first `count` nodes of the smallest run that holds them all (the earliest among
/// equals), or else whole runs largest first (earliest among equals) and, from the last run it
/// needs, only the nodes still missing, from the run's start. Linear in the nodes (64 at a
/// time), the runs visited and the nodes chosen; no sorting.
/// Precondition: `weights` is empty or as long as `available`; otherwise std::invalid_argument
/// (a caller bug).
std::optional<std::vector<size_t>> select_nodes(selection_policy policy,
                                                const std::vector<bool>& available, size_t count,
                                                const std::vector<uint32_t>& weights = {});

}  // namespace shoal::topology
