// Logs as operators read them: the daemons' log files from the config (one per shoald through
// %n), one line per job event naming the job, debug categories switched on at run time with
// `shoal control setdebug` / `setdebugflags`, SIGUSR2 reopening a file moved away (logrotate),
// size-based rotation, and bad levels refused.

#include <signal.h>
#include <sys/stat.h>

#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// A directory for log files that exists before the cluster's config is written.
struct log_dir {
  scratch_dir logs;
};

/// Two nodes logging to files: the controller to ctld.log, each shoald to shoald-<node>.log.
struct logged_cluster : log_dir, cluster_fixture {
  logged_cluster()
      : cluster_fixture(2, "SlurmctldLogFile=" + logs.file("ctld.log") +
                               "\nSlurmdLogFile=" + logs.file("shoald-%n.log") + "\n") {}

  std::string ctld_log() { return read_file(logs.file("ctld.log")); }

  /// Submits a short batch job and waits until it completed; its id, or 0.
  uint64_t run_job(const std::string& name) {
    auto id = submit_script(name, "#!/bin/sh\necho logged\n");
    if (id == 0) return 0;
    BOOST_CHECK_MESSAGE(wait_job_state(id, "COMPLETED"), "job " << id << " did not complete");
    return id;
  }

  /// Polls until the controller's log holds a line containing `needle`.
  bool ctld_log_shows(const std::string& needle) {
    return wait_until([&] { return ctld_log().find(needle) != std::string::npos; }, 15s);
  }
};

std::string job_field(uint64_t id) {
  return "job=" + std::to_string(id) + " ";
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(log_files, logged_cluster)

BOOST_AUTO_TEST_CASE(the_controller_log_has_one_line_per_job_event_naming_the_job) {
  auto id = run_job("one.sh");
  BOOST_REQUIRE(id != 0);
  auto job = job_field(id);
  BOOST_CHECK_MESSAGE(ctld_log_shows("job ended " + job + "state=COMPLETED exit_code=0"),
                      ctld_log());
  auto text = ctld_log();
  BOOST_CHECK_MESSAGE(text.find("config loaded file=") != std::string::npos, text);
  BOOST_CHECK_MESSAGE(text.find("controller up cluster=") != std::string::npos, text);
  BOOST_CHECK_MESSAGE(text.find("node registered node=node1 ") != std::string::npos, text);
  BOOST_CHECK_EQUAL(count_lines_with(text, "job submit " + job), 1u);
  BOOST_CHECK_EQUAL(count_lines_with(text, "job started " + job), 1u);
  BOOST_CHECK_EQUAL(count_lines_with(text, "job ended " + job), 1u);
  // Debug categories are off by default.
  BOOST_CHECK_MESSAGE(text.find("Steps: ") == std::string::npos, text);
  BOOST_CHECK_MESSAGE(text.find(" debug: ") == std::string::npos, text);
}

BOOST_AUTO_TEST_CASE(each_node_daemon_writes_its_own_file_through_percent_n) {
  auto id = run_job("where.sh");
  BOOST_REQUIRE(id != 0);
  auto node1 = logs.file("shoald-node1.log");
  auto node2 = logs.file("shoald-node2.log");
  BOOST_REQUIRE(path_exists(node1) && path_exists(node2));
  BOOST_CHECK(read_file(node1).find("registered node=node1 ") != std::string::npos);
  BOOST_CHECK(read_file(node2).find("registered node=node2 ") != std::string::npos);
  BOOST_CHECK(read_file(node1).find("node=node2") == std::string::npos);
  // The batch step ran on one of them, which logged its launch.
  auto launch = "step launch " + job_field(id);
  BOOST_CHECK(wait_until(
      [&] {
        return read_file(node1).find(launch) != std::string::npos ||
               read_file(node2).find(launch) != std::string::npos;
      },
      10s));
}

BOOST_AUTO_TEST_CASE(setdebugflags_switches_a_category_on_and_off_at_run_time) {
  auto quiet_id = run_job("before.sh");
  BOOST_REQUIRE(quiet_id != 0);
  BOOST_CHECK(ctld_log().find("Steps: step launch " + job_field(quiet_id)) == std::string::npos);

  auto r = run_cli({"control", "setdebugflags", "+Steps,SelectType"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK(ctld_log_shows("debug flags changed from=\"\" to=\"Steps,SelectType\" user="));
  auto id = run_job("during.sh");
  BOOST_REQUIRE(id != 0);
  BOOST_CHECK_MESSAGE(ctld_log_shows("Steps: step launch " + job_field(id)), ctld_log());
  BOOST_CHECK(ctld_log_shows("SelectType: job selected " + job_field(id)));
  // Written at info: the level did not change.
  BOOST_CHECK(ctld_log().find(" debug: ") == std::string::npos);

  r = run_cli({"control", "setdebugflags", "-Steps", "-SelectType"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK(ctld_log_shows("to=\"\" user="));
  auto after = run_job("after.sh");
  BOOST_REQUIRE(after != 0);
  BOOST_CHECK(ctld_log_shows("job ended " + job_field(after)));
  BOOST_CHECK(ctld_log().find("Steps: step launch " + job_field(after)) == std::string::npos);
}

BOOST_AUTO_TEST_CASE(setdebug_debug_shows_every_category_at_debug_level) {
  auto r = run_cli({"control", "setdebug", "debug"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK(ctld_log_shows("debug level changed from=info to=debug user="));
  auto id = run_job("verbose.sh");
  BOOST_REQUIRE(id != 0);
  BOOST_CHECK_MESSAGE(ctld_log_shows("debug: Steps: step launch " + job_field(id)), ctld_log());
  // Heartbeats arrive every second in the test cluster.
  BOOST_CHECK_MESSAGE(ctld_log_shows("debug: Heartbeat: heartbeat node="), ctld_log());

  r = run_cli({"control", "setdebug", "3"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK(ctld_log_shows("debug level changed from=debug to=info user="));
  auto after = run_job("quiet.sh");
  BOOST_REQUIRE(after != 0);
  BOOST_CHECK(ctld_log_shows("job ended " + job_field(after)));
  BOOST_CHECK(ctld_log().find("Steps: step launch " + job_field(after)) == std::string::npos);
}

BOOST_AUTO_TEST_CASE(sigusr2_reopens_a_log_file_moved_away) {
  auto path = logs.file("ctld.log");
  auto moved = logs.file("ctld.log.rotated");
  BOOST_REQUIRE(ctld_log_shows("controller up"));
  BOOST_REQUIRE(std::rename(path.c_str(), moved.c_str()) == 0);
  auto pid = cluster.daemon_pids().at(0);  // the shoalctld this fixture started
  BOOST_REQUIRE(::kill(pid, SIGUSR2) == 0);
  BOOST_REQUIRE_MESSAGE(ctld_log_shows("log file reopened file=" + path), "no new " << path);
  auto id = run_job("new_file.sh");
  BOOST_REQUIRE(id != 0);
  BOOST_CHECK(ctld_log_shows("job ended " + job_field(id)));
  BOOST_CHECK(ctld_log().find("controller up") == std::string::npos);
  auto old = read_file(moved);
  BOOST_CHECK(old.find("controller up") != std::string::npos);
  BOOST_CHECK(old.find(job_field(id)) == std::string::npos);
}

BOOST_AUTO_TEST_CASE(bad_levels_and_flags_exit_2_with_the_valid_list) {
  auto r = run_cli({"control", "setdebug", "loud"});
  BOOST_CHECK_EQUAL(r.exit_code, 2);
  BOOST_CHECK_MESSAGE(r.err.find("quiet, fatal, error, info, verbose, debug") != std::string::npos,
                      r.describe());
  r = run_cli({"control", "setdebug"});
  BOOST_CHECK_EQUAL(r.exit_code, 2);
  r = run_cli({"control", "setdebugflags", "Steps"});
  BOOST_CHECK_EQUAL(r.exit_code, 2);
  BOOST_CHECK_MESSAGE(r.err.find("+Flag or -Flag") != std::string::npos, r.describe());
  r = run_cli({"control", "setdebugflags", "+Gang"});
  BOOST_CHECK_EQUAL(r.exit_code, 2);
  BOOST_CHECK_MESSAGE(r.err.find("SelectType") != std::string::npos, r.describe());
  // Nothing changed.
  BOOST_CHECK(ctld_log().find("debug level changed") == std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

/// One node whose controller log rotates past 4 KiB, keeping two old files, with heartbeat lines
/// switched on (five a second) so it fills without any job.
struct rotating_cluster : log_dir, cluster_fixture {
  rotating_cluster()
      : cluster_fixture(1, "SlurmctldLogFile=" + logs.file("ctld.log") +
                               "\nLogFileMaxSize=4K\nLogFileCount=2\nDebugFlags=Heartbeat\n"
                               "HeartBeatInterval=0.2\n") {}
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(log_rotation, rotating_cluster)

BOOST_AUTO_TEST_CASE(the_log_rotates_by_size_and_keeps_log_file_count_files) {
  auto path = logs.file("ctld.log");
  BOOST_REQUIRE_MESSAGE(wait_until([&] { return path_exists(path + ".2"); }, 90s),
                        "no second rotation of " << path);
  BOOST_CHECK(!path_exists(path + ".3"));
  BOOST_CHECK(read_file(path + ".2").find("Heartbeat: heartbeat node=node1") != std::string::npos);
  for (auto file : {path + ".1", path + ".2"}) {
    struct stat st {};
    BOOST_REQUIRE(::stat(file.c_str(), &st) == 0);
    BOOST_CHECK_LE(st.st_size, 4096);
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(daemon_log_options)

BOOST_AUTO_TEST_CASE(a_bad_level_on_the_daemon_command_line_exits_2) {
  for (auto daemon : {"shoalctld", "shoald"}) {
    auto r = run_command({bin_path(daemon), "--debug", "loud", "-f", "/nonexistent.conf"});
    BOOST_CHECK_EQUAL(r.exit_code, 2);
    BOOST_CHECK_MESSAGE(r.err.find("debug2..debug5 or 0-9") != std::string::npos, r.describe());
  }
}

BOOST_AUTO_TEST_CASE(a_bad_logging_value_in_the_config_names_file_and_line) {
  scratch_dir dir;
  auto conf = write_file(dir.file("bad.conf"),
                         "ClusterName=it\nSlurmctldDebug=loud\nNodeName=node1 NodeAddr=127.0.0.1\n"
                         "PartitionName=debug Nodes=node1 Default=YES\n");
  auto r = run_command({bin_path("shoalctld"), "-f", conf, "--check"});
  BOOST_CHECK_EQUAL(r.exit_code, 1);
  BOOST_CHECK_MESSAGE(
      r.err.find(conf + ":2: invalid value 'loud' for SlurmctldDebug") != std::string::npos,
      r.describe());
  write_file(conf, "ClusterName=it\nDebugFlags=Steps,Gang\nNodeName=node1 NodeAddr=127.0.0.1\n");
  r = run_command({bin_path("shoalctld"), "-f", conf, "--check"});
  BOOST_CHECK_EQUAL(r.exit_code, 1);
  BOOST_CHECK_MESSAGE(
      r.err.find(conf + ":2: DebugFlags: unknown debug flag 'Gang'") != std::string::npos,
      r.describe());
}

BOOST_AUTO_TEST_SUITE_END()
