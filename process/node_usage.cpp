#include "process/node_usage.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

namespace shoal::process {

namespace {

std::string read_text(const char* path) {
  std::ifstream in{path};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::optional<node_cpu_times> parse_node_cpu_times(const std::string& proc_stat,
                                                   uint64_t ticks_per_second) {
  if (ticks_per_second == 0 || proc_stat.compare(0, 4, "cpu ") != 0) return std::nullopt;
  std::istringstream line{proc_stat.substr(4, proc_stat.find('\n') - 4)};
  // user nice system idle iowait irq softirq (steal guest guest_nice, on newer kernels).
  uint64_t t[7] = {};
  for (auto& value : t)
    if (!(line >> value)) return std::nullopt;
  auto ms = [&](uint64_t ticks) { return ticks * 1000 / ticks_per_second; };
  node_cpu_times out;
  out.user_ms = ms(t[0] + t[1]);
  out.system_ms = ms(t[2] + t[5] + t[6]);
  out.idle_ms = ms(t[3] + t[4]);
  return out;
}

std::optional<node_load> parse_node_load(const std::string& loadavg) {
  std::istringstream in{loadavg};
  node_load out;
  if (!(in >> out.one_minute >> out.five_minutes >> out.fifteen_minutes)) return std::nullopt;
  return out;
}

std::optional<node_memory> parse_node_memory(const std::string& meminfo) {
  node_memory out;
  bool total = false;
  bool available = false;
  std::istringstream in{meminfo};
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields{line};
    std::string name;
    uint64_t kb = 0;
    if (!(fields >> name >> kb)) continue;
    if (name == "MemTotal:") {
      out.total_bytes = kb * 1024;
      total = true;
    } else if (name == "MemAvailable:") {
      out.available_bytes = kb * 1024;
      available = true;
    }
  }
  if (!total || !available) return std::nullopt;
  return out;
}

node_usage read_node_usage() {
  node_usage out;
  auto ticks = ::sysconf(_SC_CLK_TCK);
  if (auto cpu = parse_node_cpu_times(read_text("/proc/stat"),
                                      ticks > 0 ? static_cast<uint64_t>(ticks) : 0))
    out.cpu = *cpu;
  if (auto load = parse_node_load(read_text("/proc/loadavg"))) out.load = *load;
  if (auto memory = parse_node_memory(read_text("/proc/meminfo"))) out.memory = *memory;
  return out;
}

msg::node_usage to_wire(const node_usage& u, int64_t now) {
  msg::node_usage out;
  out.sampled_at = now;
  out.load1 = u.load.one_minute;
  out.load5 = u.load.five_minutes;
  out.load15 = u.load.fifteen_minutes;
  out.user_ms = u.cpu.user_ms;
  out.system_ms = u.cpu.system_ms;
  out.idle_ms = u.cpu.idle_ms;
  out.mem_total_bytes = u.memory.total_bytes;
  out.mem_available_bytes = u.memory.available_bytes;
  return out;
}

bool usage_moved(const msg::node_usage& sent, const msg::node_usage& now) {
  if (sent.sampled_at == 0) return true;
  if (std::fabs(now.load1 - sent.load1) >= 0.05) return true;
  auto a = now.mem_available_bytes, b = sent.mem_available_bytes;
  auto moved = a > b ? a - b : b - a;
  return moved * 100 >= std::max<uint64_t>(now.mem_total_bytes, 1);
}

}  // namespace shoal::process
