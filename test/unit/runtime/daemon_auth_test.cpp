// Daemon authentication (runtime/bootstrap/daemon_auth) against the tests' private munged: a
// node daemon runs a launch only when the controller's credential vouches for exactly that
// launch, and the controller takes a registration only from one of the cluster's daemons.

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "messages/caf/error.hpp"
#include "runtime/bootstrap/daemon_auth.hpp"
#include "test/unit/runtime/test_munged.hpp"

namespace utf = boost::unit_test;
using namespace shoal;

namespace {

using test::have_test_munged;

config::auth_settings munge_auth() {
  return test::test_munge();
}

config::auth_settings no_auth() {
  config::auth_settings auth;
  auth.munge = false;
  return auth;
}

const std::vector<uint32_t> ourselves{static_cast<uint32_t>(::getuid())};

msg::launch_request a_launch() {
  msg::launch_request req;
  req.job_id = 7;
  req.step_id = 0;
  req.user = "alice";
  req.uid = 1000;
  req.gid = 1000;
  req.argv = {"hostname"};
  req.cwd = "/home/alice";
  req.ranks = {0};
  return req;
}

bool refused_for(const shoal::error& err, const std::string& why) {
  if (err != errc::authentication_failed) {
    BOOST_TEST_MESSAGE("not an authentication error: " << describe(err));
    return false;
  }
  auto text = describe(err);
  BOOST_TEST_MESSAGE(text);
  return text.find(why) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(daemon_auth)

BOOST_AUTO_TEST_CASE(a_signed_launch_passes_once, *utf::precondition(have_test_munged)) {
  auto req = a_launch();
  BOOST_REQUIRE(!runtime::sign_launch(munge_auth(), req));
  BOOST_TEST(!req.credential.empty());
  auto copy = req;
  auto err = runtime::verify_launch(munge_auth(), ourselves, req);
  BOOST_TEST(!err, describe(err));
  BOOST_TEST(req.credential.empty());  // the credential goes no further than the check
  // The same launch again (replayed by whoever saw it on the wire) is refused.
  BOOST_TEST(refused_for(runtime::verify_launch(munge_auth(), ourselves, copy), "Replayed"));
}

BOOST_AUTO_TEST_CASE(an_unsigned_launch_is_refused, *utf::precondition(have_test_munged)) {
  auto req = a_launch();
  BOOST_TEST(refused_for(runtime::verify_launch(munge_auth(), ourselves, req), "no MUNGE"));
}

BOOST_AUTO_TEST_CASE(a_launch_altered_after_signing_is_refused,
                     *utf::precondition(have_test_munged)) {
  auto req = a_launch();
  BOOST_REQUIRE(!runtime::sign_launch(munge_auth(), req));
  req.uid = 0;  // run it as root instead
  BOOST_TEST(refused_for(runtime::verify_launch(munge_auth(), ourselves, req),
                         "the credential was made for another launch"));
}

BOOST_AUTO_TEST_CASE(a_launch_signed_by_an_untrusted_user_is_refused,
                     *utf::precondition(have_test_munged)) {
  auto req = a_launch();
  BOOST_REQUIRE(!runtime::sign_launch(munge_auth(), req));
  // This process's uid is not among those the daemon trusts here: as for a user's own forgery.
  std::vector<uint32_t> others{::getuid() + 4242u};
  BOOST_TEST(refused_for(runtime::verify_launch(munge_auth(), others, req),
                         "launch signed by uid " + std::to_string(::getuid())));
}

BOOST_AUTO_TEST_CASE(a_credential_for_a_registration_does_not_pass_as_a_launch,
                     *utf::precondition(have_test_munged)) {
  msg::machine_status status;
  status.node_name = "node1";
  status.cpus = 4;
  msg::node_report report;
  BOOST_REQUIRE(!runtime::sign_registration(munge_auth(), status, report));
  auto req = a_launch();
  req.credential = status.credential;
  BOOST_TEST(refused_for(runtime::verify_launch(munge_auth(), ourselves, req),
                         "the credential was made for another launch"));
}

BOOST_AUTO_TEST_CASE(a_registration_covers_its_status_and_its_report,
                     *utf::precondition(have_test_munged)) {
  msg::machine_status status;
  status.node_name = "node1";
  status.cpus = 4;
  msg::node_report report;
  report.running.push_back({7, 0});
  BOOST_REQUIRE(!runtime::sign_registration(munge_auth(), status, report));
  auto good = status;
  auto err = runtime::verify_registration(munge_auth(), ourselves, good, report);
  BOOST_TEST(!err, describe(err));
  BOOST_TEST(good.credential.empty());

  BOOST_REQUIRE(!runtime::sign_registration(munge_auth(), status, report));
  auto other_report = report;
  other_report.running.push_back({8, 0});  // claims a step it does not run
  BOOST_TEST(
      refused_for(runtime::verify_registration(munge_auth(), ourselves, status, other_report),
                  "the credential was made for another registration"));

  msg::machine_status unsigned_status;
  unsigned_status.node_name = "node1";
  BOOST_TEST(refused_for(
      runtime::verify_registration(munge_auth(), ourselves, unsigned_status, report), "no MUNGE"));
}

BOOST_AUTO_TEST_CASE(a_signal_passes_only_as_signed, *utf::precondition(have_test_munged)) {
  auto credential = runtime::sign_signal(munge_auth(), 7, 0, SIGTERM);
  BOOST_REQUIRE_MESSAGE(credential, (credential ? "" : describe(credential.error())));
  auto again = runtime::sign_signal(munge_auth(), 7, 0, SIGTERM);
  BOOST_REQUIRE(again);
  // The same credential for another job, or as SIGKILL instead of SIGTERM, is refused.
  BOOST_TEST(
      refused_for(runtime::verify_signal(munge_auth(), ourselves, 8, 0, SIGTERM, *credential),
                  "the credential was made for another signal"));
  BOOST_TEST(refused_for(runtime::verify_signal(munge_auth(), ourselves, 7, 0, SIGKILL, *again),
                         "the credential was made for another signal"));
  auto fresh = runtime::sign_signal(munge_auth(), 7, 0, SIGTERM);
  BOOST_REQUIRE(fresh);
  auto err = runtime::verify_signal(munge_auth(), ourselves, 7, 0, SIGTERM, *fresh);
  BOOST_TEST(!err, describe(err));
  BOOST_TEST(
      refused_for(runtime::verify_signal(munge_auth(), ourselves, 7, 0, SIGTERM, ""), "no MUNGE"));
}

BOOST_AUTO_TEST_CASE(auth_none_signs_nothing_and_checks_nothing) {
  auto req = a_launch();
  BOOST_TEST(!runtime::sign_launch(no_auth(), req));
  BOOST_TEST(req.credential.empty());
  BOOST_TEST(!runtime::verify_launch(no_auth(), ourselves, req));
}

BOOST_AUTO_TEST_CASE(the_daemon_uids_are_root_and_ourselves_and_slurm_user) {
  config::cluster_config cfg;
  auto uids = runtime::daemon_uids(cfg);
  BOOST_TEST((uids == std::vector<uint32_t>{0, static_cast<uint32_t>(::getuid())}));
  cfg.slurm_user = "nobody";  // uid 65534 on Debian
  uids = runtime::daemon_uids(cfg);
  BOOST_REQUIRE(uids.size() == 3u);
  BOOST_TEST(uids[2] == 65534u);
  cfg.slurm_user = "no-such-user-here";
  BOOST_TEST(runtime::daemon_uids(cfg).size() == 2u);
}

BOOST_AUTO_TEST_SUITE_END()
