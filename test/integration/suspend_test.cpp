// scontrol suspend and resume (admins): a suspended job's tasks stop (SIGSTOP) and its time limit
// stops with them; resume continues both. A suspended job that is cancelled gets SIGCONT before
// SIGTERM, one that is requeued comes back held, one the controller recovers after a crash stays
// suspended and resumes; a user may not suspend.

#include <boost/test/unit_test.hpp>

#include <signal.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "test/integration/harness.hpp"
#include "test/preconditions.hpp"

using namespace shoal::test;

namespace {

const char* const suspend_test_user = "shoal-it-user";

/// Heartbeats every half second, so that a restarted controller hears from its daemon at once.
struct suspend_cluster : cluster_fixture {
  suspend_cluster() : cluster_fixture(1, "HeartBeatInterval=0.5\nSlurmdTimeout=10\n") {}

  /// Appends a line to `log` every 0.2 s until stopped or killed; on SIGTERM notes "term" and ends.
  uint64_t submit_ticker(const std::string& log, const std::vector<std::string>& options = {}) {
    return submit_script("ticker.sh",
                         "#!/bin/sh\ntrap 'echo term >> " + log +
                             "; exit 0' TERM\nwhile true; do echo tick >> " + log +
                             "; sleep 0.2; done\n",
                         options);
  }

  command_result control(const std::vector<std::string>& words) {
    std::vector<std::string> args{"control"};
    args.insert(args.end(), words.begin(), words.end());
    return run_cli(args);
  }

  /// A ticker that has begun to tick, suspended.
  uint64_t suspended_ticker(const std::string& log) {
    auto id = submit_ticker(log);
    BOOST_REQUIRE(id != 0);
    BOOST_REQUIRE(wait_until([&] { return count_lines_with(read_file(log), "tick") > 0; }, 30s));
    BOOST_REQUIRE_EQUAL(control({"suspend", std::to_string(id)}).exit_code, 0);
    BOOST_REQUIRE(wait_job_state(id, "SUSPENDED"));
    return id;
  }

  /// The job's `show job` text.
  std::string shown(uint64_t id) { return control({"show", "job", std::to_string(id)}).out; }
};

/// Lines in `path` now (0 when it does not exist yet).
size_t lines_in(const std::string& path) {
  return count_lines_with(read_file(path), "tick");
}

/// Whether `path` stops growing: the same line count over `quiet`.
bool stays_still(const std::string& path, std::chrono::milliseconds quiet) {
  auto before = lines_in(path);
  std::this_thread::sleep_for(quiet);
  return lines_in(path) == before;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(suspend, suspend_cluster)

BOOST_AUTO_TEST_CASE(a_suspended_job_stops_and_its_time_limit_waits_for_the_resume) {
  auto log = scratch.file("log");
  // An 8-second limit (Slurm's MM:SS): without the pause it would time out while suspended.
  auto id = submit_ticker(log, {"-t", "0:08"});
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_job_state(id, "RUNNING"));
  BOOST_REQUIRE(wait_until([&] { return lines_in(log) > 0; }, 30s));
  auto began = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(2s);  // some run time before the stop (SecsPreSuspend)

  auto stopped = control({"suspend", std::to_string(id)});
  BOOST_REQUIRE_MESSAGE(stopped.exit_code == 0, stopped.describe());
  BOOST_CHECK(wait_job_state(id, "SUSPENDED"));
  std::this_thread::sleep_for(500ms);  // a write in flight at the stop lands
  BOOST_CHECK_MESSAGE(stays_still(log, 2s), "the task went on while suspended");
  auto listed = run_cli({"queue", "-h", "-o", "%i %t"});
  BOOST_CHECK_MESSAGE(contains(listed.out, std::to_string(id) + " S\n"), listed.describe());
  auto text = shown(id);
  BOOST_CHECK_MESSAGE(contains(text, "JobState=SUSPENDED"), text);
  BOOST_CHECK_MESSAGE(!contains(text, "SuspendTime=None"), text);
  auto again = control({"suspend", std::to_string(id)});
  BOOST_CHECK_EQUAL(again.exit_code, 1);
  BOOST_CHECK_MESSAGE(contains(again.err, "Job is not running"), again.describe());

  // Well past the limit counted from the start: still suspended, not TIMEOUT.
  std::this_thread::sleep_until(began + 10s);
  BOOST_CHECK_EQUAL(job_state(id), "SUSPENDED");

  auto resumed = control({"resume", std::to_string(id)});
  BOOST_REQUIRE_MESSAGE(resumed.exit_code == 0, resumed.describe());
  BOOST_CHECK(wait_job_state(id, "RUNNING"));
  auto before = lines_in(log);
  BOOST_CHECK_MESSAGE(wait_until([&] { return lines_in(log) > before + 2; }, 10s),
                      "the task did not go on after the resume");
  auto not_suspended = control({"resume", std::to_string(id)});
  BOOST_CHECK_EQUAL(not_suspended.exit_code, 1);
  BOOST_CHECK_MESSAGE(contains(not_suspended.err, "Job is not suspended"),
                      not_suspended.describe());

  // The rest of its limit, then TIMEOUT; what it spent suspended is not run time.
  BOOST_CHECK(wait_job_state(id, "TIMEOUT", 40s));
  auto j = job(id);
  auto suspended = j.value("suspended_secs", int64_t{0});
  BOOST_CHECK_MESSAGE(suspended >= 7, "suspended_secs " << suspended);
  auto ran = j.value("end_time", int64_t{0}) - j.value("start_time", int64_t{0}) - suspended;
  // Its whole limit ran after all (how much longer depends on the machine's load).
  BOOST_CHECK_MESSAGE(ran >= 7, "ran " << ran << " s of an 8 s limit");
  text = shown(id);
  BOOST_CHECK_MESSAGE(contains(text, "SecsPreSuspend="), text);
  BOOST_CHECK_MESSAGE(!contains(text, "SecsPreSuspend=0 "), text);
  // RunTime is the run without the suspension, as the record's times say.
  char run_time[80];
  std::snprintf(run_time, sizeof run_time, "RunTime=%02lld:%02lld:%02lld",
                static_cast<long long>(ran / 3600), static_cast<long long>(ran / 60 % 60),
                static_cast<long long>(ran % 60));
  BOOST_CHECK_MESSAGE(contains(text, run_time), run_time << " in " << text);
}

BOOST_AUTO_TEST_CASE(cancelling_a_suspended_job_wakes_it_for_its_sigterm) {
  auto log = scratch.file("log");
  auto id = suspended_ticker(log);
  auto cancelled = run_cli({"cancel", std::to_string(id)});
  BOOST_REQUIRE_MESSAGE(cancelled.exit_code == 0, cancelled.describe());
  BOOST_CHECK(wait_job_state(id, "CANCELLED"));
  // A stopped shell sees no SIGTERM until it continues: its trap ran, so SIGCONT came first.
  BOOST_CHECK_MESSAGE(wait_until([&] { return contains(read_file(log), "term\n"); }, 10s),
                      read_file(log));
}

BOOST_AUTO_TEST_CASE(a_requeued_suspended_job_is_queued_again_held) {
  auto log = scratch.file("log");
  auto id = suspended_ticker(log);
  auto requeued = control({"requeue", std::to_string(id)});
  BOOST_REQUIRE_MESSAGE(requeued.exit_code == 0, requeued.describe());
  BOOST_CHECK(wait_until([&] { return job(id).value("reason", "") == "JobHeldAdmin"; }, 30s));
  BOOST_CHECK_EQUAL(job_state(id), "PENDING");
  BOOST_CHECK_EQUAL(job(id).value("suspended_secs", int64_t{-1}), 0);
  BOOST_CHECK_EQUAL(run_cli({"cancel", std::to_string(id)}).exit_code, 0);
}

BOOST_AUTO_TEST_CASE(a_restarted_controller_keeps_a_job_suspended_until_resumed) {
  auto log = scratch.file("log");
  auto id = suspended_ticker(log);
  cluster.signal_controller(SIGKILL);
  BOOST_REQUIRE_MESSAGE(!cluster.restart_controller(), "restart failed");
  BOOST_REQUIRE(wait_until([&] { return run_cli({"queue"}).exit_code == 0; }, 30s));
  BOOST_CHECK_EQUAL(job_state(id), "SUSPENDED");
  BOOST_CHECK_MESSAGE(stays_still(log, 2s), "the task went on after the restart");
  auto resumed = control({"resume", std::to_string(id)});
  BOOST_REQUIRE_MESSAGE(resumed.exit_code == 0, resumed.describe());
  BOOST_CHECK(wait_job_state(id, "RUNNING"));
  auto before = lines_in(log);
  BOOST_CHECK(wait_until([&] { return lines_in(log) > before + 2; }, 10s));
  BOOST_CHECK_EQUAL(run_cli({"cancel", std::to_string(id)}).exit_code, 0);
  BOOST_CHECK(wait_job_state(id, "CANCELLED"));
}

BOOST_AUTO_TEST_CASE(only_admins_suspend_or_resume,
                     *boost::unit_test::precondition(needs_root{
                         "to create a test user and run the CLI as it"})) {
  const passwd* pw = ensure_user(suspend_test_user);
  BOOST_REQUIRE_MESSAGE(pw != nullptr, "no test user");
  auto log = scratch.file("log");
  auto id = submit_ticker(log);
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_job_state(id, "RUNNING"));
  for (const char* op : {"suspend", "resume"}) {
    auto refused = run_as(pw, {"control", op, std::to_string(id)});
    BOOST_CHECK_EQUAL(refused.exit_code, 1);
    BOOST_CHECK_MESSAGE(contains(refused.err, "Access/permission denied"), refused.describe());
  }
  BOOST_CHECK_EQUAL(job_state(id), "RUNNING");
  BOOST_CHECK_EQUAL(run_cli({"cancel", std::to_string(id)}).exit_code, 0);
}

BOOST_AUTO_TEST_SUITE_END()
