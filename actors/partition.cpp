#include "actors/partition.hpp"

#include <caf/all.hpp>

#include "actors/metering.hpp"
#include "actors/unexpected.hpp"
#include "config/log.hpp"
#include "config/partition_edit.hpp"
#include "messages/caf/error.hpp"

namespace shoal::actors {

namespace {

struct partition_state {
  static inline const char* name = "partition";
  config::partition_config row;
  std::shared_ptr<const std::vector<std::string>> node_names;
};

using partition_self = partition_actor::stateful_pointer<partition_state>;

caf::result<config::partition_config> edit(partition_self self,
                                           const std::vector<std::string>& settings) {
  auto& st = self->state;
  auto row = config::apply_partition_settings(st.row, settings, *st.node_names);
  if (!row) return to_caf(row.error());
  st.row = std::move(*row);
  return st.row;
}

partition_actor::behavior_type partition_behavior(
    partition_self self, config::partition_config row,
    std::shared_ptr<const std::vector<std::string>> node_names, metrics::registry* meters) {
  self->state.row = std::move(row);
  self->state.node_names = std::move(node_names);
  tolerate_strays(self);
  actor_probe probe{self, meters, "partition"};
  return {
      probe.metered("edit",
                    [self](msg::partedit_atom, const std::vector<std::string>& settings) {
                      return edit(self, settings);
                    }),
      probe.metered("view", [self](msg::view_atom) { return self->state.row; }),
      probe.metered("delete", [self](msg::cancel_atom) { self->quit(); }),
  };
}

}  // namespace

partition_actor spawn_partition(caf::actor_system& sys, config::partition_config row,
                                std::shared_ptr<const std::vector<std::string>> node_names,
                                metrics::registry* meters) {
  return sys.spawn(partition_behavior, std::move(row), std::move(node_names), meters);
}

}  // namespace shoal::actors
