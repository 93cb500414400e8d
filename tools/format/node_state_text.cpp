#include "tools/format/node_state_text.hpp"

#include "tools/format/table.hpp"

namespace shoal::cli {

const char* power_mark(const msg::node_info& n) {
  if (n.power == msg::power_state::powering_up) return "#";
  if (n.power == msg::power_state::powering_down) return "%";
  if (n.power == msg::power_state::powered_down) return "~";
  if (n.power_down_asked) return "!";
  return "";
}

namespace {

/// A node that holds jobs keeps its state word under a reboot, with the reboot's mark.
bool holds_jobs_under_reboot(msg::node_state s) {
  using msg::node_state;
  return s == node_state::allocated || s == node_state::mixed || s == node_state::completing ||
         s == node_state::draining;
}

/// Slurm's one mark after the state: the reboot's (^ issued, @ requested) before power's.
std::string reboot_or_power_mark(const msg::node_info& n) {
  if (n.reboot_issued) return "^";
  if (n.reboot_requested) return "@";
  return power_mark(n);
}

/// node_state_string's word for a node without jobs whose reboot is asked or under way.
bool shown_as_reboot(const msg::node_info& n) {
  return (n.reboot_requested || n.reboot_issued) && !holds_jobs_under_reboot(n.state);
}

/// Slurm shows a node of an active MAINT reservation as `maint` while nothing else marks it.
bool shown_as_maint(const msg::node_info& n) {
  return n.maint && n.state == msg::node_state::idle;
}

}  // namespace

bool not_responding(const msg::node_info& n) {
  return n.state == msg::node_state::unknown ||
         (n.state == msg::node_state::down && n.reason == "Not responding");
}

std::string compact_state(const msg::node_info& n) {
  if (shown_as_reboot(n)) return n.reboot_issued ? "boot^" : "boot";
  if (shown_as_maint(n)) return std::string{"maint"} + power_mark(n);
  return std::string{msg::short_name(n.state)} + reboot_or_power_mark(n);
}

std::string long_state(const msg::node_info& n) {
  if (shown_as_reboot(n)) return n.reboot_issued ? "reboot^" : "reboot";
  if (shown_as_maint(n)) return std::string{"maint"} + power_mark(n);
  return detail::lower(msg::to_string(n.state)) + reboot_or_power_mark(n);
}

std::string power_flags(const msg::node_info& n) {
  std::string out;
  if (n.cloud) out += "+CLOUD";
  if (n.power_down_asked) out += "+POWER_DOWN";
  if (n.power == msg::power_state::powered_down) out += "+POWERED_DOWN";
  if (n.reboot_requested) out += "+REBOOT_REQUESTED";
  if (n.reboot_issued) out += "+REBOOT_ISSUED";
  if (n.power == msg::power_state::powering_up) out += "+POWERING_UP";
  if (n.power == msg::power_state::powering_down) out += "+POWERING_DOWN";
  return out;
}

bool hidden_cloud_node(const msg::node_info& n) {
  return n.cloud && n.power == msg::power_state::powered_down && n.job_ids.empty();
}

}  // namespace shoal::cli
