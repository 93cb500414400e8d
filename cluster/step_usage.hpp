#pragma once

// A step's resource use over its nodes, from what each node's step daemon measured there
// (msg::step_usage in StepExit): what accounting keeps per step, as Slurm's sacct shows it
// (TotalCPU sums the nodes, MaxRSS is the highest node with where it was, AveRSS averages).

#include <string>

#include "messages/types.hpp"

namespace shoal::cluster {

/// Adds `part`, measured on `node`, to the step's `total`: CPU, I/O and tasks summed, peaks the
/// highest (with their node), the lowest per-task CPU the lowest (with its node and task), the
/// average weighted by each side's samples.
void add_node_usage(msg::step_usage& total, const msg::step_usage& part, const std::string& node);

/// Adds a step's figures over its nodes to a job's `total` (what `show job` shows of what its
/// steps used): CPU and I/O summed, peaks the highest with where they were (their node and task
/// as the step had them). Tasks, the average and the lowest per-task CPU are per step and are
/// left alone.
void add_step_usage(msg::step_usage& total, const msg::step_usage& step);

}  // namespace shoal::cluster
