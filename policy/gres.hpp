#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>
#include "messages/errc.hpp"

namespace shoal::policy {

/// One item of a generic resource list: a node's `Gres=gpu:tesla:4` or a job's `--gres=gpu:2`.
struct gres_item {
  std::string name;  ///< gpu, mps, nic, ... (a GresTypes= name)
  std::string type;  ///< tesla, a100, ...; "" when not given (any type, for a request)
  uint64_t count = 1;

  friend bool operator==(const gres_item& a, const gres_item& b) {
    return a.name == b.name && a.type == b.type && a.count == b.count;
  }
  friend bool operator!=(const gres_item& a, const gres_item& b) { return !(a == b); }
};

/// A comma-separated list of items, in the order written.
using gres_list = std::vector<gres_item>;

/// Parses Slurm's GRES syntax: items `[gres:]NAME[:TYPE][:COUNT]` separated by commas, COUNT a
/// number with an optional K, M, G, T or P suffix (x1024 each), 1 when left out (`gpu` is
/// `gpu:1`); the last part is the count when it starts with a digit, else a type. `none` (or
/// "") is the empty list. Items keep their order; counts of 0 are kept (the caller decides).
/// Errors: errc::invalid_request "Invalid generic resource (gres) specification" (Slurm's
/// words), e.g. for `gpu:`, `:2`, `gpu:2x`, `gpu:a:b:2`.
shoal::expected<gres_list> parse_gres(std::string_view text);

/// A job's request per node from `--gres`: parse_gres, then items with a count of 0 dropped
/// (`gpu:0` asks for nothing, as in Slurm). Errors as parse_gres, and the same for one name
/// given twice (`gpu:1,gpu:tesla:1`).
shoal::expected<gres_list> parse_gres_request(std::string_view text);

/// The list as written back: `gpu:2,gpu:tesla:1` (a count of 1 is written too); "" when empty.
std::string gres_text(const gres_list& list);

/// scontrol show job's TresPerNode for a --gres request: `gres:gpu:2,gres:gpu:tesla:1`.
std::string tres_per_node(const gres_list& list);

/// Device indices as Slurm prints them in `GresUsed=gpu:2(IDX:0-1,3)`: runs joined by commas,
/// ascending. Precondition: `indices` sorted ascending.
std::string index_ranges(const std::vector<uint32_t>& indices);

}  // namespace shoal::policy
