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
std::optional<std::vector<size_t>> select_nodes(selection_policy policy,
                                                const std::vector<bool>& available, size_t count,
                                                const std::vector<uint32_t>& weights = {});

}  // namespace shoal::topology
