#include "actors/scheduler.hpp"

#include <map>
#include <unordered_map>

#include <caf/all.hpp>

#include "actors/log.hpp"
#include "actors/metering.hpp"
#include "actors/scheduling.hpp"
#include "messages/type_ids.hpp"
#include "topology/hostlist.hpp"

namespace shoal::actors {

namespace {

struct queued_job {
  pending_job pass_view;
  caf::actor actor;
  std::string reason;  ///< last reason told to the job actor
};

struct scheduler_state {
  static inline const char* name = "scheduler";
  std::vector<std::string> node_names;
  std::unordered_map<std::string, size_t> node_index;
  std::vector<caf::actor> node_actors;
  std::vector<bool> idle;              ///< node actors report IDLE
  std::vector<uint64_t> allocated_to;  ///< job holding the node, 0 = none
  std::vector<uint32_t> weights;
  std::vector<partition_slot> partitions;
  std::unordered_map<std::string, size_t> partition_index;
  topology::selection_policy policy = topology::selection_policy::consecutive;
  std::map<uint64_t, queued_job> queue;
  std::unordered_map<uint64_t, std::vector<size_t>> running;
  bool pass_requested = false;
  /// Null when not metered.
  metrics::histogram* cycle = nullptr;
  metrics::gauge* last_cycle = nullptr;
  metrics::gauge* max_cycle = nullptr;
  metrics::gauge* queue_length = nullptr;
};

using scheduler_self = caf::stateful_actor<scheduler_state>*;

void request_pass(scheduler_self self) {
  if (self->state.pass_requested) return;
  self->state.pass_requested = true;
  self->send(self, msg::schedule_atom_v);
}

std::vector<size_t> indices_of(scheduler_self self, const std::string& expr) {
  std::vector<size_t> out;
  auto names = topology::expand_hostlist(expr);
  if (!names) return out;  // the controller validated it
  for (auto& n : *names) {
    auto i = self->state.node_index.find(n);
    if (i != self->state.node_index.end()) out.push_back(i->second);
  }
  return out;
}

void run_pass(scheduler_self self) {
  auto& st = self->state;
  st.pass_requested = false;
  if (st.queue.empty()) return;
  std::vector<bool> free_nodes(st.idle.size());
  for (size_t i = 0; i < free_nodes.size(); ++i)
    free_nodes[i] = st.idle[i] && st.allocated_to[i] == 0;
  std::vector<pending_job> jobs;
  jobs.reserve(st.queue.size());
  for (auto& [id, q] : st.queue) jobs.push_back(q.pass_view);
  auto jobs_seen = jobs.size();
  auto started_at = std::chrono::steady_clock::now();
  auto result = schedule_pass(std::move(jobs), free_nodes, st.partitions, st.weights, st.policy);
  for (auto& p : result.started) {
    auto it = st.queue.find(p.job);
    std::vector<std::string> names;
    std::vector<caf::actor> actors;
    for (auto n : p.nodes) {
      st.allocated_to[n] = p.job;
      names.push_back(st.node_names[n]);
      actors.push_back(st.node_actors[n]);
    }
    SHOAL_DEBUG(select_type, "job selected job={} nodes={}", p.job,
                topology::compress_hostlist(names));
    self->send(it->second.actor, msg::start_atom_v, std::move(names), std::move(actors));
    st.running[p.job] = std::move(p.nodes);
    st.queue.erase(it);
  }
  for (auto& w : result.waiting) {
    auto& q = st.queue[w.job];
    if (q.reason == w.reason) continue;
    q.reason = w.reason;
    self->send(q.actor, msg::view_atom_v, w.reason);
  }
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                                  started_at)
                .count();
  if (st.cycle) {
    auto seconds = static_cast<double>(us) / 1e6;
    st.cycle->observe(seconds);
    st.last_cycle->set(seconds);
    st.max_cycle->raise_to(seconds);
    st.queue_length->set(static_cast<double>(jobs_seen));
  }
  SHOAL_DEBUG(select_type, "schedule pass started={} waiting={} us={}", result.started.size(),
              result.waiting.size(), us);
}

caf::behavior scheduler_behavior(scheduler_self self, const runtime::cluster_config& cfg,
                                 std::vector<caf::actor> node_actors, metrics::registry* meters) {
  auto& st = self->state;
  actor_probe probe{self, meters, "scheduler"};
  if (meters) {
    st.cycle = &meters->histogram_of("shoal_scheduler_cycle_seconds",
                                     "Time of each scheduling pass (sdiag's main schedule "
                                     "cycles).");
    st.last_cycle = &meters->gauge_of("shoal_scheduler_last_cycle_seconds",
                                      "Time of the latest scheduling pass.");
    st.max_cycle = &meters->gauge_of("shoal_scheduler_max_cycle_seconds",
                                     "Longest scheduling pass since start or diag reset.");
    st.queue_length = &meters->gauge_of("shoal_scheduler_queue_jobs",
                                        "Pending jobs the latest scheduling pass considered.");
  }
  st.policy = cfg.select_type;
  st.node_actors = std::move(node_actors);
  for (auto& n : cfg.nodes) {
    st.node_index.emplace(n.name, st.node_names.size());
    st.node_names.push_back(n.name);
    st.weights.push_back(n.weight);
  }
  st.idle.assign(st.node_names.size(), false);
  st.allocated_to.assign(st.node_names.size(), 0);
  for (auto& p : cfg.partitions) {
    partition_slot slot;
    slot.up = p.state == "UP";
    for (auto& n : p.nodes) slot.nodes.push_back(st.node_index.at(n));
    st.partition_index.emplace(p.name, st.partitions.size());
    st.partitions.push_back(std::move(slot));
  }
  return {
      probe.metered("enqueue",
                    [self](msg::enqueue_atom, uint64_t id, const msg::job_request& req,
                           int64_t priority, caf::actor& job) {
                      auto& st = self->state;
                      queued_job q;
                      q.actor = std::move(job);
                      q.pass_view.id = id;
                      q.pass_view.priority = priority;
                      q.pass_view.nodes = req.min_nodes;
                      q.pass_view.partition = st.partition_index.at(req.partition);
                      q.pass_view.required = indices_of(self, req.nodelist);
                      q.pass_view.excluded = indices_of(self, req.exclude);
                      st.queue.emplace(id, std::move(q));
                      request_pass(self);
                    }),
      probe.metered("cancel",
                    [self](msg::cancel_atom, uint64_t id) {
                      self->state.queue.erase(id);
                      request_pass(self);
                    }),
      probe.metered("release",
                    [self](msg::release_atom, uint64_t id) {
                      auto& st = self->state;
                      auto it = st.running.find(id);
                      if (it == st.running.end()) return;
                      for (auto n : it->second)
                        if (st.allocated_to[n] == id) st.allocated_to[n] = 0;
                      st.running.erase(it);
                      request_pass(self);
                    }),
      probe.metered("view_node",
                    [self](msg::view_atom, const msg::node_info& info) {
                      auto& st = self->state;
                      auto it = st.node_index.find(info.name);
                      if (it == st.node_index.end()) return;
                      bool idle = info.state == msg::node_state::idle;
                      if (st.idle[it->second] == idle) return;
                      st.idle[it->second] = idle;
                      if (idle) request_pass(self);
                    }),
      probe.metered("schedule", [self](msg::schedule_atom) { run_pass(self); }),
  };
}

}  // namespace

caf::actor spawn_scheduler(caf::actor_system& sys, const runtime::cluster_config& cfg,
                           std::vector<caf::actor> node_actors, metrics::registry* meters) {
  return sys.spawn(scheduler_behavior, cfg, std::move(node_actors), meters);
}

}  // namespace shoal::actors
