#include "actors/topology_actor.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <unordered_map>

#include <caf/all.hpp>

#include "actors/metering.hpp"
#include "actors/send_to.hpp"
#include "actors/unexpected.hpp"
#include "cluster/clock.hpp"
#include "cluster/node_health.hpp"
#include "cluster/running_jobs.hpp"
#include "topology/hostlist.hpp"

namespace shoal::actors {

using cluster::allocation_map;
using cluster::unix_now;

namespace {

/// A queued job's placement_needs against this cluster: node indices, device kinds, prism, the
/// nodes its constraint allows.
struct resolved_needs {
  std::vector<size_t> required;
  std::vector<size_t> excluded;
  std::vector<policy::gres_need> gres;
  std::optional<topology::torus_request> torus;
  std::shared_ptr<const std::vector<policy::feature_choice>> features;
  std::string reservation;
};

struct topology_state {
  static inline const char* name = "topology";
  std::optional<allocation_map> map;
  /// Every job holding nodes: what the pass's backfill sees end at each job's time limit.
  cluster::running_jobs running;
  /// The last pass's starts of arrays, in decision order, until their task ids arrive.
  std::map<uint64_t, std::deque<policy::running_job>> array_starts;
  /// Queued jobs that name nodes or devices (or any job on a torus).
  std::unordered_map<uint64_t, resolved_needs> needs;
  caf::actor scheduler;
  reservation_table reservations;
};

using topology_self = topology_actor::stateful_pointer<topology_state>;

std::vector<size_t> indices_of(const allocation_map& map, const std::string& expr) {
  std::vector<size_t> out;
  auto names = topology::expand_hostlist(expr);
  if (!names) return out;  // the controller validated it
  for (auto& n : *names)
    if (auto i = map.index_of(n)) out.push_back(*i);
  return out;
}

resolved_needs resolve(const allocation_map& map, const placement_needs& needs) {
  resolved_needs out;
  out.required = indices_of(map, needs.nodelist);
  out.excluded = indices_of(map, needs.exclude);
  if (!needs.gres.empty()) out.gres = map.gres_needs(needs.gres);
  if (map.torus()) out.torus = cluster::torus_request_of(needs.shape, needs.node_count);
  if (needs.constraint) out.features = map.feature_choices(*needs.constraint);
  out.reservation = needs.reservation;
  return out;
}

void apply_needs(policy::resource_request& r, const resolved_needs& needs) {
  r.required = needs.required;
  r.excluded = needs.excluded;
  r.gres = needs.gres;
  r.torus = needs.torus;
  r.features = needs.features;
}

start_site site_of(const allocation_map& map, const policy::start_decision& d,
                   const std::string& nodelist) {
  start_site site;
  for (auto& share : d.alloc) {
    for (auto& held : map.held_of(share.node, share.devices)) {
      held.node = static_cast<uint32_t>(site.names.size());
      site.devices.push_back(std::move(held));
    }
    site.nodes.push_back(share.node);
    site.names.push_back(map.name_of(share.node));
    site.cpus.push_back(share.cpus);
  }
  // An array's starts in one pass share the array's id in the map's nodelists: off a torus each
  // start's own list is made here.
  site.nodelist = map.torus() ? nodelist : topology::compress_hostlist(site.names);
  return site;
}

/// 1 + the index of the reservation named `name` in the pass's list (the table's order), or
/// policy::no_reservation when it is gone.
uint32_t reservation_slot(const topology_state& st, const std::string& name) {
  if (!st.reservations) return policy::no_reservation;
  for (size_t i = 0; i < st.reservations->size(); ++i)
    if ((*st.reservations)[i].name == name) return static_cast<uint32_t>(i + 1);
  return policy::no_reservation;
}

/// The reservations' windows at `now`, as the pass keeps their nodes.
void set_reservation_windows(topology_state& st, int64_t now) {
  std::vector<policy::reserved_nodes> windows;
  if (st.reservations) {
    for (auto& r : *st.reservations) {
      auto w = cluster::current_window(r, now);
      policy::reserved_nodes held;
      for (auto& name : w.nodes)
        if (auto i = st.map->index_of(name)) held.nodes.push_back(*i);
      std::sort(held.nodes.begin(), held.nodes.end());
      held.start = w.start;
      held.end = w.end;
      held.flex = w.flags.flex;
      windows.push_back(std::move(held));
    }
  }
  st.map->set_reservations(std::move(windows));
}

/// The order's candidates with the needs of the offered ones filled in, on a copy when any has
/// needs (`copy`); else the order's own list.
const std::vector<policy::pending_job>& with_needs(const topology_state& st,
                                                   const pass_order& order,
                                                   std::vector<policy::pending_job>& copy) {
  const auto& list = *order.candidates;
  bool copied = false;
  // Few jobs have needs (every job, on a torus): each is looked up in the list, sorted by id.
  for (auto& [id, needs] : st.needs) {
    auto at =
        std::lower_bound(list.begin(), list.end(), id,
                         [](const policy::pending_job& c, uint64_t key) { return c.id < key; });
    if (at == list.end() || at->id != id || at->task_count == 0) continue;
    if (!copied) {
      copy = list;
      copied = true;
    }
    auto& job = copy[static_cast<size_t>(at - list.begin())];
    apply_needs(job.request, needs);
    if (!needs.reservation.empty()) job.reservation = reservation_slot(st, needs.reservation);
  }
  return copied ? copy : list;
}

placed_pass_ptr place(topology_self self, const pass_order& order) {
  auto& st = self->state;
  std::vector<policy::pending_job> copy;
  const auto& candidates = with_needs(st, order, copy);
  set_reservation_windows(st, order.now);
  st.map->set_qos_rules(order.qos);
  st.map->set_limits(order.limits);
  auto placed = st.map->place(candidates, order.arrays, st.running.all(), order.now);
  auto out = std::make_shared<placed_pass>();
  out->result = std::move(placed.result);
  out->sites.reserve(out->result.started.size());
  st.array_starts.clear();
  // Preempted jobs hold their nodes until they end; passes meanwhile know whom they free them for.
  for (auto& p : out->result.preempted) st.running.mark_preempted(p.job, p.for_job);
  // A resumed job holds what it lent from now (the scheduler has the job resumed).
  for (auto id : out->result.resumed) st.running.take_back(id, order.now);
  const auto& list = *order.candidates;
  for (auto& d : out->result.started) {
    out->sites.push_back(site_of(*st.map, d, placed.nodelists[d.job]));
    policy::running_job run{d.job, d.alloc, d.end, {}};
    run.start = order.now;
    // Its licenses, partition and priority, from its candidate entry (the list is sorted by id).
    auto at =
        std::lower_bound(list.begin(), list.end(), d.job,
                         [](const policy::pending_job& c, uint64_t key) { return c.id < key; });
    if (at != list.end() && at->id == d.job) {
      run.licenses = at->licenses;
      run.partition = at->partition;
      run.priority = at->priority;
      run.qos = at->qos;
    }
    if (std::find(order.arrays.begin(), order.arrays.end(), d.job) != order.arrays.end()) {
      st.array_starts[d.job].push_back(std::move(run));
    } else {
      // Its needs stay until the scheduler says the job no longer queues: a start the queue
      // gives back (held while the pass was out) must place the same way next time.
      st.running.put(std::move(run));
    }
  }
  return out;
}

void assign(topology_self self, uint64_t array, const std::vector<uint64_t>& tasks) {
  auto& st = self->state;
  st.map->assign(array, tasks);
  auto starts = st.array_starts.find(array);
  if (starts == st.array_starts.end()) return;
  for (auto task : tasks) {
    if (starts->second.empty()) break;
    if (task != 0) {
      auto run = std::move(starts->second.front());
      run.id = task;
      st.running.put(std::move(run));
    }
    starts->second.pop_front();
  }
  st.array_starts.erase(starts);
}

void adopt(topology_self self, uint64_t id, const held_nodes& held) {
  auto& st = self->state;
  policy::running_job run;
  run.id = id;
  run.end = held.end;
  run.licenses = held.licenses;
  run.partition = held.partition;
  run.priority = held.priority;
  run.start = held.start;
  run.qos = held.qos;
  bool whole = held.cpus.size() != held.names.size();
  for (size_t i = 0; i < held.names.size(); ++i) {
    auto node = st.map->index_of(held.names[i]);
    if (!node) continue;  // gone from the config since: nothing to hold there
    auto& cap = st.map->capacity_of(*node);
    policy::node_share share;
    share.node = *node;
    share.cpus = whole ? cap.cpus : held.cpus[i];
    share.memory_mb = whole                      ? cap.memory_mb
                      : held.mem_per_node_mb > 0 ? held.mem_per_node_mb
                                                 : held.mem_per_cpu_mb * share.cpus;
    std::vector<msg::gres_held> here;
    for (auto& h : held.devices)
      if (h.node == i) here.push_back(h);
    if (!here.empty()) std::tie(share.devices, share.gres) = st.map->devices_of(*node, here);
    run.alloc.push_back(share);
  }
  std::sort(run.alloc.begin(), run.alloc.end(),
            [](const auto& a, const auto& b) { return a.node < b.node; });
  st.running.put(std::move(run));
}

void set_partitions(topology_self self, const partition_table& table) {
  for (size_t slot = 0; slot < table->size(); ++slot) {
    auto& part = (*table)[slot];
    self->state.map->set_partition(slot, part ? &*part : nullptr);
  }
}

cluster::start_estimate will_run(topology_self self, policy::pending_job job,
                                 const placement_needs& needs) {
  auto& st = self->state;
  apply_needs(job.request, resolve(*st.map, needs));
  return st.map->will_run(job, st.running.all(), unix_now());
}

topology_actor::behavior_type topology_behavior(topology_self self,
                                                const config::cluster_config& cfg,
                                                metrics::registry* meters) {
  self->state.map.emplace(cfg);
  tolerate_strays(self);
  actor_probe probe{self, meters, "topology"};
  return {
      probe.metered("place", [self](msg::schedule_atom,
                                    const pass_order_ptr& order) { return place(self, *order); }),
      probe.metered("arraytask",
                    [self](msg::arraytask_atom, uint64_t array,
                           const std::vector<uint64_t>& tasks) { assign(self, array, tasks); }),
      probe.metered("enqueue",
                    [self](msg::enqueue_atom, uint64_t id, const placement_needs& needs) {
                      self->state.needs[id] = resolve(*self->state.map, needs);
                    }),
      probe.metered("cancel",
                    [self](msg::cancel_atom, uint64_t id) { self->state.needs.erase(id); }),
      probe.metered("release",
                    [self](msg::release_atom, uint64_t id) {
                      self->state.running.erase(id);
                      self->state.map->release(id);
                    }),
      probe.metered("lent",
                    [self](msg::lent_atom, uint64_t id) {
                      auto& st = self->state;
                      st.running.lend(id, unix_now(), [&st](size_t node) {
                        return st.map->capacity_of(node).memory_mb;
                      });
                    }),
      probe.metered("adopt", [self](msg::adopt_atom, uint64_t id,
                                    const held_nodes& held) { adopt(self, id, held); }),
      probe.metered("view_node",
                    [self](msg::view_atom, const msg::node_info& info) {
                      auto& st = self->state;
                      if (st.map->node_changed(info.name, cluster::placement_state(info), info.cpus,
                                               info.real_memory_mb) &&
                          st.scheduler)
                        send_to(self, st.scheduler, msg::schedule_atom_v);
                    }),
      probe.metered(
          "partitions",
          [self](msg::parts_atom, const partition_table& table) { set_partitions(self, table); }),
      probe.metered("nodes",
                    [self](msg::reconfig_atom, const config_ptr& fresh) {
                      self->state.map->take_nodes(fresh->nodes);
                    }),
      probe.metered("reservations",
                    [self](msg::resv_atom, const reservation_table& table) {
                      self->state.reservations = table;
                      if (self->state.scheduler)
                        send_to(self, self->state.scheduler, msg::schedule_atom_v);
                    }),
      probe.metered("register",
                    [self](msg::register_atom, caf::actor& scheduler) {
                      self->state.scheduler = std::move(scheduler);
                    }),
      probe.metered("map", [self](msg::map_atom) { return self->state.map->view(); }),
      probe.metered("willrun",
                    [self](msg::willrun_atom, const policy::pending_job& job,
                           const placement_needs& needs) { return will_run(self, job, needs); }),
  };
}

}  // namespace

topology_actor spawn_topology(caf::actor_system& sys, const config::cluster_config& cfg,
                              metrics::registry* meters) {
  return sys.spawn(topology_behavior, cfg, meters);
}

}  // namespace shoal::actors
