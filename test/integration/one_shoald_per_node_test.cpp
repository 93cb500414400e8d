// One shoald per node: a second one for a node whose shoald is alive is refused and exits,
// naming the first, and the node keeps working (before, it registered silently and its exit left
// the node with no daemon: "node node1 has no connected shoald"); one started after the first
// was killed takes its place at once.

#include <signal.h>

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <string>

#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// One node; a restart well inside SlurmdTimeout even on a loaded machine.
struct one_watched_node : cluster_fixture {
  one_watched_node() : cluster_fixture(1, "SlurmdTimeout=10\n") {}

  /// True once the file at `path` holds `needle`; false when `timeout` passed first.
  static bool log_has(const std::string& path, const std::string& needle, millis timeout) {
    return wait_until([&] { return read_file(path).find(needle) != std::string::npos; }, timeout);
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(one_shoald_per_node, one_watched_node)

BOOST_AUTO_TEST_CASE(a_second_shoald_for_a_node_with_a_live_one_is_refused_naming_the_first) {
  command_options opt;
  opt.timeout = 30s;
  auto r = run_command({bin_path("shoald"), "-f", conf, "-N", "node1", "--metrics-port", "0"}, opt);
  BOOST_CHECK_MESSAGE(r.exit_code == 1, r.describe());
  auto first_pid = std::to_string(cluster.daemon_pids().at(1));
  BOOST_CHECK_MESSAGE(r.err.find("error: controller refused registration node=node1: node node1 "
                                 "already has a live shoald (pid " +
                                 first_pid + " on host ") != std::string::npos,
                      r.describe());
  BOOST_CHECK_MESSAGE(r.err.find("connected from 127.0.0.1:") != std::string::npos, r.describe());
  // The node keeps its daemon: it stays IDLE and runs a job.
  BOOST_CHECK_EQUAL(node_state("node1"), "IDLE");
  auto run = run_cli({"run", "-N1", "echo", "ran"});
  BOOST_CHECK_MESSAGE(run.exit_code == 0 && run.out == "ran\n", run.describe());
  BOOST_CHECK_EQUAL(node_state("node1"), "IDLE");
}

BOOST_AUTO_TEST_CASE(a_shoald_started_after_the_first_was_killed_takes_its_place) {
  cluster.signal_node(1, SIGKILL);
  // At once, as an admin would: the controller may not have seen the connection drop yet.
  auto log = scratch.file("second.log");
  auto started = std::chrono::steady_clock::now();
  daemon_process second{{bin_path("shoald"), "-f", conf, "-N", "node1", "--metrics-port", "0"},
                        log};
  BOOST_REQUIRE_MESSAGE(log_has(log, "registered node=node1", 15s), read_file(log));
  auto took = std::chrono::steady_clock::now() - started;
  BOOST_CHECK_MESSAGE(took < 5s,
                      "registered after " << std::chrono::duration<double>(took).count() << " s");
  BOOST_CHECK(second.running());
  auto run = run_cli({"run", "-N1", "echo", "ran"});
  BOOST_CHECK_MESSAGE(run.exit_code == 0 && run.out == "ran\n", run.describe());
  BOOST_CHECK_EQUAL(node_state("node1"), "IDLE");
}

BOOST_AUTO_TEST_SUITE_END()
