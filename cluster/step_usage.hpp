#pragma once

// A step's resource use over its nodes, from what each node's step daemon measured there
// (msg::step_usage in StepExit): what accounting keeps per step, as Slurm's sacct shows it
// (TotalCPU sums the nodes, MaxRSS is the highest node with where it was, AveRSS averages).

#include <string>

#include "messages/types.hpp"

namespace shoal::cluster {

/// Adds `part`, measured on `node`, to the step's `total`: CPU and I/O summed, peaks the highest
/// (with their node), the average weighted by each side's samples.
void add_node_usage(msg::step_usage& total, const msg::step_usage& part, const std::string& node);

}  // namespace shoal::cluster
