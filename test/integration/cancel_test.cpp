// `shoal cancel` and time limits: how jobs end before their command does.

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <string>

#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

const std::string sleeper = "#!/bin/sh\nsleep 60\n";

/// KillWait=1 so a timed-out job is killed a second after its SIGTERM.
struct quick_kill_node : cluster_fixture {
  quick_kill_node() : cluster_fixture(1, "KillWait=1\n") {}
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(job_cancel, two_nodes)

BOOST_AUTO_TEST_CASE(cancelling_a_running_job_ends_it_cancelled_and_frees_its_node) {
  auto id = submit_script("sleeper.sh", sleeper);
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_job_state(id, "RUNNING"));
  auto node_name = job(id).value("nodelist", "");
  BOOST_REQUIRE(!node_name.empty());
  BOOST_CHECK_EQUAL(node_state(node_name), "ALLOCATED");
  auto started = std::chrono::steady_clock::now();
  auto r = run_cli({"cancel", std::to_string(id)});
  BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK(wait_job_state(id, "CANCELLED", 10s));
  BOOST_CHECK(wait_node_state(node_name, "IDLE", 10s));
  std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;
  BOOST_TEST_MESSAGE("cancel to idle took " << took.count() << " s");
}

BOOST_AUTO_TEST_CASE(cancelling_an_unknown_job_fails_with_a_message) {
  auto r = run_cli({"cancel", "987654"});
  BOOST_CHECK_MESSAGE(r.exit_code != 0 && !r.timed_out, r.describe());
  BOOST_CHECK_MESSAGE(r.err.find("987654") != std::string::npos, r.describe());
}

BOOST_AUTO_TEST_CASE(a_pending_job_can_be_cancelled) {
  auto busy = submit_script("busy.sh", sleeper, {"-N2"});
  BOOST_REQUIRE(busy != 0);
  BOOST_REQUIRE(wait_job_state(busy, "RUNNING"));
  auto waiting = submit_script("waiting.sh", sleeper);
  BOOST_REQUIRE(waiting != 0);
  BOOST_REQUIRE(wait_job_state(waiting, "PENDING"));
  auto r = run_cli({"cancel", std::to_string(waiting)});
  BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_REQUIRE(wait_job_state(waiting, "CANCELLED", 10s));
  BOOST_CHECK_EQUAL(job(waiting).value("start_time", int64_t{-1}), 0);
  BOOST_CHECK_EQUAL(job_state(busy), "RUNNING");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(time_limit, quick_kill_node)

BOOST_AUTO_TEST_CASE(a_job_past_its_time_limit_is_killed_and_ends_timeout) {
  command_options opt;
  opt.timeout = 40s;
  auto r = run_cli({"run", "-t", "0:02", "sleep", "30"}, opt);
  BOOST_CHECK_MESSAGE(r.exit_code > 0, r.describe());
  // Not killed before its limit (a behaviour); how soon after it is a benchmark's business, and
  // a job that is never killed is caught by the command timeout above.
  BOOST_CHECK_MESSAGE(!r.timed_out && r.elapsed.count() >= 2.0, r.describe());
  auto all = jobs();
  BOOST_REQUIRE_EQUAL(all.size(), 1u);
  BOOST_CHECK(wait_job_state(all[0].value("job_id", uint64_t{0}), "TIMEOUT", 10s));
}

BOOST_AUTO_TEST_SUITE_END()
