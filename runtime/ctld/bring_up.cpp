#include "runtime/ctld/bring_up.hpp"

#include <caf/send.hpp>

#include "actors/controller.hpp"
#include "config/log.hpp"
#include "interconnect/switch_manager.hpp"
#include "messages/errc.hpp"

namespace shoal::runtime {

caf::expected<controller_instance> bring_up_controller(caf::actor_system& sys,
                                                       const config::cluster_config& cfg,
                                                       metrics::registry* meters,
                                                       const std::string& metrics_address) {
  // A fresh plugin per stint in control: nothing of a previous controller's allocations
  // carries over.
  auto interconnect = interconnect::make_switch_manager(cfg.switch_type);
  if (!interconnect)
    return make_error(errc::invalid_config, cfg.path + ": " + describe(interconnect.error()));
  controller_instance out;
  // A dynamic handle: clients (the CLI, shoald) hold it as caf::actor.
  out.controller = caf::actor_cast<caf::actor>(actors::spawn_controller(
      sys, cfg, meters, std::shared_ptr<interconnect::switch_manager>{std::move(*interconnect)}));
  if (meters && cfg.metrics_port != 0) {
    out.endpoint = std::make_unique<metrics_server>(*meters);
    if (auto err = out.endpoint->start(metrics_address, cfg.metrics_port)) {
      config::log().error("metrics endpoint not started: {}", describe(err));
      out.endpoint.reset();
    } else {
      config::log().info("metrics endpoint url=http://{}:{}/metrics", metrics_address,
                         cfg.metrics_port);
    }
  }
  return out;
}

void bring_down_controller(controller_instance& instance) {
  if (instance.controller) caf::anon_send_exit(instance.controller, caf::exit_reason::kill);
  instance.controller = nullptr;
  instance.endpoint.reset();
}

}  // namespace shoal::runtime
