#include "cluster/node_health.hpp"

#include <string>

namespace shoal::cluster {

namespace {

std::string low(const char* what, uint64_t reported, uint64_t configured) {
  return std::string{"Low "} + what + " (reported " + std::to_string(reported) + " < configured " +
         std::to_string(configured) + ")";
}

}  // namespace

std::string shortfall_reason(const config::node_config& cfg, const msg::machine_status& rep) {
  if (cfg.cpus > rep.cpus) return low("CPUs", rep.cpus, cfg.cpus);
  if (cfg.real_memory_mb > rep.real_memory_mb)
    return low("RealMemory", rep.real_memory_mb, cfg.real_memory_mb);
  if (cfg.tmp_disk_mb > rep.tmp_disk_mb) return low("TmpDisk", rep.tmp_disk_mb, cfg.tmp_disk_mb);
  if (cfg.virtual_memory_mb > rep.virtual_memory_mb)
    return low("VirtualMemory", rep.virtual_memory_mb, cfg.virtual_memory_mb);
  if (cfg.sockets > rep.sockets) return low("Sockets", rep.sockets, cfg.sockets);
  return "";
}

}  // namespace shoal::cluster

namespace shoal::cluster {

msg::node_state derive_node_state(const node_flags& f) {
  using msg::node_state;
  // Power saving expects no daemon: silence is not DOWN and never-heard-from is not UNKNOWN.
  if (f.life == node_flags::liveness::down && (f.admin_down || !f.power_off))
    return node_state::down;
  if (f.drain) return f.jobs > 0 ? node_state::draining : node_state::drained;
  if (f.life == node_flags::liveness::unknown && !f.power_off) return node_state::unknown;
  if (f.jobs > 0) {
    if (f.completing == f.jobs) return node_state::completing;
    return f.partial ? node_state::mixed : node_state::allocated;
  }
  return node_state::idle;
}

msg::node_state placement_state(const msg::node_info& info) {
  if (info.power == msg::power_state::powering_down || info.power_down_asked)
    return msg::node_state::drained;
  return info.state;
}

}  // namespace shoal::cluster
