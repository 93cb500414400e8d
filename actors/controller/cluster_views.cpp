#include "actors/controller/controller_state.hpp"

#include "topology/hostlist.hpp"
#include "topology/partition_summary.hpp"
#include "topology/torus.hpp"

namespace shoal::actors::ctl {

namespace {

/// A partition as listings show it, from the row its actor last answered with.
msg::partition_info partition_view(const config::partition_config& cfg,
                                   policy::preempt_mode cluster_mode) {
  msg::partition_info info;
  info.name = cfg.name;
  info.state = cfg.state;
  info.is_default = cfg.is_default;
  info.max_time_s = cfg.max_time_s;
  info.default_time_s = cfg.default_time_s;
  info.max_nodes = cfg.max_nodes;
  info.nodes = cfg.nodes;
  info.priority = cfg.priority;
  info.over_subscribe = config::over_subscribe_text(cfg);
  info.preempt_mode = policy::to_string(cfg.preempt_mode.value_or(cluster_mode));
  info.grace_time_s = cfg.grace_time_s;
  return info;
}

}  // namespace

void on_node_view(controller_self self, msg::node_info& info) {
  auto& st = self->state;
  self->send(st.topology, msg::view_atom_v, info);
  if (st.power) self->send(st.power, msg::view_atom_v, info);
  auto known = st.node_view.find(info.name);
  if (st.cluster)
    st.cluster->node_changed(known != st.node_view.end()
                                 ? std::optional<msg::node_state>{known->second.state}
                                 : std::nullopt,
                             info.state);
  st.node_view[info.name] = std::move(info);
}

std::vector<msg::node_info> list_nodes(controller_self self) {
  std::vector<msg::node_info> out;
  // find, not operator[]: a node not heard of yet must not get a view (cluster_meters counts each
  // view's first appearance).
  auto& view = self->state.node_view;
  for (auto& n : self->state.cfg.nodes) {
    auto it = view.find(n.name);
    out.push_back(it != view.end() ? it->second : msg::node_info{});
  }
  mark_maint_nodes(self->state, out);
  return out;
}

std::vector<msg::partition_info> list_partitions(controller_self self) {
  std::vector<msg::partition_info> out;
  for (auto& p : self->state.cfg.partitions)
    out.push_back(partition_view(p, self->state.cfg.scheduling.preempt_mode));
  return out;
}

std::vector<msg::partition_summary> summarize_partitions(controller_self self) {
  auto& view = self->state.node_view;
  auto state_of = [&view](const std::string& name) {
    auto it = view.find(name);
    return it != view.end() ? it->second.state : msg::node_state::unknown;
  };
  const auto& cfg = self->state.cfg;
  if (!cfg.torus3d) {
    auto sums = topology::summarize_partitions(list_partitions(self), state_of);
    split_maint_groups(self->state, sums);
    return sums;
  }
  // A torus's groups in Blue Gene/L's box form: a few boxes, not 512 names.
  auto boxes = [&cfg](const std::vector<std::string>& names) {
    auto text = topology::box_hostlist(cfg.torus.prefix, cfg.torus.dims, names);
    return text ? *text : topology::compress_hostlist_sorted(names);
  };
  return topology::summarize_partitions(list_partitions(self), state_of, boxes);
}

std::string render_config(controller_self self) {
  return config::render_config(self->state.cfg);
}

caf::result<std::vector<msg::pending_detail>> list_pending(controller_self self) {
  return self->delegate(self->state.scheduler, msg::pending_atom_v);
}

caf::result<msg::topology_view> allocation_map(controller_self self) {
  return self->delegate(self->state.topology, msg::map_atom_v);
}

caf::result<std::vector<msg::collector_info>> list_collectors(controller_self self) {
  if (!self->state.collectors) return std::vector<msg::collector_info>{};
  return self->delegate(self->state.collectors, msg::collectors_atom_v);
}

}  // namespace shoal::actors::ctl
