#include "actors/collector_manager.hpp"

#include <algorithm>
#include <chrono>
#include <unordered_map>
#include <unordered_set>

#include <caf/all.hpp>

#include "actors/clock.hpp"
#include "actors/metering.hpp"
#include "actors/send_to.hpp"
#include "config/log.hpp"
#include "messages/errc.hpp"

namespace shoal::actors {

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
  uint64_t version = 0;  ///< of the list it was last sent
  clock_point last_report;
  int64_t last_report_unix = 0;
  int64_t round_ms = 0;
  uint64_t reports = 0;
};

struct node_entry {
  int collector = -1;  ///< index into collectors; -1: beats straight to its node actor
  clock_point last_heard;
  bool reported_silent = false;  ///< its node actor was told it stopped responding
};

struct manager_state {
  collector_manager_setup setup;
  std::vector<collector_entry> collectors;
  std::unordered_map<std::string, node_entry> nodes;
  uint64_t next_version = 0;
  metrics::counter* heartbeat_messages = nullptr;
  metrics::counter* collected_nodes = nullptr;
};

/// The public interface plus the manager's own check of silent collectors.
using manager_impl = collector_manager_actor::extend<caf::reacts_to<msg::check_atom>>;
using manager_self = manager_impl::stateful_pointer<manager_state>;

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

void tell_node(manager_self self, const std::string& node, const collector_entry* c) {
  auto it = self->state.setup.node_actors.find(node);
  if (it == self->state.setup.node_actors.end()) return;
  if (c)
    self->send(it->second, msg::collector_atom_v, c->name, c->host, c->port);
  else
    self->send(it->second, msg::collector_atom_v, std::string{}, std::string{}, uint16_t{0});
}

/// Splits the nodes among the collectors that are up, in config order, into lists whose sizes
/// differ by at most one; sends each changed list and tells each moved node where to beat.
void rebalance(manager_self self) {
  auto& st = self->state;
  std::vector<int> live;
  for (size_t i = 0; i < st.collectors.size(); ++i)
    if (st.collectors[i].state == collector_state_kind::up) live.push_back(static_cast<int>(i));
  std::vector<std::vector<std::string>> lists(st.collectors.size());
  const auto& nodes = st.setup.nodes;
  size_t next = 0;
  for (size_t k = 0; k < live.size(); ++k) {
    size_t size = nodes.size() / live.size() + (k < nodes.size() % live.size() ? 1 : 0);
    auto& list = lists[static_cast<size_t>(live[k])];
    list.assign(nodes.begin() + static_cast<std::ptrdiff_t>(next),
                nodes.begin() + static_cast<std::ptrdiff_t>(next + size));
    next += size;
  }
  auto now = self->clock().now();
  size_t moved = 0;
  for (auto c : live)
    for (auto& node : lists[static_cast<size_t>(c)]) {
      auto& entry = st.nodes[node];
      if (entry.collector == c) continue;
      entry.collector = c;
      entry.last_heard = now;  // its silence counts from the move, not from its old collector
      tell_node(self, node, &st.collectors[static_cast<size_t>(c)]);
      ++moved;
    }
  if (live.empty())
    for (auto& node : nodes) {
      auto& entry = st.nodes[node];
      if (entry.collector < 0) continue;
      entry.collector = -1;
      tell_node(self, node, nullptr);
      ++moved;
    }
  for (auto c : live) {
    auto& col = st.collectors[static_cast<size_t>(c)];
    auto& list = lists[static_cast<size_t>(c)];
    if (col.version != 0 && col.list == list) continue;
    col.list = std::move(list);
    col.version = ++st.next_version;
    msg::collector_list out;
    out.nodes = col.list;
    out.version = col.version;
    out.interval_ms = st.setup.heartbeat_interval_ms;
    send_to(self, col.handle, msg::collector_atom_v, std::move(out),
            caf::actor_cast<caf::actor>(self));
  }
  config::log().info("collectors rebalanced up={} nodes={} moved={}", live.size(), nodes.size(),
                     moved);
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
  rebalance(self);
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
  it->handle = std::move(handle);
  it->port = port;
  it->state = collector_state_kind::up;
  it->last_report = self->clock().now();
  it->list.clear();
  it->version = 0;
  self->monitor(it->handle);
  config::log().info("collector up collector={} address={}:{}", name, it->host, port);
  // Its own node needs no beat: each round it reports vouches for it (seed 000, step 5).
  auto& own = st.nodes[name];
  own.last_heard = it->last_report;
  tell_node(self, name, &*it);
  rebalance(self);
  return caf::ok_atom::value;
}

/// Tells the node actor its node stopped answering, once.
void silent_past_timeout(manager_self self, const std::string& node, node_entry& entry,
                         const collector_entry& col) {
  auto& st = self->state;
  entry.reported_silent = true;
  config::log().warn("node not responding node={} collector={}", node, col.name);
  if (auto a = st.setup.node_actors.find(node); a != st.setup.node_actors.end())
    self->send(a->second, msg::responding_atom_v, false);
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
    if (auto a = st.setup.node_actors.find(it->name); a != st.setup.node_actors.end())
      self->send(a->second, msg::responding_atom_v, true);
  }
  if (report.version != it->version) return;  // counted against a list it no longer has
  if (st.collected_nodes) st.collected_nodes->inc(report.answered);
  std::unordered_set<std::string> silent(report.silent.begin(), report.silent.end());
  for (auto& node : it->list) {
    auto& entry = st.nodes[node];
    if (silent.count(node) == 0) {
      entry.last_heard = now;
      if (entry.reported_silent) {
        entry.reported_silent = false;
        if (auto a = st.setup.node_actors.find(node); a != st.setup.node_actors.end())
          self->send(a->second, msg::responding_atom_v, true);
      }
    } else if (!entry.reported_silent && now - entry.last_heard >= timeout(st)) {
      silent_past_timeout(self, node, entry, *it);
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

manager_impl::behavior_type manager_behavior(manager_self self, collector_manager_setup setup) {
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
  for (auto& node : st.setup.nodes) st.nodes[node];
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
      probe.metered("check", [self](msg::check_atom) {
        auto& st = self->state;
        auto now = self->clock().now();
        for (auto& c : st.collectors)
          if (c.state == collector_state_kind::up && now - c.last_report >= timeout(st))
            collector_down(self, c, "silent past HeartBeatTimeout");
        // A node no current round vouched for within the timeout is silent too, whatever its
        // collector reports against an older list.
        for (auto& c : st.collectors)
          for (auto& node : c.list) {
            auto& entry = st.nodes[node];
            if (!entry.reported_silent && now - entry.last_heard >= timeout(st))
              silent_past_timeout(self, node, entry, c);
          }
        self->delayed_send(self, interval(st), msg::check_atom_v);
      })};
}

}  // namespace

collector_manager_actor spawn_collector_manager(caf::actor_system& sys,
                                                collector_manager_setup setup) {
  return sys.spawn(manager_behavior, std::move(setup));
}

}  // namespace shoal::actors
