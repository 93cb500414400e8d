#pragma once

#include <cstdint>
#include <vector>

namespace shoal::cluster {

/// Slurm's default "block" distribution: ranks 0..k-1 on the first node, and so on; when tasks
/// do not divide evenly the first nodes get one more. With `cyclic` (--distribution=cyclic) the
/// same counts, ranks dealt in turn: rank r on node r mod `nodes`. Returns one rank list per
/// node; nodes beyond `ntasks` get none. (Which jobs start where is the policy's.)
std::vector<std::vector<uint32_t>> distribute_tasks(uint32_t ntasks, uint32_t nodes,
                                                    bool cyclic = false);

}  // namespace shoal::cluster
