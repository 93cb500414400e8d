// A port already taken is an error at start naming the port and the key that sets it: a shoald
// runs on without /metrics, a shoalctld stops. Before, every shoald on a host "listened" on
// NodeMetricsPort together (cpp-httplib's SO_REUSEPORT) and each scrape reached any of them.

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "messages/caf/error.hpp"
#include "runtime/bootstrap/local_cluster.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// The port every shoald of the cluster serves /metrics on unless told otherwise
/// (NodeMetricsPort=), chosen before the cluster starts.
struct shared_metrics_port {
  uint16_t shared = free_port();
};

/// Two nodes whose config gives every shoald the same metrics port, as on a host running
/// several daemons with the default NodeMetricsPort. (The fixture's own shoald get ports of
/// their own with --metrics-port; the tests start the ones that share.)
struct two_nodes_one_metrics_port : shared_metrics_port, cluster_fixture {
  two_nodes_one_metrics_port()
      : cluster_fixture(2, "NodeMetricsPort=" + std::to_string(shared) + "\n") {}

  /// `shoald -N node` on the cluster's config, logging to `log` (no --metrics-port: it takes
  /// NodeMetricsPort=).
  std::unique_ptr<daemon_process> start_shoald(const std::string& node, const std::string& log) {
    return std::make_unique<daemon_process>(
        std::vector<std::string>{bin_path("shoald"), "-f", conf, "-N", node}, log);
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(taken_ports, two_nodes_one_metrics_port)

BOOST_AUTO_TEST_CASE(a_shoald_whose_metrics_port_is_taken_says_so_and_runs_on_without_it) {
  // The fixture's daemons stand aside (kill -9; the nodes stay up within SlurmdTimeout) for two
  // started on the shared port.
  cluster.signal_node(1, SIGKILL);
  cluster.signal_node(2, SIGKILL);
  auto first_log = scratch.file("first.log");
  auto second_log = scratch.file("second.log");
  auto first = start_shoald("node1", first_log);
  BOOST_REQUIRE(wait_until(
      [&] {
        auto log = read_file(first_log);
        return log.find("registered node=node1") != std::string::npos &&
               log.find("metrics endpoint node=node1") != std::string::npos;
      },
      30s));
  auto first_start = metric_value(shared, "shoal_start_time_seconds");
  BOOST_REQUIRE(first_start);
  // The second daemon starts in a later second, so each scrape says which one answered.
  BOOST_REQUIRE(
      wait_until([&] { return static_cast<double>(std::time(nullptr)) > *first_start; }, 5s));
  auto second = start_shoald("node2", second_log);
  BOOST_REQUIRE(wait_until(
      [&] { return read_file(second_log).find("registered node=node2") != std::string::npos; },
      30s));
  auto log = read_file(second_log);
  auto port = std::to_string(shared);
  BOOST_CHECK_MESSAGE(log.find("error: metrics endpoint not started node=node2 port=" + port +
                               ": cannot listen on 127.0.0.1:" + port +
                               ": Address already in use") != std::string::npos,
                      log);
  BOOST_CHECK_MESSAGE(
      log.find("the port comes from NodeMetricsPort= in " + conf) != std::string::npos, log);
  BOOST_CHECK_MESSAGE(log.find("--metrics-port N") != std::string::npos, log);
  // It carries on: its node runs jobs.
  BOOST_CHECK(second->running());
  auto r = run_cli({"run", "-w", "node2", "true"});
  BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
  // Every scrape is the first daemon's.
  for (int i = 0; i < 12; ++i) {
    auto start = metric_value(shared, "shoal_start_time_seconds");
    BOOST_REQUIRE(start);
    BOOST_CHECK_EQUAL(*start, *first_start);
  }
}

BOOST_AUTO_TEST_CASE(a_second_shoalctld_on_the_same_ports_stops_naming_the_key) {
  command_options opt;
  opt.timeout = 30s;
  auto r = run_command({bin_path("shoalctld"), "-f", conf}, opt);
  BOOST_CHECK_MESSAGE(r.exit_code == 1, r.describe());
  BOOST_CHECK_MESSAGE(r.err.find("Address already in use") != std::string::npos, r.describe());
  BOOST_CHECK_MESSAGE(r.err.find("SlurmctldPort=" + std::to_string(cluster.port()) + " in " +
                                 conf) != std::string::npos,
                      r.describe());
  // The first controller serves on.
  auto listed = run_cli({"info"});
  BOOST_CHECK_MESSAGE(listed.exit_code == 0, listed.describe());
}

BOOST_AUTO_TEST_CASE(a_shoalctld_whose_daemon_port_alone_is_taken_stops_saying_why) {
  // Its front door's port is free: the CAF port's own failure is reported, with the reason.
  auto ports = shoal::runtime::free_loopback_ports(1, 1);
  BOOST_REQUIRE(ports);
  auto port = ports->front();
  int holder = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  BOOST_REQUIRE(::bind(holder, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  BOOST_REQUIRE(::listen(holder, 1) == 0);
  std::string text;
  for (auto& line : lines_of(read_file(conf))) {
    if (line.rfind("SlurmctldPort=", 0) == 0)
      line = "SlurmctldPort=" + std::to_string(port);
    else if (line.rfind("StateSaveLocation=", 0) == 0)
      line = "StateSaveLocation=" + scratch.file("state");
    else if (line.rfind("MetricsPort=", 0) == 0)
      line = "MetricsPort=0";
    text += line + "\n";
  }
  auto other = write_file(scratch.file("other.conf"), text);
  command_options opt;
  opt.timeout = 30s;
  auto r = run_command({bin_path("shoalctld"), "-f", other}, opt);
  ::close(holder);
  BOOST_CHECK_MESSAGE(r.exit_code == 1, r.describe());
  BOOST_CHECK_MESSAGE(
      r.err.find("shoalctld: error: cannot listen on 127.0.0.1:" + std::to_string(port) +
                 ": Address already in use; the port "
                 "comes from SlurmctldPort=" +
                 std::to_string(port) + " in " + other) != std::string::npos,
      r.describe());
}

BOOST_AUTO_TEST_SUITE_END()
