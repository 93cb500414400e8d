#pragma once

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/typed_actor.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "actors/node.hpp"
#include "actors/state_keeper.hpp"
#include "config/defaults.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "metrics/registry.hpp"

namespace shoal::actors {

/// Seed 000's Machine Status Manager for CollectorNodes, steps 3 to 9B: owns which collector
/// gathers which node's heartbeats, and whether a node gathered that way still answers.
///
/// A collector announces itself once its shoald has registered (step 3: its registration is the
/// probe). Once every collector has, or `settle_ms` after the first did, the manager splits every
/// other node into lists of similar size, one per collector that is up (4), saves the mapping
/// (and a restarted controller gives each collector its saved list back); sends each collector
/// its list (5) and tells each node actor where its daemon beats now, which passes it on to the
/// daemon. Later changes move as few nodes as they can. Each report carries only changes: the
/// nodes that stopped beating since the previous round and those that beat again.
/// Each round report names the nodes that did not beat; a node silent past HeartBeatTimeout is
/// told to its node actor as not responding (6: DOWN), and as responding again when it beats (8,
/// 9A: a DOWN node stays on its list, so its collector notices its return). A collector whose
/// shoald drops, or that is silent past HeartBeatTimeout, goes DOWN and its nodes are split among
/// the others (7); their silence counts afresh from the move, so a collector's death takes none
/// of its nodes DOWN. A collector coming back triggers a rebalance (9B). A node is on one list
/// at a time: a collector drops beats from nodes not on its current list, and a report made
/// against an older list says nothing about nodes.
///
/// A collector's own node beats nowhere while its collector is up: each round it reports
/// vouches for it, so the controller gets one message per collector and round in all. When the
/// collector goes DOWN its node beats to its node actor again. With no collector up, the node
/// actors time their daemons' heartbeats themselves, as they do without CollectorNodes.
using collector_manager_actor = caf::typed_actor<
    /// (collector node, port, collector): a collector's shoald announces it, after registering.
    /// errc::invalid_request when the node is not in CollectorNodes.
    caf::replies_to<msg::collector_atom, std::string, uint16_t, caf::actor>::with<caf::ok_atom>,
    /// A collector's round.
    caf::reacts_to<msg::collect_atom, msg::collector_report>,
    /// `shoal control show collectors`: one line per CollectorNodes entry, in config order.
    caf::replies_to<msg::collectors_atom>::with<std::vector<msg::collector_info>>>;

struct collector_manager_setup {
  std::vector<std::string> collectors;            ///< CollectorNodes, in config order
  std::map<std::string, std::string> hosts;       ///< each collector's NodeAddr
  std::vector<std::string> nodes;                 ///< every other node, in config order
  std::map<std::string, node_actor> node_actors;  ///< every node's actor
  int64_t heartbeat_interval_ms = config::defaults::heartbeat_interval_ms;
  int64_t heartbeat_timeout_ms = config::defaults::heartbeat_timeout_ms;
  /// How long after the first announcement (or a restore) the first split waits for the other
  /// collectors; it happens at once when every collector is up.
  int64_t settle_ms = 10000;
  metrics::registry* meters = nullptr;             ///< null: not metered
  state_keeper_actor keeper;                       ///< saves the lists (null: not saved)
  std::optional<msg::collector_map_record> saved;  ///< the lists before a controller restart
};

collector_manager_actor spawn_collector_manager(caf::actor_system& sys,
                                                collector_manager_setup setup);

}  // namespace shoal::actors
