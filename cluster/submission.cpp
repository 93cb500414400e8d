#include "cluster/submission.hpp"

#include <algorithm>
#include <array>
#include <set>
#include <unordered_map>

#include "config/duration.hpp"
#include "messages/errc.hpp"
#include "policy/gres.hpp"
#include "topology/hostlist.hpp"

namespace shoal::cluster {

namespace {

/// Slurm's MaxTasksPerNode default; also keeps a typo like -n 4000000000 from costing memory.
constexpr uint32_t max_tasks_per_node = 512;

const config::partition_config* find_partition(const config::cluster_config& cfg,
                                               const std::string& name) {
  for (auto& p : cfg.partitions)
    if (p.name == name) return &p;
  return nullptr;
}

std::string partition_names(const config::cluster_config& cfg) {
  std::string out;
  for (auto& p : cfg.partitions) out += (out.empty() ? "" : ", ") + p.name;
  return out.empty() ? "none configured" : out;
}

/// Expands a -w/-x list (a node named twice counts once) and checks every name is a member of
/// the partition.
shoal::expected<std::vector<std::string>> member_list(const std::string& expr,
                                                      const config::partition_config& part,
                                                      const char* option) {
  if (expr.empty()) return std::vector<std::string>{};  // the common case costs nothing
  auto names = topology::expand_hostlist(expr);
  if (!names) return names.error();
  std::set<std::string> members(part.nodes.begin(), part.nodes.end());
  std::set<std::string> seen;
  std::vector<std::string> unique;
  for (auto& n : *names) {
    if (members.count(n) == 0)
      return error(errc::unknown_node,
                   std::string{option} + ": node '" + n + "' is not in partition " + part.name);
    if (seen.insert(n).second) unique.push_back(n);
  }
  return unique;
}

/// ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE's text, Slurm's words for what no node can hold.
constexpr const char* node_config_unavailable = "Requested node configuration is not available";
/// slurmctld's err_msg when no node has the CPUs a node must give the job (node_scheduler.c).
constexpr const char* cpu_count_unsatisfiable = "CPU count per node can not be satisfied";
/// slurmctld's err_msg when no node has the memory asked for.
constexpr const char* memory_unsatisfiable = "Memory specification can not be satisfied";

/// A refusal as Slurm's clients print it: `explanation` first (slurmctld's err_msg, its own error
/// line), then `slurm_text`, the error's text, which sbatch prints after "Batch job submission
/// failed: " and scripts match whole.
shoal::error refusal(errc code, const std::string& explanation, const char* slurm_text) {
  return error(code, explanation + "\n" + slurm_text);
}

std::string dims_text(const std::array<int, 3>& d) {
  return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]);
}

/// Checks the torus options (--geometry, --conn-type, --node-use, -w) against the cluster and
/// turns a geometry into the node count.
shoal::error check_shape(const config::cluster_config& cfg, msg::job_request& req) {
  const auto& shape = req.shape;
  if (shape.conn_type != "" && shape.conn_type != "mesh" && shape.conn_type != "torus")
    return error(errc::invalid_request,
                 "invalid --conn-type '" + shape.conn_type + "' (use mesh or torus)");
  if (shape.node_use != "" && shape.node_use != "coprocessor" && shape.node_use != "virtual")
    return error(errc::invalid_request,
                 "invalid --node-use '" + shape.node_use + "' (use coprocessor or virtual)");
  if (!cfg.torus3d) {
    // As Slurm: the other torus options are accepted everywhere and mean nothing off a torus.
    if (!shape.geometry.empty())
      return error(errc::invalid_request,
                   "--geometry needs a 3-D torus (SelectType=select/torus3d); this "
                   "cluster uses " +
                       std::string{cfg.select_type == topology::selection_policy::linear
                                       ? "select/linear"
                                       : "select/consecutive"} +
                       ": ask for a node count with -N instead");
    return {};
  }
  if (!req.nodelist.empty())
    return error(errc::invalid_request,
                 "-w/--nodelist is not supported on a 3-D torus (SelectType=select/torus3d): "
                 "ask for a --geometry or a node count");
  if (shape.geometry.empty()) return {};
  if (shape.geometry.size() != 3 ||
      std::any_of(shape.geometry.begin(), shape.geometry.end(), [](auto g) { return g == 0; }))
    return error(errc::invalid_request, "invalid --geometry (use AxBxC, each at least 1)");
  std::array<int, 3> want{};
  for (int d = 0; d < 3; ++d)
    want[d] = static_cast<int>(std::min<uint32_t>(shape.geometry[d], 1 << 20));
  auto dims = cfg.torus.dims;
  auto fits = [&](std::array<int, 3> g) {
    return g[0] <= dims[0] && g[1] <= dims[1] && g[2] <= dims[2];
  };
  bool fit = fits(want);
  if (shape.rotate) {
    auto g = want;
    std::sort(g.begin(), g.end());
    do fit = fit || fits(g);
    while (std::next_permutation(g.begin(), g.end()));
  }
  if (!fit)
    return error(errc::unsatisfiable, "geometry " + dims_text(want) + " does not fit the " +
                                          dims_text(dims) + " torus" +
                                          (shape.rotate ? "" : " without rotation"));
  auto volume = static_cast<uint32_t>(want[0] * want[1] * want[2]);
  if (req.min_nodes != 0 && req.min_nodes != volume)
    return error(errc::invalid_request, "-N " + std::to_string(req.min_nodes) +
                                            " does not match --geometry " + dims_text(want) + " (" +
                                            std::to_string(volume) + " base partitions)");
  req.min_nodes = volume;
  return {};
}

/// --gres: known names (GresTypes=), and enough nodes of the partition that have the devices
/// (-w nodes among them); writes the request back in canonical form ("" for gpu:0 or none).
shoal::error check_gres(const config::cluster_config& cfg, const config::partition_config& part,
                        const std::vector<std::string>& required,
                        const std::vector<std::string>& excluded, const policy::gres_list& gres,
                        msg::job_request& req) {
  req.gres = policy::gres_text(gres);
  if (gres.empty()) return {};
  std::string types;
  for (auto& t : cfg.gres_types) types += (types.empty() ? "" : ",") + t;
  for (auto& item : gres)
    if (std::find(cfg.gres_types.begin(), cfg.gres_types.end(), item.name) == cfg.gres_types.end())
      return refusal(errc::invalid_request,
                     item.name + " is not a generic resource of this cluster (GresTypes=" +
                         (types.empty() ? std::string{"none"} : types) + ")",
                     "Invalid generic resource (gres) specification");
  std::unordered_map<std::string, const config::node_config*> by_name;
  for (auto& n : cfg.nodes) by_name.emplace(n.name, &n);
  auto has_all = [&](const std::string& name) {
    auto it = by_name.find(name);
    if (it == by_name.end()) return false;
    for (auto& item : gres) {
      uint64_t have = 0;
      for (auto& g : it->second->gres)
        if (g.name == item.name && (item.type.empty() || g.type == item.type)) have += g.count;
      if (have < item.count) return false;
    }
    return true;
  };
  uint32_t able = 0;
  for (auto& name : part.nodes) {
    if (std::find(excluded.begin(), excluded.end(), name) != excluded.end()) continue;
    if (has_all(name)) {
      ++able;
    } else if (std::find(required.begin(), required.end(), name) != required.end()) {
      return refusal(errc::unsatisfiable, "node " + name + " (-w) does not have --gres=" + req.gres,
                     node_config_unavailable);
    }
  }
  if (able < std::max<uint32_t>(1, req.min_nodes))
    return refusal(errc::unsatisfiable,
                   std::to_string(std::max<uint32_t>(1, req.min_nodes)) +
                       " nodes with --gres=" + req.gres + " requested, partition " + part.name +
                       " has " + std::to_string(able),
                   node_config_unavailable);
  return {};
}

/// -C/--constraint: every feature it names is some node's (else sbatch's "Invalid feature
/// specification"), and under one of its choices the partition holds enough eligible nodes
/// outside the exclusions, the -w nodes among them.
shoal::error check_constraint(const config::cluster_config& cfg,
                              const config::partition_config& part,
                              const std::vector<std::string>& required,
                              const std::vector<std::string>& excluded,
                              const std::optional<policy::feature_constraint>& constraint,
                              const msg::job_request& req) {
  if (!constraint) return {};
  std::vector<std::vector<std::string>> features;
  features.reserve(cfg.nodes.size());
  std::unordered_map<std::string, size_t> index;
  std::set<std::string> known;
  for (auto& n : cfg.nodes) {
    index.emplace(n.name, features.size());
    features.push_back(config::feature_list(n));
    known.insert(features.back().begin(), features.back().end());
  }
  for (auto& name : constraint->names())
    if (known.count(name) == 0)
      return refusal(errc::invalid_request, "no node has feature '" + name + "'",
                     "Invalid feature specification");
  size_t best = 0;
  for (auto& choice : policy::resolve_constraint(*constraint, features)) {
    bool required_ok = std::all_of(required.begin(), required.end(), [&](const std::string& n) {
      return choice.eligible[index.at(n)];
    });
    if (!required_ok) continue;
    size_t able = 0;
    for (auto& name : part.nodes)
      if (choice.eligible[index.at(name)] &&
          std::find(excluded.begin(), excluded.end(), name) == excluded.end())
        ++able;
    bool counts_ok = true;
    for (auto& c : choice.counts) {
      size_t have = 0;
      for (auto& name : part.nodes)
        if (c.nodes[index.at(name)]) ++have;
      counts_ok = counts_ok && have >= c.count;
    }
    if (counts_ok) best = std::max(best, able);
  }
  auto want = std::max<uint32_t>(1, req.min_nodes);
  if (best >= want) return {};
  return refusal(errc::unsatisfiable,
                 std::to_string(want) + " nodes with --constraint=" + constraint->text +
                     " requested, partition " + part.name + " has " + std::to_string(best),
                 node_config_unavailable);
}

/// --mincpus: a node with fewer CPUs is never used, so the partition must hold enough that have
/// them, outside the exclusions.
shoal::error check_min_cpus(const config::partition_config& part,
                            const std::map<std::string, msg::node_info>& nodes,
                            const std::vector<std::string>& excluded, const msg::job_request& req) {
  if (req.workload.min_cpus == 0) return {};
  uint32_t big_enough = 0;
  for (auto& name : part.nodes) {
    if (std::find(excluded.begin(), excluded.end(), name) != excluded.end()) continue;
    auto it = nodes.find(name);
    if (it == nodes.end()) continue;
    auto c = it->second.cpus > 0 ? it->second.cpus : it->second.reported.cpus;
    // A node not yet heard from, with no CPUs= line, may well have them.
    if (c == 0 || c >= req.workload.min_cpus) ++big_enough;
  }
  if (big_enough >= req.min_nodes) return {};
  return refusal(errc::unsatisfiable,
                 std::string{cpu_count_unsatisfiable} + ": " + std::to_string(req.min_nodes) +
                     " nodes with at least " + std::to_string(req.workload.min_cpus) +
                     " CPUs (--mincpus) requested, partition " + part.name + " has " +
                     std::to_string(big_enough),
                 node_config_unavailable);
}

/// CPUs per task and memory: a task must fit on one node and the memory asked for on each node
/// must be there, as the scheduler places (policy/resources.cpp), so the partition must hold
/// enough nodes that can ever take the job, the -w ones among them. A node not yet heard from,
/// with nothing configured, may well fit.
shoal::error check_node_fit(const config::partition_config& part,
                            const std::map<std::string, msg::node_info>& nodes,
                            const std::vector<std::string>& required,
                            const std::vector<std::string>& excluded, const msg::job_request& req) {
  auto cpus_per_task = std::max<uint32_t>(1, req.cpus_per_task);
  auto memory =
      std::max(req.workload.mem_per_node_mb, req.workload.mem_per_cpu_mb * uint64_t{cpus_per_task});
  // Each node's shortfall, CPUs first: slurmctld names the first of them that no node meets.
  auto cpus_fit = [&](const std::string& name) {
    auto it = nodes.find(name);
    if (it == nodes.end()) return true;
    auto cpus = it->second.cpus > 0 ? it->second.cpus : it->second.reported.cpus;
    return cpus == 0 || cpus >= cpus_per_task;
  };
  auto memory_fits = [&](const std::string& name) {
    auto it = nodes.find(name);
    if (it == nodes.end()) return true;
    auto& n = it->second;
    auto real_memory = n.real_memory_mb > 0 ? n.real_memory_mb : n.reported.real_memory_mb;
    return real_memory == 0 || real_memory >= memory;
  };
  auto what = [&] {
    std::string text = std::to_string(std::max<uint32_t>(1, req.min_nodes)) + " nodes with " +
                       std::to_string(cpus_per_task) + " CPUs per task";
    if (memory > 0) text += " and " + std::to_string(memory) + " MB of memory";
    return text;
  };
  auto shortfall = [&](bool cpus_short) {
    return std::string{cpus_short ? cpu_count_unsatisfiable : memory_unsatisfiable} + ": ";
  };
  uint32_t able = 0;
  bool some_cpus_fit = false;
  for (auto& name : part.nodes) {
    if (std::find(excluded.begin(), excluded.end(), name) != excluded.end()) continue;
    bool cpus_ok = cpus_fit(name);
    some_cpus_fit = some_cpus_fit || cpus_ok;
    if (cpus_ok && memory_fits(name))
      ++able;
    else if (std::find(required.begin(), required.end(), name) != required.end())
      return refusal(errc::unsatisfiable,
                     shortfall(!cpus_ok) + "node " + name + " (-w) cannot take " + what(),
                     node_config_unavailable);
  }
  if (able >= std::max<uint32_t>(1, req.min_nodes)) return {};
  return refusal(errc::unsatisfiable,
                 shortfall(!some_cpus_fit) + what() + " requested, partition " + part.name +
                     " has " + std::to_string(able),
                 node_config_unavailable);
}

}  // namespace

shoal::expected<msg::job_request> resolve_submission(
    const config::cluster_config& cfg, const std::map<std::string, msg::node_info>& nodes,
    msg::job_request req, const policy::gres_list& gres,
    const std::optional<policy::feature_constraint>& constraint) {
  const config::partition_config* part = nullptr;
  if (req.partition.empty()) {
    for (auto& p : cfg.partitions)
      if (p.is_default) part = &p;
    if (part == nullptr)
      return error(errc::unknown_partition,
                   "no default partition; name one with -p (" + partition_names(cfg) + ")");
    req.partition = part->name;
  } else if ((part = find_partition(cfg, req.partition)) == nullptr) {
    return error(errc::unknown_partition, "invalid partition name '" + req.partition +
                                              "' (partitions: " + partition_names(cfg) + ")");
  }
  if (req.job_id == 0 && (part->state == "DRAIN" || part->state == "INACTIVE"))
    return error(errc::unsatisfiable, "Required partition not available (inactive or drain)");
  if (!req.batch && req.argv.empty()) return error(errc::invalid_request, "no command to run");
  if (auto err = check_shape(cfg, req)) return err;
  auto required = member_list(req.nodelist, *part, "-w/--nodelist");
  if (!required) return std::move(required.error());
  auto excluded = member_list(req.exclude, *part, "-x/--exclude");
  if (!excluded) return std::move(excluded.error());
  for (auto& n : *required)
    if (std::find(excluded->begin(), excluded->end(), n) != excluded->end())
      return error(errc::invalid_request, "node " + n + " is both required and excluded");
  if (!required->empty()) req.nodelist = topology::compress_hostlist(*required);

  auto cpus_per_task = std::max<uint32_t>(1, req.cpus_per_task);
  const auto per_node = req.workload.ntasks_per_node;
  if (per_node > 0 && req.ntasks == 0) {
    // As sbatch and srun: without -n, the count is nodes x --ntasks-per-node (one node when -N
    // is open too).
    req.min_nodes = std::max<uint32_t>({1, req.min_nodes, static_cast<uint32_t>(required->size())});
    req.ntasks =
        static_cast<uint32_t>(std::min<uint64_t>(uint64_t{req.min_nodes} * per_node, UINT32_MAX));
  }
  if (req.min_nodes == 0) {
    if (req.ntasks > 0) {
      // Whole nodes: as many as the tasks need at the smallest node's CPU count.
      uint32_t node_cpus = 0;
      for (auto& name : part->nodes) {
        auto it = nodes.find(name);
        if (it == nodes.end()) continue;
        auto& n = it->second;
        auto c = n.cpus > 0 ? n.cpus : n.reported.cpus;
        if (c > 0) node_cpus = node_cpus == 0 ? c : std::min(node_cpus, c);
      }
      auto fit = std::max<uint32_t>(1, std::max<uint32_t>(1, node_cpus) / cpus_per_task);
      if (per_node > 0) fit = std::min(fit, per_node);
      req.min_nodes = (req.ntasks + fit - 1) / fit;
    } else {
      req.min_nodes = 1;
    }
    req.min_nodes = std::max<uint32_t>(req.min_nodes, static_cast<uint32_t>(required->size()));
  }
  if (req.min_nodes < required->size())
    return error(errc::invalid_request, "-w names " + std::to_string(required->size()) +
                                            " nodes but -N asks for " +
                                            std::to_string(req.min_nodes));
  if (req.ntasks == 0) req.ntasks = req.min_nodes;
  if (req.ntasks > static_cast<uint64_t>(req.min_nodes) * max_tasks_per_node)
    return error(errc::unsatisfiable, std::to_string(req.ntasks) + " tasks on " +
                                          std::to_string(req.min_nodes) + " nodes is more than " +
                                          std::to_string(max_tasks_per_node) +
                                          " tasks per node (MaxTasksPerNode)");
  if (per_node > 0 && req.ntasks > uint64_t{req.min_nodes} * per_node)
    return refusal(errc::unsatisfiable,
                   std::to_string(req.ntasks) + " tasks at most " + std::to_string(per_node) +
                       " per node (--ntasks-per-node) need " +
                       std::to_string((uint64_t{req.ntasks} + per_node - 1) / per_node) +
                       " nodes, -N asks for " + std::to_string(req.min_nodes),
                   node_config_unavailable);
  if (auto err = check_min_cpus(*part, nodes, *excluded, req)) return err;
  if (auto err = check_gres(cfg, *part, *required, *excluded, gres, req)) return err;
  if (auto err = check_constraint(cfg, *part, *required, *excluded, constraint, req)) return err;
  if (req.ntasks < req.min_nodes && !req.batch)
    return error(errc::invalid_request, "fewer tasks (-n " + std::to_string(req.ntasks) +
                                            ") than nodes (-N " + std::to_string(req.min_nodes) +
                                            ")");
  auto usable = part->nodes.size() - excluded->size();
  if (req.min_nodes > usable)
    return refusal(errc::unsatisfiable,
                   std::to_string(req.min_nodes) + " nodes requested, partition " + part->name +
                       " has " + std::to_string(usable) +
                       (excluded->empty() ? "" : " after exclusions"),
                   node_config_unavailable);
  if (part->max_nodes > 0 && req.min_nodes > part->max_nodes)
    return error(errc::unsatisfiable,
                 std::to_string(req.min_nodes) + " nodes requested, partition " + part->name +
                     " allows at most " + std::to_string(part->max_nodes) + " (MaxNodes)");
  if (auto err = check_node_fit(*part, nodes, *required, *excluded, req)) return err;
  if (req.time_limit_s == 0)
    req.time_limit_s =
        part->default_time_s != config::unlimited ? part->default_time_s : part->max_time_s;
  if (part->max_time_s != config::unlimited &&
      (req.time_limit_s == config::unlimited || req.time_limit_s > part->max_time_s))
    return error(errc::unsatisfiable, "time limit " + config::format_duration(req.time_limit_s) +
                                          " exceeds partition " + part->name + "'s MaxTime " +
                                          config::format_duration(part->max_time_s));
  if (req.name.empty())
    req.name = req.batch ? "script" : req.argv.empty() ? "job" : req.argv.front();
  return req;
}

}  // namespace shoal::cluster

namespace shoal::cluster {

std::string expand_output_path(const std::string& pattern, uint64_t job_id,
                               const msg::job_request& req, uint64_t array_job_id,
                               int64_t array_task_id) {
  const std::string& in = !pattern.empty()    ? pattern
                          : array_job_id != 0 ? std::string{"shoal-%A_%a.out"}
                                              : std::string{"shoal-%j.out"};
  std::string out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%' || i + 1 == in.size()) {
      out += in[i];
      continue;
    }
    switch (in[++i]) {
      case 'j':
        out += std::to_string(job_id);
        break;
      case 'u':
        out += req.user;
        break;
      case 'x':
        out += req.name;
        break;
      case 'A':
        out += std::to_string(array_job_id != 0 ? array_job_id : job_id);
        break;
      case 'a':
        // Slurm prints NO_VAL (4294967294) for %a outside an array.
        out += array_task_id >= 0 ? std::to_string(array_task_id) : std::string{"4294967294"};
        break;
      case '%':
        out += '%';
        break;
      default:
        out += '%';
        out += in[i];
    }
  }
  if (!out.empty() && out.front() != '/') out = req.cwd + "/" + out;
  return out;
}

}  // namespace shoal::cluster
