#include <boost/test/unit_test.hpp>

#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <string>

#include "topology/machine_probe.hpp"

using shoal::topology::probe_machine;

namespace {

/// MemTotal of /proc/meminfo in MiB, read independently of the probe.
uint64_t mem_total_mb() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit)
    if (key == "MemTotal:") return kb / 1024;
  return 0;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(machine_probe)

BOOST_AUTO_TEST_CASE(probe_reports_cpus_within_the_online_count) {
  auto facts = probe_machine();
  BOOST_REQUIRE(facts);
  auto online = sysconf(_SC_NPROCESSORS_ONLN);
  BOOST_TEST(facts->cpus >= 1u);
  // hwloc honours cgroup cpusets, so it may see fewer PUs than are online.
  BOOST_TEST(static_cast<long>(facts->cpus) <= online);
  BOOST_TEST(facts->sockets >= 1u);
  BOOST_TEST(facts->cores_per_socket >= 1u);
  BOOST_TEST(facts->threads_per_core >= 1u);
  BOOST_TEST(facts->numa_nodes >= 1u);
  BOOST_TEST(facts->sockets * facts->cores_per_socket * facts->threads_per_core <= facts->cpus);
}

BOOST_AUTO_TEST_CASE(probe_lists_every_allowed_cpu_once_in_its_core_table) {
  auto facts = probe_machine();
  BOOST_REQUIRE(facts);
  BOOST_REQUIRE(!facts->cores.empty());
  std::set<uint32_t> pus;
  size_t listed = 0;
  for (auto& core : facts->cores) {
    BOOST_TEST(!core.pus.empty());
    BOOST_TEST(core.socket < facts->sockets);
    BOOST_TEST(core.numa_node < facts->numa_nodes);
    pus.insert(core.pus.begin(), core.pus.end());
    listed += core.pus.size();
  }
  BOOST_TEST(listed == pus.size());  // no PU in two cores
  BOOST_TEST(pus.size() == facts->cpus);
  // The same CPUs the process may run on (hwloc restricts itself to the allowed cpuset).
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  BOOST_REQUIRE(sched_getaffinity(0, sizeof allowed, &allowed) == 0);
  for (auto pu : pus) BOOST_TEST(CPU_ISSET(pu, &allowed), "PU " << pu << " not allowed");
  BOOST_TEST(static_cast<size_t>(CPU_COUNT(&allowed)) == pus.size());
}

BOOST_AUTO_TEST_CASE(probe_reads_memory_from_proc_meminfo) {
  auto facts = probe_machine();
  BOOST_REQUIRE(facts);
  auto expected = mem_total_mb();
  BOOST_REQUIRE(expected > 0u);
  auto diff = facts->real_memory_mb > expected ? facts->real_memory_mb - expected
                                               : expected - facts->real_memory_mb;
  BOOST_TEST(diff <= 1u);
  BOOST_TEST(facts->virtual_memory_mb >= facts->real_memory_mb);
}

BOOST_AUTO_TEST_CASE(probe_names_the_host_and_linux_release) {
  auto facts = probe_machine();
  BOOST_REQUIRE(facts);
  BOOST_TEST(facts->os.rfind("Linux.", 0) == 0u, "os = " << facts->os);
  BOOST_TEST(facts->os.find(' ') == std::string::npos);
  char host[256] = {};
  BOOST_REQUIRE(gethostname(host, sizeof host - 1) == 0);
  BOOST_TEST(facts->hostname == std::string(host));
  BOOST_TEST(facts->boot_time > 0);
  BOOST_TEST(facts->cpu_mhz >= 0.0);
}

BOOST_AUTO_TEST_CASE(probe_sizes_tmp_and_reports_zero_for_a_missing_dir) {
  auto tmp = probe_machine("/tmp");
  BOOST_REQUIRE(tmp);
  BOOST_TEST(tmp->tmp_disk_mb > 0u);
  auto missing = probe_machine("/nonexistent/shoal-probe-test-dir");
  BOOST_REQUIRE(missing);
  BOOST_TEST(missing->tmp_disk_mb == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
