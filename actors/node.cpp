#include "actors/node.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <set>

#include <caf/all.hpp>

#include "actors/daemon_transport.hpp"
#include "actors/metering.hpp"
#include "actors/node_internals.hpp"
#include "actors/saved_state.hpp"
#include "actors/send_to.hpp"
#include "actors/unexpected.hpp"
#include "cluster/clock.hpp"
#include "cluster/node_health.hpp"
#include "config/defaults.hpp"
#include "config/log.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "messages/field_compare.hpp"
#include "policy/cpu_ids.hpp"
#include "policy/gres.hpp"

namespace shoal::actors {

using cluster::derive_node_state;
using cluster::node_flags;
using cluster::shortfall_reason;
using cluster::unix_now;

namespace {

using liveness = node_flags::liveness;

/// How stale LastResponse may get in listings: heartbeats alone are not news, so a node that
/// changes nothing republishes its view only this often.
constexpr int64_t last_response_refresh_s = 60;

/// How long the node's daemon has to answer when a second one registers for the node. A live
/// shoald answers in milliseconds; a restarted one waits this long at most for its dead
/// predecessor to be given up. Well inside MessageTimeout (10 s by default), which the
/// newcomer's registration waits.
constexpr auto daemon_check_patience = std::chrono::seconds{3};

/// Sends to `daemon`, through the gate when there is one: in the order sent, and launches signed.
template <class... Ts>
void to_daemon(node_self self, const caf::actor& daemon, Ts&&... xs) {
  if (self->state.gate)
    self->send(self->state.gate, std::forward<Ts>(xs)..., daemon);
  else
    send_to(self, daemon, std::forward<Ts>(xs)...);
}

/// Signals a step through the gate, which signs it, or straight with no credential (auth/none).
void signal_daemon(node_self self, const caf::actor& daemon, uint64_t job, uint32_t step,
                   int32_t signo) {
  if (self->state.gate)
    self->send(self->state.gate, msg::signal_atom_v, job, step, signo, daemon);
  else
    send_to(self, daemon, msg::signal_atom_v, job, step, signo, std::string{});
}

/// Slurm's `Gres=` of a node: its kinds merged by name and type ("gpu:4", "gpu:tesla:2,nic:1").
std::string gres_text(const std::vector<config::node_gres>& gres) {
  policy::gres_list items;
  for (const auto& g : gres) {
    auto same = std::find_if(items.begin(), items.end(),
                             [&](auto& i) { return i.name == g.name && i.type == g.type; });
    if (same != items.end())
      same->count += g.count;
    else
      items.push_back({g.name, g.type, g.count});
  }
  return policy::gres_text(items);
}

/// Slurm's `GresUsed=`: per configured name and type, the devices jobs hold and their indices
/// among the node's devices of that name ("gpu:2(IDX:0-1)", "gpu:0(IDX:N/A)").
std::string gres_used_text(const std::vector<config::node_gres>& gres,
                           const std::map<uint64_t, std::vector<msg::gres_held>>& devices) {
  std::map<std::string, std::vector<bool>> held;  // name -> index held
  for (const auto& [job, list] : devices)
    for (const auto& h : list)
      for (auto i : h.indices) {
        auto& bits = held[h.name];
        if (bits.size() <= i) bits.resize(i + 1);
        bits[i] = true;
      }
  std::vector<std::pair<std::string, std::string>> kinds;
  for (const auto& g : gres)
    if (std::find(kinds.begin(), kinds.end(), std::make_pair(g.name, g.type)) == kinds.end())
      kinds.emplace_back(g.name, g.type);
  std::string out;
  for (const auto& [name, type] : kinds) {
    std::vector<uint32_t> indices;
    uint32_t index = 0;  // among the node's devices of `name`, in config order
    for (const auto& g : gres) {
      if (g.name != name) continue;
      for (uint64_t d = 0; d < g.count; ++d, ++index) {
        auto& bits = held[name];
        if (g.type == type && index < bits.size() && bits[index]) indices.push_back(index);
      }
    }
    if (!out.empty()) out += ',';
    out += name + (type.empty() ? "" : ":" + type) + ":" + std::to_string(indices.size()) +
           "(IDX:" + (indices.empty() ? std::string{"N/A"} : policy::index_ranges(indices)) + ")";
  }
  return out;
}

/// States a node passes through by running jobs alone.
bool busy_or_free(msg::node_state s) {
  using msg::node_state;
  return s == node_state::idle || s == node_state::allocated || s == node_state::mixed ||
         s == node_state::completing;
}

}  // namespace

/// Recomputes the visible state and tells the controller (and through it the scheduler) only
/// when something users see changed, or LastResponse is a minute behind.
void publish(node_self self) {
  auto& st = self->state;
  st.flags.jobs = st.jobs.size();
  uint64_t held = 0;
  bool whole = false;
  for (auto& [job, cpus] : st.jobs) {
    held += cpus;
    whole = whole || cpus == 0;
  }
  st.flags.partial = !whole && st.info.cpus > 0 && held < st.info.cpus;
  st.flags.completing = st.completing.size();
  st.info.reboot_requested = st.reboot.requested && !st.reboot.issued;
  st.info.reboot_issued = st.reboot.issued;
  auto next = derive_node_state(st.flags);
  if (next != st.info.state) {
    // Jobs starting and ending flip a node between idle, allocated, mixed and completing all
    // day: those lines are debug (Slurm logs none); anything else an operator acts on is info.
    auto level = busy_or_free(st.info.state) && busy_or_free(next) ? spdlog::level::debug
                                                                   : spdlog::level::info;
    config::log().log(level, "node state node={} from={} to={} reason=\"{}\"", st.info.name,
                      msg::to_string(st.info.state), msg::to_string(next), st.info.reason);
    st.info.state = next;
    st.info.state_since = unix_now();
  }
  st.info.job_ids.clear();
  for (auto& [job, cpus] : st.jobs) st.info.job_ids.push_back(job);
  if (!st.cfg.gres.empty()) st.info.gres_used = gres_used_text(st.cfg.gres, st.devices);
  // The node's figures ride along with a view sent anyway: alone they are no news, except the
  // first ones since the view had none (show node then has a load at once).
  bool first_figures =
      st.published && st.published->usage.sampled_at == 0 && st.usage.sampled_at != 0;
  if (!first_figures && st.published && msg::same_fields(*st.published, st.info, "last_response") &&
      st.info.last_response < st.published->last_response + last_response_refresh_s)
    return;
  st.info.usage = st.usage;
  st.published = st.info;
  send_to(self, st.controller, msg::view_atom_v, st.info);
}

void set_reason(node_self self, std::string reason, std::string user) {
  auto& info = self->state.info;
  info.reason = std::move(reason);
  info.reason_user = std::move(user);
  info.reason_time = info.reason.empty() ? 0 : unix_now();
}

namespace {

void arm_silence_timer(node_self self) {
  self->state.last_heard = std::chrono::steady_clock::now();
  // Under a collector the manager times the silence; no timer here.
  if (!self->state.collector.empty()) return;
  self->delayed_send(self, self->state.timeout, msg::check_atom_v, ++self->state.check_gen);
}

void go_down(node_self self, std::string reason, bool by_admin, std::string user) {
  auto& st = self->state;
  st.flags.life = liveness::down;
  st.flags.admin_down = by_admin;
  set_reason(self, std::move(reason), std::move(user));
  for (auto& [job, cpus] : st.jobs)
    send_to(self, st.controller, msg::nodedown_atom_v, st.info.name, job);
  publish(self);
}

/// Effective resources: configured values, or the reported ones where the config is silent. The
/// report is the static probe, sent once per registration.
void merge_report(node_self self, const msg::machine_status& rep) {
  auto& st = self->state;
  st.info.reported = rep;
  st.info.last_response = unix_now();
  if (st.cfg.cpus == 0) st.info.cpus = rep.cpus;
  if (st.cfg.real_memory_mb == 0) st.info.real_memory_mb = rep.real_memory_mb;
  if (st.cfg.tmp_disk_mb == 0) st.info.tmp_disk_mb = rep.tmp_disk_mb;
}

/// A registration's static probe against the config: a node reporting less than configured is
/// drained with the reason, as slurmctld validates a node when it registers (not on every beat,
/// so an admin's resume holds until the node registers again).
void check_resources(node_self self) {
  auto& st = self->state;
  if (st.flags.life == liveness::down && st.flags.admin_down) return;  // the admin's reason stays
  if (st.cfg.trust_config) return;
  auto shortfall = shortfall_reason(st.cfg, st.info.reported);
  if (shortfall.empty() || st.flags.drain) return;
  config::log().warn("node low resources node={} reason=\"{}\"", st.info.name, shortfall);
  st.flags.drain = true;
  set_reason(self, shortfall, "shoal");
}

/// A report arrived (a registration, a heartbeat, a collector's word): the node is alive. A
/// DOWN node stays DOWN unless ReturnToService lets it back: under 1 and 2 a node DOWN for not
/// responding returns; under 0 nothing does by itself (an admin resumes it). What takes a node
/// DOWN for another reason (an admin, State=DOWN, the power actor) is undone only by a
/// registration under 2 (`take_daemon`) or an admin.
void on_alive(node_self self) {
  auto& st = self->state;
  arm_silence_timer(self);
  if (st.flags.life == liveness::down && (st.flags.admin_down || st.cfg.return_to_service == 0))
    return publish(self);
  if (st.flags.life != liveness::up) {
    if (st.flags.life == liveness::down)
      config::log().info("node returned to service node={} return_to_service={}", st.info.name,
                         static_cast<int>(st.cfg.return_to_service));
    st.flags.life = liveness::up;
    st.flags.admin_down = false;
    if (!st.flags.drain) set_reason(self, "", "");
  }
  publish(self);
}

/// What an admin set on the node, as a restarted controller restores it.
msg::node_record record_of(const node_state_t& st) {
  msg::node_record r;
  r.name = st.info.name;
  r.drain = st.flags.drain;
  r.down = st.flags.life == liveness::down && st.flags.admin_down;
  r.reason = st.info.reason;
  r.reason_time = st.info.reason_time;
  r.reason_user = st.info.reason_user;
  // Addresses only when set at run time: the config's come from the config again.
  if (st.info.address != st.cfg.address) r.address = st.info.address;
  r.hostname = st.info.hostname;
  return r;
}

}  // namespace

/// Hands the keeper what an admin set on the node (nothing kept: the record is erased).
void persist_admin_state(node_self self) {
  auto& st = self->state;
  if (!st.keeper) return;
  auto rec = record_of(st);
  bool kept = rec.drain || rec.down || !rec.address.empty() || !rec.hostname.empty();
  self->send(st.keeper, msg::persist_atom_v, node_key(st.info.name),
             kept ? encoded(rec) : state::value_ptr{});
}

namespace {

/// Saves the admin's change and answers the update once it is durable (the keeper answers).
caf::result<caf::ok_atom> saved_then_ok(node_self self) {
  auto& st = self->state;
  if (!st.keeper) return caf::ok_atom::value;
  persist_admin_state(self);
  return self->delegate(st.keeper, msg::sync_atom_v);
}

/// ReturnToService=2: a node DOWN for any reason is in service again when its daemon registers
/// with a valid configuration (no resource shortfall). Its drain, if an admin set one, stays.
void return_on_registration(node_self self) {
  auto& st = self->state;
  if (st.cfg.return_to_service != 2 || st.flags.life != liveness::down || !st.flags.admin_down)
    return;
  if (!st.cfg.trust_config && !shortfall_reason(st.cfg, st.info.reported).empty()) return;
  st.flags.admin_down = false;  // on_alive brings it up
  config::log().info("node down reason cleared at registration node={} reason=\"{}\"", st.info.name,
                     st.info.reason);
  if (!st.flags.drain) set_reason(self, "", "");
  persist_admin_state(self);
}

caf::result<caf::ok_atom> on_update(node_self self, const msg::node_update& up) {
  if (!up.reboot.empty()) return on_reboot_update(self, up);
  auto& st = self->state;
  // nodeaddr=, nodehostname= (the guide's way to tell where a cloud node came up).
  if (!up.address.empty()) st.info.address = up.address;
  if (!up.hostname.empty()) st.info.hostname = up.hostname;
  auto wanted = up.state;
  for (auto& c : wanted) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (wanted == "DRAIN" || wanted == "DOWN") {
    if (up.reason.empty())
      return make_error(errc::invalid_request,
                        "a reason is required to set a node " + wanted + " (reason=\"...\")");
  }
  if (wanted == "DRAIN") {
    st.flags.drain = true;
    set_reason(self, up.reason, up.user);
  } else if (wanted == "DOWN") {
    go_down(self, up.reason, true, up.user);
    return saved_then_ok(self);
  } else if (wanted == "RESUME" || wanted == "IDLE" || wanted == "UNDRAIN") {
    st.flags.drain = false;
    if (st.flags.life == liveness::down) {
      // Up again only if its daemon is still talking to us; otherwise wait for a report.
      st.flags.admin_down = false;
      st.flags.life = st.daemon ? liveness::up : liveness::unknown;
    }
    set_reason(self, "", "");
  } else if (!wanted.empty()) {
    return make_error(errc::invalid_request,
                      "invalid node state '" + up.state + "' (use DRAIN, RESUME, DOWN or IDLE)");
  } else if (!up.reason.empty()) {
    set_reason(self, up.reason, up.user);
  }
  config::log().info("node update node={} state={} reason=\"{}\" user={}", st.info.name, wanted,
                     up.reason, up.user);
  publish(self);
  return saved_then_ok(self);
}

}  // namespace

/// How late a heartbeat came: the time since the previous report beyond HeartBeatInterval.
void meter_heartbeat(node_self self) {
  auto& st = self->state;
  if (!st.heartbeat_lag) return;
  auto gap = std::chrono::steady_clock::now() - st.last_heard;
  std::chrono::duration<double> late = gap - st.interval;
  st.heartbeat_lag->observe(std::max(0.0, late.count()));
}

namespace {

/// The heartbeat meters (none without a registry).
void attach_meters(node_self self, metrics::registry* meters) {
  auto& st = self->state;
  // Only beats that reach this actor are timed here; a node a collector gathers is timed by its
  // collector's rounds (shoal control show collectors: ROUND_MS).
  if (meters)
    st.heartbeat_lag = &meters
                            ->histograms("shoal_heartbeat_lag_seconds",
                                         "How late heartbeats arrive: time since the node's "
                                         "previous report beyond HeartBeatInterval, by collector.",
                                         {"collector"}, metrics::lag_buckets())
                            .with({"shoalctld"});
  if (meters)
    st.heartbeat_messages = &meters->counter_of(
        "shoal_heartbeat_messages_total",
        "Heartbeat messages the controller received: one per node beat without collectors, one "
        "per collector round with them");
}

/// What the node's config line says of it, its State= included.
void take_config(node_self self, const config::node_config& cfg) {
  auto& st = self->state;
  st.info.name = cfg.name;
  st.info.address = cfg.address;
  st.info.cpus = cfg.cpus;
  st.info.real_memory_mb = cfg.real_memory_mb;
  st.info.tmp_disk_mb = cfg.tmp_disk_mb;
  st.info.weight = cfg.weight;
  st.info.partitions = cfg.partitions;
  st.info.features = cfg.features;
  st.info.speed = cfg.speed;
  st.info.os = cfg.os;
  st.info.gres = gres_text(cfg.gres);
  st.info.state_since = unix_now();
  // Slurm counts a node busy at the controller's start, so SuspendTime runs from there.
  st.info.last_busy = st.info.state_since;
  auto initial = cfg.initial_state;
  for (auto& c : initial) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  st.info.cloud = initial == "CLOUD";
  if (initial == "DOWN") {
    st.flags.life = liveness::down;
    st.flags.admin_down = true;
    set_reason(self, "Set DOWN in the config", "shoal");
  } else if (initial == "DRAIN") {
    st.flags.drain = true;
    set_reason(self, "Set DRAIN in the config", "shoal");
  }
}

/// What an admin set before the controller restarted (drain, down) outlives the restart.
void restore_admin_state(node_self self, const std::optional<msg::node_record>& saved) {
  auto& st = self->state;
  if (saved && !saved->address.empty()) st.info.address = saved->address;
  if (saved && !saved->hostname.empty()) st.info.hostname = saved->hostname;
  if (saved && (saved->drain || saved->down)) {
    st.flags.drain = saved->drain;
    if (saved->down) {
      st.flags.life = liveness::down;
      st.flags.admin_down = true;
    }
    st.info.reason = saved->reason;
    st.info.reason_time = saved->reason_time;
    st.info.reason_user = saved->reason_user;
  }
}

/// A node daemon registers: it reports its machine, and hears where it beats and which output
/// sinks its steps have. Answers this actor's handle.
caf::actor take_daemon(node_self self, const msg::machine_status& rep, const caf::actor& daemon) {
  auto& st = self->state;
  if (st.daemon && st.daemon != daemon) self->demonitor(st.daemon);
  st.daemon = daemon;
  self->monitor(daemon);
  if (st.power)
    send_to(self, st.power, msg::register_atom_v, st.info.name, st.info.reported.boot_time,
            rep.boot_time, rep.hostname, daemon);
  config::log().info("node registered node={} host={} cpus={} mem_mb={} os={}", st.info.name,
                     rep.hostname, rep.cpus, rep.real_memory_mb, rep.os);
  on_reboot_registration(self, rep);
  merge_report(self, rep);
  return_on_registration(self);
  check_resources(self);
  on_alive(self);
  issue_reboot_when_free(self);
  for (auto& [key, sink] : st.sinks)
    to_daemon(self, daemon, msg::attach_atom_v, key.first, key.second, sink);
  // A restarted daemon has forgotten where it beats.
  if (!st.collector.empty() && st.collector_port != 0)
    to_daemon(self, daemon, msg::collector_atom_v, st.collector, st.collector_host,
              st.collector_port);
  // The daemon heartbeats straight to this actor from now on.
  return caf::actor_cast<caf::actor>(self);
}

/// The registered daemon as an operator finds it: "pid 4242 on host h1", and where its
/// connection comes from when that is known ("127.0.0.1:40112").
std::string daemon_whereabouts(const node_state_t& st, const std::string& connected_from) {
  const auto& rep = st.info.reported;
  auto out = "pid " + std::to_string(rep.daemon_pid) + " on host " + rep.hostname;
  if (!connected_from.empty()) out += ", connected from " + connected_from;
  return out;
}

/// The second daemon is refused: the node keeps the first, which answered.
void refuse_daemon(node_self self, caf::typed_response_promise<caf::actor> rp,
                   const msg::machine_status& rep, const std::string& connected_from) {
  auto& st = self->state;
  auto first = daemon_whereabouts(st, connected_from);
  config::log().warn("registration refused node={} host={} pid={}: the node's shoald ({}) is alive",
                     st.info.name, rep.hostname, rep.daemon_pid, first);
  rp.deliver(make_error(errc::invalid_request,
                        "node " + st.info.name + " already has a live shoald (" + first +
                            "): stop that one first, or give this one the name of another "
                            "node (-N)"));
}

/// Where a remote daemon's connection comes from, as the middleman knows it, then refuses
/// the newcomer naming it. Nothing to ask in a system without a middleman (the actor tests) or
/// for a daemon of this process.
void refuse_naming_address(node_self self, caf::typed_response_promise<caf::actor> rp,
                           const msg::machine_status& rep, const caf::actor& first) {
  if (!self->system().has_middleman() || first.node() == self->node()) {
    refuse_daemon(self, rp, rep, "");
    return;
  }
  self->request(daemon_transport(self->system()), daemon_check_patience, caf::get_atom_v,
                first.node())
      .then(
          [self, rp, rep](const caf::node_id&, const std::string& host, uint16_t port) mutable {
            refuse_daemon(self, rp, rep,
                          host.empty() ? std::string{} : host + ":" + std::to_string(port));
          },
          [self, rp, rep](caf::error&) mutable { refuse_daemon(self, rp, rep, ""); });
}

/// A daemon registers while another holds the node. One shoald per node: the newcomer is
/// refused while the first answers. A first that does not answer within
/// daemon_check_patience is gone even if its connection has not dropped yet (killed a moment
/// ago, or its host died without closing it), and the newcomer replaces it, so a restarted
/// shoald is never locked out by its own predecessor.
void check_then_take(node_self self, caf::typed_response_promise<caf::actor> rp,
                     msg::machine_status rep, caf::actor newcomer) {
  auto& st = self->state;
  if (!st.daemon || st.daemon == newcomer) {
    rp.deliver(take_daemon(self, rep, newcomer));
    return;
  }
  auto first = st.daemon;
  SHOAL_DEBUG(init, "second daemon node={} host={} pid={}: asking the first whether it lives",
              st.info.name, rep.hostname, rep.daemon_pid);
  // CAF answers ('sys', 'get', "info") for every scheduled actor, whatever its interface: a
  // liveness check that needs nothing of the daemon's version.
  self->request(first, daemon_check_patience, caf::sys_atom_v, caf::get_atom_v, std::string{"info"})
      .then(
          [self, rp, rep, newcomer, first](caf::ok_atom, const std::string&,
                                           const caf::strong_actor_ptr&,
                                           const std::string&) mutable {
            // The node changed hands meanwhile: decide again against the daemon it has now.
            if (self->state.daemon != first)
              return check_then_take(self, rp, std::move(rep), std::move(newcomer));
            refuse_naming_address(self, rp, rep, first);
          },
          [self, rp, rep, newcomer, first](caf::error& err) mutable {
            if (self->state.daemon != first)
              return check_then_take(self, rp, std::move(rep), std::move(newcomer));
            config::log().warn(
                "node daemon replaced node={} host={} pid={}: the previous one ({}) does not "
                "answer: {}",
                self->state.info.name, rep.hostname, rep.daemon_pid,
                daemon_whereabouts(self->state, ""), self->system().render(err));
            rp.deliver(take_daemon(self, rep, newcomer));
          });
}

caf::result<caf::actor> on_register(node_self self, const msg::machine_status& rep,
                                    const caf::actor& daemon) {
  auto& st = self->state;
  // The common cases at once: the node's first daemon, a restart after the drop was seen, or
  // the same daemon again (its earlier request timed out on its side).
  if (!st.daemon || st.daemon == daemon) return take_daemon(self, rep, daemon);
  auto rp = self->make_response_promise<caf::actor>();
  check_then_take(self, rp, rep, daemon);
  return rp;
}

/// Relays a step's usage request to the daemon (sstat), answering once it answers.
caf::result<msg::step_usage> step_usage_of(node_self self, uint64_t job, uint32_t step) {
  auto& st = self->state;
  if (!st.daemon)
    return make_error(errc::unreachable, "node " + st.info.name + " has no shoald registered");
  auto rp = self->make_response_promise<msg::step_usage>();
  self->request(st.daemon, std::chrono::seconds{10}, msg::usage_atom_v, job, step)
      .then([rp](msg::step_usage& usage) mutable { rp.deliver(std::move(usage)); },
            [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
  return rp;
}

/// A heartbeat straight from the node daemon.
void on_heartbeat(node_self self) {
  if (!self->state.daemon) return;  // a late beat from a daemon we already lost
  SHOAL_DEBUG(heartbeat, "heartbeat node={}", self->state.info.name);
  meter_heartbeat(self);
  if (self->state.heartbeat_messages) self->state.heartbeat_messages->inc();
  self->state.info.last_response = unix_now();
  on_alive(self);
}

/// The collector manager names the collector the daemon beats to (none: it beats here).
void on_collector(node_self self, std::string& name, std::string& host, uint16_t port) {
  auto& st = self->state;
  bool was_collected = !st.collector.empty();
  st.collector = std::move(name);
  st.collector_host = std::move(host);
  st.collector_port = port;
  if (st.collector.empty()) {
    if (was_collected) arm_silence_timer(self);
  } else {
    ++st.check_gen;  // the manager times the silence from now on
  }
  // Port 0: the collector has not announced where it listens yet.
  if (st.daemon && (st.collector.empty() || st.collector_port != 0))
    to_daemon(self, st.daemon, msg::collector_atom_v, st.collector, st.collector_host,
              st.collector_port);
}

/// A collector's word on whether the node answers.
void on_responding(node_self self, bool responding) {
  auto& st = self->state;
  if (responding) {
    st.info.last_response = unix_now();
    on_alive(self);
  } else if (st.flags.life != liveness::down) {
    config::log().warn("node not responding node={} collector={}", st.info.name, st.collector);
    go_down(self, "Not responding", false, "shoal");
  }
}

/// The silence timer fired: no beat within the timeout (unless a newer timer is live).
void on_check(node_self self, uint64_t gen) {
  auto& st = self->state;
  if (gen != st.check_gen || st.flags.life == liveness::down) return;
  if (st.flags.power_off) return;  // no daemon expected: powered down, or on its way up or down
  config::log().warn("node not responding node={} timeout_ms={}", st.info.name, st.timeout.count());
  go_down(self, "Not responding", false, "shoal");
}

/// A job starts here holding `cpus` (0: the whole node) and `devices`.
void on_job_start(node_self self, uint64_t job, uint32_t cpus,
                  std::vector<msg::gres_held>& devices) {
  auto& st = self->state;
  st.jobs[job] = cpus;
  st.info.last_busy = unix_now();
  if (!devices.empty()) st.devices[job] = std::move(devices);
  if (st.occupancy.size() != st.info.cpus) st.occupancy.resize(st.info.cpus);
  if (cpus > 0 && st.cpu_ids.count(job) == 0) {
    auto ids = st.occupancy.take(cpus);
    if (!ids.empty()) st.cpu_ids.emplace(job, std::move(ids));
  }
  publish(self);
}

/// A job here is ending (its tasks are being killed).
void on_job_done(node_self self, uint64_t job) {
  if (self->state.jobs.count(job) == 0) return;
  self->state.completing.insert(job);
  publish(self);
}

/// A job here has ended: its CPUs, devices and output sinks are free.
void on_job_release(node_self self, uint64_t job) {
  auto& st = self->state;
  if (auto held = st.cpu_ids.find(job); held != st.cpu_ids.end()) {
    st.occupancy.give_back(held->second);
    st.cpu_ids.erase(held);
  }
  if (self->state.jobs.erase(job) > 0) st.info.last_busy = unix_now();
  self->state.completing.erase(job);
  st.devices.erase(job);
  auto& sinks = st.sinks;
  for (auto it = sinks.lower_bound({job, 0}); it != sinks.end() && it->first.first == job;)
    it = sinks.erase(it);
  st.script_jobs.erase(job);
  // The daemon may forget the job's ended steps now.
  if (st.daemon) to_daemon(self, st.daemon, msg::release_atom_v, job);
  issue_reboot_when_free(self);
  publish(self);
}

/// Passes a step's launch to the daemon with the job's CPUs and devices here, or fails it for the
/// job when no daemon is connected.
void on_launch(node_self self, msg::launch_request& req, caf::actor& sink, caf::actor& job) {
  auto& st = self->state;
  if (!st.daemon) {
    msg::step_exit ex;
    ex.job_id = req.job_id;
    ex.step_id = req.step_id;
    ex.node_name = st.info.name;
    ex.launch_error = "node " + st.info.name + " has no connected shoald";
    for (auto r : req.ranks) ex.tasks.push_back({r, 1, 0});
    send_to(self, job, std::move(ex));
    return;
  }
  if (auto held = st.cpu_ids.find(req.job_id); held != st.cpu_ids.end())
    req.job_cpus = held->second;
  // Every GRES name the node has, with the job's devices of it (none: the task
  // environment's variables for it are removed, as Slurm does).
  req.gres.clear();
  auto held = st.devices.find(req.job_id);
  for (const auto& g : st.cfg.gres) {
    if (std::any_of(req.gres.begin(), req.gres.end(), [&](auto& h) { return h.name == g.name; }))
      continue;
    msg::gres_held entry{0, g.name, {}};
    if (held != st.devices.end())
      for (const auto& h : held->second)
        if (h.name == g.name) entry.indices = h.indices;
    req.gres.push_back(std::move(entry));
  }
  to_daemon(self, st.daemon, msg::launch_atom_v, std::move(req), std::move(sink), std::move(job));
}

/// A Prolog or Epilog failed on the node (its daemon's word): DRAIN with the reason, as slurmd's
/// "Prolog error" drain; a Prolog's job hears it and is requeued.
void on_script_failed(node_self self, uint64_t job, bool prolog, const std::string& reason) {
  auto& st = self->state;
  config::log().error("node drained node={} job={} reason=\"{}\"", st.info.name, job, reason);
  st.flags.drain = true;
  set_reason(self, reason, "shoal");
  persist_admin_state(self);
  publish(self);
  auto it = st.script_jobs.find(job);
  if (prolog && it != st.script_jobs.end())
    send_to(self, it->second, msg::prolog_atom_v, st.info.name, reason);
}

/// The daemon's HealthCheckProgram failed: DRAIN with its reason, unless drained already.
void on_health_failed(node_self self, std::string& reason) {
  auto& st = self->state;
  if (st.flags.drain) return;
  config::log().error("node drained by health check node={} reason=\"{}\"", st.info.name, reason);
  st.flags.drain = true;
  set_reason(self, std::move(reason), "shoal");
  persist_admin_state(self);
  publish(self);
}

/// An output sink for a step (kept for a daemon that registers later).
void on_attach(node_self self, uint64_t job, uint32_t step, caf::actor& sink) {
  auto& st = self->state;
  st.sinks[{job, step}] = sink;
  if (st.daemon) to_daemon(self, st.daemon, msg::attach_atom_v, job, step, std::move(sink));
}

/// A step the daemon adopted after a controller restart ended: the controller finds its job.
caf::result<caf::ok_atom> on_adopted_step_exit(node_self self, msg::step_exit& ex) {
  SHOAL_DEBUG(steps, "adopted step exit job={} step={} node={}", ex.job_id,
              msg::step_label(ex.step_id), self->state.info.name);
  send_to(self, self->state.controller, std::move(ex));
  return caf::ok_atom::value;
}

/// The power actor's word on the node's power state.
void on_power_state(node_self self, msg::power_state power, bool down_asked) {
  auto& st = self->state;
  if (power == st.info.power && down_asked == st.info.power_down_asked) return;
  // Per node at debug: a burst moves thousands of nodes, and the power actor logs each batch
  // (its program, with the hostlist) at info.
  SHOAL_DEBUG(power, "node power node={} from={} to={} power_down={}", st.info.name,
              *msg::to_string(st.info.power) ? msg::to_string(st.info.power) : "ON",
              *msg::to_string(power) ? msg::to_string(power) : "ON", down_asked);
  // Powered down, the daemon is gone: it must register again to count as up.
  if (power == msg::power_state::powered_down && st.flags.life == liveness::up) {
    st.flags.life = liveness::unknown;
    if (st.daemon) self->demonitor(st.daemon);
    st.daemon = nullptr;
  }
  st.info.power = power;
  st.info.power_down_asked = down_asked;
  st.flags.power_off = power != msg::power_state::on;
  if (!st.flags.power_off) arm_silence_timer(self);
  publish(self);
}

/// POWER_DOWN_FORCE: the node's jobs end as if it failed, though it stays up.
void end_jobs_here(node_self self, const std::string& why) {
  auto& st = self->state;
  config::log().info("node jobs ended node={} reason=\"{}\" jobs={}", st.info.name, why,
                     st.jobs.size());
  for (auto& [job, cpus] : st.jobs)
    send_to(self, st.controller, msg::nodedown_atom_v, st.info.name, job);
}

}  // namespace

node_impl::behavior_type node_behavior(node_self self, config::node_config cfg,
                                       caf::actor controller, int64_t heartbeat_timeout_ms,
                                       int64_t heartbeat_interval_ms, metrics::registry* meters,
                                       state_keeper_actor keeper,
                                       std::optional<msg::node_record> saved,
                                       daemon_gate_actor gate) {
  auto& st = self->state;
  st.gate = std::move(gate);
  tolerate_strays(self);
  actor_probe probe{self, meters, "node"};
  st.interval = std::chrono::milliseconds{heartbeat_interval_ms};
  attach_meters(self, meters);
  st.controller = std::move(controller);
  st.timeout = std::chrono::milliseconds{heartbeat_timeout_ms};
  take_config(self, cfg);
  st.keeper = std::move(keeper);
  restore_admin_state(self, saved);
  st.cfg = std::move(cfg);
  arm_silence_timer(self);
  publish(self);
  self->set_down_handler([self](const caf::down_msg& dm) {
    if (dm.source == self->state.daemon.address()) {
      config::log().warn("node daemon disconnected node={}", self->state.info.name);
      self->state.daemon = nullptr;
    }
  });
  return {
      probe.metered("register",
                    [self](msg::register_atom, const msg::machine_status& rep,
                           const caf::actor& daemon) -> caf::result<caf::actor> {
                      return on_register(self, rep, daemon);
                    }),
      probe.metered("heartbeat", [self](msg::heartbeat_atom) { on_heartbeat(self); }),
      probe.metered("node_usage",
                    [self](msg::usage_atom, msg::node_usage& usage) {
                      self->state.usage = usage;
                      if (self->state.info.usage.sampled_at == 0) publish(self);
                    }),
      probe.metered("step_usage", [self](msg::usage_atom, uint64_t job,
                                         uint32_t step) { return step_usage_of(self, job, step); }),
      probe.metered("collector", [self](msg::collector_atom, std::string& name, std::string& host,
                                        uint16_t port) { on_collector(self, name, host, port); }),
      probe.metered("responding", [self](msg::responding_atom,
                                         bool responding) { on_responding(self, responding); }),
      probe.metered("partitions",
                    [self](msg::parts_atom, std::vector<std::string>& names) {
                      self->state.info.partitions = std::move(names);
                      publish(self);
                    }),
      probe.metered("check", [self](msg::check_atom, uint64_t gen) { on_check(self, gen); }),
      probe.metered("reboot_timeout",
                    [self](msg::reboot_atom, uint64_t gen) { on_reboot_timeout(self, gen); }),
      probe.metered(
          "start",
          [self](msg::start_atom, uint64_t job, uint32_t cpus,
                 std::vector<msg::gres_held>& devices) { on_job_start(self, job, cpus, devices); }),
      probe.metered("done", [self](msg::done_atom, uint64_t job) { on_job_done(self, job); }),
      probe.metered("release",
                    [self](msg::release_atom, uint64_t job) { on_job_release(self, job); }),
      probe.metered("reconfig",
                    [self](msg::reconfig_atom) {
                      // Not through the gate: nothing to sign, and its order does not matter.
                      if (self->state.daemon)
                        send_to(self, self->state.daemon, msg::reconfig_atom_v);
                    }),
      probe.metered("launch", [self](msg::launch_atom, msg::launch_request& req, caf::actor& sink,
                                     caf::actor& job) { on_launch(self, req, sink, job); }),
      probe.metered("job_start",
                    [self](msg::prolog_atom, msg::launch_request& req, caf::actor& job) {
                      self->state.script_jobs[req.job_id] = std::move(job);
                      if (self->state.daemon)
                        to_daemon(self, self->state.daemon, msg::prolog_atom_v, std::move(req));
                    }),
      probe.metered("prolog_failed",
                    [self](msg::prolog_atom, uint64_t job, const std::string& reason) {
                      on_script_failed(self, job, true, reason);
                    }),
      probe.metered("epilog_failed",
                    [self](msg::epilog_atom, uint64_t job, const std::string& reason) {
                      on_script_failed(self, job, false, reason);
                    }),
      probe.metered("health_check",
                    [self](msg::check_atom) {
                      if (self->state.daemon) send_to(self, self->state.daemon, msg::check_atom_v);
                    }),
      probe.metered(
          "health_failed",
          [self](msg::check_atom, std::string& reason) { on_health_failed(self, reason); }),
      probe.metered("signal",
                    [self](msg::signal_atom, uint64_t job, uint32_t step, int32_t signo) {
                      if (self->state.daemon)
                        signal_daemon(self, self->state.daemon, job, step, signo);
                    }),
      probe.metered("attach", [self](msg::attach_atom, uint64_t job, uint32_t step,
                                     caf::actor& sink) { on_attach(self, job, step, sink); }),
      probe.metered("nodeupd", [self](msg::nodeupd_atom,
                                      const msg::node_update& up) { return on_update(self, up); }),
      probe.metered("step_exit",
                    [self](msg::step_exit& ex) -> caf::result<caf::ok_atom> {
                      return on_adopted_step_exit(self, ex);
                    }),
      probe.metered("power", [self](msg::power_atom,
                                    caf::actor& power) { self->state.power = std::move(power); }),
      probe.metered("power_state",
                    [self](msg::power_atom, uint8_t power, bool down_asked) {
                      on_power_state(self, static_cast<msg::power_state>(power), down_asked);
                    }),
      probe.metered("power_fail",
                    [self](msg::nodedown_atom, std::string& reason) {
                      config::log().warn("node down node={} reason=\"{}\"", self->state.info.name,
                                         reason);
                      go_down(self, std::move(reason), true, "shoal");
                    }),
      probe.metered("power_force",
                    [self](msg::cancel_atom, const std::string& why) { end_jobs_here(self, why); }),
  };
}

node_actor spawn_node(caf::actor_system& sys, config::node_config cfg, caf::actor controller,
                      int64_t heartbeat_timeout_ms, int64_t heartbeat_interval_ms,
                      metrics::registry* meters, state_keeper_actor keeper,
                      std::optional<msg::node_record> saved, daemon_gate_actor gate) {
  return sys.spawn(node_behavior, std::move(cfg), std::move(controller), heartbeat_timeout_ms,
                   heartbeat_interval_ms, meters, std::move(keeper), std::move(saved),
                   std::move(gate));
}

}  // namespace shoal::actors
