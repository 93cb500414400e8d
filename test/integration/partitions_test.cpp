// Partitions changed while the cluster runs (`shoal control update|create|delete
// partitionname=`), as scontrol changes Slurm's: the scheduler and the listings follow at once,
// submissions see the new state, and the changes outlive a controller restart.

#include <signal.h>

#include <boost/test/unit_test.hpp>

#include <string>

#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// Two nodes in partition `debug` (the default); heartbeats every half second so a restarted
/// controller hears from its daemons at once.
struct two_nodes_fast : cluster_fixture {
  two_nodes_fast() : cluster_fixture(2, "HeartBeatInterval=0.5\nSlurmdTimeout=10\n") {}

  std::string reason_of(uint64_t id) { return job(id).value("reason", ""); }

  /// `control show partition NAME`'s text ("" when the command fails).
  std::string show_partition(const std::string& name) {
    auto r = run_cli({"control", "show", "partition", name});
    return r.exit_code == 0 ? r.out : "";
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(partition_changes, two_nodes_fast)

BOOST_AUTO_TEST_CASE(a_partition_set_down_holds_its_jobs_until_it_is_up_again) {
  auto down = run_cli({"control", "update", "partitionname=debug", "state=down"});
  BOOST_REQUIRE_MESSAGE(down.exit_code == 0, down.describe());
  BOOST_TEST(show_partition("debug").find("State=DOWN") != std::string::npos);
  // DOWN takes new jobs and runs none.
  auto id = submit_script("quick.sh", "#!/bin/sh\ntrue\n");
  BOOST_REQUIRE(id != 0);
  BOOST_CHECK(wait_until([&] { return reason_of(id) == "PartitionDown"; }, 10s));
  BOOST_TEST(job_state(id) == "PENDING");
  auto up = run_cli({"control", "update", "partitionname=debug", "state=up"});
  BOOST_REQUIRE_MESSAGE(up.exit_code == 0, up.describe());
  BOOST_CHECK(wait_job_state(id, "COMPLETED", 30s));
}

BOOST_AUTO_TEST_CASE(drain_and_inactive_refuse_new_jobs_with_slurms_words) {
  auto blocker = submit_script("block.sh", "#!/bin/sh\nsleep 300\n", {"-N2"});
  BOOST_REQUIRE(blocker != 0);
  BOOST_REQUIRE(wait_job_state(blocker, "RUNNING", 30s));
  auto queued = submit_script("queued.sh", "#!/bin/sh\ntrue\n");
  BOOST_REQUIRE(queued != 0);
  for (const char* state : {"drain", "inactive"}) {
    auto set = run_cli({"control", "update", "partitionname=debug", std::string{"state="} + state});
    BOOST_REQUIRE_MESSAGE(set.exit_code == 0, set.describe());
    auto refused = run_cli({"batch", "--wrap", "true"});
    BOOST_CHECK_MESSAGE(refused.exit_code == 1, refused.describe());
    BOOST_CHECK_MESSAGE(count_lines_with(refused.err,
                                         "Required partition not available "
                                         "(inactive or drain)") == 1,
                        refused.describe());
  }
  // INACTIVE runs nothing: the queued job says why.
  BOOST_CHECK(wait_until([&] { return reason_of(queued) == "PartitionInactive"; }, 10s));
  // DRAIN still runs what was queued.
  BOOST_REQUIRE(run_cli({"control", "update", "partitionname=debug", "state=drain"}).exit_code ==
                0);
  BOOST_REQUIRE(run_cli({"cancel", std::to_string(blocker)}).exit_code == 0);
  BOOST_CHECK(wait_job_state(queued, "COMPLETED", 30s));
}

BOOST_AUTO_TEST_CASE(create_use_and_delete_a_partition) {
  auto made = run_cli({"control", "create", "partitionname=small", "nodes=node2", "maxtime=5"});
  BOOST_REQUIRE_MESSAGE(made.exit_code == 0, made.describe());
  auto shown = show_partition("small");
  BOOST_TEST(shown.find("MaxTime=00:05:00") != std::string::npos, shown);
  BOOST_TEST(shown.find("Nodes=node2") != std::string::npos, shown);
  auto node2 = run_cli({"control", "show", "node", "node2"});
  BOOST_TEST(node2.out.find("Partitions=debug,small") != std::string::npos, node2.out);
  // A second create of the same name, a bad value and an unknown node are refused, exit 1.
  auto again = run_cli({"control", "create", "partitionname=small", "nodes=node1"});
  BOOST_CHECK_MESSAGE(again.exit_code == 1 && again.err.find("already exists") != std::string::npos,
                      again.describe());
  auto bad = run_cli({"control", "update", "partitionname=small", "state=sideways"});
  BOOST_CHECK_MESSAGE(bad.exit_code == 1 && bad.err.find("State") != std::string::npos,
                      bad.describe());
  auto unknown = run_cli({"control", "update", "partitionname=small", "nodes=node9"});
  BOOST_CHECK_MESSAGE(unknown.exit_code == 1 && unknown.err.find("node9") != std::string::npos,
                      unknown.describe());
  auto no_such = run_cli({"control", "update", "partitionname=nosuch", "state=down"});
  BOOST_CHECK_MESSAGE(no_such.exit_code == 1, no_such.describe());
  // Its limit is enforced at submission, and a job in it runs on its node.
  auto too_long = run_cli({"batch", "-p", "small", "-t", "10", "--wrap", "true"});
  BOOST_CHECK_MESSAGE(too_long.exit_code != 0, too_long.describe());
  auto gate = scratch.file("gate");
  auto id = submit_script("wait.sh",
                          "#!/bin/sh\nwhile [ ! -e " + gate + " ]; do sleep 0.2; done\nhostname\n",
                          {"-p", "small", "-t", "2"});
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_job_state(id, "RUNNING", 30s));
  BOOST_TEST(job(id).value("nodelist", "") == "node2");
  // In use: refused with Slurm's words; once the job ends, deleted.
  auto in_use = run_cli({"control", "delete", "partitionname=small"});
  BOOST_CHECK_MESSAGE(
      in_use.exit_code == 1 && in_use.err.find("Partition is in use") != std::string::npos,
      in_use.describe());
  write_file(gate, "");
  BOOST_REQUIRE(wait_job_state(id, "COMPLETED", 30s));
  auto gone = run_cli({"control", "delete", "partitionname=small"});
  BOOST_REQUIRE_MESSAGE(gone.exit_code == 0, gone.describe());
  BOOST_CHECK(run_cli({"control", "show", "partition", "small"}).exit_code != 0);
  node2 = run_cli({"control", "show", "node", "node2"});
  BOOST_TEST(node2.out.find("Partitions=debug ") != std::string::npos, node2.out);
  auto refused = run_cli({"batch", "-p", "small", "--wrap", "true"});
  BOOST_CHECK_MESSAGE(refused.exit_code == 1, refused.describe());
}

BOOST_AUTO_TEST_CASE(changes_outlive_a_controller_restart) {
  BOOST_REQUIRE(run_cli({"control", "create", "partitionname=extra", "nodes=node1"}).exit_code ==
                0);
  BOOST_REQUIRE(
      run_cli({"control", "update", "partitionname=extra", "maxtime=7", "default=yes"}).exit_code ==
      0);
  BOOST_REQUIRE(run_cli({"control", "update", "partitionname=debug", "state=down"}).exit_code == 0);
  cluster.signal_controller(SIGKILL);
  BOOST_REQUIRE_MESSAGE(!cluster.restart_controller(), "restart failed");
  BOOST_REQUIRE(wait_until([&] { return run_cli({"queue"}).exit_code == 0; }, 30s));
  auto extra = show_partition("extra");
  BOOST_TEST(extra.find("MaxTime=00:07:00") != std::string::npos, extra);
  BOOST_TEST(extra.find("Default=YES") != std::string::npos, extra);
  auto debug = show_partition("debug");
  BOOST_TEST(debug.find("State=DOWN") != std::string::npos, debug);
  BOOST_TEST(debug.find("Default=NO") != std::string::npos, debug);
  // A job without -p goes to the new default, on its node.
  auto id = submit_script("where.sh", "#!/bin/sh\nhostname\n");
  BOOST_REQUIRE(id != 0);
  BOOST_CHECK(wait_job_state(id, "COMPLETED", 30s));
  BOOST_TEST(job(id).value("partition", "") == "extra");
}

BOOST_AUTO_TEST_SUITE_END()
