#include "actors/health_checks.hpp"

#include <chrono>
#include <vector>

#include <caf/all.hpp>

#include "config/log.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"

namespace shoal::actors {

namespace {

struct health_checks_state {
  static inline const char* name = "health_checks";
  caf::actor controller;
  std::unordered_map<std::string, node_actor> nodes;
  config::health_settings settings;
};

using health_checks_self = caf::stateful_actor<health_checks_state>*;

/// One round: every node the settings take is told to run its check.
void ask_matching_nodes(health_checks_self self, const std::vector<msg::node_info>& views) {
  auto& st = self->state;
  size_t asked = 0;
  for (const auto& view : views) {
    if (view.power != msg::power_state::on ||
        !config::health_check_applies(st.settings.node_states, view.state))
      continue;
    auto it = st.nodes.find(view.name);
    if (it == st.nodes.end()) continue;
    self->send(it->second, msg::check_atom_v);
    ++asked;
  }
  SHOAL_DEBUG(heartbeat, "health check round nodes={}", asked);
}

caf::behavior health_checks_behavior(health_checks_self self, caf::actor controller,
                                     std::unordered_map<std::string, node_actor> nodes,
                                     config::health_settings settings) {
  auto& st = self->state;
  st.controller = std::move(controller);
  st.nodes = std::move(nodes);
  st.settings = std::move(settings);
  auto interval = std::chrono::seconds{st.settings.interval_s};
  self->delayed_send(self, interval, msg::check_atom_v);
  return {
      [self, interval](msg::check_atom) {
        self->delayed_send(self, interval, msg::check_atom_v);
        self->request(self->state.controller, interval, msg::nodes_atom_v)
            .then(
                [self](const std::vector<msg::node_info>& views) {
                  ask_matching_nodes(self, views);
                },
                [](const caf::error& err) {
                  config::log().warn("health check round skipped: {}", describe(err));
                });
      },
  };
}

}  // namespace

caf::actor spawn_health_checks(caf::actor_system& sys, caf::actor controller,
                               std::unordered_map<std::string, node_actor> nodes,
                               config::health_settings settings) {
  return sys.spawn(health_checks_behavior, std::move(controller), std::move(nodes),
                   std::move(settings));
}

}  // namespace shoal::actors
