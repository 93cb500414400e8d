// ReturnToService=0|1|2 with Slurm's meaning: which DOWN nodes come back by themselves when their
// shoald registers again. Each case kills node1's shoald until the node is DOWN for not
// responding, and has an admin drain node2 and then set it DOWN; both daemons are then started
// again, and the nodes are looked at once the controller has their new registrations.

#include <signal.h>

#include <boost/test/unit_test.hpp>

#include <string>

#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// Two nodes under ReturnToService=`value`; a silence of 3 s is DOWN.
struct two_nodes_returning : cluster_fixture {
  explicit two_nodes_returning(int value)
      : cluster_fixture(2, "SlurmdTimeout=3\nReturnToService=" + std::to_string(value) + "\n") {}

  /// The pid the controller's view of `name` holds for its shoald (0 when unknown).
  int64_t registered_pid(const std::string& name) {
    auto rec = node(name);
    if (rec.is_null() || !rec.contains("reported")) return 0;
    return rec["reported"].value("daemon_pid", int64_t{0});
  }

  /// node1 DOWN for not responding, node2 drained then DOWN by an admin; then both shoalds
  /// started again and registered (the controller's view names their new pids).
  void take_both_down_and_restart() {
    auto r = run_cli({"control", "update", "nodename=node2", "state=drain", "reason=fan"});
    BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
    r = run_cli({"control", "update", "nodename=node2", "state=down", "reason=fan dead"});
    BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
    BOOST_REQUIRE_EQUAL(node_state("node2"), "DOWN");
    cluster.signal_node(1, SIGKILL);
    BOOST_REQUIRE(wait_node_state("node1", "DOWN", 30s));
    BOOST_REQUIRE_EQUAL(node("node1").value("reason", ""), "Not responding");
    cluster.signal_node(2, SIGKILL);
    for (unsigned i : {1u, 2u}) {
      auto err = cluster.restart_node(i);
      BOOST_REQUIRE_MESSAGE(!err, "restarting shoald " << i << ": " << shoal::describe(err));
    }
    for (unsigned i : {1u, 2u}) {
      auto name = "node" + std::to_string(i);
      auto pid = static_cast<int64_t>(cluster.daemon_pids()[i]);
      BOOST_REQUIRE_MESSAGE(wait_until([&] { return registered_pid(name) == pid; }, 30s),
                            name << " did not register again");
    }
  }
};

struct never_returning : two_nodes_returning {
  never_returning() : two_nodes_returning(0) {}
};
struct returning_if_silent : two_nodes_returning {
  returning_if_silent() : two_nodes_returning(1) {}
};
struct always_returning : two_nodes_returning {
  always_returning() : two_nodes_returning(2) {}
};

}  // namespace

BOOST_AUTO_TEST_SUITE(return_to_service)

BOOST_FIXTURE_TEST_CASE(under_0_every_down_node_stays_down_until_resumed, never_returning) {
  take_both_down_and_restart();
  // The view that names the new daemon is the one its registration made: still DOWN.
  BOOST_CHECK_EQUAL(node_state("node1"), "DOWN");
  BOOST_CHECK_EQUAL(node("node1").value("reason", ""), "Not responding");
  BOOST_CHECK_EQUAL(node_state("node2"), "DOWN");
  // An admin's resume brings it back.
  auto r = run_cli({"control", "update", "nodename=node1", "state=resume"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK(wait_node_state("node1", "IDLE", 15s));
}

BOOST_FIXTURE_TEST_CASE(under_1_only_a_node_down_for_not_responding_returns, returning_if_silent) {
  take_both_down_and_restart();
  BOOST_CHECK(wait_node_state("node1", "IDLE", 15s));
  BOOST_CHECK_EQUAL(node_state("node2"), "DOWN");
  BOOST_CHECK_EQUAL(node("node2").value("reason", ""), "fan dead");
}

BOOST_FIXTURE_TEST_CASE(under_2_a_node_down_for_any_reason_returns, always_returning) {
  take_both_down_and_restart();
  BOOST_CHECK(wait_node_state("node1", "IDLE", 15s));
  // Out of DOWN; the admin's drain still holds it, with the admin's reason (as in Slurm).
  BOOST_CHECK_EQUAL(node_state("node2"), "DRAINED");
  BOOST_CHECK_EQUAL(node("node2").value("reason", ""), "fan dead");
}

BOOST_AUTO_TEST_SUITE_END()
