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

/// Slurm shows a node of an active MAINT reservation as `maint` while nothing else marks it.
bool shown_as_maint(const msg::node_info& n) {
  return n.maint && n.state == msg::node_state::idle;
}

std::string compact_state(const msg::node_info& n) {
  if (shown_as_maint(n)) return std::string{"maint"} + power_mark(n);
  return std::string{msg::short_name(n.state)} + power_mark(n);
}

std::string long_state(const msg::node_info& n) {
  if (shown_as_maint(n)) return std::string{"maint"} + power_mark(n);
  return detail::lower(msg::to_string(n.state)) + power_mark(n);
}

std::string power_flags(const msg::node_info& n) {
  std::string out;
  if (n.cloud) out += "+CLOUD";
  if (n.power_down_asked) out += "+POWER_DOWN";
  if (n.power == msg::power_state::powered_down) out += "+POWERED_DOWN";
  if (n.power == msg::power_state::powering_up) out += "+POWERING_UP";
  if (n.power == msg::power_state::powering_down) out += "+POWERING_DOWN";
  return out;
}

bool hidden_cloud_node(const msg::node_info& n) {
  return n.cloud && n.power == msg::power_state::powered_down && n.job_ids.empty();
}

}  // namespace shoal::cli
