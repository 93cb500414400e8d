#pragma once

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/typed_actor.hpp>

#include <string>

#include "messages/caf/type_ids.hpp"
#include "metrics/registry.hpp"

namespace shoal::actors {

/// A CollectorNode's heartbeat fan-in (seed 000, steps 5 to 7), in the shoald that serves that
/// node: the nodes of its list beat here instead of to their node actors, and the collector
/// answers the controller's collector manager once per round, in one message naming only what
/// changed: the nodes that stopped beating and those that beat again (msg::collector_report; the
/// first round against a new list names every silent node). A round ends when every node of the
/// list has beaten, or 1.5 x HeartBeatInterval after it began; an empty list still reports every
/// interval, which is how the manager hears that the collector itself lives.
///
/// The seed's collector asks each node and gathers the answers; here each node beats to its
/// collector on its own interval (it was told where by the manager, through its node actor), so
/// the controller-to-node path carries no per-round request at all: the same messages reach the
/// controller, half as many cross the network.
using collector_actor = caf::typed_actor<
    /// (list, manager): the nodes to gather from now on, and where to report. A new list replaces
    /// the last one at once; beats from nodes not on it are dropped.
    caf::reacts_to<msg::collector_atom, msg::collector_list, caf::actor>,
    /// A node of the list is alive.
    caf::reacts_to<msg::heartbeat_atom, std::string>>;

/// `name` is the collector node's name (each report carries it); `meters` counts beats received
/// and rounds reported (null: not metered).
collector_actor spawn_collector(caf::actor_system& sys, std::string name,
                                metrics::registry* meters);

}  // namespace shoal::actors
