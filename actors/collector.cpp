#include "actors/collector.hpp"

#include <algorithm>
#include <chrono>
#include <unordered_map>
#include <unordered_set>

#include <caf/all.hpp>

#include "actors/metering.hpp"
#include "actors/send_to.hpp"
#include "actors/unexpected.hpp"
#include "config/log.hpp"

namespace shoal::actors {

namespace {

struct collector_state {
  std::string name;
  caf::actor manager;
  msg::collector_list list;
  std::unordered_map<std::string, bool> beaten;  ///< each node of the list: beat this round
  std::unordered_set<std::string> silent;        ///< nodes that did not beat last round
  bool full_next = true;  ///< the next report names every silent node (a new list)
  uint32_t answered = 0;
  uint64_t round = 0;                        ///< the live round; its timer carries the number
  caf::actor_clock::time_point round_start;  ///< on the actor's clock
  metrics::counter* beats = nullptr;
  metrics::counter* reports = nullptr;
};

/// The public interface plus the round timer, which only the collector sends itself.
using collector_impl = collector_actor::extend<caf::reacts_to<msg::check_atom, uint64_t>>;
using collector_self = collector_impl::stateful_pointer<collector_state>;

std::chrono::milliseconds round_limit(const collector_state& st) {
  auto interval = std::chrono::milliseconds{std::max<int64_t>(st.list.interval_ms, 1)};
  // An empty list has nothing to wait for: report on the interval, so the manager hears us.
  return st.list.nodes.empty() ? interval : interval * 3 / 2;
}

void begin_round(collector_self self) {
  auto& st = self->state;
  ++st.round;
  st.answered = 0;
  for (auto& [node, beat] : st.beaten) beat = false;
  st.round_start = self->clock().now();
  self->delayed_send(self, round_limit(st), msg::check_atom_v, st.round);
}

void end_round(collector_self self) {
  auto& st = self->state;
  msg::collector_report report;
  report.collector = st.name;
  report.version = st.list.version;
  report.round = st.round;
  report.answered = st.answered;
  // Only changes travel: who stopped beating and who beat again since the previous round.
  std::unordered_set<std::string> silent;
  for (auto& node : st.list.nodes)
    if (!st.beaten[node]) silent.insert(node);
  report.full = st.full_next;
  for (auto& node : st.list.nodes) {
    bool now_silent = silent.count(node) != 0;
    bool was_silent = st.silent.count(node) != 0;
    if (now_silent && (st.full_next || !was_silent)) report.silent.push_back(node);
    if (!now_silent && was_silent && !st.full_next) report.returned.push_back(node);
  }
  st.silent = std::move(silent);
  st.full_next = false;
  report.round_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(self->clock().now() - st.round_start)
          .count();
  SHOAL_DEBUG(heartbeat, "collector round collector={} round={} answered={} silent={}", st.name,
              st.round, report.answered, report.silent.size());
  if (st.reports) st.reports->inc();
  send_to(self, st.manager, msg::collect_atom_v, std::move(report));
  begin_round(self);
}

void take_list(collector_self self, msg::collector_list& list, caf::actor& manager) {
  auto& st = self->state;
  bool first = !st.manager;
  st.manager = std::move(manager);
  std::unordered_map<std::string, bool> beaten;
  beaten.reserve(list.nodes.size());
  uint32_t answered = 0;
  for (auto& node : list.nodes) {
    auto it = st.beaten.find(node);
    bool beat = it != st.beaten.end() && it->second;
    beaten.emplace(node, beat);
    answered += beat ? 1 : 0;
  }
  st.beaten = std::move(beaten);
  st.answered = answered;
  st.list = std::move(list);
  st.full_next = true;
  config::log().info("collector list collector={} nodes={} version={}", st.name,
                     st.list.nodes.size(), st.list.version);
  if (first) begin_round(self);
}

}  // namespace

collector_actor spawn_collector(caf::actor_system& sys, std::string name,
                                metrics::registry* meters) {
  auto behavior = [](collector_self self, std::string name,
                     metrics::registry* meters) -> collector_impl::behavior_type {
    tolerate_strays(self);
    actor_probe probe{self, meters, "collector"};
    auto& st = self->state;
    st.name = std::move(name);
    if (meters) {
      st.beats = &meters->counter_of("shoal_collector_heartbeats_total",
                                     "Heartbeats this shoald's collectors received from the "
                                     "nodes of their lists");
      st.reports = &meters->counter_of("shoal_collector_reports_total",
                                       "Round reports this shoald's collectors sent the "
                                       "controller");
    }
    return {probe.metered("list", [self](msg::collector_atom, msg::collector_list& list,
                                         caf::actor& manager) { take_list(self, list, manager); }),
            probe.metered("heartbeat",
                          [self](msg::heartbeat_atom, const std::string& node) {
                            auto& st = self->state;
                            auto it = st.beaten.find(node);
                            if (it == st.beaten.end() || it->second) return;
                            it->second = true;
                            if (st.beats) st.beats->inc();
                            if (++st.answered == st.beaten.size() && st.manager) end_round(self);
                          }),
            probe.metered("round", [self](msg::check_atom, uint64_t round) {
              if (round == self->state.round && self->state.manager) end_round(self);
            })};
  };
  return sys.spawn(behavior, std::move(name), meters);
}

}  // namespace shoal::actors
