#pragma once

#include <memory>
#include <string>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/typed_actor.hpp>

#include "actors/in_process_types.hpp"
#include "config/config.hpp"
#include "messages/caf/type_ids.hpp"
#include "metrics/registry.hpp"

namespace shoal::actors {

/// One partition: owns its row (state, time and node limits, priority tier and job factor,
/// sharing, members; next the power and preemption settings). Edits of the partition go to it,
/// and it answers with the row they made: the controller keeps that as its view (for listings
/// and for checking submissions) and hands it on in the scheduler's and the topology actor's
/// partition table. What spans partitions stays with the controller: which partitions exist, in
/// which order, which one is the default, and the edit record a restart replays.
using partition_actor = caf::typed_actor<
    /// (settings): the `Key=Value` words of `shoal control update partitionname=P`; the row after
    /// them, or errc::invalid_request naming the first bad one (the row then unchanged).
    caf::replies_to<msg::partedit_atom, std::vector<std::string>>::with<config::partition_config>,
    /// The row as it is.
    caf::replies_to<msg::view_atom>::with<config::partition_config>,
    /// The partition was deleted: the actor ends.
    caf::reacts_to<msg::cancel_atom>>;

/// A partition actor holding `row`; Nodes= settings resolve against `node_names` (every
/// configured node, in config order).
partition_actor spawn_partition(caf::actor_system& sys, config::partition_config row,
                                std::shared_ptr<const std::vector<std::string>> node_names,
                                metrics::registry* meters);

}  // namespace shoal::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(shoal::config::partition_config)
