// The node's own figures (process/node_usage.hpp): /proc's text read into them, and when they
// moved enough to travel with a beat.

#include <boost/test/unit_test.hpp>

#include "process/node_usage.hpp"

using namespace shoal;

BOOST_AUTO_TEST_SUITE(node_usage)

BOOST_AUTO_TEST_CASE(proc_stat_gives_user_kernel_and_idle_time_in_milliseconds) {
  auto t = process::parse_node_cpu_times(
      "cpu  100 20 300 4000 50 6 7 0 0 0\ncpu0 50 10 150 2000 25 3 3 0 0 0\n", 100);
  BOOST_REQUIRE(t.has_value());
  BOOST_CHECK_EQUAL(t->user_ms, 1200u);    // user + nice
  BOOST_CHECK_EQUAL(t->system_ms, 3130u);  // system + irq + softirq
  BOOST_CHECK_EQUAL(t->idle_ms, 40500u);   // idle + iowait
  BOOST_CHECK(!process::parse_node_cpu_times("intr 1 2 3\n", 100).has_value());
}

BOOST_AUTO_TEST_CASE(loadavg_and_meminfo_give_the_load_and_the_available_memory) {
  auto load = process::parse_node_load("0.52 0.40 0.31 2/345 6789\n");
  BOOST_REQUIRE(load.has_value());
  BOOST_CHECK_CLOSE(load->one_minute, 0.52, 1e-9);
  BOOST_CHECK_CLOSE(load->fifteen_minutes, 0.31, 1e-9);
  auto mem =
      process::parse_node_memory("MemTotal:  2048 kB\nMemFree: 100 kB\nMemAvailable: 1024 kB\n");
  BOOST_REQUIRE(mem.has_value());
  BOOST_CHECK_EQUAL(mem->total_bytes, 2048u * 1024);
  BOOST_CHECK_EQUAL(mem->available_bytes, 1024u * 1024);
}

BOOST_AUTO_TEST_CASE(the_figures_travel_when_first_read_or_when_load_or_memory_moved) {
  process::node_usage read;
  read.load.one_minute = 0.50;
  read.memory.total_bytes = 1000 * 1000;
  read.memory.available_bytes = 500 * 1000;
  read.cpu.user_ms = 10;
  auto first = process::to_wire(read, 1234);
  BOOST_CHECK_EQUAL(first.sampled_at, 1234);
  BOOST_CHECK_EQUAL(first.user_ms, 10u);
  BOOST_CHECK(process::usage_moved(msg::node_usage{}, first));
  // CPU time always grows: alone it is no news.
  auto later = first;
  later.user_ms += 5000;
  later.load1 = 0.53;
  later.mem_available_bytes += 9000;  // under 1 % of the total
  BOOST_CHECK(!process::usage_moved(first, later));
  later.load1 = 0.56;
  BOOST_CHECK(process::usage_moved(first, later));
  later.load1 = 0.50;
  later.mem_available_bytes = first.mem_available_bytes - 10'000;  // 1 %
  BOOST_CHECK(process::usage_moved(first, later));
}

BOOST_AUTO_TEST_CASE(the_running_host_has_figures_to_read) {
  auto u = process::read_node_usage();
  BOOST_CHECK_GT(u.memory.total_bytes, 0u);
  BOOST_CHECK_GT(u.cpu.user_ms + u.cpu.system_ms + u.cpu.idle_ms, 0u);
}

BOOST_AUTO_TEST_SUITE_END()
