#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "messages/errc.hpp"

namespace shoal::cluster {

/// A job as users name it on scancel / scontrol command lines: `12` (a job, or a whole array),
/// `12_4` (one array task), `12_[1-5,7]` (some tasks of array 12).
struct job_ref {
  uint64_t id = 0;
  bool whole = true;  ///< no `_` part: the job, or every task of the array
  std::vector<std::pair<uint32_t, uint32_t>> tasks;  ///< inclusive index ranges when !whole
};

/// Parses a job reference. Error: errc::invalid_request naming the text.
shoal::expected<job_ref> parse_job_ref(std::string_view text);

/// True when `index` is one of the ref's tasks (or the ref names the whole job).
bool names_task(const job_ref& ref, uint32_t index);

}  // namespace shoal::cluster
