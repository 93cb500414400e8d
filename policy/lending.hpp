#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "policy/profile.hpp"

namespace shoal::policy {

/// PreemptMode=SUSPEND: `r` is suspended for a preemptor at `now`. It lends its CPUs, and the
/// memory of each node it was given whole (`node_memory(node)`: the node's memory; a whole-node
/// job holds all of it, so keeping it would never let the preemptor in), and keeps the memory it
/// asked for and its devices (running_job::lent). Its time left is kept in `remaining`; its end
/// is forever until it resumes. Nothing when it lends already.
void lend(running_job& r, int64_t now, const std::function<uint64_t(size_t)>& node_memory);

/// `r` resumes at `now`: it holds what it lent again, until now + remaining. Nothing unless it
/// lends.
void take_back(running_job& r, int64_t now);

}  // namespace shoal::policy
