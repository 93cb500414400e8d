#pragma once

// What the collector tests share: a node actor registered by a stand-in shoald that records the
// collector it was last told to beat to.

#include <memory>
#include <string>

#include <caf/all.hpp>

#include "actors/node.hpp"
#include "config/config.hpp"
#include "messages/caf/type_ids.hpp"
#include "test/unit/actors/coordinated.hpp"

namespace shoal::test {

/// A node's shoald: the collector it was last told to beat to (empty: its node actor).
inline caf::behavior daemon_double(caf::event_based_actor*,
                                   std::shared_ptr<std::string> collector) {
  return {
      [collector](msg::collector_atom, const std::string& name, const std::string&, uint16_t) {
        *collector = name;
      },
  };
}

/// A node actor of 4 CPUs named `name`, registered by a daemon_double that writes to `told`;
/// both are kept by `fixture` (killed with it).
inline actors::node_actor spawn_registered_node(coordinated_fixture& fixture,
                                                const std::string& name,
                                                const caf::actor& controller, int64_t timeout_ms,
                                                int64_t interval_ms, metrics::registry* meters,
                                                std::shared_ptr<std::string> told) {
  config::node_config cfg;
  cfg.name = name;
  cfg.cpus = 4;
  cfg.return_to_service = 1;  // a node that beats again is back (the embedded default's)
  auto node = actors::spawn_node(fixture.sys, cfg, controller, timeout_ms, interval_ms, meters);
  fixture.keep(caf::actor_cast<caf::actor>(node));
  auto daemon = fixture.keep(fixture.sys.spawn(daemon_double, std::move(told)));
  msg::machine_status status;
  status.node_name = name;
  status.cpus = 4;
  caf::anon_send(node, msg::register_atom_v, status, daemon);
  return node;
}

}  // namespace shoal::test
