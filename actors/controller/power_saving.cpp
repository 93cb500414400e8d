// Power saving and cloud nodes: the power actor's place beside the controller (docs/power.md).
// The controller spawns it when the config asks for it, hands it every node view and partition
// change, and routes the POWER_* words of `shoal control update nodename=...` to it.

#include <algorithm>

#include "actors/controller/controller_state.hpp"
#include "actors/power.hpp"

namespace shoal::actors::ctl {

namespace {

/// The saved power records (key power/NAME), by node name.
std::unordered_map<std::string, msg::power_record> saved_power(const state::record_map& saved) {
  std::unordered_map<std::string, msg::power_record> out;
  const std::string prefix = power_key("");
  for (auto it = saved.lower_bound(prefix); it != saved.end(); ++it) {
    if (it->first.compare(0, prefix.size(), prefix) != 0) break;
    if (auto rec = decode_record<msg::power_record>(it->first, it->second))
      out.emplace(rec->name, std::move(*rec));
  }
  return out;
}

}  // namespace

void spawn_power_saving(controller_self self, const state::record_map& saved) {
  auto& st = self->state;
  std::string why_not;
  if (!power_saving_wanted(st.cfg, why_not)) {
    if (!why_not.empty()) config::log().error("{}", why_not);
    return;
  }
  power_setup setup;
  setup.cfg = st.cfg;
  setup.nodes = st.nodes;
  setup.keeper = st.keeper;
  setup.saved = saved_power(saved);
  setup.meters = st.meters;
  st.power = spawn_power(self->system(), std::move(setup));
  self->link_to(st.power);
}

bool is_power_word(const std::string& upper) {
  return upper == "POWER_DOWN" || upper == "POWER_UP" || upper == "POWER_DOWN_ASAP" ||
         upper == "POWER_DOWN_FORCE";
}

caf::result<caf::ok_atom> update_power(controller_self self, const std::vector<std::string>& names,
                                       const std::string& upper) {
  auto& st = self->state;
  if (!st.power)
    return make_error(errc::invalid_request,
                      "power saving is not configured: set SuspendProgram, ResumeProgram and "
                      "SuspendTime (or State=CLOUD nodes) in the config");
  std::vector<std::pair<caf::actor, caf::message>> requests;
  for (auto& n : names)
    requests.emplace_back(caf::actor_cast<caf::actor>(st.power),
                          caf::make_message(msg::power_atom_v, n, upper));
  return all_ok(self, std::move(requests));
}

}  // namespace shoal::actors::ctl
