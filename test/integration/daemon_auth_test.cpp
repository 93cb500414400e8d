// Node daemons and the controller prove themselves to each other under AuthType=auth/munge
// (docs/security.md): the daemons' CAF port speaks TLS with the cluster's identity, which only a
// daemon user gets from the controller, so a shoald without it reaches no actor; and a shoald
// under auth/munge takes nothing from a controller that cannot prove itself. Each case pairs one
// daemon configured differently from the rest (as a crafted peer would be) with a real cluster.
// (Signed launches and registrations are checked by the unit tests daemon_auth/* and
// daemon_gate/*, and by shepherd/a_launch_that_fails_its_check_runs_nothing_and_says_why.)

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

BOOST_AUTO_TEST_CASE(a_node_daemon_without_the_cluster_identity_reaches_no_actor) {
  cluster_fixture c(2);
  auto plain_conf = config_variant(c, "plain.conf", "AuthType=auth/none\n");
  auto log = c.scratch.file("shoald-node2-plain.log");
  auto rogue = replace_node2(c, plain_conf, log);
  // It speaks plain CAF to a port that speaks TLS: the handshake fails on its first bytes, and it
  // never registers.
  auto ctld_log = c.cluster.directory() + "/shoalctld.log";
  BOOST_CHECK_MESSAGE(wait_until(
                          [&] {
                            return read_file(ctld_log).find("daemon port: TLS handshake refused") !=
                                   std::string::npos;
                          },
                          60s),
                      read_file(ctld_log));
  BOOST_CHECK_MESSAGE(read_file(log).find("registered node=node2") == std::string::npos,
                      read_file(log));
  // The rest of the cluster serves on.
  auto r = c.run_cli({"run", "-w", "node1", "-N1", "hostname"});
  BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
}

BOOST_AUTO_TEST_CASE(a_node_daemon_under_munge_takes_nothing_from_a_controller_under_none) {
  // The controller under auth/none has no cluster identity and signs nothing; node2's shoald
  // under auth/munge asks it for the identity, is told there is none, and stops with the reason.
  cluster_fixture c(2, "AuthType=auth/none\n");
  auto checking_conf = config_variant(c, "checking.conf", test_auth_config());
  auto log = c.scratch.file("shoald-node2-checking.log");
  auto checker = replace_node2(c, checking_conf, log);
  BOOST_CHECK(wait_until([&] { return !checker->running(); }, 30s));
  auto said = read_file(log);
  BOOST_CHECK_MESSAGE(said.find("refused the cluster identity: the daemons' port speaks no TLS "
                                "under AuthType=auth/none") != std::string::npos,
                      said);
  BOOST_CHECK(said.find("registered node=node2") == std::string::npos);
  // node1 (auth/none like its controller) still runs what it is sent.
  auto marker = c.scratch.file("ran");
  auto ok = c.run_cli({"run", "-w", "node1", "-N1", "touch", marker});
  BOOST_CHECK_MESSAGE(ok.exit_code == 0, ok.describe());
  BOOST_CHECK(std::filesystem::exists(marker));
}

BOOST_AUTO_TEST_CASE(a_node_daemon_that_cannot_reach_munged_says_so_at_error_level) {
  // Its munged socket is wrong: it cannot sign a thing, so it does nothing until munged answers,
  // and says so where an admin logging errors only (SlurmdDebug=error) sees it.
  cluster_fixture c(2);
  auto broken_conf = config_variant(c, "broken.conf",
                                    "AuthInfo=socket=/nonexistent/munge.socket\n"
                                    "SlurmdDebug=error\n");
  auto log = c.scratch.file("shoald-node2-broken.log");
  auto broken = replace_node2(c, broken_conf, log);
  BOOST_CHECK_MESSAGE(wait_until(
                          [&] {
                            return read_file(log).find(
                                       "error: cannot ask a controller for the "
                                       "cluster identity: cannot reach munged") !=
                                   std::string::npos;
                          },
                          30s),
                      read_file(log));
  BOOST_CHECK(broken->running());  // munged may come up yet: it waits
  BOOST_CHECK_EQUAL(count_lines_with(read_file(log), "cannot reach munged"), 1u);
}

BOOST_AUTO_TEST_SUITE_END()
