#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "messages/errc.hpp"
#include "messages/types.hpp"
#include "policy/feature_constraint.hpp"
#include "policy/gres.hpp"

namespace shoal::cluster {

/// Checks a new job against the configuration and fills in what the user left open: the default
/// partition, the node count (from -N, or from -n and the CPUs per node, or from -n and
/// --ntasks-per-node), the task count (one per node, or nodes x --ntasks-per-node as Slurm
/// sets it without -n), the time limit (the partition's DefaultTime, else MaxTime). `nodes` are the
/// current node views by name (for reported CPU counts), read only for the partition's members.
/// Pure. On a torus (SelectType=select/torus3d) a --geometry must fit the grid (in some rotation
/// unless --no-rotate) and sets the node count (-N, if given, must match); -w is refused. Off a
/// torus a --geometry is refused; --no-rotate, --conn-type and --node-use are accepted and
/// ignored, as Slurm does.
/// Errors name the problem: unknown_partition, unknown_node, unsatisfiable (more nodes than the
/// partition has, over MaxNodes or MaxTime, more tasks than -N x --ntasks-per-node, fewer
/// nodes with --mincpus CPUs than the job needs), invalid_request.
/// `gres` is the request's --gres as the controller parsed it (policy::parsed_workload); it is
/// checked against GresTypes and the partition's nodes, and written back to the request in
/// canonical form ("" for gpu:0 or none). `constraint` (-C, as parsed) may name only features some
/// node has (errc::invalid_request, "Invalid feature specification"), and the partition must hold
/// enough nodes satisfying it (errc::unsatisfiable, "Requested node configuration is not
/// available").
/// What no node of the partition can ever hold (the node count, CPUs, memory, GRES, features) is
/// refused in Slurm's two parts, on two lines: first what is missing (the err_msg slurmctld sends,
/// "CPU count per node can not be satisfied: ..." or "Memory specification can not be satisfied:
/// ..." where Slurm has one), then Slurm's error text alone on the last line, the one its clients
/// print after "Batch job submission failed: ".
shoal::expected<msg::job_request> resolve_submission(
    const config::cluster_config& cfg, const std::map<std::string, msg::node_info>& nodes,
    msg::job_request req, const policy::gres_list& gres,
    const std::optional<policy::feature_constraint>& constraint = std::nullopt);

}  // namespace shoal::cluster

namespace shoal::cluster {

/// A batch job's output path: `pattern` (default "shoal-%j.out", for an array task
/// "shoal-%A_%a.out") with %j (job id), %u (user), %x (job name), %A (array job id), %a (array
/// task id) and %% replaced, made absolute against the job's working directory.
std::string expand_output_path(const std::string& pattern, uint64_t job_id,
                               const msg::job_request& req, uint64_t array_job_id = 0,
                               int64_t array_task_id = -1);

}  // namespace shoal::cluster
