// `scontrol reboot` and `cancel_reboot` with RebootProgram (docs/operations.md, "Reboot"). No
// host reboots here: the RebootProgram leaves a file saying it ran, and the test then restarts
// that node's shoald with -b (it reports its own start as the boot time), as the machine's boot
// would start it again.

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "test/integration/harness.hpp"
#include "test/preconditions.hpp"

using namespace shoal::test;

namespace {

struct reboot_script_dir {
  scratch_dir dir;
  std::string reboot_config() {
    auto program = write_file(
        dir.file("reboot.sh"),
        "#!/bin/sh\necho \"$SLURMD_NODENAME\" >> " + dir.path() + "/rebooted.$SLURMD_NODENAME\n",
        true);
    return "RebootProgram=" + program + "\n";
  }
  bool rebooted(const std::string& node) const { return path_exists(dir.file("rebooted." + node)); }
};

struct reboot_cluster : reboot_script_dir, cluster_fixture {
  reboot_cluster() : cluster_fixture(2, reboot_config()) {}

  std::string shown(const std::string& node) {
    return run_cli({"control", "show", "node", node}).out;
  }
  /// A job on `node` that runs until the file `go` exists.
  uint64_t hold_node(const std::string& node) {
    auto id = submit_script(
        "hold.sh", "#!/bin/sh\nwhile [ ! -e " + scratch.file("go") + " ]; do sleep 0.2; done\n",
        {"-w", node});
    BOOST_REQUIRE(id != 0);
    BOOST_REQUIRE(wait_job_state(id, "RUNNING", 30s));
    return id;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(reboot, reboot_cluster)

BOOST_AUTO_TEST_CASE(an_idle_node_reboots_and_is_idle_again_once_its_daemon_is_back) {
  auto r = run_cli({"control", "reboot", "node1"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_REQUIRE(wait_until([&] { return rebooted("node1"); }, 20s));
  BOOST_CHECK(
      wait_until([&] { return contains(shown("node1"), "State=DOWN+REBOOT_ISSUED"); }, 10s));
  BOOST_CHECK_MESSAGE(contains(shown("node1"), "Reason=reboot requested : reboot issued"),
                      shown("node1"));
  BOOST_CHECK(node("node1").value("reboot_issued", false));
  BOOST_CHECK(!rebooted("node2"));
  // The host is back: its shoald starts again with a later boot time.
  kill_and_restart_node(1, {"-b"});
  BOOST_REQUIRE(wait_node_state("node1", "IDLE", 30s));
  auto back = node("node1");
  BOOST_CHECK(!back.value("reboot_issued", true));
  BOOST_CHECK(!back.value("reboot_requested", true));
  BOOST_CHECK_EQUAL(back.value("reason", "x"), "");
  // It runs jobs again.
  auto id = submit_script("after.sh", "#!/bin/sh\ntrue\n", {"-w", "node1"});
  BOOST_CHECK(wait_job_state(id, "COMPLETED", 30s));
}

BOOST_AUTO_TEST_CASE(reboot_asap_drains_a_busy_node_reboots_it_after_its_job_and_leaves_it_down) {
  auto id = hold_node("node2");
  auto r = run_cli({"control", "reboot", "ASAP", "nextstate=DOWN", "node2"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_REQUIRE(wait_node_state("node2", "DRAINING", 10s));
  BOOST_CHECK_MESSAGE(contains(shown("node2"), "+DRAIN+REBOOT_REQUESTED"), shown("node2"));
  BOOST_CHECK_MESSAGE(contains(shown("node2"), "Reason=Reboot ASAP"), shown("node2"));
  BOOST_CHECK(!rebooted("node2"));
  // No new job starts there meanwhile.
  auto other = submit_script("other.sh", "#!/bin/sh\ntrue\n", {"-w", "node2"});
  BOOST_REQUIRE(other != 0);
  write_file(scratch.file("go"), "");
  BOOST_REQUIRE(wait_job_state(id, "COMPLETED", 30s));
  BOOST_REQUIRE(wait_until([&] { return rebooted("node2"); }, 20s));
  BOOST_CHECK(wait_until([&] { return contains(shown("node2"), "REBOOT_ISSUED"); }, 10s));
  kill_and_restart_node(2, {"-b"});
  BOOST_REQUIRE(wait_until([&] { return !node("node2").value("reboot_issued", true); }, 30s));
  BOOST_CHECK_EQUAL(node_state("node2"), "DOWN");
  BOOST_CHECK_MESSAGE(contains(node("node2").value("reason", ""), "reboot complete"),
                      shown("node2"));
  BOOST_CHECK_EQUAL(job_state(other), "PENDING");
  r = run_cli({"control", "update", "nodename=node2", "state=resume"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK(wait_job_state(other, "COMPLETED", 30s));
}

BOOST_AUTO_TEST_CASE(cancel_reboot_clears_the_request_before_it_is_issued) {
  auto id = hold_node("node1");
  auto r = run_cli({"control", "reboot", "node1"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_REQUIRE(wait_until([&] { return node("node1").value("reboot_requested", false); }, 10s));
  // Without ASAP the node takes jobs meanwhile: it is ALLOCATED, marked @.
  BOOST_CHECK_EQUAL(node_state("node1"), "ALLOCATED");
  r = run_cli({"control", "cancel_reboot", "node1"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK(!node("node1").value("reboot_requested", true));
  write_file(scratch.file("go"), "");
  BOOST_REQUIRE(wait_job_state(id, "COMPLETED", 30s));
  BOOST_REQUIRE(wait_node_state("node1", "IDLE", 10s));
  BOOST_CHECK(!rebooted("node1"));
}

BOOST_AUTO_TEST_CASE(bad_words_are_refused_with_scontrols_words) {
  auto r = run_cli({"control", "reboot", "ASAP"});
  BOOST_CHECK_NE(r.exit_code, 0);
  BOOST_CHECK_MESSAGE(contains(r.err, "Missing node list. Specify ALL|<NodeList>"), r.describe());
  r = run_cli({"control", "reboot", "nextstate=sideways", "node1"});
  BOOST_CHECK_NE(r.exit_code, 0);
  BOOST_CHECK_MESSAGE(contains(r.err, "Invalid state: sideways"), r.describe());
  r = run_cli({"control", "reboot", "node9"});
  BOOST_CHECK_NE(r.exit_code, 0);
}

BOOST_AUTO_TEST_CASE(a_non_admins_reboot_is_refused,
                     *boost::unit_test::precondition(needs_root{
                         "to create a test user and run the CLI as it"})) {
  const passwd* pw = ensure_user("shoal-it-user");
  BOOST_REQUIRE_MESSAGE(pw != nullptr, "no test user");
  auto r = run_as(pw, {"control", "reboot", "ALL"});
  BOOST_CHECK_NE(r.exit_code, 0);
  BOOST_CHECK_MESSAGE(contains(r.err, "Access/permission denied"), r.describe());
  BOOST_CHECK(!node("node1").value("reboot_requested", true));
  BOOST_CHECK(!rebooted("node1") && !rebooted("node2"));
}

BOOST_AUTO_TEST_SUITE_END()
