// HealthCheckProgram, HealthCheckInterval and HealthCheckNodeState (docs/operations.md, "Health
// checks"): each node's shoald runs the program at start and whenever the controller asks (every
// interval, nodes in the states named); a failing check drains its node with the program's first
// line of output as the reason, and a passing one changes nothing.

#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <cstdio>
#include <string>

#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// The program leaves ran.NODE at every run; with fail.NODE it prints a reason and exits 1,
/// with silent.NODE it exits 4 without a word, with self.NODE it drains the node itself
/// through the CLI (as Slurm sites' NHC calls scontrol) and exits 1.
struct health_script_dir {
  scratch_dir dir;
  std::string marker(const std::string& what, const std::string& node) const {
    return dir.file(what + "." + node);
  }
  std::string health_config(const std::string& states) {
    auto at = dir.path() + "/";
    auto program = write_file(
        dir.file("check.sh"),
        "#!/bin/sh\n"
        "touch " +
            at +
            "ran.$SLURMD_NODENAME\n"
            "if [ -e " +
            at +
            "fail.$SLURMD_NODENAME ]; then\n"
            "  echo '   disk /scratch is full   '\n  echo 'second line'\n  exit 1\nfi\n"
            "if [ -e " +
            at +
            "silent.$SLURMD_NODENAME ]; then exit 4; fi\n"
            "if [ -e " +
            at +
            "self.$SLURMD_NODENAME ]; then\n"
            "  SHOAL_CONF=$(cat " +
            at + "conf) " + bin_path("shoal") +
            " control update nodename=$SLURMD_NODENAME state=drain reason='nhc: own words' "
            ">/dev/null 2>&1\n  echo 'my output'\n  exit 1\nfi\n"
            "exit 0\n",
        true);
    return "HealthCheckProgram=" + program + "\nHealthCheckInterval=1\n" +
           (states.empty() ? "" : "HealthCheckNodeState=" + states + "\n");
  }
  /// True once the program ran on `node` again after its marker was removed now.
  bool runs_again(const std::string& node) {
    std::remove(marker("ran", node).c_str());
    return wait_until([&] { return path_exists(marker("ran", node)); }, 20s);
  }
};

struct health_cluster : health_script_dir, cluster_fixture {
  health_cluster() : cluster_fixture(2, health_config("")) { write_file(dir.file("conf"), conf); }
};

struct idle_health_cluster : health_script_dir, cluster_fixture {
  idle_health_cluster() : cluster_fixture(2, health_config("IDLE")) {}
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(health_checks, health_cluster)

BOOST_AUTO_TEST_CASE(the_check_runs_at_start_and_a_passing_one_leaves_the_node_alone) {
  // The start-up check ran before each daemon registered.
  BOOST_CHECK(path_exists(marker("ran", "node1")));
  BOOST_CHECK(path_exists(marker("ran", "node2")));
  BOOST_REQUIRE(runs_again("node1"));
  BOOST_REQUIRE(runs_again("node1"));
  BOOST_CHECK_EQUAL(node_state("node1"), "IDLE");
  BOOST_CHECK_EQUAL(node("node1").value("reason", ""), "");
  BOOST_CHECK_EQUAL(node_state("node2"), "IDLE");
}

BOOST_AUTO_TEST_CASE(a_node_a_reconfigure_adds_is_checked_too) {
  auto text = read_file(conf);
  if (!text.empty() && text.back() != '\n') text += '\n';
  write_file(conf, text + "NodeName=node3 NodeAddr=127.0.0.1\n");
  auto r = run_cli({"control", "reconfigure"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  daemon_process node3{{bin_path("shoald"), "-f", conf, "--node-name", "node3"},
                       cluster.directory() + "/shoald-node3.log"};
  BOOST_REQUIRE(wait_node_state("node3", "IDLE"));
  // Past its start-up check: the controller's rounds reach the new node.
  BOOST_CHECK(runs_again("node3"));
  BOOST_CHECK(runs_again("node1"));
}

BOOST_AUTO_TEST_CASE(a_failing_check_drains_its_node_with_its_output_as_the_reason) {
  write_file(marker("fail", "node1"), "");
  BOOST_REQUIRE(wait_node_state("node1", "DRAINED", 20s));
  BOOST_CHECK_EQUAL(node("node1").value("reason", ""), "disk /scratch is full");
  BOOST_CHECK_EQUAL(node_state("node2"), "IDLE");
  // Passing again resumes nothing: an admin does, as in Slurm.
  std::remove(marker("fail", "node1").c_str());
  BOOST_REQUIRE(runs_again("node1"));
  BOOST_REQUIRE(runs_again("node1"));
  BOOST_CHECK_EQUAL(node_state("node1"), "DRAINED");
  auto r = run_cli({"control", "update", "nodename=node1", "state=resume"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK(wait_node_state("node1", "IDLE", 10s));
  BOOST_REQUIRE(runs_again("node1"));
  BOOST_CHECK_EQUAL(node_state("node1"), "IDLE");
}

BOOST_AUTO_TEST_CASE(a_failing_check_that_printed_nothing_names_its_exit_status) {
  write_file(marker("silent", "node2"), "");
  BOOST_REQUIRE(wait_node_state("node2", "DRAINED", 20s));
  BOOST_CHECK_EQUAL(node("node2").value("reason", ""), "HealthCheckProgram failed: exit 4");
}

BOOST_AUTO_TEST_CASE(a_program_that_drains_the_node_itself_keeps_its_own_reason) {
  write_file(marker("self", "node2"), "");
  BOOST_REQUIRE(wait_node_state("node2", "DRAINED", 20s));
  BOOST_REQUIRE(runs_again("node2"));
  BOOST_CHECK_EQUAL(node("node2").value("reason", ""), "nhc: own words");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(health_checks_on_idle_nodes, idle_health_cluster)

BOOST_AUTO_TEST_CASE(an_allocated_node_is_not_checked_under_idle) {
  auto id = submit_script("job.sh", "#!/bin/sh\nsleep 60\n", {"-w", "node1"});
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_job_state(id, "RUNNING", 30s));
  BOOST_REQUIRE(wait_until([&] { return node_state("node1") == "ALLOCATED"; }, 10s));
  // Rounds that read the node's view before its job started are over after these.
  BOOST_REQUIRE(runs_again("node2"));
  BOOST_REQUIRE(runs_again("node2"));
  std::remove(marker("ran", "node1").c_str());
  // node2 is idle: it is checked, round after round; node1 never while its job runs.
  BOOST_REQUIRE(runs_again("node2"));
  BOOST_REQUIRE(runs_again("node2"));
  BOOST_REQUIRE(runs_again("node2"));
  BOOST_CHECK(!path_exists(marker("ran", "node1")));
  auto r = run_cli({"cancel", std::to_string(id)});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_REQUIRE(wait_node_state("node1", "IDLE", 30s));
  // Idle again, it is checked again.
  BOOST_CHECK(wait_until([&] { return path_exists(marker("ran", "node1")); }, 20s));
}

BOOST_AUTO_TEST_SUITE_END()
