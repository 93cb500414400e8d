#include "actors/controller/controller_state.hpp"

#include <unistd.h>

#include <type_traits>

#include "actors/health_checks.hpp"
#include "actors/metering.hpp"
#include "actors/unexpected.hpp"
#include "cluster/clock.hpp"

namespace shoal::actors {

namespace ctl {

using cluster::unix_now;

namespace {

/// Under AuthType=auth/munge a client's request counts only when it came through this process's
/// front door, where its MUNGE credential was checked: CAF's own port authenticates nobody, so a
/// request from another host's actor system proves nothing. (Node daemons send none of these.)
caf::error unproven(controller_self self) {
  if (!self->state.cfg.auth.munge) return caf::none;
  const auto& sender = self->current_sender();
  if (!sender || sender->node() == self->node()) return caf::none;
  config::log().warn(
      "request refused: it came over the CAF port from {}, not through the front door",
      to_string(sender->node()));
  return make_error(errc::authentication_failed,
                    "Protocol authentication error (send requests through the front door, the port "
                    "after SlurmctldPort, with a MUNGE credential)");
}

/// A request a client sends through the front door: refused (see unproven) unless it came that way,
/// the one place the proof is checked; else `handler(self, args...)`.
template <class Atom, class R, class... Ts>
auto from_client(controller_self self, R (*handler)(controller_self, Ts...)) {
  return [self, handler](Atom, Ts... xs) -> R {
    if (auto err = unproven(self)) {
      if constexpr (std::is_void_v<R>)
        return;
      else
        return err;
    }
    return handler(self, std::forward<Ts>(xs)...);
  };
}

/// A message from a daemon, another controller or the controller's own actors: `handler(self,
/// args...)`.
template <class Atom, class R, class... Ts>
auto from_peer(controller_self self, R (*handler)(controller_self, Ts...)) {
  return [self, handler](Atom, Ts... xs) -> R { return handler(self, std::forward<Ts>(xs)...); };
}

/// Takes the settings and the durable state's handle; builds the switch plugin when none is given.
void adopt_setup(controller_self self, config::cluster_config cfg, metrics::registry* meters,
                 std::shared_ptr<interconnect::switch_manager> interconnect,
                 state_keeper_actor keeper, daemon_gate_actor gate, policy::access_rules access) {
  auto& st = self->state;
  st.cfg = std::move(cfg);
  st.gate = std::move(gate);
  if (st.gate) self->link_to(st.gate);
  st.keeper = std::move(keeper);
  st.interconnect = std::move(interconnect);
  if (!st.interconnect) {
    auto plugin = interconnect::make_switch_manager(st.cfg.switch_type, st.cfg.switch_parameters);
    if (!plugin) plugin = interconnect::make_switch_manager("switch/none");
    st.interconnect = std::shared_ptr<interconnect::switch_manager>{std::move(*plugin)};
  }
  // The plugin hands over each new state from the job actor that changed it, in order; that job
  // then syncs with the keeper before its step launches, so the state is durable by then.
  if (st.keeper)
    st.interconnect->set_state_sink([keeper = st.keeper](std::vector<uint8_t> state) {
      caf::anon_send(keeper, msg::persist_atom_v, switch_key,
                     std::make_shared<const std::vector<uint8_t>>(std::move(state)));
    });
  st.meters = meters;
  if (meters) {
    st.cluster.emplace(*meters);
    meters->gauge_of("shoal_diag_reset_time_seconds", diag_reset_help)
        .set(static_cast<double>(unix_now()));
  }
  // The user this controller runs as is a daemon user whatever the runtime passed.
  access.daemon_users.push_back(static_cast<uint32_t>(::getuid()));
  st.access = std::make_shared<const policy::access_rules>(std::move(access));
}

/// One node actor per configured node (each resuming its saved record), then the scheduler, which
/// places jobs on them in the config's order.
void spawn_nodes_and_scheduler(controller_self self, const state::record_map& saved) {
  auto& st = self->state;
  std::vector<caf::actor> ordered_nodes;
  for (auto& n : st.cfg.nodes) {
    std::optional<msg::node_record> record;
    if (auto rec = saved.find(node_key(n.name)); rec != saved.end())
      record = decode_record<msg::node_record>(rec->first, rec->second);
    auto node = spawn_node(self->system(), n, caf::actor_cast<caf::actor>(self),
                           st.cfg.heartbeat_timeout_ms, st.cfg.heartbeat_interval_ms, st.meters,
                           st.keeper, std::move(record), st.gate);
    self->link_to(node);
    st.nodes.emplace(n.name, node);
    ordered_nodes.push_back(caf::actor_cast<caf::actor>(node));
  }
  slotted(st.cfg.partitions, st.partition_slots);  // the config's order, as both actors start
  st.topology = spawn_topology(self->system(), st.cfg, st.meters);
  self->link_to(st.topology);
  std::optional<msg::usage_record> usage;
  if (auto rec = saved.find(fairshare_key); rec != saved.end())
    usage = decode_record<msg::usage_record>(rec->first, rec->second);
  st.scheduler =
      spawn_scheduler(self->system(), st.cfg, std::move(ordered_nodes),
                      caf::actor_cast<caf::actor>(self), st.topology, st.meters, st.keeper, usage);
  self->link_to(st.scheduler);
}

/// The collector manager, with CollectorNodes only: which nodes collect and for whom.
void spawn_collectors(controller_self self, const state::record_map& saved) {
  auto& st = self->state;
  if (st.cfg.collector_nodes.empty()) return;
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
  cs.meters = st.meters;
  cs.keeper = st.keeper;
  if (auto rec = saved.find("collectors"); rec != saved.end())
    cs.saved = decode_record<msg::collector_map_record>(rec->first, rec->second);
  st.collectors = spawn_collector_manager(self->system(), std::move(cs));
  self->link_to(st.collectors);
}

msg::controller_status ping(controller_self) {
  msg::controller_status status;
  status.in_control = true;
  return status;
}

}  // namespace

/// The health-check rounds (HealthCheckInterval), with the node actors as they are now; a
/// reconfigure that changes the nodes starts them again with the new ones.
void start_health_checks(controller_self self) {
  auto& st = self->state;
  if (st.health_checks) {
    self->unlink_from(st.health_checks);
    self->send_exit(st.health_checks, caf::exit_reason::user_shutdown);
    st.health_checks = nullptr;
  }
  if (!st.cfg.health.enabled()) return;
  st.health_checks = spawn_health_checks(self->system(), caf::actor_cast<caf::actor>(self),
                                         st.nodes, st.cfg.health);
  self->link_to(st.health_checks);
}

controller_actor::behavior_type controller_behavior(
    controller_self self, config::cluster_config cfg, metrics::registry* meters,
    std::shared_ptr<interconnect::switch_manager> interconnect, controller_recovery recovery,
    daemon_gate_actor gate, policy::access_rules access) {
  adopt_setup(self, std::move(cfg), meters, std::move(interconnect), std::move(recovery.keeper),
              std::move(gate), std::move(access));
  auto& st = self->state;
  tolerate_strays(self);
  actor_probe probe{self, meters, "controller"};
  st.attribute_to = [probe](const std::string& user) { probe.attribute_to(user); };
  replay_partitions(st, recovery.saved);
  recover_reservations(st, recovery.saved);
  spawn_partitions(self);
  spawn_nodes_and_scheduler(self, recovery.saved);
  if (!st.reservations.empty()) publish_reservations(self);
  spawn_collectors(self, recovery.saved);
  spawn_power_saving(self, recovery.saved);
  start_health_checks(self);
  if (recovery.open_store) {
    accounting_writer_setup writing;
    writing.open = std::move(recovery.open_store);
    writing.cluster = st.cfg.cluster_name;
    writing.owner = caf::actor_cast<caf::actor>(self);
    writing.meters = st.meters;
    if (!st.cfg.controller_hosts.empty()) {
      const auto& line = st.cfg.controller_hosts.front();
      writing.control_host = line.address.empty() ? line.name : line.address;
      writing.control_port = line.port != 0 ? line.port : st.cfg.controller_port;
    }
    st.accounting = spawn_accounting_writer(self->system(), std::move(writing));
    self->link_to(st.accounting);
  }
  if (!recovery.saved.empty()) recover(self, recovery.saved);
  config::log().info("controller up cluster={} nodes={} partitions={}", st.cfg.cluster_name,
                     st.cfg.nodes.size(), st.cfg.partitions.size());
  SHOAL_DEBUG(init,
              "controller settings heartbeat_interval_ms={} heartbeat_timeout_ms={} kill_wait_s={} "
              "debug_flags={}",
              st.cfg.heartbeat_interval_ms, st.cfg.heartbeat_timeout_ms, st.cfg.kill_wait_s,
              config::render_debug_flags(config::debug_flags()));
  self->delayed_send(self, purge_interval(st.cfg), msg::check_atom_v);
  using namespace msg;
  return {
      // -- from node daemons and other controllers --
      probe.rpc("register", from_peer<register_atom>(self, register_daemon)),
      probe.rpc("register", from_peer<register_atom>(self, register_daemon_with_report)),
      probe.rpc("collector", from_peer<collector_atom>(self, announce_collector)),
      probe.rpc("ping", from_peer<caf::ping_atom>(self, ping)),
      probe.rpc("handover", from_peer<handover_atom>(self, hand_over)),
      // -- from its own actors --
      probe.metered("view_node", from_peer<view_atom>(self, on_node_view)),
      probe.metered("view_job", from_peer<view_atom>(self, on_job_view)),
      probe.metered("view_steps", from_peer<view_atom>(self, on_step_view)),
      probe.metered("stored",
                    [self](stored_atom, std::vector<uint64_t>& ids) {
                      self->state.stored.insert(ids.begin(), ids.end());
                    }),
      probe.metered("purge",
                    [self](check_atom) {
                      purge_old_jobs(self);
                      self->delayed_send(self, purge_interval(self->state.cfg), check_atom_v);
                    }),
      probe.metered("assocs", from_peer<assocs_atom>(self, adopt_associations)),
      probe.metered("view_array", from_peer<view_atom>(self, on_array_view)),
      probe.metered("arraytask", from_peer<arraytask_atom>(self, start_array_task)),
      probe.metered("nodedown", from_peer<nodedown_atom>(self, relay_node_down)),
      probe.metered("preempt", from_peer<preempt_atom>(self, preempt_job)),
      probe.metered("resume", from_peer<resume_atom>(self, resume_preempted)),
      probe.metered("step_exit", [self](step_exit& ex) { relay_step_exit(self, ex); }),
      // -- listings (the front door decides who sees what) --
      probe.rpc("jobs", from_peer<jobs_atom>(self, list_all_jobs)),
      probe.rpc("accounting", from_client<account_atom>(self, query_accounting)),
      probe.rpc("acctmgr", from_client<acctmgr_atom>(self, list_associations)),
      probe.rpc("acctmgr", from_client<acctmgr_atom>(self, edit_associations)),
      probe.rpc("jobs", from_peer<jobs_atom>(self, list_jobs)),
      probe.rpc("jobs", from_peer<jobs_atom>(self, list_job_fields)),
      probe.rpc("job", from_peer<jobs_atom>(self, show_job)),
      probe.rpc("steps", from_peer<steps_atom>(self, list_steps)),
      probe.rpc("usage", from_client<usage_atom>(self, live_step_usage)),
      probe.rpc("shares", from_client<shares_atom>(self, list_shares)),
      probe.rpc("nodes", from_peer<nodes_atom>(self, list_nodes)),
      probe.rpc("parts", from_peer<parts_atom>(self, list_partitions)),
      probe.rpc("summary", from_peer<summary_atom>(self, summarize_partitions)),
      probe.rpc("config", from_peer<config_atom>(self, render_config)),
      probe.rpc("pending", from_peer<pending_atom>(self, list_pending)),
      probe.rpc("map", from_peer<map_atom>(self, allocation_map)),
      probe.rpc("collectors", from_peer<collectors_atom>(self, list_collectors)),
      // -- from clients, through the front door --
      probe.rpc("submit", from_client<submit_atom>(self, submit)),
      probe.rpc("willrun", from_client<willrun_atom>(self, will_run)),
      probe.rpc("attach", from_client<attach_atom>(self, attach)),
      probe.rpc("cancel", from_client<cancel_atom>(self, cancel_by_text)),
      probe.rpc("cancel", from_client<cancel_atom>(self, cancel_by_id)),
      probe.rpc("signal", from_client<signal_atom>(self, signal_job)),
      probe.rpc("jobctl", from_client<jobctl_atom>(self, control_jobs)),
      probe.rpc("jobupdate", from_client<update_atom>(self, update_jobs)),
      probe.rpc("complete", from_client<complete_atom>(self, complete)),
      probe.rpc("nodeupd", from_client<nodeupd_atom>(self, update_nodes)),
      probe.rpc("partedit", from_client<partedit_atom>(self, edit_partitions)),
      probe.rpc("resvedit", from_client<resv_atom>(self, edit_reservations)),
      probe.rpc("reservations", from_peer<resv_atom>(self, list_reservations)),
      probe.rpc("setdebug", from_client<setdebug_atom>(self, set_debug_level)),
      probe.rpc("dbgflags", from_client<dbgflags_atom>(self, set_debug_flags)),
      probe.rpc("diagreset", from_client<diagreset_atom>(self, reset_diag)),
      probe.rpc("reconfig", from_client<reconfig_atom>(self, reconfigure_nodes)),
      probe.rpc("reconfig", from_client<reconfig_atom>(self, reconfigure_layout)),
  };
}

}  // namespace ctl

controller_actor spawn_controller(caf::actor_system& sys, config::cluster_config cfg,
                                  metrics::registry* meters,
                                  std::shared_ptr<interconnect::switch_manager> interconnect,
                                  controller_recovery recovery, daemon_gate_actor daemon_gate,
                                  policy::access_rules access) {
  return sys.spawn(ctl::controller_behavior, std::move(cfg), meters, std::move(interconnect),
                   std::move(recovery), std::move(daemon_gate), std::move(access));
}

}  // namespace shoal::actors
