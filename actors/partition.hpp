#pragma once

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "messages/types.hpp"
#include "config/config.hpp"
#include "metrics/registry.hpp"

namespace shoal::actors {

/// What users see of a configured partition.
msg::partition_info partition_view(const config::partition_config& cfg);

/// One partition: owns its limits and state, and publishes (view_atom, partition_info) to
/// `controller` when it starts and whenever it changes.
/// Messages: (parts_atom) -> partition_info.
/// Metered into `meters` (null: not metered).
caf::actor spawn_partition(caf::actor_system& sys, config::partition_config cfg,
                           caf::actor controller, metrics::registry* meters);

}  // namespace shoal::actors
