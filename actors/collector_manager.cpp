#include "actors/collector_manager.hpp"

#include <algorithm>
#include <chrono>
#include <unordered_map>
#include <unordered_set>

#include <caf/all.hpp>

#include "actors/metering.hpp"
#include "actors/saved_state.hpp"
#include "actors/send_to.hpp"
#include "actors/unexpected.hpp"
#include "cluster/clock.hpp"
#include "config/log.hpp"
#include "messages/caf/error.hpp"
#include "topology/hostlist.hpp"

namespace shoal::actors {

using cluster::unix_now;

namespace {

/// The actor's clock: virtual under the test coordinator.
using clock_point = caf::actor_clock::time_point;

enum class collector_state_kind { waiting, up, down };

struct collector_entry {
  std::string name;
  std::string host;
  uint16_t port = 0;
  caf::actor handle;
  collector_state_kind state = collector_state_kind::waiting;
  std::vector<std::string> list;
  uint64_t version = 0;  ///< of the list as last sent; 0: not sent since it came up
  clock_point last_report;
  int64_t last_report_unix = 0;
  int64_t round_ms = 0;
  uint64_t reports = 0;
};

struct node_entry {
  int collector = -1;  ///< index into collectors; -1: beats straight to its node actor
  clock_point last_heard;
  bool silent = false;           ///< its collector's rounds say it stopped beating
  bool reported_silent = false;  ///< its node actor was told it stopped responding
};

struct manager_state {
  collector_manager_setup setup;
  std::vector<collector_entry> collectors;
  std::unordered_map<std::string, node_entry> nodes;
  /// Until every collector announced or the settle delay (from the first announcement) passed, no
  /// list is handed out: the first split waits for the seed's probe round instead of reshuffling
  /// at each announcement.
  bool settled = false;
  bool settle_armed = false;
  uint64_t next_version = 0;
  metrics::counter* heartbeat_messages = nullptr;
  metrics::counter* collected_nodes = nullptr;
};

/// The public interface plus the manager's own ticks: the check of silent collectors and
/// nodes, and the end of the settle delay.
using manager_impl = collector_manager_actor::extend<caf::reacts_to<msg::check_atom>,
                                                     caf::reacts_to<msg::schedule_atom>>;
using manager_self = manager_impl::stateful_pointer<manager_state>;

const std::string map_key = "collectors";

std::chrono::milliseconds interval(const manager_state& st) {
  return std::chrono::milliseconds{std::max<int64_t>(st.setup.heartbeat_interval_ms, 1)};
}

std::chrono::milliseconds timeout(const manager_state& st) {
  return std::chrono::milliseconds{std::max<int64_t>(st.setup.heartbeat_timeout_ms, 1)};
}

const char* state_text(collector_state_kind k) {
  switch (k) {
    case collector_state_kind::up:
      return "UP";
    case collector_state_kind::down:
      return "DOWN";
    default:
      return "WAITING";
  }
}

/// Tells a node actor where its daemon beats: `c` (port 0 while the collector has not announced
/// itself: the node actor stops timing the node but has nothing to pass on), or nowhere but to
/// the node actor (null).
void tell_node(manager_self self, const std::string& node, const collector_entry* c) {
  auto it = self->state.setup.node_actors.find(node);
  if (it == self->state.setup.node_actors.end()) return;
  if (c)
    self->send(it->second, msg::collector_atom_v, c->name, c->host, c->port);
  else
    self->send(it->second, msg::collector_atom_v, std::string{}, std::string{}, uint16_t{0});
}

void respond(manager_self self, const std::string& node, bool responding) {
  auto it = self->state.setup.node_actors.find(node);
  if (it != self->state.setup.node_actors.end())
    self->send(it->second, msg::responding_atom_v, responding);
}

/// Saves which collector holds which nodes, so a restarted controller hands the same lists out.
void save_mapping(manager_self self) {
  auto& st = self->state;
  if (!st.setup.keeper) return;
  msg::collector_map_record rec;
  for (auto& c : st.collectors) {
    if (c.state != collector_state_kind::up) continue;
    rec.collectors.push_back(c.name);
    rec.nodes.push_back(topology::compress_hostlist(c.list));
  }
  self->send(st.setup.keeper, msg::persist_atom_v, map_key, encoded(rec));
}

void send_list(manager_self self, collector_entry& col) {
  col.version = ++self->state.next_version;
  msg::collector_list out;
  out.nodes = col.list;
  out.version = col.version;
  out.interval_ms = self->state.setup.heartbeat_interval_ms;
  send_to(self, col.handle, msg::collector_atom_v, std::move(out),
          caf::actor_cast<caf::actor>(self));
}

/// Gives every node a collector that is up, moving as few as it can: lists keep their nodes up
/// to their share (sizes differ by at most one), the excess and the nodes of collectors that are
/// not up go to those below their share. A moved node's silence counts from the move.
void balance(manager_self self) {
  auto& st = self->state;
  std::vector<int> live;
  for (size_t i = 0; i < st.collectors.size(); ++i)
    if (st.collectors[i].state == collector_state_kind::up) live.push_back(static_cast<int>(i));
  auto now = self->clock().now();
  size_t moved = 0;
  if (live.empty()) {
    for (auto& node : st.setup.nodes) {
      auto& entry = st.nodes[node];
      if (entry.collector < 0) continue;
      entry.collector = -1;
      entry.silent = false;
      tell_node(self, node, nullptr);
      ++moved;
    }
    for (auto& c : st.collectors) c.list.clear();
    config::log().info("no collector up: nodes={} beat to their node actors", moved);
    save_mapping(self);
    return;
  }
  auto n = st.setup.nodes.size();
  std::vector<size_t> share(st.collectors.size(), 0);
  for (size_t k = 0; k < live.size(); ++k)
    share[static_cast<size_t>(live[k])] = n / live.size() + (k < n % live.size() ? 1 : 0);
  std::vector<bool> changed(st.collectors.size(), false);
  std::vector<std::string> pool;
  for (size_t i = 0; i < st.collectors.size(); ++i) {
    auto& c = st.collectors[i];
    if (share[i] == 0) {
      c.list.clear();  // the loop below pools its nodes, once each
      continue;
    }
    while (c.list.size() > share[i]) {
      pool.push_back(std::move(c.list.back()));
      c.list.pop_back();
      changed[i] = true;
    }
  }
  for (auto& node : st.setup.nodes) {
    auto& entry = st.nodes[node];
    if (entry.collector < 0 || share[static_cast<size_t>(entry.collector)] == 0)
      pool.push_back(node);
  }
  size_t next = 0;
  for (auto c : live) {
    auto& col = st.collectors[static_cast<size_t>(c)];
    while (col.list.size() < share[static_cast<size_t>(c)] && next < pool.size()) {
      auto& node = pool[next++];
      auto& entry = st.nodes[node];
      if (entry.collector != c) {
        entry.collector = c;
        entry.last_heard = now;
        entry.silent = false;
        tell_node(self, node, &col);
        ++moved;
      }
      col.list.push_back(node);
      changed[static_cast<size_t>(c)] = true;
    }
  }
  for (auto c : live) {
    auto& col = st.collectors[static_cast<size_t>(c)];
    if (changed[static_cast<size_t>(c)] || col.version == 0) send_list(self, col);
  }
  config::log().info("collectors balanced up={} nodes={} moved={}", live.size(), n, moved);
  save_mapping(self);
}

void settle(manager_self self) {
  auto& st = self->state;
  if (st.settled) return;
  st.settled = true;
  // Saved lists of collectors that did not come back go to those that did.
  for (auto& c : st.collectors)
    if (c.state != collector_state_kind::up) c.list.clear();
  balance(self);
}

void collector_down(manager_self self, collector_entry& col, const char* why) {
  if (col.state != collector_state_kind::up) return;
  config::log().warn("collector down collector={} nodes={}: {}; its nodes go to the others",
                     col.name, col.list.size(), why);
  col.state = collector_state_kind::down;
  // Its node beats to its node actor again, which times it afresh: the node itself goes DOWN
  // only if no beat comes within HeartBeatTimeout (a collector's shoald may only have lost us).
  tell_node(self, col.name, nullptr);
  if (col.handle) self->demonitor(col.handle);
  col.handle = nullptr;
  col.list.clear();
  col.version = 0;
  if (self->state.settled) balance(self);
}

void arm_settle(manager_self self) {
  auto& st = self->state;
  if (st.settled || st.settle_armed) return;
  st.settle_armed = true;
  self->delayed_send(self, std::chrono::milliseconds{std::max<int64_t>(st.setup.settle_ms, 0)},
                     msg::schedule_atom_v);
}

caf::result<caf::ok_atom> on_announce(manager_self self, const std::string& name, uint16_t port,
                                      caf::actor& handle) {
  auto& st = self->state;
  auto it = std::find_if(st.collectors.begin(), st.collectors.end(),
                         [&](const collector_entry& c) { return c.name == name; });
  if (it == st.collectors.end())
    return make_error(errc::invalid_request, "node " + name + " is not in CollectorNodes");
  if (!handle) return make_error(errc::invalid_request, "collector " + name + " sent no handle");
  if (it->handle && it->handle != handle) self->demonitor(it->handle);
  bool returning = it->state == collector_state_kind::down;
  it->handle = std::move(handle);
  it->port = port;
  it->state = collector_state_kind::up;
  it->last_report = self->clock().now();
  it->version = 0;
  if (returning) it->list.clear();
  self->monitor(it->handle);
  config::log().info("collector up collector={} address={}:{}", name, it->host, port);
  // Its own node needs no beat: each round it reports vouches for it (seed 000, step 5).
  auto& own = st.nodes[name];
  own.last_heard = it->last_report;
  tell_node(self, name, &*it);
  if (st.settled) {
    balance(self);  // 9B: a collector back (or new) takes its share
  } else {
    // Its nodes from the saved mapping learn where it listens now.
    for (auto& node : it->list) tell_node(self, node, &*it);
    bool all_up =
        std::all_of(st.collectors.begin(), st.collectors.end(),
                    [](const collector_entry& c) { return c.state == collector_state_kind::up; });
    if (all_up)
      settle(self);
    else
      arm_settle(self);
  }
  return caf::ok_atom::value;
}

void on_report(manager_self self, msg::collector_report& report) {
  auto& st = self->state;
  if (st.heartbeat_messages) st.heartbeat_messages->inc();
  auto it = std::find_if(st.collectors.begin(), st.collectors.end(),
                         [&](const collector_entry& c) { return c.name == report.collector; });
  if (it == st.collectors.end() || it->state != collector_state_kind::up) return;
  auto now = self->clock().now();
  it->last_report = now;
  it->last_report_unix = unix_now();
  it->round_ms = report.round_ms;
  ++it->reports;
  auto& own = st.nodes[it->name];
  own.last_heard = now;
  if (own.reported_silent) {
    own.reported_silent = false;
    respond(self, it->name, true);
  }
  if (report.version != it->version) return;  // counted against a list it no longer has
  if (st.collected_nodes) st.collected_nodes->inc(report.answered);
  // Only changes travel: the newly silent and the returned; a full report names every silent.
  if (report.full)
    for (auto& node : it->list) st.nodes[node].silent = false;
  for (auto& node : report.silent)
    if (auto e = st.nodes.find(node); e != st.nodes.end() && e->second.collector >= 0)
      e->second.silent = true;
  for (auto& node : report.returned)
    if (auto e = st.nodes.find(node); e != st.nodes.end()) e->second.silent = false;
  for (auto& node : it->list) {
    auto& entry = st.nodes[node];
    if (!entry.silent) {
      entry.last_heard = now;
      if (entry.reported_silent) {
        entry.reported_silent = false;
        respond(self, node, true);
      }
    } else if (!entry.reported_silent && now - entry.last_heard >= timeout(st)) {
      entry.reported_silent = true;
      config::log().warn("node not responding node={} collector={}", node, it->name);
      respond(self, node, false);
    }
  }
}

/// Every interval: a collector silent past HeartBeatTimeout goes DOWN; a node no current round
/// vouched for within it is not responding, whatever its collector reports against an older list.
void check(manager_self self) {
  auto& st = self->state;
  auto now = self->clock().now();
  for (auto& c : st.collectors)
    if (c.state == collector_state_kind::up && now - c.last_report >= timeout(st))
      collector_down(self, c, "silent past HeartBeatTimeout");
  for (auto& c : st.collectors) {
    if (c.state != collector_state_kind::up) continue;
    for (auto& node : c.list) {
      auto& entry = st.nodes[node];
      if (!entry.reported_silent && now - entry.last_heard >= timeout(st)) {
        entry.reported_silent = true;
        config::log().warn("node not responding node={} collector={}", node, c.name);
        respond(self, node, false);
      }
    }
  }
}

std::vector<msg::collector_info> listing(const manager_state& st) {
  std::vector<msg::collector_info> out;
  out.reserve(st.collectors.size());
  for (auto& c : st.collectors) {
    msg::collector_info info;
    info.name = c.name;
    info.state = state_text(c.state);
    info.nodes = static_cast<uint32_t>(c.list.size());
    info.last_report = c.last_report_unix;
    info.round_ms = c.round_ms;
    info.reports = c.reports;
    out.push_back(std::move(info));
  }
  return out;
}

/// Takes the lists a previous controller saved: each node goes back to its collector, waiting
/// for it to announce itself (the node actors stop timing them meanwhile).
void restore(manager_self self, const msg::collector_map_record& rec) {
  auto& st = self->state;
  auto now = self->clock().now();
  for (size_t i = 0; i < rec.collectors.size() && i < rec.nodes.size(); ++i) {
    auto it = std::find_if(st.collectors.begin(), st.collectors.end(),
                           [&](const collector_entry& c) { return c.name == rec.collectors[i]; });
    auto names = topology::expand_hostlist(rec.nodes[i]);
    if (it == st.collectors.end() || !names) continue;
    auto index = static_cast<int>(it - st.collectors.begin());
    for (auto& node : *names) {
      auto e = st.nodes.find(node);
      if (e == st.nodes.end() || e->second.collector >= 0) continue;  // unknown, or taken
      e->second.collector = index;
      e->second.last_heard = now;
      it->list.push_back(node);
      tell_node(self, node, &*it);
    }
  }
  config::log().info("collector lists restored collectors={}", rec.collectors.size());
  // The collectors' daemons need a while to find this controller (their reconnect backoff): the
  // settle delay starts with the first announcement, not now, or the saved lists would be given
  // up before anyone is back and rebuilt with a move per announcement. Should none come back,
  // the nodes are timed again after HeartBeatTimeout.
  self->delayed_send(self, timeout(st), msg::schedule_atom_v);
}

manager_impl::behavior_type manager_behavior(manager_self self, collector_manager_setup setup) {
  tolerate_strays(self);
  actor_probe probe{self, setup.meters, "collector_manager"};
  auto& st = self->state;
  st.setup = std::move(setup);
  for (auto& name : st.setup.collectors) {
    collector_entry c;
    c.name = name;
    auto host = st.setup.hosts.find(name);
    c.host = host != st.setup.hosts.end() ? host->second : name;
    st.collectors.push_back(std::move(c));
  }
  auto now = self->clock().now();
  for (auto& node : st.setup.nodes) st.nodes[node].last_heard = now;
  if (st.setup.saved) restore(self, *st.setup.saved);
  if (auto* meters = st.setup.meters) {
    st.heartbeat_messages = &meters->counter_of(
        "shoal_heartbeat_messages_total",
        "Heartbeat messages the controller received: one per node beat without collectors, one "
        "per collector round with them");
    st.collected_nodes = &meters->counter_of(
        "shoal_heartbeat_collected_nodes_total",
        "Node heartbeats reported to the controller through collectors' rounds");
  }
  self->set_down_handler([self](const caf::down_msg& dm) {
    for (auto& c : self->state.collectors)
      if (c.handle && c.handle.address() == dm.source)
        return collector_down(self, c, "its shoald disconnected");
  });
  self->delayed_send(self, interval(st), msg::check_atom_v);
  return {
      probe.rpc("announce",
                [self](msg::collector_atom, const std::string& name, uint16_t port,
                       caf::actor& handle) { return on_announce(self, name, port, handle); }),
      probe.metered("report", [self](msg::collect_atom,
                                     msg::collector_report& report) { on_report(self, report); }),
      probe.rpc("collectors", [self](msg::collectors_atom) { return listing(self->state); }),
      probe.metered("settle", [self](msg::schedule_atom) { settle(self); }),
      probe.metered("check", [self](msg::check_atom) {
        check(self);
        self->delayed_send(self, interval(self->state), msg::check_atom_v);
      })};
}

}  // namespace

collector_manager_actor spawn_collector_manager(caf::actor_system& sys,
                                                collector_manager_setup setup) {
  return sys.spawn(manager_behavior, std::move(setup));
}

}  // namespace shoal::actors
