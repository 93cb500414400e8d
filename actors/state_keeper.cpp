// SCAFFOLD (branch durable only): replaced by the state keeper from branch `state` at merge.
#include "actors/state_keeper.hpp"

#include <caf/all.hpp>

namespace shoal::state {
caf::expected<loaded_state> load(const std::vector<std::string>&) {
  return loaded_state{};
}
}  // namespace shoal::state

namespace shoal::actors {
state_keeper_actor spawn_state_keeper(caf::actor_system& sys, state_keeper_settings,
                                      state::record_map) {
  return sys.spawn([](state_keeper_actor::pointer, int) -> state_keeper_actor::behavior_type {
    return {
        [](msg::persist_atom, const std::string&, const state::value_ptr&) {},
        [](msg::sync_atom) { return caf::ok_atom::value; },
        [](msg::snapshot_atom) { return caf::ok_atom::value; },
    };
  }, 0);
}
}  // namespace shoal::actors
