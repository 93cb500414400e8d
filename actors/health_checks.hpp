#pragma once

#include <string>
#include <unordered_map>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "actors/node.hpp"
#include "config/health_settings.hpp"

namespace shoal::actors {

/// slurmctld's health-check cycle (ping_nodes.c, run_health_check): every HealthCheckInterval
/// it asks `controller` for its node views and tells the node actor of each powered-up node
/// whose state HealthCheckNodeState takes (config::health_check_applies) to run the check,
/// which the node actor relays to its shoald. Owns nothing but its timer; the outcome goes from
/// the shoald to its node actor.
caf::actor spawn_health_checks(caf::actor_system& sys, caf::actor controller,
                               std::unordered_map<std::string, node_actor> nodes,
                               config::health_settings settings);

}  // namespace shoal::actors
