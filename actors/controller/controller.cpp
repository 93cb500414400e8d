#include "actors/controller/controller_state.hpp"

#include <unistd.h>

#include "actors/clock.hpp"
#include "actors/metering.hpp"
#include "config/duration.hpp"
#include "topology/hostlist.hpp"
#include "topology/partition_summary.hpp"
#include "topology/torus.hpp"

namespace shoal::actors {

namespace ctl {

controller_actor::behavior_type controller_behavior(
    controller_self self, config::cluster_config cfg, metrics::registry* meters,
    std::shared_ptr<interconnect::switch_manager> interconnect, controller_recovery recovery,
    daemon_gate_actor gate) {
  auto& st = self->state;
  st.cfg = std::move(cfg);
  st.gate = std::move(gate);
  if (st.gate) self->link_to(st.gate);
  st.keeper = std::move(recovery.keeper);
  st.interconnect = std::move(interconnect);
  if (!st.interconnect) {
    auto plugin = interconnect::make_switch_manager(st.cfg.switch_type);
    if (!plugin) plugin = interconnect::make_switch_manager("switch/none");
    st.interconnect = std::shared_ptr<interconnect::switch_manager>{std::move(*plugin)};
  }
  st.meters = meters;
  if (meters) {
    st.cluster.emplace(*meters);
    meters->gauge_of("shoal_diag_reset_time_seconds", diag_reset_help)
        .set(static_cast<double>(unix_now()));
  }
  actor_probe probe{self, meters, "controller"};
  st.admin_uid = static_cast<uint32_t>(::getuid());
  replay_partitions(st, recovery.saved);
  std::vector<caf::actor> ordered_nodes;
  for (auto& n : st.cfg.nodes) {
    std::optional<msg::node_record> saved;
    if (auto rec = recovery.saved.find(node_key(n.name)); rec != recovery.saved.end())
      saved = decode_record<msg::node_record>(rec->first, rec->second);
    auto node = spawn_node(self->system(), n, caf::actor_cast<caf::actor>(self),
                           st.cfg.heartbeat_timeout_ms, st.cfg.heartbeat_interval_ms, meters,
                           st.keeper, std::move(saved), st.gate);
    self->link_to(node);
    st.nodes.emplace(n.name, node);
    ordered_nodes.push_back(caf::actor_cast<caf::actor>(node));
  }
  st.scheduler = spawn_scheduler(self->system(), st.cfg, std::move(ordered_nodes),
                                 caf::actor_cast<caf::actor>(self), meters);
  self->link_to(st.scheduler);
  if (!st.cfg.collector_nodes.empty()) {
    collector_manager_setup cs;
    cs.collectors = st.cfg.collector_nodes;
    std::set<std::string> is_collector(cs.collectors.begin(), cs.collectors.end());
    for (auto& n : st.cfg.nodes) {
      if (is_collector.count(n.name) != 0)
        cs.hosts[n.name] = n.address.empty() ? n.name : n.address;
      else
        cs.nodes.push_back(n.name);
    }
    for (auto& [name, node] : st.nodes) cs.node_actors.emplace(name, node);
    cs.heartbeat_interval_ms = st.cfg.heartbeat_interval_ms;
    cs.heartbeat_timeout_ms = st.cfg.heartbeat_timeout_ms;
    cs.settle_ms = std::min<int64_t>(st.cfg.heartbeat_interval_ms, 10000);
    cs.meters = meters;
    cs.keeper = st.keeper;
    if (auto rec = recovery.saved.find("collectors"); rec != recovery.saved.end())
      cs.saved = decode_record<msg::collector_map_record>(rec->first, rec->second);
    st.collectors = spawn_collector_manager(self->system(), std::move(cs));
    self->link_to(st.collectors);
  }
  if (!recovery.saved.empty()) recover(self, recovery.saved);
  config::log().info("controller up cluster={} nodes={} partitions={}", st.cfg.cluster_name,
                     st.cfg.nodes.size(), st.cfg.partitions.size());
  SHOAL_DEBUG(init,
              "controller settings heartbeat_interval_ms={} heartbeat_timeout_ms={} "
              "kill_wait_s={} debug_flags={}",
              st.cfg.heartbeat_interval_ms, st.cfg.heartbeat_timeout_ms, st.cfg.kill_wait_s,
              config::render_debug_flags(config::debug_flags()));
  return {
      probe.rpc("register",
                [self](msg::register_atom, msg::machine_status& rep, caf::actor& daemon)
                    -> caf::result<caf::actor> { return on_register(self, rep, daemon, nullptr); }),
      probe.rpc("register",
                [self](msg::register_atom, msg::machine_status& rep, caf::actor& daemon,
                       msg::node_report& report) -> caf::result<caf::actor> {
                  return on_register(self, rep, daemon, &report);
                }),
      probe.metered("view_node",
                    [self](msg::view_atom, msg::node_info& info) {
                      auto& st = self->state;
                      self->send(st.scheduler, msg::view_atom_v, info);
                      auto known = st.node_view.find(info.name);
                      if (st.cluster)
                        st.cluster->node_changed(
                            known != st.node_view.end()
                                ? std::optional<msg::node_state>{known->second.state}
                                : std::nullopt,
                            info.state);
                      st.node_view[info.name] = std::move(info);
                    }),
      probe.metered("view_job",
                    [self](msg::view_atom, msg::job_info& info) {
                      auto& st = self->state;
                      if (msg::is_finished(info.state)) {
                        st.jobs.erase(info.job_id);
                        if (info.array_job_id != 0) {
                          auto arr = st.arrays.find(info.array_job_id);
                          if (arr != st.arrays.end())
                            arr->second.running.erase(static_cast<uint32_t>(info.array_task_id));
                        }
                      }
                      auto known = st.job_view.find(info.job_id);
                      if (st.cluster)
                        st.cluster->job_changed(
                            known != st.job_view.end()
                                ? std::optional<msg::job_state>{known->second.state}
                                : std::nullopt,
                            info.state);
                      put_view(st, info.job_id, std::move(info));
                    }),
      probe.metered(
          "view_array",
          [self](msg::view_atom, uint64_t array_id, const std::string& reason,
                 const std::string& folded) { on_array_view(self, array_id, reason, folded); }),
      probe.metered("arraytask",
                    [self](msg::arraytask_atom, uint64_t array_id, uint32_t index, uint64_t task_id,
                           std::vector<std::string>& names, std::vector<caf::actor>& actors,
                           std::vector<uint32_t>& cpus, std::string& nodelist,
                           std::vector<msg::gres_held>& gres) {
                      start_array_task(self, array_id, index, task_id, names, actors, cpus,
                                       nodelist, gres);
                    }),
      probe.rpc("jobctl",
                [self, probe](msg::jobctl_atom, const msg::job_control& ctl) {
                  probe.attribute_to(uid_label(ctl.uid));
                  if (auto err = unproven(self)) return caf::result<caf::ok_atom>{std::move(err)};
                  return job_control(self, ctl);
                }),
      probe.rpc("pending",
                [self](msg::pending_atom) -> caf::result<std::vector<msg::pending_detail>> {
                  return self->delegate(self->state.scheduler, msg::pending_atom_v);
                }),
      probe.rpc("map",
                [self](msg::map_atom) -> caf::result<msg::topology_view> {
                  return self->delegate(self->state.scheduler, msg::map_atom_v);
                }),
      probe.rpc("collector",
                [self](msg::collector_atom, std::string& name, uint16_t port,
                       caf::actor& collector) -> caf::result<caf::ok_atom> {
                  if (!self->state.collectors)
                    return make_error(errc::invalid_request, "node " + name +
                                                                 " announced a collector, but "
                                                                 "CollectorNodes is empty");
                  return self->delegate(self->state.collectors, msg::collector_atom_v,
                                        std::move(name), port, std::move(collector));
                }),
      probe.rpc("collectors",
                [self](msg::collectors_atom) -> caf::result<std::vector<msg::collector_info>> {
                  if (!self->state.collectors) return std::vector<msg::collector_info>{};
                  return self->delegate(self->state.collectors, msg::collectors_atom_v);
                }),
      probe.metered("nodedown",
                    [self](msg::nodedown_atom, const std::string& node, uint64_t job) {
                      auto it = self->state.jobs.find(job);
                      if (it != self->state.jobs.end())
                        self->send(it->second, msg::nodedown_atom_v, node);
                    }),
      probe.metered("step_exit",
                    [self](msg::step_exit& ex) {
                      // A step known by job id only ended; its node actor relayed it.
                      auto it = self->state.jobs.find(ex.job_id);
                      if (it == self->state.jobs.end()) {
                        config::log().warn(
                            "step exit for an unknown job dropped job={} step={} "
                            "node={}",
                            ex.job_id, msg::step_label(ex.step_id), ex.node_name);
                        return;
                      }
                      self->send(it->second, std::move(ex));
                    }),
      probe.rpc("submit",
                [self, probe](msg::submit_atom, msg::job_request& req,
                              caf::actor& client) -> caf::result<msg::job_info> {
                  probe.attribute_to(req.user);
                  if (auto err = unproven(self)) return err;
                  SHOAL_DEBUG(msg, "rpc submit user={} uid={} job={} batch={}", req.user, req.uid,
                              req.job_id, req.batch);
                  if (req.job_id == 0) return submit_job(self, req, client);
                  auto it = self->state.jobs.find(req.job_id);
                  if (it == self->state.jobs.end())
                    return make_error(errc::unknown_job,
                                      "job " + std::to_string(req.job_id) +
                                          " is not running (steps need a running job)");
                  auto rp = self->make_response_promise<msg::job_info>();
                  auto job_id = req.job_id;
                  self->request(it->second, std::chrono::seconds{30}, msg::step_atom_v,
                                std::move(req), client)
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
                }),
      probe.rpc("jobs",
                [self](msg::jobs_atom) {
                  SHOAL_DEBUG(msg, "rpc jobs finished=true");
                  return list_jobs(self, true);
                }),
      probe.rpc("jobs",
                [self](msg::jobs_atom, bool include_finished) {
                  return list_jobs(self, include_finished);
                }),
      probe.rpc("job",
                [self](msg::jobs_atom, uint64_t id) -> caf::result<msg::job_info> {
                  auto it = self->state.job_view.find(id);
                  if (it == self->state.job_view.end())
                    return make_error(errc::unknown_job, "invalid job id " + std::to_string(id));
                  return it->second;
                }),
      probe.rpc("nodes",
                [self](msg::nodes_atom) {
                  std::vector<msg::node_info> out;
                  // find, not operator[]: a node not heard of yet must not get a view
                  // (cluster_meters counts each view's first appearance).
                  auto& view = self->state.node_view;
                  for (auto& n : self->state.cfg.nodes) {
                    auto it = view.find(n.name);
                    out.push_back(it != view.end() ? it->second : msg::node_info{});
                  }
                  return out;
                }),
      probe.rpc("parts",
                [self](msg::parts_atom) {
                  std::vector<msg::partition_info> out;
                  for (auto& p : self->state.cfg.partitions) out.push_back(partition_view(p));
                  return out;
                }),
      probe.rpc("summary",
                [self](msg::summary_atom) {
                  auto& view = self->state.node_view;
                  std::vector<msg::partition_info> parts;
                  for (auto& p : self->state.cfg.partitions) parts.push_back(partition_view(p));
                  auto state_of = [&view](const std::string& name) {
                    auto it = view.find(name);
                    return it != view.end() ? it->second.state : msg::node_state::unknown;
                  };
                  const auto& cfg = self->state.cfg;
                  if (!cfg.torus3d)
                    return topology::summarize_partitions(std::move(parts), state_of);
                  // A torus's groups in Blue Gene/L's box form: a few boxes, not 512 names.
                  auto boxes = [&cfg](const std::vector<std::string>& names) {
                    auto text = topology::box_hostlist(cfg.torus.prefix, cfg.torus.dims, names);
                    return text ? *text : topology::compress_hostlist_sorted(names);
                  };
                  return topology::summarize_partitions(std::move(parts), state_of, boxes);
                }),
      probe.rpc("config",
                [self](msg::config_atom) { return config::render_config(self->state.cfg); }),
      probe.rpc("cancel",
                [self, probe](msg::cancel_atom, const std::string& job, int32_t signo,
                              uint32_t uid) -> caf::result<caf::ok_atom> {
                  probe.attribute_to(uid_label(uid));
                  SHOAL_DEBUG(msg, "rpc cancel job={} signal={} uid={}", job, signo, uid);
                  if (auto err = unproven(self)) return err;
                  return cancel(self, job, signo, uid);
                }),
      probe.rpc("cancel",
                [self, probe](msg::cancel_atom, uint64_t id, int32_t signo,
                              uint32_t uid) -> caf::result<caf::ok_atom> {
                  probe.attribute_to(uid_label(uid));
                  if (auto err = unproven(self)) return err;
                  return cancel(self, std::to_string(id), signo, uid);
                }),
      probe.rpc(
          "attach",
          [self](msg::attach_atom, uint64_t id, caf::actor& client) -> caf::result<msg::job_info> {
            auto& st = self->state;
            if (auto err = unproven(self)) return err;
            if (auto job = st.jobs.find(id); job != st.jobs.end())
              return self->delegate(job->second, msg::attach_atom_v, std::move(client));
            if (auto view = st.job_view.find(id); view != st.job_view.end()) return view->second;
            return make_error(errc::unknown_job,
                              "job " + std::to_string(id) + " is not known to the controller");
          }),
      probe.rpc(
          "willrun",
          [self](msg::willrun_atom, msg::job_request& req) -> caf::result<msg::start_estimate> {
            if (auto err = unproven(self)) return err;
            return will_run(self, req);
          }),
      probe.rpc("complete",
                [self](msg::complete_atom, uint64_t id, int32_t code, int32_t signo,
                       uint32_t uid) -> caf::result<caf::ok_atom> {
                  if (auto err = unproven(self)) return err;
                  config::log().info("job allocation released job={} exit_code={} uid={}", id, code,
                                     uid);
                  return complete(self, id, code, signo, uid);
                }),
      probe.rpc("signal",
                [self](msg::signal_atom, uint64_t id, int32_t signo) {
                  if (unproven(self)) return;
                  auto it = self->state.jobs.find(id);
                  if (it != self->state.jobs.end())
                    self->send(it->second, msg::signal_atom_v, signo);
                }),
      probe.rpc("nodeupd",
                [self, probe](msg::nodeupd_atom, const msg::node_update& up) {
                  probe.attribute_to(up.user);
                  SHOAL_DEBUG(msg, "rpc update nodes={} state={} user={}", up.nodes, up.state,
                              up.user);
                  if (auto err = unproven(self)) return caf::result<caf::ok_atom>{std::move(err)};
                  return update_nodes(self, up);
                }),
      probe.rpc("partedit",
                [self, probe](msg::partedit_atom,
                              const msg::partition_edit& edit) -> caf::result<caf::ok_atom> {
                  probe.attribute_to(edit.user);
                  if (auto err = unproven(self)) return err;
                  return edit_partitions(self, edit);
                }),
      probe.rpc("setdebug",
                [self, probe](msg::setdebug_atom, const std::string& level,
                              const std::string& user) -> caf::result<std::string> {
                  probe.attribute_to(user);
                  if (auto err = unproven(self)) return err;
                  return on_setdebug(level, user);
                }),
      probe.rpc("dbgflags",
                [self, probe](msg::dbgflags_atom, const std::string& changes,
                              const std::string& user) -> caf::result<std::string> {
                  probe.attribute_to(user);
                  if (auto err = unproven(self)) return err;
                  return on_setdebugflags(changes, user);
                }),
      probe.rpc("diagreset",
                [self](msg::diagreset_atom, uint32_t uid) -> caf::result<caf::ok_atom> {
                  if (auto err = unproven(self)) return err;
                  return reset_diag(self, uid);
                }),
      probe.rpc("ping",
                [](caf::ping_atom) {
                  msg::controller_status status;
                  status.in_control = true;
                  return status;
                }),
      probe.rpc("handover", [self](msg::handover_atom) { return hand_over(self); }),
  };
}

}  // namespace ctl

controller_actor spawn_controller(caf::actor_system& sys, config::cluster_config cfg,
                                  metrics::registry* meters,
                                  std::shared_ptr<interconnect::switch_manager> interconnect,
                                  controller_recovery recovery, daemon_gate_actor daemon_gate) {
  return sys.spawn(ctl::controller_behavior, std::move(cfg), meters, std::move(interconnect),
                   std::move(recovery), std::move(daemon_gate));
}

}  // namespace shoal::actors
