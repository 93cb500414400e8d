#include "actors/controller.hpp"

#include <unistd.h>

#include <deque>
#include <map>
#include <unordered_map>

#include <caf/all.hpp>

#include "actors/job.hpp"
#include "actors/log.hpp"
#include "actors/node.hpp"
#include "actors/partition.hpp"
#include "actors/scheduler.hpp"
#include "actors/submission.hpp"
#include "messages/errc.hpp"
#include "messages/type_ids.hpp"
#include "runtime/duration.hpp"
#include "topology/hostlist.hpp"

namespace shoal::actors {

namespace {

/// Finished jobs stay visible this long (Slurm's MinJobAge default).
constexpr int64_t min_job_age_s = 300;

struct controller_state {
  static inline const char* name = "controller";
  runtime::cluster_config cfg;
  std::unordered_map<std::string, caf::actor> nodes;
  std::map<std::string, msg::node_info> node_view;
  std::vector<caf::actor> partitions;
  std::map<std::string, msg::partition_info> partition_view;
  std::map<uint64_t, caf::actor> jobs;
  std::map<uint64_t, msg::job_info> job_view;
  caf::actor scheduler;
  uint64_t next_job_id = 1;
  uint32_t admin_uid = 0;
  /// Submission tokens seen recently -> job id, so a client that lost a reply and retries gets
  /// its job back instead of a second one. Oldest first, for pruning.
  std::unordered_map<std::string, uint64_t> tokens;
  std::deque<std::pair<int64_t, std::string>> token_order;
};

using controller_self = caf::stateful_actor<controller_state>*;

void purge_old_jobs(controller_self self) {
  auto cutoff = unix_now() - min_job_age_s;
  auto& view = self->state.job_view;
  for (auto it = view.begin(); it != view.end();) {
    if (msg::is_finished(it->second.state) && it->second.end_time < cutoff)
      it = view.erase(it);
    else
      ++it;
  }
}

/// How long a submission token is remembered: far longer than any client retries.
constexpr int64_t token_memory_s = 600;

void remember_token(controller_self self, const std::string& token, uint64_t id) {
  auto& st = self->state;
  auto now = unix_now();
  while (!st.token_order.empty() && st.token_order.front().first < now - token_memory_s) {
    st.tokens.erase(st.token_order.front().second);
    st.token_order.pop_front();
  }
  st.tokens.emplace(token, id);
  st.token_order.emplace_back(now, token);
}

/// Every job the controller knows, in id order; finished ones (kept MinJobAge) only on request,
/// so a plain `shoal queue` stays cheap after thousands of jobs.
std::vector<msg::job_info> list_jobs(controller_self self, bool include_finished) {
  purge_old_jobs(self);
  std::vector<msg::job_info> out;
  out.reserve(include_finished ? self->state.job_view.size() : self->state.jobs.size());
  for (auto& [id, info] : self->state.job_view)
    if (include_finished || !msg::is_finished(info.state)) out.push_back(info);
  return out;
}

caf::result<msg::job_info> submit_job(controller_self self, msg::job_request& req,
                                      caf::actor& client) {
  auto& st = self->state;
  if (!req.submit_token.empty()) {
    auto known = st.tokens.find(req.submit_token);
    if (known != st.tokens.end()) {
      log().info("job submit retried job={} user={}", known->second, req.user);
      msg::job_info info;
      info.job_id = known->second;
      auto view = st.job_view.find(known->second);
      info.state = view != st.job_view.end() ? view->second.state : msg::job_state::pending;
      return info;
    }
  }
  auto resolved = resolve_submission(st.cfg, st.node_view, req);
  if (!resolved) {
    log().info("job rejected user={} reason=\"{}\"", req.user, describe(resolved.error()));
    return std::move(resolved.error());
  }
  job_setup setup;
  setup.id = st.next_job_id++;
  setup.req = std::move(*resolved);
  if (setup.req.batch) {
    setup.req.stdout_path = expand_output_path(setup.req.stdout_path, setup.id, setup.req);
    if (!setup.req.stderr_path.empty())
      setup.req.stderr_path = expand_output_path(setup.req.stderr_path, setup.id, setup.req);
  }
  setup.priority = job_priority(setup.req);
  setup.kill_wait_s = st.cfg.kill_wait_s;
  setup.admin_uid = st.admin_uid;
  setup.client = client;
  setup.controller = self;
  setup.scheduler = st.scheduler;
  auto id = setup.id;
  log().info("job submit job={} user={} partition={} nodes={} tasks={} batch={}", id,
             setup.req.user, setup.req.partition, setup.req.min_nodes, setup.req.ntasks,
             setup.req.batch);
  // Not linked: unlinking is linear in the links held, paid at every job's end, and shoalctld
  // exits without tearing its actors down anyway.
  auto token = setup.req.submit_token;
  auto job = spawn_job(self->system(), std::move(setup));
  st.jobs.emplace(id, job);
  if (!token.empty()) remember_token(self, token, id);
  msg::job_info info;
  info.job_id = id;
  info.state = msg::job_state::pending;
  return info;
}

caf::result<caf::ok_atom> update_nodes(controller_self self, const msg::node_update& up) {
  auto& st = self->state;
  auto names = topology::expand_hostlist(up.nodes);
  if (!names) return std::move(names.error());
  if (names->empty()) return make_error(errc::invalid_request, "no node names given");
  for (auto& n : *names)
    if (st.nodes.count(n) == 0)
      return make_error(errc::unknown_node, "invalid node name '" + n + "'");
  auto rp = self->make_response_promise<caf::ok_atom>();
  auto remaining = std::make_shared<size_t>(names->size());
  auto failed = std::make_shared<bool>(false);
  for (auto& n : *names) {
    self->request(st.nodes[n], std::chrono::seconds{10}, msg::nodeupd_atom_v, up)
        .then(
            [rp, remaining, failed](caf::ok_atom) mutable {
              if (--*remaining == 0 && !*failed) rp.deliver(caf::ok_atom::value);
            },
            [rp, failed](caf::error& err) mutable {
              if (!*failed) {
                *failed = true;
                rp.deliver(std::move(err));
              }
            });
  }
  return rp;
}

caf::behavior controller_behavior(controller_self self, runtime::cluster_config cfg) {
  auto& st = self->state;
  st.cfg = std::move(cfg);
  st.admin_uid = static_cast<uint32_t>(::getuid());
  std::vector<caf::actor> ordered_nodes;
  for (auto& n : st.cfg.nodes) {
    auto node = spawn_node(self->system(), n, self, st.cfg.heartbeat_timeout_ms);
    self->link_to(node);
    st.nodes.emplace(n.name, node);
    ordered_nodes.push_back(node);
  }
  for (auto& p : st.cfg.partitions) {
    auto part = spawn_partition(self->system(), p, self);
    self->link_to(part);
    st.partitions.push_back(part);
  }
  st.scheduler = spawn_scheduler(self->system(), st.cfg, std::move(ordered_nodes));
  self->link_to(st.scheduler);
  log().info("controller up cluster={} nodes={} partitions={}", st.cfg.cluster_name,
             st.cfg.nodes.size(), st.cfg.partitions.size());
  return {
      [self](msg::register_atom, msg::machine_status& rep,
             caf::actor& daemon) -> caf::result<caf::message> {
        auto it = self->state.nodes.find(rep.node_name);
        if (it == self->state.nodes.end()) {
          log().warn("registration refused node={} host={}", rep.node_name, rep.hostname);
          return make_error(errc::unknown_node, "node '" + rep.node_name +
                                                    "' is not in the controller's configuration");
        }
        return self->delegate(it->second, msg::register_atom_v, std::move(rep), std::move(daemon));
      },
      [self](msg::heartbeat_atom, msg::machine_status& rep) {
        auto it = self->state.nodes.find(rep.node_name);
        if (it != self->state.nodes.end())
          self->send(it->second, msg::heartbeat_atom_v, std::move(rep));
      },
      [self](msg::view_atom, msg::node_info& info) {
        auto& st = self->state;
        self->send(st.scheduler, msg::view_atom_v, info);
        st.node_view[info.name] = std::move(info);
      },
      [self](msg::view_atom, msg::partition_info& info) {
        self->state.partition_view[info.name] = std::move(info);
      },
      [self](msg::view_atom, msg::job_info& info) {
        auto& st = self->state;
        if (msg::is_finished(info.state)) st.jobs.erase(info.job_id);
        st.job_view[info.job_id] = std::move(info);
      },
      [self](msg::nodedown_atom, const std::string& node, uint64_t job) {
        auto it = self->state.jobs.find(job);
        if (it != self->state.jobs.end()) self->send(it->second, msg::nodedown_atom_v, node);
      },
      [self](msg::submit_atom, msg::job_request& req,
             caf::actor& client) -> caf::result<msg::job_info> {
        if (req.job_id == 0) return submit_job(self, req, client);
        auto it = self->state.jobs.find(req.job_id);
        if (it == self->state.jobs.end())
          return make_error(errc::unknown_job, "job " + std::to_string(req.job_id) +
                                                   " is not running (steps need a running job)");
        auto rp = self->make_response_promise<msg::job_info>();
        auto job_id = req.job_id;
        self->request(it->second, std::chrono::seconds{30}, msg::step_atom_v, std::move(req),
                      client)
            .then(
                [rp, job_id](msg::job_event& ev) mutable {
                  msg::job_info info;
                  info.job_id = job_id;
                  info.state = ev.state;
                  info.step_count = ev.step_id;
                  info.nodelist = ev.nodelist;
                  info.node_count = ev.node_count;
                  rp.deliver(std::move(info));
                },
                [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
        return rp;
      },
      [self](msg::jobs_atom) { return list_jobs(self, true); },
      [self](msg::jobs_atom, bool include_finished) { return list_jobs(self, include_finished); },
      [self](msg::jobs_atom, uint64_t id) -> caf::result<msg::job_info> {
        auto it = self->state.job_view.find(id);
        if (it == self->state.job_view.end())
          return make_error(errc::unknown_job, "invalid job id " + std::to_string(id));
        return it->second;
      },
      [self](msg::nodes_atom) {
        std::vector<msg::node_info> out;
        for (auto& n : self->state.cfg.nodes) out.push_back(self->state.node_view[n.name]);
        return out;
      },
      [self](msg::parts_atom) {
        std::vector<msg::partition_info> out;
        for (auto& p : self->state.cfg.partitions)
          out.push_back(self->state.partition_view[p.name]);
        return out;
      },
      [self](msg::config_atom) { return runtime::render_config(self->state.cfg); },
      [self](msg::cancel_atom, uint64_t id, int32_t signo,
             uint32_t uid) -> caf::result<caf::message> {
        auto& st = self->state;
        auto it = st.jobs.find(id);
        if (it != st.jobs.end()) return self->delegate(it->second, msg::cancel_atom_v, signo, uid);
        auto v = st.job_view.find(id);
        if (v != st.job_view.end())
          return make_error(errc::invalid_request, "job " + std::to_string(id) +
                                                       " has already finished (" +
                                                       msg::to_string(v->second.state) + ")");
        return make_error(errc::unknown_job, "invalid job id " + std::to_string(id));
      },
      [self](msg::signal_atom, uint64_t id, int32_t signo) {
        auto it = self->state.jobs.find(id);
        if (it != self->state.jobs.end()) self->send(it->second, msg::signal_atom_v, signo);
      },
      [self](msg::nodeupd_atom, const msg::node_update& up) { return update_nodes(self, up); },
  };
}

}  // namespace

caf::actor spawn_controller(caf::actor_system& sys, runtime::cluster_config cfg) {
  return sys.spawn(controller_behavior, std::move(cfg));
}

}  // namespace shoal::actors
