// Power saving across a backup takeover (issue 32, item 6): the primary is killed (-9) while a
// cloud node is POWERING_UP, its ResumeProgram still running. The backup, reading the same
// StateSaveLocation, must wait for that node without running the program again, and the job
// must still complete there.

#include <boost/test/unit_test.hpp>

#include <string>

#include "test/integration/cloud_scripts.hpp"
#include "test/integration/controller_pair.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// node1 (a shoald started here, partition "debug") and cloud1, a State=CLOUD node of partition
/// "cloud" that only the ResumeProgram starts; primary and backup controllers. ResumeTimeout
/// outlasts the takeover and the program's delay together.
struct cloud_pair : controller_pair {
  cloud_pair()
      : controller_pair(
            [](const scratch_dir& d) {
              return write_cloud_scripts(d) +
                     "SuspendTimeout=2\nResumeTimeout=40\n"
                     "SlurmctldParameters=power_save_interval=1\n"
                     "NodeName=node1 NodeAddr=127.0.0.1\n"
                     "NodeName=cloud1 NodeAddr=127.0.0.1 State=CLOUD\n"
                     "PartitionName=debug Nodes=node1 Default=YES MaxTime=INFINITE\n"
                     "PartitionName=cloud Nodes=cloud1 MaxTime=INFINITE\n";
            },
            2, {{"node1", {"-N", "node1"}}}) {}

  ~cloud_pair() { kill_cloud_daemons(dir, {"cloud1"}); }

  /// The node's state as `sinfo -N -o %t` prints it ("idle", "alloc#"); "" when not listed.
  std::string node_state(const std::string& node) {
    auto r = shoal({"info", "-N", "-h", "-n", node, "-o", "%t"});
    auto out = r.out;
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    return r.exit_code == 0 ? out : "";
  }

  std::string power_log() { return read_file(dir.file("power.log")); }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(power_takeover, cloud_pair)

BOOST_AUTO_TEST_CASE(
    a_backup_taking_over_a_powering_up_node_neither_resumes_it_again_nor_forgets_it) {
  BOOST_REQUIRE_MESSAGE(wait_until([&] { return node_state("node1") == "idle"; }, 60s),
                        "the cluster never came up");
  // The program waits long enough for the takeover to happen while the node powers up.
  write_file(dir.file("delay"), "8\n");
  auto r = shoal({"batch", "--parsable", "-p", "cloud", "-o", "/dev/null", "--wrap=true"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto id = std::stoull(r.out);
  BOOST_REQUIRE_MESSAGE(
      wait_until([&] { return power_log().find("resume cloud1") != std::string::npos; }, 20s),
      power_log());
  BOOST_CHECK_EQUAL(node_state("cloud1"), "alloc#");
  primary->kill_now();
  BOOST_REQUIRE(wait_for_log("ctl2.log", "controller in control role=backup"));
  BOOST_CHECK_MESSAGE(
      wait_for_log("ctl2.log", "node power recovered node=cloud1 state=POWERING_UP"),
      "the backup did not recover the node's power state");
  BOOST_CHECK_MESSAGE(wait_until([&] { return state_of(id) == "COMPLETED"; }, 60s), state_of(id));
  BOOST_CHECK_EQUAL(count_lines_with(power_log(), "resume cloud1"), 1u);
  BOOST_CHECK_MESSAGE(node_state("cloud1") == "idle", node_state("cloud1"));
}

BOOST_AUTO_TEST_SUITE_END()
