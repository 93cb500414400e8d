#pragma once

#include <memory>
#include <string>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/expected.hpp>

#include "config/config.hpp"
#include "metrics/registry.hpp"
#include "runtime/bootstrap/metrics_server.hpp"

namespace shoal::runtime {

/// What runs while this shoalctld is in control.
struct controller_instance {
  caf::actor controller;                     ///< the controller actor, as shoalctld publishes it
  std::unique_ptr<metrics_server> endpoint;  ///< its /metrics; null when off or not started
};

/// Brings the controller up, the one way every shoalctld in control runs it (a primary at
/// start, a backup taking over, a primary taking control back): builds the SwitchType plugin,
/// spawns the controller metering into `meters` (null: CollectMetrics=NO; it must outlive every
/// controller actor) and starts /metrics on MetricsPort at `metrics_address` (a failure there is
/// logged, not fatal). Does not publish the controller. Blocking: for shoalctld's failover
/// thread only. Error: the SwitchType plugin cannot be built.
caf::expected<controller_instance> bring_up_controller(caf::actor_system& sys,
                                                       const config::cluster_config& cfg,
                                                       metrics::registry* meters,
                                                       const std::string& metrics_address);

/// Stops what bring_up_controller started: kills the controller (its node actors and scheduler
/// die with it; it stopped its job actors on handover) and closes /metrics, whose port is free
/// again on return. Does nothing for an empty instance.
void bring_down_controller(controller_instance& instance);

}  // namespace shoal::runtime
