// A node daemon that dies: its node goes DOWN, its jobs NODE_FAIL, or back to the queue when
// they asked for --requeue.

#include <signal.h>

#include <boost/test/unit_test.hpp>

#include <string>

#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// Heartbeats every half second; a node silent for 2 s is DOWN.
struct fast_heartbeat_nodes : cluster_fixture {
  fast_heartbeat_nodes() : cluster_fixture(2, "HeartBeatInterval=0.5\nSlurmdTimeout=2\n") {}

  /// The 1-based index local_cluster knows node "nodeK" by.
  static unsigned index_of(const std::string& node_name) {
    return static_cast<unsigned>(std::stoul(node_name.substr(4)));
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(node_failure, fast_heartbeat_nodes)

BOOST_AUTO_TEST_CASE(a_killed_node_daemon_marks_its_node_down_and_the_job_node_fail) {
  command_options opt;
  opt.timeout = 60s;
  auto run = start_cli({"run", "-N2", "sleep", "60"}, opt);
  uint64_t id = 0;
  BOOST_REQUIRE(wait_until(
      [&] {
        auto all = jobs();
        if (all.size() != 1 || all[0].value("state", "") != "RUNNING") return false;
        id = all[0].value("job_id", uint64_t{0});
        return true;
      },
      30s));
  cluster.signal_node(2, SIGKILL);
  BOOST_CHECK(wait_node_state("node2", "DOWN", 15s));
  BOOST_CHECK(wait_job_state(id, "NODE_FAIL", 15s));
  auto r = run->finish();
  BOOST_CHECK_MESSAGE(r.exit_code > 0, r.describe());
  // The surviving node's tasks are gone and it takes work again.
  BOOST_CHECK(wait_node_state("node1", "IDLE", 15s));
}

BOOST_AUTO_TEST_CASE(a_requeueable_job_runs_again_on_a_surviving_node) {
  auto id = submit_script("requeue.sh", "#!/bin/sh\nsleep 60\n", {"--requeue", "-N1"});
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_job_state(id, "RUNNING"));
  auto first = job(id).value("nodelist", "");
  BOOST_REQUIRE(first == "node1" || first == "node2");
  auto other = first == "node1" ? "node2" : "node1";
  cluster.signal_node(index_of(first), SIGKILL);
  // The job goes back to PENDING, then runs on the other node; the pending spell may be shorter
  // than a poll, so requeue_count is the proof it went through the queue again.
  bool saw_pending = false;
  bool saw_node_fail = false;
  nlohmann::json last;
  bool rerun = wait_until(
      [&] {
        last = job(id);
        if (!last.is_object()) return false;
        auto state = last.value("state", "");
        saw_pending = saw_pending || state == "PENDING";
        saw_node_fail = saw_node_fail || state == "NODE_FAIL";
        return state == "RUNNING" && last.value("nodelist", "") == other;
      },
      20s);
  BOOST_CHECK_MESSAGE(rerun, "job " << id << " did not run again on " << other << ": " << last);
  BOOST_CHECK(!saw_node_fail);
  BOOST_CHECK_EQUAL(last.value("requeue_count", 0), 1);
  BOOST_TEST_MESSAGE("saw the job PENDING between its runs: " << saw_pending);
  BOOST_CHECK(wait_node_state(first, "DOWN", 15s));
}

BOOST_AUTO_TEST_CASE(a_requeued_job_waits_in_the_queue_until_a_node_is_free) {
  // node2 is busy until the test says so, so the requeued job must wait PENDING in between.
  auto go = scratch.file("go");
  auto blocker = submit_script(
      "blocker.sh", "#!/bin/sh\nwhile [ ! -e " + go + " ]; do sleep 0.1; done\n", {"-w", "node2"});
  BOOST_REQUIRE(blocker != 0);
  BOOST_REQUIRE(wait_job_state(blocker, "RUNNING"));
  auto id = submit_script("requeue.sh", "#!/bin/sh\nsleep 60\n", {"--requeue", "-N1"});
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_job_state(id, "RUNNING"));
  BOOST_REQUIRE_EQUAL(job(id).value("nodelist", ""), "node1");
  cluster.signal_node(1, SIGKILL);
  BOOST_REQUIRE(wait_job_state(id, "PENDING", 15s));
  auto queued = job(id);
  BOOST_CHECK_EQUAL(queued.value("requeue_count", 0), 1);
  BOOST_CHECK_MESSAGE(queued.value("reason", "") != "", queued);
  BOOST_CHECK(wait_node_state("node1", "DOWN", 15s));
  write_file(go, "");
  BOOST_CHECK(wait_job_state(blocker, "COMPLETED", 15s));
  BOOST_CHECK(wait_job_state(id, "RUNNING", 15s));
  BOOST_CHECK_EQUAL(job(id).value("nodelist", ""), "node2");
}

BOOST_AUTO_TEST_SUITE_END()
