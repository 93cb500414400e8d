#include "actors/topology_actor.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <unordered_map>

#include <caf/all.hpp>

#include "actors/log.hpp"
#include "actors/placement_torus.hpp"
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

/// A job holding nodes.
struct holding {
  std::vector<size_t> nodes;  ///< config indices
  std::string nodelist;
  std::optional<topology::torus_allocation> prism;
  msg::job_shape shape;
};

struct topology_state {
  static inline const char* name = "topology";
  caf::actor controller;
  caf::actor watcher;
  std::vector<std::string> names;  ///< config order
  std::unordered_map<std::string, size_t> index;
  std::vector<uint32_t> weights;
  std::vector<partition_slot> partitions;  ///< config indices
  topology::selection_policy policy = topology::selection_policy::consecutive;
  std::vector<msg::node_state> states;
  std::vector<uint64_t> allocated_to;  ///< 0 = none
  std::map<uint64_t, holding> running;
  // -- torus3d only --
  bool torus = false;
  runtime::torus_grid grid;
  std::vector<size_t> grid_of;    ///< config index -> grid index
  std::vector<size_t> config_of;  ///< grid index -> config index
  std::vector<partition_slot> grid_partitions;
};

using topology_self = caf::stateful_actor<topology_state>*;

bool usable(const topology_state& st, size_t i) {
  return st.states[i] == msg::node_state::idle && st.allocated_to[i] == 0;
}

std::string select_name(const topology_state& st) {
  if (st.torus) return "select/torus3d";
  return st.policy == topology::selection_policy::linear ? "select/linear" : "select/consecutive";
}

void hold(topology_self self, uint64_t job, holding h) {
  auto& st = self->state;
  for (auto n : h.nodes) st.allocated_to[n] = job;
  st.running[job] = std::move(h);
}

placement_reply place_linear(topology_self self, const placement_request& req) {
  auto& st = self->state;
  std::vector<bool> free_nodes(st.names.size());
  for (size_t i = 0; i < free_nodes.size(); ++i) free_nodes[i] = usable(st, i);
  std::vector<pending_job> jobs;
  jobs.reserve(req.jobs.size());
  for (auto& c : req.jobs) jobs.push_back(c.job);
  auto result = schedule_pass(std::move(jobs), free_nodes, st.partitions, st.weights, st.policy);
  placement_reply reply;
  reply.waiting = std::move(result.waiting);
  for (auto& p : result.started) {
    std::vector<std::string> names;
    for (auto n : p.nodes) names.push_back(st.names[n]);
    holding h;
    h.nodes = std::move(p.nodes);
    h.nodelist = topology::compress_hostlist(names);
    reply.started.push_back({p.job, h.nodes, h.nodelist});
    hold(self, p.job, std::move(h));
  }
  return reply;
}

placement_reply place_torus(topology_self self, const placement_request& req) {
  auto& st = self->state;
  topology::torus_map map{st.grid.dims};
  for (size_t g = 0; g < map.size(); ++g) map.set_available(g, usable(st, st.config_of[g]));
  std::vector<torus_candidate> jobs;
  std::map<uint64_t, const msg::job_shape*> shapes;
  jobs.reserve(req.jobs.size());
  for (auto& c : req.jobs) {
    torus_candidate t;
    t.job = c.job;
    for (auto& n : t.job.excluded) n = st.grid_of[n];
    t.job.required.clear();
    t.shape = torus_request_of(c.shape, c.job.nodes);
    shapes[c.job.id] = &c.shape;
    jobs.push_back(std::move(t));
  }
  auto result = schedule_torus_pass(std::move(jobs), map, st.grid_partitions);
  placement_reply reply;
  reply.waiting = std::move(result.waiting);
  for (auto& p : result.started) {
    holding h;
    for (auto g : p.nodes) h.nodes.push_back(st.config_of[g]);
    std::sort(h.nodes.begin(), h.nodes.end());
    h.nodelist = topology::box_expression(st.grid.prefix, st.grid.dims, p.where);
    h.prism = p.where;
    h.shape = *shapes[p.job];
    reply.started.push_back({p.job, h.nodes, h.nodelist});
    self->send(st.controller, msg::boxlist_atom_v, p.job, h.nodelist);
    hold(self, p.job, std::move(h));
  }
  return reply;
}

msg::topology_view map_view(topology_self self) {
  auto& st = self->state;
  msg::topology_view view;
  view.select_type = select_name(st);
  auto add_node = [&](size_t i, std::vector<uint32_t> coord) {
    view.nodes.push_back({st.names[i], st.states[i], st.allocated_to[i], std::move(coord)});
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
      a.conn_type = h.shape.conn_type.empty() ? "torus" : h.shape.conn_type;
      a.node_use = h.shape.node_use.empty() ? "coprocessor" : h.shape.node_use;
    }
    view.allocations.push_back(std::move(a));
  }
  return view;
}

caf::behavior topology_behavior(topology_self self, const runtime::cluster_config& cfg,
                                caf::actor controller) {
  auto& st = self->state;
  st.controller = std::move(controller);
  st.policy = cfg.select_type;
  for (auto& n : cfg.nodes) {
    st.index.emplace(n.name, st.names.size());
    st.names.push_back(n.name);
    st.weights.push_back(n.weight);
  }
  st.states.assign(st.names.size(), msg::node_state::unknown);
  st.allocated_to.assign(st.names.size(), 0);
  for (auto& p : cfg.partitions) {
    partition_slot slot;
    slot.up = p.state == "UP";
    for (auto& n : p.nodes) slot.nodes.push_back(st.index.at(n));
    st.partitions.push_back(std::move(slot));
  }
  if (cfg.torus3d) {
    st.torus = true;
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
    for (auto& p : st.partitions) {
      partition_slot slot{p.up, {}};
      for (auto n : p.nodes) slot.nodes.push_back(st.grid_of[n]);
      st.grid_partitions.push_back(std::move(slot));
    }
  }
  return {
      [self](msg::view_atom, const msg::node_info& info) {
        auto& st = self->state;
        auto it = st.index.find(info.name);
        if (it == st.index.end()) return;
        auto i = it->second;
        bool was_usable = usable(st, i);
        st.states[i] = info.state;
        if (!was_usable && usable(st, i) && st.watcher) self->send(st.watcher, msg::freed_atom_v);
      },
      [self](msg::watch_atom, caf::actor& watcher) { self->state.watcher = std::move(watcher); },
      [self](msg::place_atom, const placement_request& req) -> placement_reply {
        auto started_at = std::chrono::steady_clock::now();
        auto reply = self->state.torus ? place_torus(self, req) : place_linear(self, req);
        auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::steady_clock::now() - started_at)
                      .count();
        log().debug("placement pass jobs={} started={} us={}", req.jobs.size(),
                    reply.started.size(), us);
        return reply;
      },
      [self](msg::release_atom, uint64_t job) {
        auto& st = self->state;
        auto it = st.running.find(job);
        if (it == st.running.end()) return;
        for (auto n : it->second.nodes)
          if (st.allocated_to[n] == job) st.allocated_to[n] = 0;
        st.running.erase(it);
      },
      [self](msg::map_atom) { return map_view(self); },
  };
}

}  // namespace

caf::actor spawn_topology(caf::actor_system& sys, const runtime::cluster_config& cfg,
                          caf::actor controller) {
  return sys.spawn(topology_behavior, cfg, std::move(controller));
}

}  // namespace shoal::actors
