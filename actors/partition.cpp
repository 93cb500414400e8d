#include "actors/partition.hpp"

#include <caf/all.hpp>

#include "actors/metering.hpp"
#include "messages/type_ids.hpp"

namespace shoal::actors {

msg::partition_info partition_view(const config::partition_config& cfg) {
  msg::partition_info info;
  info.name = cfg.name;
  info.state = cfg.state;
  info.is_default = cfg.is_default;
  info.max_time_s = cfg.max_time_s;
  info.default_time_s = cfg.default_time_s;
  info.max_nodes = cfg.max_nodes;
  info.nodes = cfg.nodes;
  info.priority = cfg.priority;
  info.over_subscribe = config::over_subscribe_text(cfg);
  return info;
}

namespace {

struct partition_state {
  static inline const char* name = "partition";
  msg::partition_info info;
};

caf::behavior partition_behavior(caf::stateful_actor<partition_state>* self,
                                 const config::partition_config& cfg, const caf::actor& controller,
                                 metrics::registry* meters) {
  actor_probe probe{self, meters, "partition"};
  self->state.info = partition_view(cfg);
  self->send(controller, msg::view_atom_v, self->state.info);
  return {
      probe.metered("parts", [self](msg::parts_atom) { return self->state.info; }),
  };
}

}  // namespace

caf::actor spawn_partition(caf::actor_system& sys, config::partition_config cfg,
                           caf::actor controller, metrics::registry* meters) {
  return sys.spawn(partition_behavior, std::move(cfg), std::move(controller), meters);
}

}  // namespace shoal::actors
