// A reconfigure's nodes and partitions applied while the controller runs: the file read again
// (runtime/bootstrap/reconfigure.cpp) names them, this compares them with what is in force.

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "actors/controller/controller_state.hpp"
#include "config/config_diff.hpp"
#include "config/config_lines.hpp"

namespace shoal::actors::ctl {

namespace {

/// What the file's PartitionName= lines change, by name.
struct partition_changes {
  std::vector<std::string> added;
  std::vector<std::string> changed;  ///< other settings or members
  std::vector<std::string> removed;
};

const config::partition_config* partition_named(const std::vector<config::partition_config>& parts,
                                                const std::string& name) {
  auto it = std::find_if(parts.begin(), parts.end(),
                         [&](const config::partition_config& p) { return p.name == name; });
  return it == parts.end() ? nullptr : &*it;
}

partition_changes compare_partitions(const std::vector<config::partition_config>& in_force,
                                     const std::vector<config::partition_config>& fresh) {
  partition_changes out;
  for (const auto& p : fresh) {
    const auto* now = partition_named(in_force, p.name);
    if (now == nullptr)
      out.added.push_back(p.name);
    else if (config::partition_line(*now) != config::partition_line(p))
      out.changed.push_back(p.name);
  }
  for (const auto& p : in_force)
    if (partition_named(fresh, p.name) == nullptr) out.removed.push_back(p.name);
  return out;
}

std::string listed(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
  return out.empty() ? "none" : out;
}

/// A node holding a job, or one a job still finishes on, cannot leave the configuration.
bool node_in_use(const msg::node_info& view) {
  using msg::node_state;
  return view.state == node_state::allocated || view.state == node_state::mixed ||
         view.state == node_state::completing || view.state == node_state::draining;
}

/// Why the file's nodes and partitions cannot be applied now (nothing is changed then), or "".
std::string layout_refusal(const controller_state& st, const config::node_changes& nodes,
                           const partition_changes& parts) {
  const bool nodes_change = !nodes.added.empty() || !nodes.removed.empty();
  if (nodes_change && st.cfg.torus3d)
    return "the nodes of a select/torus3d grid change only with a restart of shoalctld";
  if (nodes_change && st.power)
    return "nodes are added or removed under power saving only with a restart of shoalctld";
  if (!nodes.removed.empty() && !st.cfg.collector_nodes.empty())
    return "nodes are removed under CollectorNodes only with a restart of shoalctld";
  std::set<std::pair<std::string, std::string>> kinds;
  for (const auto& n : st.cfg.nodes)
    for (const auto& g : n.gres) kinds.emplace(g.name, g.type);
  for (const auto& n : nodes.added)
    for (const auto& g : n.gres)
      if (kinds.count({g.name, g.type}) == 0)
        return "node " + n.name + " has a generic resource no node had (" + g.name +
               (g.type.empty() ? "" : ":" + g.type) + "): restart shoalctld to add it";
  for (const auto& name : nodes.removed) {
    auto view = st.node_view.find(name);
    if (view != st.node_view.end() && node_in_use(view->second))
      return "node " + name + " is in use (" + msg::to_string(view->second.state) +
             "): it stays until its jobs end";
  }
  for (const auto& name : parts.removed)
    for (const auto& [id, job] : st.job_view)
      if (job.partition == name && !msg::is_finished(job.state))
        return "partition " + name + " is in use (job " + std::to_string(id) + " is " +
               msg::to_string(job.state) + " in it)";
  return "";
}

void remove_nodes(controller_self self, const std::vector<std::string>& removed) {
  auto& st = self->state;
  for (const auto& name : removed) {
    auto node = st.nodes.find(name);
    if (node != st.nodes.end()) {
      self->unlink_from(node->second);
      self->send_exit(node->second, caf::exit_reason::user_shutdown);
      st.nodes.erase(node);
    }
    st.node_view.erase(name);
    persist(self, node_key(name), nullptr);
    auto& nodes = st.cfg.nodes;
    nodes.erase(std::remove_if(nodes.begin(), nodes.end(),
                               [&](const config::node_config& n) { return n.name == name; }),
                nodes.end());
  }
}

/// New node actors, last in the nodes' order as the topology actor and the scheduler add them.
std::vector<caf::actor> add_nodes(controller_self self,
                                  const std::vector<config::node_config>& added) {
  auto& st = self->state;
  std::vector<caf::actor> actors;
  for (const auto& n : added) {
    auto node = spawn_node(self->system(), n, caf::actor_cast<caf::actor>(self),
                           st.cfg.heartbeat_timeout_ms, st.cfg.heartbeat_interval_ms, st.meters,
                           st.keeper, std::nullopt, st.gate);
    self->link_to(node);
    st.nodes.emplace(n.name, node);
    actors.push_back(caf::actor_cast<caf::actor>(node));
    st.cfg.nodes.push_back(n);
  }
  return actors;
}

/// Every partition takes the file's row: new actors for the new and changed ones (and for all
/// when the nodes changed: an actor resolves Nodes= against the node names it was given), the
/// removed ones end. Edits made with `update partitionname=` are dropped, as slurmctld drops
/// them on a reconfigure without ReconfigFlags=KeepPartInfo.
void adopt_file_partitions(controller_self self, const config::cluster_config& fresh,
                           const partition_changes& parts, bool nodes_changed) {
  auto& st = self->state;
  auto restart = [&](const std::string& name) {
    if (auto old = st.partitions.find(name); old != st.partitions.end()) {
      self->unlink_from(old->second);
      self->send(old->second, msg::cancel_atom_v);
      st.partitions.erase(old);
    }
  };
  for (const auto& name : parts.removed) restart(name);
  for (const auto& p : fresh.partitions) {
    bool fresh_row =
        nodes_changed ||
        std::find(parts.added.begin(), parts.added.end(), p.name) != parts.added.end() ||
        std::find(parts.changed.begin(), parts.changed.end(), p.name) != parts.changed.end();
    if (!fresh_row) continue;
    restart(p.name);
    start_partition(self, p);
  }
  st.cfg.partitions = fresh.partitions;
  if (!st.partition_edits.empty()) {
    st.partition_edits.clear();
    save_partition_edits(self);
  }
}

}  // namespace

caf::result<std::string> reconfigure_layout(controller_self self, config_ptr fresh,
                                            std::string user) {
  auto& st = self->state;
  st.attribute_to(user);
  auto nodes = config::compare_nodes(st.cfg.nodes, fresh->nodes);
  auto parts = compare_partitions(st.cfg.partitions, fresh->partitions);
  if (auto why = layout_refusal(st, nodes, parts); !why.empty()) {
    config::log().error("reconfigure: {}; the nodes and partitions in force stay user={}", why,
                        user);
    return make_error(errc::invalid_request, why + "; the nodes and partitions in force stay");
  }
  std::vector<std::string> added;
  for (const auto& n : nodes.added) added.push_back(n.name);
  const bool nodes_changed = !nodes.added.empty() || !nodes.removed.empty();
  if (nodes_changed) {
    remove_nodes(self, nodes.removed);
    auto actors = add_nodes(self, nodes.added);
    std::vector<std::string> names;
    for (const auto& n : st.cfg.nodes) names.push_back(n.name);
    st.node_names = std::make_shared<const std::vector<std::string>>(std::move(names));
    // Before the partition table below, which names the new nodes: both hear them in order.
    self->send(st.topology, msg::reconfig_atom_v, fresh);
    self->send(st.scheduler, msg::reconfig_atom_v, fresh, std::move(actors));
    drop_reserved_nodes(self, nodes.removed);
    start_health_checks(self);
  }
  const bool parts_changed = nodes_changed || !parts.added.empty() || !parts.changed.empty() ||
                             !parts.removed.empty() || !st.partition_edits.empty();
  if (parts_changed) {
    adopt_file_partitions(self, *fresh, parts, nodes_changed);
    publish_partitions(self);
  }
  auto text = "nodes_added=" + listed(added) + " nodes_removed=" + listed(nodes.removed) +
              " partitions_added=" + listed(parts.added) +
              " partitions_changed=" + listed(parts.changed) +
              " partitions_removed=" + listed(parts.removed);
  config::log().info("reconfigure {} user={}", text, user);
  if (!nodes.redefined.empty())
    config::log().warn(
        "reconfigure: the settings of node(s) {} changed; restart shoalctld to apply them",
        listed(nodes.redefined));
  if (!nodes.redefined.empty()) text += " restart_needed=NodeName(" + listed(nodes.redefined) + ")";
  return once_saved(self, std::move(text));
}

}  // namespace shoal::actors::ctl
