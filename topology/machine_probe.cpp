#include "topology/machine_probe.hpp"

#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <hwloc.h>

#include "messages/errc.hpp"

namespace shoal::topology {

namespace {

constexpr uint64_t kib_per_mib = 1024;

/// Counts objects of one type, treating "none" and "ambiguous depth" (-1) as one.
uint32_t count_at_least_one(hwloc_topology_t topo, hwloc_obj_type_t type) {
  int n = hwloc_get_nbobjs_by_type(topo, type);
  return n > 0 ? static_cast<uint32_t>(n) : 1u;
}

/// The value (in kB) of `key` in /proc/meminfo text, or -1 when absent.
int64_t meminfo_kb(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, key.size(), key) != 0 || line.size() <= key.size() ||
        line[key.size()] != ':')
      continue;
    return std::strtoll(line.c_str() + key.size() + 1, nullptr, 10);
  }
  return -1;
}

bool read_file(const char* path, std::string& out) {
  std::ifstream in(path);
  if (!in) return false;
  std::ostringstream buf;
  buf << in.rdbuf();
  out = buf.str();
  return true;
}

std::string probe_os() {
  struct utsname u;
  if (uname(&u) != 0) return "unknown";
  std::string os = std::string(u.sysname) + "." + u.release;
  for (auto& c : os)
    if (c == ' ' || c == '\t') c = '.';
  return os;
}

double probe_cpu_mhz() {
  // The maximum frequency is stable, whereas /proc/cpuinfo's "cpu MHz" follows frequency scaling.
  std::string text;
  if (read_file("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", text)) {
    auto khz = std::strtod(text.c_str(), nullptr);
    if (khz > 0) return khz / 1000.0;
  }
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, 7, "cpu MHz") != 0) continue;
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    return std::strtod(line.c_str() + colon + 1, nullptr);
  }
  return 0;
}

int64_t probe_boot_time() {
  std::ifstream in("/proc/stat");
  std::string line;
  while (std::getline(in, line))
    if (line.compare(0, 6, "btime ") == 0) return std::strtoll(line.c_str() + 6, nullptr, 10);
  return 0;
}

/// The logical index of the NUMA node whose cpuset holds all of `cpuset`, or 0.
uint32_t numa_node_of(hwloc_topology_t topo, hwloc_const_cpuset_t cpuset) {
  int count = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
  for (int i = 0; i < count; ++i) {
    auto node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
    if (node != nullptr && node->cpuset != nullptr && hwloc_bitmap_isincluded(cpuset, node->cpuset))
      return node->logical_index;
  }
  return 0;
}

/// The cores in hwloc logical order with their PUs; a topology without a core level (some
/// virtual machines) counts each PU as a core.
std::vector<core_info> probe_cores(hwloc_topology_t topo) {
  std::vector<core_info> cores;
  auto type = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
  int count = hwloc_get_nbobjs_by_type(topo, type);
  for (int i = 0; i < count; ++i) {
    auto obj = hwloc_get_obj_by_type(topo, type, static_cast<unsigned>(i));
    if (obj == nullptr || obj->cpuset == nullptr) continue;
    core_info core;
    auto package = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, obj);
    core.socket = package != nullptr ? package->logical_index : 0;
    core.numa_node = numa_node_of(topo, obj->cpuset);
    hwloc_obj_t pu = nullptr;
    while ((pu = hwloc_get_next_obj_inside_cpuset_by_type(topo, obj->cpuset, HWLOC_OBJ_PU, pu)) !=
           nullptr)
      core.pus.push_back(pu->os_index);
    if (!core.pus.empty()) cores.push_back(std::move(core));
  }
  return cores;
}

uint64_t probe_tmp_disk_mb(const std::string& tmp_fs) {
  struct statvfs st;
  if (statvfs(tmp_fs.c_str(), &st) != 0) return 0;
  auto bytes = static_cast<uint64_t>(st.f_blocks) * static_cast<uint64_t>(st.f_frsize);
  return bytes / (1024 * 1024);
}

}  // namespace

shoal::expected<machine_facts> probe_machine(const std::string& tmp_fs) {
  machine_facts facts;

  char host[HOST_NAME_MAX + 1] = {};
  if (gethostname(host, sizeof host - 1) != 0)
    return shoal::error(errc::system_error,
                        std::string("gethostname failed: ") + std::strerror(errno));
  facts.hostname = host;
  facts.os = probe_os();

  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0)
    return shoal::error(errc::system_error,
                        std::string("hwloc_topology_init failed: ") + std::strerror(errno));
  if (hwloc_topology_load(topo) != 0) {
    auto err = errno;
    hwloc_topology_destroy(topo);
    return shoal::error(errc::system_error,
                        std::string("hwloc_topology_load failed: ") + std::strerror(err));
  }
  auto pus = count_at_least_one(topo, HWLOC_OBJ_PU);
  auto cores = count_at_least_one(topo, HWLOC_OBJ_CORE);
  auto packages = count_at_least_one(topo, HWLOC_OBJ_PACKAGE);
  facts.numa_nodes = count_at_least_one(topo, HWLOC_OBJ_NUMANODE);
  facts.cores = probe_cores(topo);
  hwloc_topology_destroy(topo);
  facts.cpus = pus;
  facts.sockets = packages;
  facts.cores_per_socket = std::max(1u, cores / packages);
  facts.threads_per_core = std::max(1u, pus / cores);

  facts.cpu_mhz = probe_cpu_mhz();

  // hwloc's total_memory sums /sys/devices/system/node, which under-reports in containers.
  std::string meminfo;
  if (!read_file("/proc/meminfo", meminfo))
    return shoal::error(errc::system_error,
                        std::string("cannot read /proc/meminfo: ") + std::strerror(errno));
  auto mem_kb = meminfo_kb(meminfo, "MemTotal");
  if (mem_kb < 0) return shoal::error(errc::system_error, "/proc/meminfo has no MemTotal line");
  auto swap_kb = std::max<int64_t>(0, meminfo_kb(meminfo, "SwapTotal"));
  facts.real_memory_mb = static_cast<uint64_t>(mem_kb) / kib_per_mib;
  facts.virtual_memory_mb = static_cast<uint64_t>(mem_kb + swap_kb) / kib_per_mib;

  facts.tmp_disk_mb = probe_tmp_disk_mb(tmp_fs);
  facts.boot_time = probe_boot_time();
  return facts;
}

}  // namespace shoal::topology
