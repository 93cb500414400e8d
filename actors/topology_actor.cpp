#include "actors/topology_actor.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <optional>
#include <unordered_map>

#include <caf/all.hpp>

#include "config/log.hpp"
#include "actors/metering.hpp"
#include "messages/type_ids.hpp"
#include "topology/hostlist.hpp"
#include "topology/torus.hpp"

namespace shoal::actors {

topology::torus_request torus_request_of(const msg::job_shape& shape, uint32_t node_count) {
  topology::torus_request req;
  if (shape.geometry.size() == 3)
    req.geometry =
        topology::coord3{static_cast<int>(shape.geometry[0]), static_cast<int>(shape.geometry[1]),
                         static_cast<int>(shape.geometry[2])};
  req.node_count = node_count;
  req.rotate = shape.rotate;
  req.conn = shape.conn_type == "mesh" ? topology::conn_type::mesh : topology::conn_type::torus;
  return req;
}

namespace {

/// A job holding nodes, as the map shows it.
struct holding {
  std::vector<size_t> nodes;  ///< config indices
  std::string nodelist;
  std::optional<topology::torus_allocation> prism;
  std::optional<topology::torus_request> request;
};

struct topology_state {
  static inline const char* name = "topology";
  caf::actor controller;
  caf::actor watcher;
  std::vector<std::string> names;  ///< config order
  std::unordered_map<std::string, size_t> index;
  std::vector<policy::node_capacity> capacity;
  std::vector<msg::node_state> states;
  std::vector<policy::partition_info> partitions;
  policy::pass_config config;
  std::string select_name;
  std::map<uint64_t, holding> running;
  /// Starts of job arrays in the last pass, in decision order, until their task ids arrive.
  std::map<uint64_t, std::deque<holding>> array_starts;
  // -- torus3d only --
  bool torus = false;
  config::torus_grid grid;
  std::vector<size_t> grid_of;    ///< config index -> grid index
  std::vector<size_t> config_of;  ///< grid index -> config index
};

using topology_self = caf::stateful_actor<topology_state>*;

/// The prism a set of grid nodes fills (they came from one torus_map::place): per dimension,
/// the covered coordinates are one run, possibly wrapping.
topology::torus_allocation prism_of(const topology::torus_map& map,
                                    const std::vector<size_t>& grid_nodes) {
  topology::torus_allocation a;
  for (int d = 0; d < 3; ++d) {
    int size = map.dims()[d];
    std::vector<bool> used(static_cast<size_t>(size), false);
    for (auto g : grid_nodes) used[static_cast<size_t>(map.coord_of(g)[d])] = true;
    int count = static_cast<int>(std::count(used.begin(), used.end(), true));
    int origin = 0;
    if (count < size)
      for (int c = 0; c < size; ++c)
        if (used[static_cast<size_t>(c)] && !used[static_cast<size_t>((c + size - 1) % size)])
          origin = c;
    a.origin[d] = origin;
    a.size[d] = count;
  }
  return a;
}

/// policy's node picker on a torus: the prism torus_map::place chooses among the members that
/// are available.
policy::node_picker torus_picker(topology_self self) {
  return [self](const policy::resource_request& req, const std::vector<size_t>& members,
                const std::vector<bool>& available, size_t count,
                const std::vector<uint32_t>&) -> std::optional<std::vector<size_t>> {
    auto& st = self->state;
    topology::torus_map map{st.grid.dims};
    for (size_t g = 0; g < map.size(); ++g) map.set_available(g, false);
    std::unordered_map<size_t, size_t> position;  // grid index -> member position
    for (size_t i = 0; i < members.size(); ++i) {
      auto g = st.grid_of[members[i]];
      position.emplace(g, i);
      if (available[i]) map.set_available(g, true);
    }
    topology::torus_request want;
    if (req.torus) want = *req.torus;
    want.node_count = static_cast<uint32_t>(count);
    auto where = map.place(want);
    if (!where) return std::nullopt;
    std::vector<size_t> out;
    for (auto g : map.nodes_of(*where)) {
      auto it = position.find(g);
      if (it == position.end()) return std::nullopt;
      out.push_back(it->second);
    }
    std::sort(out.begin(), out.end());
    return out;
  };
}

/// Usable now: up and idle, or busy only with jobs the scheduler placed (a node still cleaning
/// up after a job is not reused early).
std::vector<policy::node_capacity> usable_nodes(topology_self self,
                                                const std::vector<policy::running_job>& running) {
  auto& st = self->state;
  std::vector<bool> held(st.capacity.size(), false);
  for (auto& r : running)
    for (auto& share : r.alloc) held[share.node] = true;
  auto nodes = st.capacity;
  for (size_t i = 0; i < nodes.size(); ++i) {
    auto s = st.states[i];
    nodes[i].usable = s == msg::node_state::idle ||
                      (held[i] && (s == msg::node_state::allocated || s == msg::node_state::mixed));
  }
  return nodes;
}

holding hold_of(topology_self self, const policy::allocation& alloc,
                const std::optional<topology::torus_request>& request) {
  auto& st = self->state;
  holding h;
  std::vector<std::string> names;
  for (auto& share : alloc) {
    h.nodes.push_back(share.node);
    names.push_back(st.names[share.node]);
  }
  h.nodelist = topology::compress_hostlist(names);
  if (st.torus) {
    topology::torus_map map{st.grid.dims};
    std::vector<size_t> grid_nodes;
    for (auto n : h.nodes) grid_nodes.push_back(st.grid_of[n]);
    h.prism = prism_of(map, grid_nodes);
    h.nodelist = topology::box_expression(st.grid.prefix, st.grid.dims, *h.prism);
    h.request = request;
  }
  return h;
}

placement_reply place(topology_self self, const placement_request& req) {
  auto& st = self->state;
  placement_reply reply;
  reply.result = policy::schedule(req.candidates, req.running, st.partitions,
                                  usable_nodes(self, req.running), req.now, st.config);
  // The map shows what the scheduler says runs, plus what starts now.
  std::map<uint64_t, holding> running;
  for (auto& r : req.running) {
    auto known = st.running.find(r.id);
    running[r.id] =
        known != st.running.end() ? std::move(known->second) : hold_of(self, r.alloc, std::nullopt);
  }
  std::unordered_map<uint64_t, const policy::pending_job*> by_id;
  for (auto& c : req.candidates) by_id.emplace(c.id, &c);
  st.array_starts.clear();
  for (auto& d : reply.result.started) {
    auto c = by_id.find(d.job);
    auto h = hold_of(self, d.alloc, c != by_id.end() ? c->second->request.torus : std::nullopt);
    if (st.torus) reply.box_nodelists[d.job] = h.nodelist;
    if (std::find(req.arrays.begin(), req.arrays.end(), d.job) != req.arrays.end())
      st.array_starts[d.job].push_back(std::move(h));
    else
      running[d.job] = std::move(h);
  }
  st.running = std::move(running);
  return reply;
}

msg::topology_view map_view(topology_self self) {
  auto& st = self->state;
  msg::topology_view view;
  view.select_type = st.select_name;
  std::vector<uint64_t> holder(st.names.size(), 0);
  for (auto& [job, h] : st.running)
    for (auto n : h.nodes) holder[n] = job;
  auto add_node = [&](size_t i, std::vector<uint32_t> coord) {
    view.nodes.push_back({st.names[i], st.states[i], holder[i], std::move(coord)});
  };
  if (st.torus) {
    topology::torus_map map{st.grid.dims};
    for (auto d : st.grid.dims) view.dims.push_back(static_cast<uint32_t>(d));
    for (size_t g = 0; g < st.config_of.size(); ++g) {
      auto c = map.coord_of(g);
      add_node(st.config_of[g], {static_cast<uint32_t>(c[0]), static_cast<uint32_t>(c[1]),
                                 static_cast<uint32_t>(c[2])});
    }
  } else {
    for (size_t i = 0; i < st.names.size(); ++i) add_node(i, {});
  }
  for (auto& [job, h] : st.running) {
    msg::map_allocation a;
    a.job_id = job;
    a.nodelist = h.nodelist;
    a.node_count = static_cast<uint32_t>(h.nodes.size());
    if (h.prism) {
      for (int d = 0; d < 3; ++d) {
        a.origin.push_back(static_cast<uint32_t>(h.prism->origin[d]));
        a.size.push_back(static_cast<uint32_t>(h.prism->size[d]));
      }
      bool mesh = h.request && h.request->conn == topology::conn_type::mesh;
      a.conn_type = mesh ? "mesh" : "torus";
      a.node_use = "coprocessor";
    }
    view.allocations.push_back(std::move(a));
  }
  return view;
}

void configure(topology_self self, const config::cluster_config& cfg) {
  auto& st = self->state;
  for (auto& n : cfg.nodes) {
    st.index.emplace(n.name, st.names.size());
    st.names.push_back(n.name);
    policy::node_capacity cap;
    cap.cpus = std::max<uint32_t>(1, n.cpus);
    cap.memory_mb = n.real_memory_mb;
    cap.usable = false;
    st.capacity.push_back(cap);
    st.config.placement.weights.push_back(n.weight);
  }
  st.states.assign(st.names.size(), msg::node_state::unknown);
  for (auto& p : cfg.partitions) {
    policy::partition_info part;
    part.up = p.state == "UP";
    for (auto& n : p.nodes) part.nodes.push_back(st.index.at(n));
    part.max_time = p.max_time_s > 0 ? p.max_time_s : 0;
    part.priority_tier = p.priority;
    part.exclusive = p.exclusive;
    part.oversubscribe = p.oversubscribe;
    part.force = p.force;
    st.partitions.push_back(std::move(part));
  }
  auto& pc = st.config;
  const auto& s = cfg.scheduling;
  pc.backfill = s.backfill;
  pc.mode = s.conservative ? policy::backfill_mode::conservative : policy::backfill_mode::easy;
  pc.max_job_test = s.bf_max_job_test;
  pc.window = s.bf_window_s;
  pc.resolution = s.bf_resolution_s;
  pc.placement.select = s.consumable ? policy::select_type::cons_tres
                        : cfg.select_type == topology::selection_policy::linear
                            ? policy::select_type::linear
                            : policy::select_type::consecutive;
  st.select_name = s.consumable                                            ? "select/cons_tres"
                   : cfg.select_type == topology::selection_policy::linear ? "select/linear"
                                                                           : "select/consecutive";
  if (!cfg.torus3d) return;
  st.torus = true;
  st.select_name = "select/torus3d";
  st.grid = cfg.torus;
  topology::torus_map map{st.grid.dims};
  st.grid_of.resize(st.names.size());
  st.config_of.resize(map.size());
  const std::string digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  for (size_t i = 0; i < st.names.size(); ++i) {
    const auto& name = st.names[i];
    topology::coord3 c;
    for (int d = 0; d < 3; ++d) c[d] = static_cast<int>(digits.find(name[name.size() - 3 + d]));
    st.grid_of[i] = map.index_of(c);
    st.config_of[st.grid_of[i]] = i;
  }
  st.config.placement.picker = torus_picker(self);
}

caf::behavior topology_behavior(topology_self self, const config::cluster_config& cfg,
                                caf::actor controller, metrics::registry* meters) {
  actor_probe probe{self, meters, "topology"};
  self->state.controller = std::move(controller);
  configure(self, cfg);
  return {
      probe.metered("view_node",
                    [self](msg::view_atom, const msg::node_info& info) {
                      auto& st = self->state;
                      auto it = st.index.find(info.name);
                      if (it == st.index.end()) return;
                      auto i = it->second;
                      // Reported CPUs and memory fill in what the config left at 0.
                      if (info.cpus > 0) st.capacity[i].cpus = info.cpus;
                      if (info.real_memory_mb > 0) st.capacity[i].memory_mb = info.real_memory_mb;
                      bool was_idle = st.states[i] == msg::node_state::idle;
                      st.states[i] = info.state;
                      if (!was_idle && info.state == msg::node_state::idle && st.watcher)
                        self->send(st.watcher, msg::freed_atom_v);
                    }),
      probe.metered("watch",
                    [self](msg::watch_atom, caf::actor& watcher) {
                      self->state.watcher = std::move(watcher);
                    }),
      probe.metered("place",
                    [self](msg::place_atom, const placement_request& req) -> placement_reply {
                      auto started_at = std::chrono::steady_clock::now();
                      auto reply = place(self, req);
                      for (auto& [job, nodelist] : reply.box_nodelists)
                        self->send(self->state.controller, msg::boxlist_atom_v, job, nodelist);
                      auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                                    std::chrono::steady_clock::now() - started_at)
                                    .count();
                      config::log().debug(
                          "placement pass candidates={} running={} started={} tested={} us={}",
                          req.candidates.size(), req.running.size(), reply.result.started.size(),
                          reply.result.tested, us);
                      return reply;
                    }),
      probe.metered("release",
                    [self](msg::release_atom, uint64_t job) { self->state.running.erase(job); }),
      probe.metered("assign",
                    [self](msg::assign_atom, uint64_t array, std::vector<uint64_t>& tasks) {
                      auto& st = self->state;
                      auto starts = st.array_starts.find(array);
                      if (starts == st.array_starts.end()) return;
                      for (auto task : tasks) {
                        if (starts->second.empty()) break;
                        if (task != 0) st.running[task] = std::move(starts->second.front());
                        starts->second.pop_front();
                      }
                      st.array_starts.erase(starts);
                    }),
      probe.metered("map", [self](msg::map_atom) { return map_view(self); }),
  };
}

}  // namespace

caf::actor spawn_topology(caf::actor_system& sys, const config::cluster_config& cfg,
                          caf::actor controller, metrics::registry* meters) {
  return sys.spawn(topology_behavior, cfg, std::move(controller), meters);
}

}  // namespace shoal::actors
