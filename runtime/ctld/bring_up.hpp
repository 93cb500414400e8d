#pragma once

#include <memory>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/expected.hpp>

#include "config/config.hpp"
#include "metrics/registry.hpp"
#include "policy/access.hpp"
#include "runtime/bootstrap/metrics_server.hpp"

namespace shoal::runtime {

/// What runs while this shoalctld is in control.
struct controller_instance {
  caf::actor controller;                     ///< the controller actor, as shoalctld publishes it
  caf::actor keeper;                         ///< its state keeper (StateSaveLocation)
  std::unique_ptr<metrics_server> endpoint;  ///< its /metrics; null when off or not started
};

/// Brings the controller up, the one way every shoalctld in control runs it (a primary at
/// start, a backup taking over, a primary taking control back): builds the SwitchType plugin,
/// spawns the controller metering into `meters` (null: CollectMetrics=NO; it must outlive every
/// controller actor) and starts /metrics on MetricsPort at `metrics_address` (a failure there is
/// logged, not fatal). Does not publish the controller. Blocking: for shoalctld's failover
/// thread only.
///
/// The controller resumes from the state saved in StateSaveLocation (read here, before any
/// actor runs; damaged copies worked around are logged as warnings), unless `cold_start`
/// (shoalctld -c), which starts empty and makes the empty state the saved one. Error: the
/// `access` is who may do what (the front door's rules too). Error: the
/// SwitchType plugin cannot be built, or no usable copy of the saved state exists.
caf::expected<controller_instance> bring_up_controller(caf::actor_system& sys,
                                                       const config::cluster_config& cfg,
                                                       metrics::registry* meters,
                                                       const std::string& metrics_address,
                                                       const policy::access_rules& access,
                                                       bool cold_start = false);

/// StateSaveLocation=PRIMARY[,SECONDARY]: the directories the state is saved in, both written;
/// `none` (a shoal value, for throwaway clusters and measurements): nowhere.
std::vector<std::string> state_locations(const std::string& value);

/// Stops what bring_up_controller started: kills the controller (its node actors and scheduler
/// die with it; it stopped its job actors and saved its state on handover) and its state keeper
/// (waiting until it is gone, so that it never writes after another shoalctld has loaded the
/// state), and closes /metrics, whose port is free again on return. Does nothing for an empty
/// instance.
void bring_down_controller(controller_instance& instance);

}  // namespace shoal::runtime
