#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "messages/errc.hpp"
#include "policy/index_set.hpp"

namespace shoal::policy {

/// A parsed `--array` value: the task indices and the `%N` cap on tasks running at once.
struct array_spec {
  index_set indices;
  uint32_t max_running = 0;  ///< `%N`; 0 = no cap (Slurm's ArrayTaskThrottle=0)
};

/// Parses sbatch's `--array` syntax: comma-separated items, each `N`, `A-B` or `A-B:S`, then an
/// optional `%N` for the whole value (`1-1000%50`, `1-99:2`, `1,3,5-7`, `0-9:3,20%2`).
/// Every index must be below `max_array_size` (Slurm's MaxArraySize: indices 0..size-1).
/// Errors: errc::invalid_request with a text naming the 1-based column, e.g.
/// "--array: column 3: expected a number". Duplicates and overlaps are allowed and merged.
shoal::expected<array_spec> parse_array_spec(std::string_view text, uint32_t max_array_size);

/// squeue's folded form of pending tasks: `[5-1000%50]`, `[1,3,5-7]`; "" when none are pending.
/// Shown after `JOBID_` (`123_[5-1000%50]`).
std::string folded_tasks(const index_set& pending, uint32_t max_running);

/// The throttle (`%N`): whether another task may start with `running` tasks of the array running.
inline bool may_start_task(uint32_t max_running, uint32_t running) {
  return max_running == 0 || running < max_running;
}

}  // namespace shoal::policy
