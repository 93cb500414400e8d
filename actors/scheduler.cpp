#include "actors/scheduler.hpp"

#include <map>
#include <unordered_map>

#include <caf/all.hpp>

#include "actors/log.hpp"
#include "actors/topology_actor.hpp"
#include "messages/type_ids.hpp"
#include "topology/hostlist.hpp"

namespace shoal::actors {

namespace {

/// A pass that gets no answer this long is given up and run again.
constexpr std::chrono::seconds pass_timeout{30};

struct queued_job {
  pass_candidate candidate;
  caf::actor actor;
  std::string reason;  ///< last reason told to the job actor
};

struct scheduler_state {
  static inline const char* name = "scheduler";
  caf::actor topology;
  std::vector<std::string> node_names;
  std::unordered_map<std::string, size_t> node_index;
  std::vector<caf::actor> node_actors;
  std::unordered_map<std::string, size_t> partition_index;
  std::map<uint64_t, queued_job> queue;
  bool pass_requested = false;  ///< a schedule_atom is on its way
  bool pass_in_flight = false;  ///< waiting for the topology actor's answer
  bool rerun = false;           ///< something changed while a pass was in flight
};

using scheduler_self = caf::stateful_actor<scheduler_state>*;

void request_pass(scheduler_self self) {
  auto& st = self->state;
  if (st.pass_in_flight) {
    st.rerun = true;
    return;
  }
  if (st.pass_requested) return;
  st.pass_requested = true;
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

void apply(scheduler_self self, placement_reply& reply) {
  auto& st = self->state;
  for (auto& g : reply.started) {
    auto it = st.queue.find(g.job);
    if (it == st.queue.end()) {
      // Cancelled while the pass was in flight: hand the nodes straight back.
      self->send(st.topology, msg::release_atom_v, g.job);
      continue;
    }
    std::vector<std::string> names;
    std::vector<caf::actor> actors;
    for (auto n : g.nodes) {
      names.push_back(st.node_names[n]);
      actors.push_back(st.node_actors[n]);
    }
    self->send(it->second.actor, msg::start_atom_v, std::move(names), std::move(actors));
    st.queue.erase(it);
  }
  for (auto& w : reply.waiting) {
    auto it = st.queue.find(w.job);
    if (it == st.queue.end() || it->second.reason == w.reason) continue;
    it->second.reason = w.reason;
    self->send(it->second.actor, msg::view_atom_v, w.reason);
  }
}

void run_pass(scheduler_self self) {
  auto& st = self->state;
  st.pass_requested = false;
  if (st.queue.empty() || st.pass_in_flight) return;
  placement_request req;
  req.jobs.reserve(st.queue.size());
  for (auto& [id, q] : st.queue) req.jobs.push_back(q.candidate);
  st.pass_in_flight = true;
  st.rerun = false;
  auto started_at = std::chrono::steady_clock::now();
  self->request(st.topology, pass_timeout, msg::place_atom_v, std::move(req))
      .then(
          [self, started_at](placement_reply& reply) {
            auto& st = self->state;
            st.pass_in_flight = false;
            apply(self, reply);
            auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                          std::chrono::steady_clock::now() - started_at)
                          .count();
            log().debug("schedule pass started={} waiting={} us={}", reply.started.size(),
                        reply.waiting.size(), us);
            if (st.rerun) request_pass(self);
          },
          [self](caf::error& err) {
            log().warn("schedule pass failed: {}; running it again", self->system().render(err));
            self->state.pass_in_flight = false;
            request_pass(self);
          });
}

caf::behavior scheduler_behavior(scheduler_self self, const runtime::cluster_config& cfg,
                                 std::vector<caf::actor> node_actors, caf::actor topology) {
  auto& st = self->state;
  st.topology = std::move(topology);
  st.node_actors = std::move(node_actors);
  for (auto& n : cfg.nodes) {
    st.node_index.emplace(n.name, st.node_names.size());
    st.node_names.push_back(n.name);
  }
  for (size_t i = 0; i < cfg.partitions.size(); ++i)
    st.partition_index.emplace(cfg.partitions[i].name, i);
  self->send(st.topology, msg::watch_atom_v, caf::actor{self});
  return {
      [self](msg::enqueue_atom, uint64_t id, const msg::job_request& req, int64_t priority,
             caf::actor& job) {
        auto& st = self->state;
        queued_job q;
        q.actor = std::move(job);
        auto& view = q.candidate.job;
        view.id = id;
        view.priority = priority;
        view.nodes = req.min_nodes;
        view.partition = st.partition_index.at(req.partition);
        view.required = indices_of(self, req.nodelist);
        view.excluded = indices_of(self, req.exclude);
        q.candidate.shape = req.shape;
        st.queue.emplace(id, std::move(q));
        request_pass(self);
      },
      [self](msg::cancel_atom, uint64_t id) {
        self->state.queue.erase(id);
        request_pass(self);
      },
      [self](msg::release_atom, uint64_t id) {
        // Same sender, same receiver: the release reaches the topology actor before the
        // placement request of the pass it triggers.
        self->send(self->state.topology, msg::release_atom_v, id);
        request_pass(self);
      },
      [self](msg::freed_atom) { request_pass(self); },
      [self](msg::schedule_atom) { run_pass(self); },
  };
}

}  // namespace

caf::actor spawn_scheduler(caf::actor_system& sys, const runtime::cluster_config& cfg,
                           std::vector<caf::actor> node_actors, caf::actor topology) {
  return sys.spawn(scheduler_behavior, cfg, std::move(node_actors), std::move(topology));
}

}  // namespace shoal::actors
