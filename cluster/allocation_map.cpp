#include "cluster/allocation_map.hpp"

#include <algorithm>

#include "interconnect/switch_manager.hpp"
#include "policy/gres.hpp"
#include "topology/hostlist.hpp"

namespace shoal::cluster {

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

}  // namespace

void allocation_map::set_partition(size_t slot, const config::partition_config* p) {
  if (slot >= partitions_.size()) partitions_.resize(slot + 1);
  policy::partition_info part;
  if (p == nullptr) {
    part.up = false;
    partitions_[slot] = std::move(part);
    return;
  }
  // DRAIN takes no new jobs (the controller refuses them) but runs those queued; DOWN and
  // INACTIVE run none.
  part.up = p->state == "UP" || p->state == "DRAIN";
  part.inactive = p->state == "INACTIVE";
  for (auto& n : p->nodes) part.nodes.push_back(index_.at(n));
  part.max_time = p->max_time_s > 0 ? p->max_time_s : 0;
  part.priority_tier = p->priority;
  part.exclusive = p->exclusive;
  part.oversubscribe = p->oversubscribe;
  part.force = p->force;
  part.preempt = p->preempt_mode.value_or(default_preempt_);
  part.grace_time = p->grace_time_s;
  partitions_[slot] = std::move(part);
}

allocation_map::allocation_map(const config::cluster_config& cfg) {
  for (auto& n : cfg.nodes)
    for (auto& g : n.gres) {
      std::pair<std::string, std::string> kind{g.name, g.type};
      if (std::find(gres_kinds_.begin(), gres_kinds_.end(), kind) == gres_kinds_.end())
        gres_kinds_.push_back(std::move(kind));
    }
  for (auto& n : cfg.nodes) add_node(n);
  default_preempt_ = cfg.scheduling.preempt_mode;
  for (size_t slot = 0; slot < cfg.partitions.size(); ++slot)
    set_partition(slot, &cfg.partitions[slot]);
  auto& pc = config_;
  const auto& s = cfg.scheduling;
  pc.backfill = s.backfill;
  pc.mode = s.conservative ? policy::backfill_mode::conservative : policy::backfill_mode::easy;
  pc.max_job_test = s.bf_max_job_test;
  pc.window = s.bf_window_s;
  pc.resolution = s.bf_resolution_s;
  pc.licenses = cfg.licenses;
  pc.preempt = s.preempt_partition_prio || s.preempt_qos;
  pc.preempt_by_qos = s.preempt_qos;
  pc.cluster_preempt = s.preempt_mode;
  pc.preempt_exempt = s.preempt_exempt_s;
  // An interconnect whose collectives are fastest on a contiguous range of network ids
  // (switch/elan) turns select/linear's first fit into consecutive best fit, and so places
  // cons_tres's --exclusive jobs.
  pc.placement.consecutive_nodes = interconnect::prefers_consecutive_nodes(cfg.switch_type);
  bool linear =
      cfg.select_type == topology::selection_policy::linear && !pc.placement.consecutive_nodes;
  pc.placement.select = s.consumable ? policy::select_type::cons_tres
                        : linear     ? policy::select_type::linear
                                     : policy::select_type::consecutive;
  select_name_ = s.consumable ? "select/cons_tres"
                 : linear     ? "select/linear"
                              : "select/consecutive";
  if (!cfg.torus3d) return;
  torus_ = true;
  select_name_ = "select/torus3d";
  grid_ = cfg.torus;
  topology::torus_map map{grid_.dims};
  grid_of_.resize(names_.size());
  config_of_.resize(map.size());
  const std::string digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  for (size_t i = 0; i < names_.size(); ++i) {
    const auto& name = names_[i];
    topology::coord3 c;
    for (int d = 0; d < 3; ++d) c[d] = static_cast<int>(digits.find(name[name.size() - 3 + d]));
    grid_of_[i] = map.index_of(c);
    config_of_[grid_of_[i]] = i;
  }
  config_.placement.picker = torus_picker();
}

void allocation_map::add_node(const config::node_config& n) {
  index_[n.name] = names_.size();
  names_.push_back(n.name);
  policy::node_capacity cap;
  cap.cpus = std::max<uint32_t>(1, n.cpus);
  cap.memory_mb = n.real_memory_mb;
  cap.usable = false;
  std::vector<uint32_t> kinds;
  if (!gres_kinds_.empty()) cap.gres.assign(gres_kinds_.size(), 0);
  for (auto& g : n.gres) {
    auto kind = std::find(gres_kinds_.begin(), gres_kinds_.end(), std::make_pair(g.name, g.type));
    if (kind == gres_kinds_.end()) continue;  // a kind no node had: see take_nodes
    auto k = static_cast<uint32_t>(kind - gres_kinds_.begin());
    cap.gres[k] += static_cast<uint32_t>(g.count);
    kinds.insert(kinds.end(), g.count, k);
  }
  device_kinds_.push_back(std::move(kinds));
  capacity_.push_back(cap);
  config_.placement.weights.push_back(n.weight);
  features_.push_back(config::feature_list(n));
  states_.push_back(msg::node_state::unknown);
}

void allocation_map::take_nodes(const std::vector<config::node_config>& nodes) {
  std::unordered_map<std::string, bool> listed;
  for (const auto& n : nodes) {
    listed[n.name] = true;
    if (index_.count(n.name) == 0) add_node(n);
  }
  for (auto it = index_.begin(); it != index_.end();) {
    if (listed.count(it->first) != 0) {
      ++it;
      continue;
    }
    states_[it->second] = msg::node_state::down;  // never usable again
    it = index_.erase(it);
  }
}

bool allocation_map::node_changed(const std::string& name, msg::node_state state, uint32_t cpus,
                                  uint64_t memory_mb) {
  auto it = index_.find(name);
  if (it == index_.end()) return false;
  auto i = it->second;
  // Reported CPUs and memory fill in what the config left at 0.
  if (cpus > 0) capacity_[i].cpus = cpus;
  if (memory_mb > 0) capacity_[i].memory_mb = memory_mb;
  bool was_idle = states_[i] == msg::node_state::idle;
  states_[i] = state;
  return !was_idle && state == msg::node_state::idle;
}

std::optional<size_t> allocation_map::index_of(const std::string& name) const {
  auto it = index_.find(name);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

std::vector<policy::gres_need> allocation_map::gres_needs(const policy::gres_list& gres) const {
  std::vector<policy::gres_need> out;
  for (auto& item : gres) {
    policy::gres_need need;
    need.count = static_cast<uint32_t>(item.count);
    for (size_t k = 0; k < gres_kinds_.size(); ++k)
      if (gres_kinds_[k].first == item.name &&
          (item.type.empty() || gres_kinds_[k].second == item.type))
        need.kinds.push_back(static_cast<uint32_t>(k));
    out.push_back(std::move(need));
  }
  return out;
}

std::vector<msg::gres_held> allocation_map::held_of(size_t node,
                                                    const std::vector<uint32_t>& devices) const {
  std::vector<msg::gres_held> out;
  const auto& kinds = device_kinds_[node];
  for (auto d : devices) {
    if (d >= kinds.size()) continue;
    const auto& name = gres_kinds_[kinds[d]].first;
    // The device's index among the node's devices of its name.
    uint32_t index = 0;
    for (uint32_t e = 0; e < d; ++e)
      if (gres_kinds_[kinds[e]].first == name) ++index;
    auto it = std::find_if(out.begin(), out.end(), [&](auto& h) { return h.name == name; });
    if (it == out.end()) it = out.insert(out.end(), msg::gres_held{0, name, {}});
    it->indices.push_back(index);
  }
  return out;
}

std::pair<std::vector<uint32_t>, std::vector<uint32_t>> allocation_map::devices_of(
    size_t node, const std::vector<msg::gres_held>& held) const {
  std::vector<uint32_t> devices;
  std::vector<uint32_t> per_kind;
  const auto& kinds = device_kinds_[node];
  for (auto& h : held)
    for (auto index : h.indices) {
      uint32_t seen = 0;
      for (uint32_t d = 0; d < kinds.size(); ++d) {
        if (gres_kinds_[kinds[d]].first != h.name) continue;
        if (seen++ != index) continue;
        devices.push_back(d);
        if (per_kind.empty()) per_kind.assign(gres_kinds_.size(), 0);
        ++per_kind[kinds[d]];
        break;
      }
    }
  std::sort(devices.begin(), devices.end());
  return {std::move(devices), std::move(per_kind)};
}

void allocation_map::pick_devices(policy::pass_result& result,
                                  const std::vector<policy::running_job>& running) const {
  if (gres_kinds_.empty()) return;
  std::unordered_map<size_t, std::vector<bool>> held;  // node -> device taken
  auto taken = [&](size_t node) -> std::vector<bool>& {
    auto it = held.find(node);
    if (it == held.end())
      it = held.emplace(node, std::vector<bool>(device_kinds_[node].size())).first;
    return it->second;
  };
  for (auto& r : running)
    for (auto& share : r.alloc)
      for (auto d : share.devices)
        if (d < device_kinds_[share.node].size()) taken(share.node)[d] = true;
  for (auto& start : result.started)
    for (auto& share : start.alloc) {
      if (share.gres.empty()) continue;
      auto& busy = taken(share.node);
      const auto& kinds = device_kinds_[share.node];
      auto want = share.gres;
      for (uint32_t d = 0; d < kinds.size(); ++d) {
        if (busy[d] || kinds[d] >= want.size() || want[kinds[d]] == 0) continue;
        busy[d] = true;
        --want[kinds[d]];
        share.devices.push_back(d);
      }
    }
}

policy::node_picker allocation_map::torus_picker() const {
  return [this](const policy::resource_request& req, const std::vector<size_t>& members,
                const std::vector<bool>& available, size_t count,
                const std::vector<uint32_t>&) -> std::optional<std::vector<size_t>> {
    topology::torus_map map{grid_.dims};
    for (size_t g = 0; g < map.size(); ++g) map.set_available(g, false);
    std::unordered_map<size_t, size_t> position;  // grid index -> member position
    for (size_t i = 0; i < members.size(); ++i) {
      auto g = grid_of_[members[i]];
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
std::vector<policy::node_capacity> allocation_map::usable_nodes(
    const std::vector<policy::running_job>& running) const {
  std::vector<bool> held(capacity_.size(), false);
  for (auto& r : running)
    for (auto& share : r.alloc) held[share.node] = true;
  auto nodes = capacity_;
  for (size_t i = 0; i < nodes.size(); ++i) {
    auto s = states_[i];
    nodes[i].usable = s == msg::node_state::idle ||
                      (held[i] && (s == msg::node_state::allocated || s == msg::node_state::mixed));
  }
  return nodes;
}

allocation_map::holding allocation_map::hold_of(
    const policy::allocation& alloc, const std::optional<topology::torus_request>& request) const {
  holding h;
  std::vector<std::string> names;
  for (auto& share : alloc) {
    h.nodes.push_back(share.node);
    names.push_back(names_[share.node]);
  }
  h.nodelist = topology::compress_hostlist(names);
  if (torus_) {
    topology::torus_map map{grid_.dims};
    std::vector<size_t> grid_nodes;
    for (auto n : h.nodes) grid_nodes.push_back(grid_of_[n]);
    h.prism = prism_of(map, grid_nodes);
    h.nodelist = topology::box_expression(grid_.prefix, grid_.dims, *h.prism);
    h.request = request;
  }
  return h;
}

placement allocation_map::place(const std::vector<policy::pending_job>& candidates,
                                const std::vector<uint64_t>& arrays,
                                const std::vector<policy::running_job>& running_now, int64_t now) {
  placement reply;
  reply.result = policy::schedule(candidates, running_now, partitions_, usable_nodes(running_now),
                                  now, config_);
  pick_devices(reply.result, running_now);
  // The map shows what the scheduler says runs, plus what starts now.
  std::map<uint64_t, holding> running;
  for (auto& r : running_now) {
    auto known = running_.find(r.id);
    running[r.id] =
        known != running_.end() ? std::move(known->second) : hold_of(r.alloc, std::nullopt);
  }
  // Only a torus keeps each start's prism request, and a pass without starts needs none: the
  // index of the candidates (thousands, where a pass starts a few) is made only then.
  std::unordered_map<uint64_t, const policy::pending_job*> by_id;
  if (torus_ && !reply.result.started.empty())
    for (auto& c : candidates) by_id.emplace(c.id, &c);
  array_starts_.clear();
  for (auto& d : reply.result.started) {
    auto c = by_id.find(d.job);
    auto h = hold_of(d.alloc, c != by_id.end() ? c->second->request.torus : std::nullopt);
    reply.nodelists[d.job] = h.nodelist;
    if (std::find(arrays.begin(), arrays.end(), d.job) != arrays.end())
      array_starts_[d.job].push_back(std::move(h));
    else
      running[d.job] = std::move(h);
  }
  running_ = std::move(running);
  return reply;
}

start_estimate allocation_map::will_run(const policy::pending_job& job,
                                        const std::vector<policy::running_job>& running,
                                        int64_t now) const {
  auto config = config_;
  // The reservation search is what finds a later start, so it runs whatever SchedulerType
  // says, and with no bound: one job is cheap.
  config.backfill = true;
  config.max_job_test = 0;
  config.window = 0;
  auto result = policy::schedule({job}, running, partitions_, usable_nodes(running), now, config);
  start_estimate out;
  auto fill = [&](int64_t start, const policy::allocation& alloc) {
    out.found = true;
    out.start = start;
    out.alloc = alloc;
    out.nodelist = hold_of(alloc, job.request.torus).nodelist;
  };
  for (auto& d : result.started)
    if (d.job == job.id) fill(now, d.alloc);
  for (auto& p : result.planned)
    if (!out.found && p.job == job.id && p.start < policy::forever) fill(p.start, p.alloc);
  for (auto& w : result.waiting)
    if (w.job == job.id) out.reason = w.reason;
  return out;
}

void allocation_map::assign(uint64_t array, const std::vector<uint64_t>& tasks) {
  auto starts = array_starts_.find(array);
  if (starts == array_starts_.end()) return;
  for (auto task : tasks) {
    if (starts->second.empty()) break;
    if (task != 0) running_[task] = std::move(starts->second.front());
    starts->second.pop_front();
  }
  array_starts_.erase(starts);
}

msg::topology_view allocation_map::view() const {
  msg::topology_view view;
  view.select_type = select_name_;
  std::vector<uint64_t> holder(names_.size(), 0);
  for (auto& [job, h] : running_)
    for (auto n : h.nodes) holder[n] = job;
  auto add_node = [&](size_t i, std::vector<uint32_t> coord) {
    view.nodes.push_back({names_[i], states_[i], holder[i], std::move(coord)});
  };
  if (torus_) {
    topology::torus_map map{grid_.dims};
    for (auto d : grid_.dims) view.dims.push_back(static_cast<uint32_t>(d));
    for (size_t g = 0; g < config_of_.size(); ++g) {
      auto c = map.coord_of(g);
      add_node(config_of_[g], {static_cast<uint32_t>(c[0]), static_cast<uint32_t>(c[1]),
                               static_cast<uint32_t>(c[2])});
    }
  } else {
    for (size_t i = 0; i < names_.size(); ++i)
      if (auto at = index_.find(names_[i]); at != index_.end() && at->second == i) add_node(i, {});
  }
  for (auto& [job, h] : running_) {
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

std::shared_ptr<const std::vector<policy::feature_choice>> allocation_map::feature_choices(
    const policy::feature_constraint& constraint) const {
  return std::make_shared<const std::vector<policy::feature_choice>>(
      policy::resolve_constraint(constraint, features_));
}

}  // namespace shoal::cluster
