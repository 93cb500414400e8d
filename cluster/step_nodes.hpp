#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "messages/errc.hpp"

namespace shoal::cluster {

/// Which of a running job's nodes a step inside it runs on (srun -N, -w, -x inside a job), as
/// indices into `job_nodes` (the job's nodes in order), ascending: every node `required` names
/// (a hostlist, srun -w), then the job's other nodes in order, leaving out those `excluded`
/// names (srun -x), until `count` are picked. Without a count (`count_given` false) a step with
/// -w takes exactly its -w nodes, else `count` capped at the nodes -x leaves; a count below the
/// -w nodes is raised to them.
/// Errors: errc::invalid_request for a hostlist that does not parse; errc::unsatisfiable, in
/// Slurm's words ("Requested node configuration is not available: ..."), when -w names a node
/// the job does not have or one -x excludes, or when fewer than `count` nodes remain.
shoal::expected<std::vector<size_t>> pick_step_nodes(const std::vector<std::string>& job_nodes,
                                                     uint32_t count, bool count_given,
                                                     std::string_view required,
                                                     std::string_view excluded);

}  // namespace shoal::cluster
