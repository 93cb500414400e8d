#pragma once

#include <cstdint>
#include <vector>

#include "actors/scheduling.hpp"
#include "topology/torus.hpp"

namespace shoal::actors {

/// A pending job on a torus cluster: what the pass sees of it plus what it asks of the grid.
/// `job.partition`, `job.excluded` are as in schedule_pass but hold grid indices (x * Y * Z +
/// y * Z + z); `job.required` must be empty (-w is refused at submission on a torus).
struct torus_candidate {
  pending_job job;
  topology::torus_request shape;
};

/// One decision: start `job` on the prism `where`, whose grid indices are `nodes` (ascending).
struct torus_placement {
  uint64_t job = 0;
  topology::torus_allocation where;
  std::vector<size_t> nodes;
};

struct torus_pass_result {
  std::vector<torus_placement> started;
  std::vector<pending_reason> waiting;
};

/// schedule_pass for SelectType=select/torus3d: the same order (priority, then submit order)
/// and the same rule that the first job of a partition that cannot start holds back the jobs
/// behind it (reason Priority); placement is topology::torus_map::place over the base
/// partitions that are free, in the job's partition and not excluded. `map` says which base
/// partitions are free and is updated for every placement; `partitions` list grid indices.
/// Pure: no actors, no clock.
torus_pass_result schedule_torus_pass(std::vector<torus_candidate> queue, topology::torus_map& map,
                                      const std::vector<partition_slot>& partitions);

}  // namespace shoal::actors
