#include "actors/node_usage_meters.hpp"

namespace shoal::actors {

void node_usage_gauges::set(const msg::node_usage& now) {
  load[0]->set(now.load1);
  load[1]->set(now.load5);
  load[2]->set(now.load15);
  cpu[0]->set(static_cast<double>(now.user_ms) / 1000);
  cpu[1]->set(static_cast<double>(now.system_ms) / 1000);
  cpu[2]->set(static_cast<double>(now.idle_ms) / 1000);
  memory[0]->set(static_cast<double>(now.mem_total_bytes));
  memory[1]->set(static_cast<double>(now.mem_available_bytes));
}

std::optional<node_usage_gauges> make_node_usage_gauges(metrics::registry* m,
                                                        const std::string& node) {
  if (!m) return std::nullopt;
  auto& load = m->gauges("shoal_node_load", "run-queue load average of the node (/proc/loadavg)",
                         {"node", "minutes"});
  auto& cpu =
      m->gauges("shoal_node_cpu_seconds",
                "CPU time of the node since boot, over its CPUs (/proc/stat)", {"node", "mode"});
  auto& memory =
      m->gauges("shoal_node_memory_bytes", "memory of the node (/proc/meminfo)", {"node", "kind"});
  node_usage_gauges g;
  g.load[0] = &load.with({node, "1"});
  g.load[1] = &load.with({node, "5"});
  g.load[2] = &load.with({node, "15"});
  g.cpu[0] = &cpu.with({node, "user"});
  g.cpu[1] = &cpu.with({node, "system"});
  g.cpu[2] = &cpu.with({node, "idle"});
  g.memory[0] = &memory.with({node, "total"});
  g.memory[1] = &memory.with({node, "available"});
  return g;
}

}  // namespace shoal::actors
