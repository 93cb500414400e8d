// Node daemons and the controller prove themselves to each other under AuthType=auth/munge
// (docs/security.md): a shoald whose registration carries no credential is not taken, and a
// shoald runs no task from a launch the controller did not sign. Each case pairs one daemon
// configured differently from the rest (as a crafted peer would be) with a real cluster.

#include <boost/test/unit_test.hpp>

#include <signal.h>

#include <filesystem>
#include <string>

#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

boost::test_tools::assertion_result have_test_munged(boost::unit_test::test_unit_id) {
  boost::test_tools::assertion_result ok{!test_auth_config().empty()};
  ok.message() << "no private munged (ctest starts one: SHOAL_TEST_MUNGE_SOCKET)";
  return ok;
}

/// The cluster's config with `extra` appended (later keys win), written beside the scratch files.
std::string config_variant(cluster_fixture& c, const std::string& name, const std::string& extra) {
  return write_file(c.scratch.file(name), read_file(c.conf) + extra);
}

/// node2's own shoald stopped, and another started in its place on `conf`.
std::unique_ptr<daemon_process> replace_node2(cluster_fixture& c, const std::string& conf,
                                              const std::string& log) {
  c.cluster.signal_node(2, SIGKILL);
  return std::make_unique<daemon_process>(
      std::vector<std::string>{bin_path("shoald"), "-f", conf, "--node-name", "node2",
                               "--metrics-port", "0"},
      log);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(daemon_auth, *boost::unit_test::precondition(have_test_munged))

BOOST_AUTO_TEST_CASE(a_node_daemon_without_a_credential_is_not_taken) {
  cluster_fixture c(2);
  auto unsigned_conf = config_variant(c, "unsigned.conf", "AuthType=auth/none\n");
  auto log = c.scratch.file("shoald-node2-unsigned.log");
  auto rogue = replace_node2(c, unsigned_conf, log);
  // Refused, it stops with the reason (as for a node name the controller does not know).
  BOOST_CHECK(wait_until([&] { return !rogue->running(); }, 30s));
  auto said = read_file(log);
  BOOST_CHECK_MESSAGE(
      said.find("controller refused registration node=node2") != std::string::npos &&
          said.find("Protocol authentication error (no MUNGE credential") != std::string::npos,
      said);
  auto ctld = read_file(c.cluster.directory() + "/shoalctld.log");
  BOOST_CHECK_MESSAGE(ctld.find("registration refused node=node2") != std::string::npos, ctld);
  // The rest of the cluster serves on.
  auto r = c.run_cli({"run", "-w", "node1", "-N1", "hostname"});
  BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
}

BOOST_AUTO_TEST_CASE(a_node_daemon_runs_no_launch_the_controller_did_not_sign) {
  // The controller under auth/none signs nothing; node2's shoald under auth/munge checks.
  cluster_fixture c(2, "AuthType=auth/none\n");
  auto checking_conf = config_variant(c, "checking.conf", test_auth_config());
  auto log = c.scratch.file("shoald-node2-checking.log");
  auto checker = replace_node2(c, checking_conf, log);
  // Registered: its own log says so (the controller may still list the killed one as IDLE).
  BOOST_REQUIRE_MESSAGE(
      wait_until([&] { return read_file(log).find("registered node=node2") != std::string::npos; },
                 30s),
      read_file(log));
  auto marker = c.scratch.file("ran");
  auto r = c.run_cli({"run", "-w", "node2", "-N1", "touch", marker});
  BOOST_CHECK_MESSAGE(r.exit_code != 0, r.describe());
  BOOST_CHECK_MESSAGE(r.err.find("launch refused by node node2: Protocol authentication error (no "
                                 "MUNGE credential") != std::string::npos,
                      r.describe());
  BOOST_CHECK(!std::filesystem::exists(marker));
  // node1 (auth/none like its controller) still runs what it is sent.
  auto ok = c.run_cli({"run", "-w", "node1", "-N1", "touch", marker});
  BOOST_CHECK_MESSAGE(ok.exit_code == 0, ok.describe());
  BOOST_CHECK(std::filesystem::exists(marker));
}

BOOST_AUTO_TEST_SUITE_END()
