#include "actors/controller/controller_state.hpp"

#include <sstream>

#include "actors/metering.hpp"
#include "cluster/clock.hpp"
#include "topology/hostlist.hpp"

namespace shoal::actors::ctl {

using cluster::diag_reset_prefixes;
using cluster::unix_now;

caf::result<caf::ok_atom> update_nodes(controller_self self, const msg::node_update& up) {
  auto& st = self->state;
  st.attribute_to(up.user);
  SHOAL_DEBUG(msg, "rpc update nodes={} state={} user={}", up.nodes, up.state, up.user);
  // scontrol reboot ALL: every node.
  bool all = !up.reboot.empty() && (up.nodes == "ALL" || up.nodes == "all");
  auto names = all ? shoal::expected<std::vector<std::string>>{std::vector<std::string>{}}
                   : topology::expand_hostlist(up.nodes);
  if (!names) return to_caf(names.error());
  if (all)
    for (auto& n : st.cfg.nodes) names->push_back(n.name);
  if (names->empty()) return make_error(errc::invalid_request, "no node names given");
  for (auto& n : *names)
    if (st.nodes.count(n) == 0)
      return make_error(errc::unknown_node, "invalid node name '" + n + "'");
  auto upper = up.state;
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (is_power_word(upper)) return update_power(self, *names, upper);
  std::vector<std::pair<caf::actor, caf::message>> requests;
  for (auto& n : *names) {
    requests.emplace_back(caf::actor_cast<caf::actor>(st.nodes[n]),
                          caf::make_message(msg::nodeupd_atom_v, up));
    // A resume also hastens a power down under way (the guide).
    if (st.power && (upper == "RESUME" || upper == "IDLE"))
      caf::anon_send(st.power, msg::power_atom_v, n, std::string{"RESUME"});
  }
  return all_ok(self, std::move(requests));
}

/// `shoal control setdebug`: the new level's name, or errc::invalid_request naming the levels.
caf::result<std::string> set_debug_level(controller_self self, const std::string& text,
                                         const std::string& user) {
  self->state.attribute_to(user);
  auto level = config::parse_debug_level(text);
  if (!level) return make_error(errc::invalid_request, describe(level.error()));
  auto before = config::log_level();
  // Written while the more verbose of the two levels is in force, so it shows in either case.
  auto note = [&] {
    config::log().info("debug level changed from={} to={} user={}", config::to_string(before),
                       config::to_string(*level), user);
  };
  if (*level < before) note();
  config::set_log_level(*level);
  if (*level >= before) note();
  return std::string{config::to_string(*level)};
}

/// `shoal control setdebugflags +Flag -Flag`: the flags now on ("" for none), or
/// errc::invalid_request.
caf::result<std::string> set_debug_flags(controller_self self, const std::string& changes,
                                         const std::string& user) {
  self->state.attribute_to(user);
  std::vector<std::string> words;
  std::istringstream in{changes};
  for (std::string w; in >> w;) words.push_back(w);
  auto flags = config::change_debug_flags(config::debug_flags(), words);
  if (!flags) return to_caf(flags.error());
  auto before = config::render_debug_flags(config::debug_flags());
  config::set_debug_flags(*flags);
  auto now = config::render_debug_flags(*flags);
  config::log().info("debug flags changed from=\"{}\" to=\"{}\" user={}", before, now, user);
  return now;
}

std::string uid_label(const controller_state& st, uint32_t uid) {
  auto known = st.user_names.find(uid);
  if (known != st.user_names.end()) return known->second;
  return uid == 0 ? "root" : "uid:" + std::to_string(uid);
}

/// Control passes to another shoalctld: see controller_actor's handover_atom. The ok comes once
/// everything saved so far is durable, so the next controller loads all of it.
caf::result<caf::ok_atom> hand_over(controller_self self) {
  // Job actors are not linked to the controller (see submit_job), so killing the controller would
  // leave them running: stop them here. Their tasks keep running on the nodes.
  config::log().info("controller handing over jobs={}", self->state.jobs.size());
  for (auto& [id, job] : self->state.jobs) self->send_exit(job, caf::exit_reason::kill);
  self->state.jobs.clear();
  return once_saved(self, caf::ok_atom::value);
}

/// `shoal diag --reset` (sdiag -r): zeroes the RPC, scheduler and job-count statistics.

caf::result<caf::ok_atom> reset_diag(controller_self self, uint32_t uid) {
  auto& st = self->state;
  if (!policy::may(*st.access, uid, policy::operation::reset_statistics))
    return make_error(errc::permission_denied,
                      "only root or the controller's user may reset the statistics");
  if (!st.meters) return make_error(errc::invalid_request, "metrics are off (CollectMetrics=NO)");
  for (auto prefix : diag_reset_prefixes) st.meters->reset(prefix);
  st.meters->gauge_of("shoal_diag_reset_time_seconds", diag_reset_help)
      .set(static_cast<double>(unix_now()));
  config::log().info("diag statistics reset uid={}", uid);
  return caf::ok_atom::value;
}

}  // namespace shoal::actors::ctl
