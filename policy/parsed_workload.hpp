#pragma once

#include <memory>
#include <optional>

#include "policy/array_spec.hpp"
#include "policy/dependency.hpp"
#include "policy/feature_constraint.hpp"
#include "policy/gres.hpp"
#include "policy/licenses.hpp"

namespace shoal::policy {

/// A job's --array, --dependency, --gres, --constraint and -L as the controller parsed them, once,
/// when the job was submitted (and again from the saved request when it recovers). The submission
/// checks, the scheduler and the job's views read these values; nothing parses the text again.
struct parsed_workload {
  std::optional<array_spec> array;
  std::optional<dependency> dep;
  /// The devices asked for per node (`gpu:0` items dropped): empty for none.
  gres_list gres;
  /// -C/--constraint: unset for none.
  std::optional<feature_constraint> constraint;
  /// -L/--licenses, names checked against Licenses=: empty for none.
  license_list licenses;
  /// An array recovered from saved state: the tasks not started yet (unset: all of `array`'s;
  /// task job ids still count from all of them).
  std::optional<index_set> pending_tasks;
  /// An array task queued as a job of its own (split off to be updated, or requeued): the array
  /// whose throttle and dependencies it counts in, and its index there. Unset: not one.
  struct array_task_ref {
    uint64_t array_id = 0;
    uint32_t index = 0;
  };
  std::optional<array_task_ref> array_task;
};

/// Shared and immutable: it travels with the job's setup and every enqueue (requeues included),
/// never across a process boundary.
using workload_ptr = std::shared_ptr<const parsed_workload>;

}  // namespace shoal::policy
