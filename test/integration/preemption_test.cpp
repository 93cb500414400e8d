// Preemption (PreemptType=preempt/partition_prio): a job of a high-tier partition takes the one
// node from a job of a low-tier partition under PreemptMode=CANCEL and REQUEUE, with GraceTime
// honoured (SIGTERM first, SIGKILL only once the grace time is over); PreemptExemptTime keeps a
// young job; a job the controller recovered after a crash is preempted as before (PreemptTime=
// in show job); PreemptMode=OFF preempts nothing. Under SUSPEND the low job's tasks stop while the
// urgent job runs on its CPUs and go on once it ended, also across a controller restart. Under
// PreemptType=preempt/qos a QOS preempts the jobs of the QOS its Preempt= names.

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// One node in a scavenger partition (tier 1) and an urgent one (tier 10), with `keys` (the
/// preemption settings) for the cluster and `scavenger_keys` on the scavenger's line.
std::string preempt_config(const std::string& keys, const std::string& scavenger_keys) {
  return "PreemptType=preempt/partition_prio\n" + keys +
         "PartitionName=scavenger Nodes=node1 PriorityTier=1 " + scavenger_keys +
         "\nPartitionName=urgent Nodes=node1 PriorityTier=10 PreemptMode=OFF\n";
}

struct preempt_cancel : cluster_fixture {
  preempt_cancel() : cluster_fixture(1, preempt_config("PreemptMode=CANCEL\n", "GraceTime=30")) {}
};

struct preempt_requeue : cluster_fixture {
  preempt_requeue()
      : cluster_fixture(
            1, preempt_config("PreemptMode=CANCEL\n", "PreemptMode=REQUEUE GraceTime=2")) {}
};

struct preempt_exempt : cluster_fixture {
  preempt_exempt()
      : cluster_fixture(1, preempt_config("PreemptMode=CANCEL\nPreemptExemptTime=1:00:00\n", "")) {}
};

struct preempt_short_grace : cluster_fixture {
  preempt_short_grace()
      : cluster_fixture(1, preempt_config("PreemptMode=CANCEL\n", "GraceTime=4")) {}
};

/// Heartbeats every half second, so that a restarted controller hears from its daemon at once.
struct preempt_after_restart : cluster_fixture {
  preempt_after_restart()
      : cluster_fixture(1, preempt_config("HeartBeatInterval=0.5\nSlurmdTimeout=10\n"
                                          "PreemptMode=CANCEL\n",
                                          "")) {}
};

/// Counts to 30 in `count`, a step every 0.2 s, then appends "done" to `log`.
std::string counting_script(const std::string& count, const std::string& log) {
  return "#!/bin/sh\ni=0\nwhile [ $i -lt 30 ]; do i=$((i+1)); echo $i > " + count +
         "; sleep 0.2; done\necho done >> " + log + "\n";
}

/// PreemptMode=SUSPEND (GANG at the cluster level, as Slurm requires); quick beats for the
/// restart case.
struct preempt_suspend : cluster_fixture {
  preempt_suspend()
      : cluster_fixture(1, preempt_config("HeartBeatInterval=0.5\nSlurmdTimeout=10\n"
                                          "PreemptMode=SUSPEND,GANG\n",
                                          "")) {}

  /// A scavenger job counting in `count` (then "done" in `log`), suspended for an urgent job
  /// that runs until `hold` is removed (then "urgent" in `log`).
  void suspend_low_for_high() {
    log = scratch.file("log");
    count = scratch.file("count");
    hold = scratch.file("hold");
    low = submit_script("low.sh", counting_script(count, log), {"-p", "scavenger"});
    BOOST_REQUIRE(low != 0);
    BOOST_REQUIRE(wait_until([&] { return path_exists(count); }, 30s));
    write_file(hold, "");
    high = submit_script(
        "high.sh",
        "#!/bin/sh\nwhile [ -e " + hold + " ]; do sleep 0.2; done\necho urgent >> " + log + "\n",
        {"-p", "urgent"});
    BOOST_REQUIRE(high != 0);
    BOOST_REQUIRE(wait_job_state(low, "SUSPENDED", 60s));
    BOOST_REQUIRE(wait_job_state(high, "RUNNING", 60s));
  }

  std::string log, count, hold;
  uint64_t low = 0, high = 0;
};

/// PreemptType=preempt/qos: the QOS say who preempts whom (the one partition has one tier).
struct preempt_qos : cluster_fixture {
  preempt_qos() : cluster_fixture(1, "PreemptType=preempt/qos\nPreemptMode=CANCEL\n") {}
};

struct preempt_off : cluster_fixture {
  preempt_off() : cluster_fixture(1, preempt_config("PreemptMode=OFF\n", "")) {}
};

/// A script that appends `line` to `log`.
std::string logging_script(const std::string& log, const std::string& line) {
  return "#!/bin/sh\necho " + line + " >> " + log + "\n";
}

/// Marks its start in `started`, then runs until killed.
std::string long_script(const std::string& started) {
  return "#!/bin/sh\ntouch " + started + "\nwhile true; do sleep 0.2; done\n";
}

/// The pending urgent job waits with Resources while the scavenger's job keeps its node for a
/// few scheduling passes (each 5 s while jobs pend).
void check_nothing_preempted(cluster_fixture& c, uint64_t running, uint64_t waiting) {
  BOOST_CHECK(wait_until([&] { return c.job(waiting).value("reason", "") == "Resources"; }, 30s));
  std::this_thread::sleep_for(std::chrono::seconds{7});
  BOOST_CHECK_EQUAL(c.job_state(running), "RUNNING");
  BOOST_CHECK_EQUAL(c.job_state(waiting), "PENDING");
  BOOST_CHECK_EQUAL(c.job(waiting).value("reason", ""), "Resources");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(preemption)

BOOST_FIXTURE_TEST_CASE(cancel_sends_sigterm_and_waits_the_grace_time_then_ends_preempted,
                        preempt_cancel) {
  auto log = scratch.file("log");
  auto started = scratch.file("started");
  // On SIGTERM it notes it, works on a moment and ends by itself, well within GraceTime=30:
  // a SIGKILL before the grace time would lose the second line.
  auto low =
      submit_script("low.sh",
                    "#!/bin/sh\ntrap 'echo term >> " + log + "; sleep 1; echo finished >> " + log +
                        "; exit 0' TERM\ntouch " + started + "\nwhile true; do sleep 0.2; done\n",
                    {"-p", "scavenger"});
  BOOST_REQUIRE(low != 0);
  BOOST_REQUIRE(wait_job_state(low, "RUNNING"));
  BOOST_REQUIRE(wait_until([&] { return path_exists(started); }, 30s));
  auto high = submit_script("high.sh", logging_script(log, "urgent"), {"-p", "urgent"});
  BOOST_REQUIRE(high != 0);
  BOOST_CHECK(wait_job_state(low, "PREEMPTED", 60s));
  BOOST_CHECK(wait_job_state(high, "COMPLETED", 60s));
  BOOST_CHECK_EQUAL(read_file(log), "term\nfinished\nurgent\n");
  auto listed = run_cli({"queue", "-t", "all", "-h", "-o", "%i %t"});
  BOOST_CHECK_MESSAGE(listed.out.find(std::to_string(low) + " PR") != std::string::npos,
                      listed.describe());
  auto shown = run_cli({"control", "show", "partition", "scavenger"});
  BOOST_CHECK_MESSAGE(shown.out.find("GraceTime=30") != std::string::npos, shown.describe());
  BOOST_CHECK_MESSAGE(shown.out.find("PreemptMode=CANCEL") != std::string::npos, shown.describe());
}

BOOST_FIXTURE_TEST_CASE(requeue_kills_after_the_grace_time_and_runs_the_job_again,
                        preempt_requeue) {
  auto log = scratch.file("log");
  auto started = scratch.file("started");
  auto marker = scratch.file("termed");
  // The first run ignores SIGTERM (so only the SIGKILL after GraceTime ends it); the run after
  // the requeue finds the marker and ends at once.
  auto low =
      submit_script("low.sh",
                    "#!/bin/sh\nif [ -e " + marker + " ]; then echo rerun >> " + log +
                        "; exit 0; fi\ntrap 'echo " + "term >> " + log + "; touch " + marker +
                        "' TERM\ntouch " + started + "\nwhile true; do sleep 0.2; done\n",
                    {"-p", "scavenger"});
  BOOST_REQUIRE(low != 0);
  BOOST_REQUIRE(wait_job_state(low, "RUNNING"));
  BOOST_REQUIRE(wait_until([&] { return path_exists(started); }, 30s));
  auto high = submit_script("high.sh", logging_script(log, "urgent"), {"-p", "urgent"});
  BOOST_REQUIRE(high != 0);
  BOOST_CHECK(wait_job_state(high, "COMPLETED", 60s));
  BOOST_CHECK(wait_job_state(low, "COMPLETED", 60s));
  BOOST_CHECK_EQUAL(read_file(log), "term\nurgent\nrerun\n");
  BOOST_CHECK_EQUAL(job(low).value("requeue_count", 0), 1);
}

BOOST_FIXTURE_TEST_CASE(a_job_younger_than_preempt_exempt_time_keeps_its_node, preempt_exempt) {
  auto started = scratch.file("started");
  auto low = submit_script("low.sh", long_script(started), {"-p", "scavenger"});
  BOOST_REQUIRE(low != 0);
  BOOST_REQUIRE(wait_job_state(low, "RUNNING"));
  auto high = submit_script("high.sh", "#!/bin/sh\ntrue\n", {"-p", "urgent"});
  BOOST_REQUIRE(high != 0);
  check_nothing_preempted(*this, low, high);
  run_cli({"cancel", std::to_string(low)});
  BOOST_CHECK(wait_job_state(high, "COMPLETED", 60s));
}

BOOST_FIXTURE_TEST_CASE(a_job_in_its_grace_time_shows_running_until_the_sigkill,
                        preempt_short_grace) {
  auto log = scratch.file("log");
  auto started = scratch.file("started");
  // It ignores SIGTERM: only the SIGKILL at the end of its grace time ends it.
  auto low = submit_script("low.sh",
                           "#!/bin/sh\ntrap 'echo term >> " + log + "' TERM\ntouch " + started +
                               "\nwhile true; do sleep 0.2; done\n",
                           {"-p", "scavenger"});
  BOOST_REQUIRE(low != 0);
  BOOST_REQUIRE(wait_until([&] { return path_exists(started); }, 30s));
  auto high = submit_script("high.sh", "#!/bin/sh\ntrue\n", {"-p", "urgent"});
  BOOST_REQUIRE(high != 0);
  BOOST_REQUIRE(wait_until([&] { return contains(read_file(log), "term"); }, 30s));
  // Slurm keeps a job RUNNING through its GraceTime; shoal did show COMPLETING.
  BOOST_CHECK_EQUAL(job_state(low), "RUNNING");
  auto shown = run_cli({"control", "show", "job", std::to_string(low)});
  BOOST_CHECK_MESSAGE(
      contains(shown.out, "JobState=RUNNING") && contains(shown.out, "PreemptTime="),
      shown.describe());
  BOOST_CHECK(wait_job_state(low, "PREEMPTED", 30s));
  BOOST_CHECK(wait_job_state(high, "COMPLETED", 60s));
}

BOOST_FIXTURE_TEST_CASE(a_job_the_controller_recovered_is_preempted_as_before,
                        preempt_after_restart) {
  auto started = scratch.file("started");
  auto low = submit_script("low.sh", long_script(started), {"-p", "scavenger"});
  BOOST_REQUIRE(low != 0);
  BOOST_REQUIRE(wait_job_state(low, "RUNNING"));
  BOOST_REQUIRE(wait_until([&] { return path_exists(started); }, 30s));
  cluster.signal_controller(SIGKILL);
  BOOST_REQUIRE_MESSAGE(!cluster.restart_controller(), "restart failed");
  BOOST_REQUIRE(wait_until([&] { return run_cli({"queue"}).exit_code == 0; }, 30s));
  BOOST_REQUIRE_EQUAL(job_state(low), "RUNNING");
  // Its partition (tier 1) came back with it, so the urgent job takes the node.
  auto high = submit_script("high.sh", "#!/bin/sh\ntrue\n", {"-p", "urgent"});
  BOOST_REQUIRE(high != 0);
  BOOST_CHECK(wait_job_state(low, "PREEMPTED", 60s));
  BOOST_CHECK(wait_job_state(high, "COMPLETED", 60s));
  auto shown = run_cli({"control", "show", "job", std::to_string(low)});
  BOOST_CHECK_MESSAGE(contains(shown.out, "PreemptTime="), shown.describe());
}

BOOST_FIXTURE_TEST_CASE(preempt_mode_off_preempts_nothing, preempt_off) {
  auto started = scratch.file("started");
  auto low = submit_script("low.sh", long_script(started), {"-p", "scavenger"});
  BOOST_REQUIRE(low != 0);
  BOOST_REQUIRE(wait_job_state(low, "RUNNING"));
  auto high = submit_script("high.sh", "#!/bin/sh\ntrue\n", {"-p", "urgent"});
  BOOST_REQUIRE(high != 0);
  check_nothing_preempted(*this, low, high);
  run_cli({"cancel", std::to_string(low)});
  BOOST_CHECK(wait_job_state(high, "COMPLETED", 60s));
}

BOOST_FIXTURE_TEST_CASE(suspend_stops_the_low_job_while_the_urgent_one_runs_then_it_goes_on,
                        preempt_suspend) {
  suspend_low_for_high();
  // Stopped: its count stands still while the urgent job has the node.
  auto at_suspend = read_file(count);
  std::this_thread::sleep_for(std::chrono::milliseconds{1500});
  BOOST_CHECK_EQUAL(read_file(count), at_suspend);
  BOOST_CHECK_EQUAL(job_state(low), "SUSPENDED");
  auto listed = run_cli({"queue", "-h", "-o", "%i %t"});
  BOOST_CHECK_MESSAGE(contains(listed.out, std::to_string(low) + " S"), listed.describe());
  // Only the scheduler resumes it: an admin's resume would share the CPUs the urgent job holds.
  auto resumed = run_cli({"control", "resume", std::to_string(low)});
  BOOST_CHECK_NE(resumed.exit_code, 0);
  BOOST_CHECK_MESSAGE(contains(resumed.err, "preempting job"), resumed.describe());
  std::filesystem::remove(hold);
  BOOST_CHECK(wait_job_state(high, "COMPLETED", 60s));
  // Its CPUs free again, it runs on from where it stopped and completes.
  BOOST_CHECK(wait_job_state(low, "COMPLETED", 60s));
  BOOST_CHECK_EQUAL(read_file(log), "urgent\ndone\n");
  auto shown = run_cli({"control", "show", "job", std::to_string(low)});
  BOOST_CHECK_MESSAGE(contains(shown.out, "PreemptTime="), shown.describe());
  BOOST_CHECK_MESSAGE(!contains(shown.out, "SuspendTime=None"), shown.describe());
}

BOOST_FIXTURE_TEST_CASE(a_job_suspended_for_a_preemptor_stays_so_across_a_controller_restart,
                        preempt_suspend) {
  suspend_low_for_high();
  cluster.signal_controller(SIGKILL);
  BOOST_REQUIRE_MESSAGE(!cluster.restart_controller(), "restart failed");
  BOOST_REQUIRE(wait_until([&] { return run_cli({"queue"}).exit_code == 0; }, 30s));
  // Both came back as they were: the low job stopped, the urgent one on the CPUs it lent.
  std::this_thread::sleep_for(std::chrono::seconds{2});
  BOOST_CHECK_EQUAL(job_state(low), "SUSPENDED");
  BOOST_CHECK_EQUAL(job_state(high), "RUNNING");
  std::filesystem::remove(hold);
  BOOST_CHECK(wait_job_state(high, "COMPLETED", 60s));
  BOOST_CHECK(wait_job_state(low, "COMPLETED", 60s));
  BOOST_CHECK_EQUAL(read_file(log), "urgent\ndone\n");
}

BOOST_FIXTURE_TEST_CASE(under_preempt_qos_a_qos_preempts_the_jobs_of_the_qos_it_names,
                        preempt_qos) {
  for (auto args : std::vector<std::vector<std::string>>{
           {"-i", "add", "qos", "low", "preemptmode=requeue", "gracetime=1"},
           {"-i", "add", "qos", "high", "preempt=low", "priority=10"}}) {
    auto made = run_slurm(*this, "sacctmgr", args);
    BOOST_REQUIRE_MESSAGE(made.exit_code == 0, made.describe());
  }
  auto listed =
      run_slurm(*this, "sacctmgr", {"-nP", "show", "qos", "format=name,preempt,preemptmode"});
  BOOST_CHECK_MESSAGE(contains(listed.out, "high|low|cluster\n"), listed.describe());
  BOOST_CHECK_MESSAGE(contains(listed.out, "low||REQUEUE\n"), listed.describe());
  auto log = scratch.file("log");
  auto marker = scratch.file("ran");
  // Its first run is preempted and requeued (low's PreemptMode); the run after finds the marker.
  auto low =
      submit_script("low.sh",
                    "#!/bin/sh\nif [ -e " + marker + " ]; then echo rerun >> " + log +
                        "; exit 0; fi\ntouch " + marker + "\nwhile true; do sleep 0.2; done\n",
                    {"--qos=low"});
  BOOST_REQUIRE(low != 0);
  BOOST_REQUIRE(wait_until([&] { return path_exists(marker); }, 30s));
  // A job of a QOS that names none waits, as under no preemption.
  auto plain = submit_script("plain.sh", "#!/bin/sh\ntrue\n", {"--qos=normal"});
  BOOST_REQUIRE(plain != 0);
  check_nothing_preempted(*this, low, plain);
  run_cli({"cancel", std::to_string(plain)});
  auto high = submit_script("high.sh", logging_script(log, "high"), {"--qos=high"});
  BOOST_REQUIRE(high != 0);
  BOOST_CHECK(wait_job_state(high, "COMPLETED", 60s));
  BOOST_CHECK(wait_job_state(low, "COMPLETED", 60s));
  BOOST_CHECK_EQUAL(read_file(log), "high\nrerun\n");
  auto shown = run_cli({"control", "show", "job", std::to_string(low)});
  BOOST_CHECK_MESSAGE(contains(shown.out, "Restarts=1"), shown.describe());
}

BOOST_AUTO_TEST_SUITE_END()
