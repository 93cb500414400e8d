#pragma once
// SCAFFOLD (branch durable only): replaced by the state keeper from branch `state` at merge.

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/expected.hpp>
#include <caf/typed_actor.hpp>

#include "messages/type_ids.hpp"
#include "metrics/registry.hpp"

namespace shoal::state {
using value_ptr = std::shared_ptr<const std::vector<uint8_t>>;
using record_map = std::map<std::string, value_ptr>;
struct loaded_state {
  record_map records;
  std::vector<std::string> warnings;
};
caf::expected<loaded_state> load(const std::vector<std::string>& locations);
}  // namespace shoal::state

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(shoal::state::value_ptr)

namespace shoal::actors {
struct state_keeper_settings {
  std::vector<std::string> locations;
  uint64_t snapshot_every_records = 100000;
  std::chrono::seconds snapshot_interval{300};
  metrics::registry* meters = nullptr;
};
using state_keeper_actor =
    caf::typed_actor<caf::reacts_to<msg::persist_atom, std::string, state::value_ptr>,
                     caf::replies_to<msg::sync_atom>::with<caf::ok_atom>,
                     caf::replies_to<msg::snapshot_atom>::with<caf::ok_atom>>;
state_keeper_actor spawn_state_keeper(caf::actor_system& sys, state_keeper_settings settings,
                                      state::record_map initial);
}  // namespace shoal::actors
