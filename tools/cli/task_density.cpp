#include "tools/cli/task_density.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "config/config.hpp"
#include "messages/caf/type_ids.hpp"
#include "messages/errc.hpp"
#include "topology/hostlist.hpp"

namespace shoal::cli {

namespace {

std::string density_text(const task_density& d) {
  std::string out;
  if (d.per_core > 0) out = "--ntasks-per-core=" + std::to_string(d.per_core);
  if (d.per_socket > 0)
    out += (out.empty() ? "" : " ") + std::string{"--ntasks-per-socket="} +
           std::to_string(d.per_socket);
  return out;
}

shoal::error unavailable(const std::string& why) {
  // As cluster/submission.hpp: the explanation, then Slurm's text on a line of its own.
  return shoal::error(errc::unsatisfiable, why + "\nRequested node configuration is not available");
}

std::vector<std::string> expand_or_empty(const std::string& expr) {
  if (expr.empty()) return {};
  auto names = topology::expand_hostlist(expr);
  return names ? std::move(*names) : std::vector<std::string>{};
}

}  // namespace

shoal::error apply_task_density(session& s, const job_options& o, msg::job_request& req) {
  auto density = parse_task_density(o);
  if (!density) return std::move(density.error());
  if (density->per_core == 0 && density->per_socket == 0) return {};
  auto nodes = ask<std::vector<msg::node_info>>(s, msg::client_op::nodes);
  if (!nodes) return std::move(nodes.error());
  // Which nodes the tasks may land on.
  std::vector<std::string> candidates;
  std::string where;
  if (req.job_id != 0) {
    auto job = ask<msg::job_info>(s, msg::jobs_atom_v, req.job_id);
    if (!job) return std::move(job.error());
    candidates = expand_or_empty(job->nodelist);
    where = "job " + std::to_string(req.job_id);
  } else {
    auto parts = ask<std::vector<msg::partition_info>>(s, msg::client_op::partitions);
    if (!parts) return std::move(parts.error());
    auto part = std::find_if(parts->begin(), parts->end(), [&](const msg::partition_info& p) {
      return req.partition.empty() ? p.is_default : p.name == req.partition;
    });
    // An unknown partition is the controller's to refuse, in its words.
    if (part == parts->end()) return {};
    auto excluded = expand_or_empty(req.exclude);
    for (auto& n : part->nodes)
      if (std::find(excluded.begin(), excluded.end(), n) == excluded.end()) candidates.push_back(n);
    where = "partition " + part->name;
  }
  // Each node's layout: the config file's NodeName= line where it says, else the node's report.
  std::map<std::string, const config::node_config*> configured;
  shoal::expected<config::cluster_config> full = config::cluster_config{};
  if (!s.conf.path.empty()) full = config::load_config(s.conf.path);
  if (full)
    for (auto& n : full->nodes) configured[n.name] = &n;
  auto cpt = std::max<uint32_t>(1, req.cpus_per_task);
  uint32_t bound = 0;
  size_t usable = 0;
  for (auto& name : candidates) {
    auto info = std::find_if(nodes->begin(), nodes->end(),
                             [&](const msg::node_info& n) { return n.name == name; });
    if (info == nodes->end()) continue;
    const auto& r = info->reported;
    uint32_t sockets = r.sockets, cores = r.cores_per_socket, threads = r.threads_per_core;
    if (auto it = configured.find(name); it != configured.end()) {
      if (it->second->sockets != 0) sockets = it->second->sockets;
      if (it->second->cores_per_socket != 0) cores = it->second->cores_per_socket;
      if (it->second->threads_per_core != 0) threads = it->second->threads_per_core;
    }
    auto cpus = info->cpus != 0 ? info->cpus : r.cpus;
    if (cpus == 0) continue;  // never heard from, nothing configured: nothing to go by
    auto limit =
        tasks_per_node_limit(consistent_shape(cpus, sockets, cores, threads), *density, cpt);
    if (limit == 0) continue;
    ++usable;
    bound = bound == 0 ? limit : std::min(bound, limit);
  }
  auto asked = density_text(*density);
  if (bound == 0)
    return unavailable("no node of " + where + " takes a task of " + std::to_string(cpt) +
                       " CPUs under " + asked);
  auto& per_node = req.workload.ntasks_per_node;
  if (per_node > bound)
    return unavailable("--ntasks-per-node=" + std::to_string(per_node) + " tasks, but " + asked +
                       " lets the nodes of " + where + " take " + std::to_string(bound));
  if (req.ntasks == 0 && per_node == 0) {
    // Slurm's default count: one task a node, or one; a step's, one on each node of its job.
    if (req.min_nodes > 0)
      req.ntasks = req.min_nodes;
    else
      req.ntasks = req.job_id != 0 ? static_cast<uint32_t>(candidates.size()) : 1;
  }
  if (per_node == 0) per_node = bound;
  uint64_t room = req.min_nodes > 0 ? uint64_t{req.min_nodes} : usable;
  if (req.ntasks > room * per_node)
    return unavailable(std::to_string(req.ntasks) + " tasks at most " + std::to_string(per_node) +
                       " a node (" + asked + ") need " +
                       std::to_string((uint64_t{req.ntasks} + per_node - 1) / per_node) +
                       " nodes, " +
                       (req.min_nodes > 0 ? "-N asks for " + std::to_string(req.min_nodes)
                                          : where + " has " + std::to_string(usable)));
  return {};
}

}  // namespace shoal::cli
