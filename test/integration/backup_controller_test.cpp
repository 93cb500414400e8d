// The backup controller (seed 001): a primary and a backup shoalctld on one host, each on the
// port of its own SlurmctldHost line, and two shoald. The primary is killed with SIGKILL: the
// backup takes over, the node daemons and the CLI follow it. The primary comes back: the backup
// hands control back and the daemons and the CLI follow again. And a CLI request that finds no
// controller waits for one, or fails after MessageTimeout.

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "messages/caf/error.hpp"
#include "runtime/bootstrap/local_cluster.hpp"
#include "test/integration/controller_pair.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// node1 and node2, a shoald each.
struct backup_pair : controller_pair {
  backup_pair()
      : controller_pair(
            "NodeName=node[1-2] NodeAddr=127.0.0.1\n"
            "PartitionName=debug Nodes=node[1-2] Default=YES MaxTime=INFINITE\n",
            2, {{"node1", {"-N", "node1"}}, {"node2", {"-N", "node2"}}}) {}

  /// A two-node step runs through whichever controller is in control.
  void check_a_job_runs() {
    auto r = shoal({"run", "-N2", "-l", "hostname"});
    BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
    BOOST_CHECK_EQUAL(lines_of(r.out).size(), 2u);
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(backup_controller, backup_pair)

BOOST_AUTO_TEST_CASE(the_backup_takes_over_from_a_killed_primary_and_hands_control_back) {
  BOOST_REQUIRE_MESSAGE(wait_until([&] { return nodes_idle(); }, 60s), "the cluster never came up");
  auto ping = shoal({"control", "ping"});
  BOOST_CHECK_MESSAGE(ping.exit_code == 0, ping.describe());
  BOOST_CHECK_EQUAL(count_lines_with(ping.out, "shoalctld(primary) at ctl1 is UP"), 1u);
  BOOST_CHECK_EQUAL(count_lines_with(ping.out, "shoalctld(backup) at ctl2 is UP"), 1u);
  BOOST_CHECK(log_has("ctl2.log", "standing by role=backup name=ctl2"));

  // The primary dies. A listing issued at once waits for the takeover, then succeeds.
  primary->kill_now();
  auto queue = shoal({"queue"});
  BOOST_CHECK_MESSAGE(queue.exit_code == 0, queue.describe());
  BOOST_CHECK(lines_of(queue.out).size() == 1u);  // the header: no jobs
  BOOST_CHECK(wait_until([&] { return log_has("ctl2.log", "controller in control role=backup"); },
                         takeover_bound));
  BOOST_REQUIRE_MESSAGE(wait_until([&] { return nodes_idle(); }, takeover_bound),
                        "the node daemons did not register with the backup");
  for (const char* node : {"node1.log", "node2.log"})
    BOOST_CHECK_MESSAGE(log_has(node, "controller=ctl2 at 127.0.0.1:"), node);
  check_a_job_runs();
  ping = shoal({"control", "ping"});
  BOOST_CHECK_MESSAGE(ping.exit_code == 0, ping.describe());
  BOOST_CHECK_EQUAL(count_lines_with(ping.out, "shoalctld(primary) at ctl1 is DOWN"), 1u);
  BOOST_CHECK_EQUAL(count_lines_with(ping.out, "shoalctld(backup) at ctl2 is UP"), 1u);

  // The primary returns: the backup saves, stands down, and the primary takes control back.
  start_primary();
  BOOST_CHECK(wait_until(
      [&] { return log_has("ctl1-2.log", "controller in control role=primary"); }, takeover_bound));
  BOOST_CHECK(log_has("ctl1-2.log", "controller reclaiming control from=backup ctl2"));
  BOOST_CHECK(log_has("ctl2.log", "controller handing control back to=primary ctl1"));
  BOOST_CHECK(log_has("ctl2.log", "controller in standby role=backup"));
  BOOST_REQUIRE_MESSAGE(wait_until([&] { return nodes_idle(); }, takeover_bound),
                        "the node daemons did not register with the primary again");
  BOOST_CHECK(wait_until(
      [&] {
        return count_lines_with(read_file(dir.file("node1.log")), "controller=ctl1 at") >= 2 &&
               count_lines_with(read_file(dir.file("node2.log")), "controller=ctl1 at") >= 2;
      },
      takeover_bound));
  check_a_job_runs();
  BOOST_CHECK(read_file(dir.file("ctl1-2.log")).find("job submit job=") != std::string::npos);
  ping = shoal({"control", "ping"});
  BOOST_CHECK_EQUAL(count_lines_with(ping.out, "is UP"), 2u);
}

BOOST_AUTO_TEST_CASE(no_job_is_lost_or_run_twice_across_takeover_and_hand_back) {
  BOOST_REQUIRE_MESSAGE(wait_until([&] { return nodes_idle(); }, 60s), "the cluster never came up");
  // Two running jobs that count their runs and wait for a gate; eight held ones.
  auto gate = dir.file("gate");
  std::vector<uint64_t> running;
  for (int i = 0; i < 2; ++i) {
    auto script =
        write_file(dir.file("run" + std::to_string(i) + ".sh"),
                   "#!/bin/sh\necho ran >> " + dir.file("runs-$SHOAL_JOB_ID") + "\nwhile [ ! -e " +
                       gate + " ]; do sleep 0.2; done\nexit $((SHOAL_JOB_ID % 4))\n",
                   true);
    auto r = shoal({"batch", "-N1", script});
    BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
    running.push_back(submitted_job_id(r.out));
  }
  std::vector<uint64_t> held;
  auto quick = write_file(dir.file("quick.sh"), "#!/bin/sh\ntrue\n", true);
  for (int i = 0; i < 8; ++i) {
    auto r = shoal({"batch", "-H", quick});
    BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
    held.push_back(submitted_job_id(r.out));
  }
  for (auto id : running) BOOST_REQUIRE(wait_until([&] { return state_of(id) == "RUNNING"; }, 30s));

  // The backup takes over from the saved state: every job is there, the running ones still run.
  primary->kill_now();
  BOOST_REQUIRE(wait_for_log("ctl2.log", "controller in control role=backup"));
  for (auto id : running) BOOST_CHECK_EQUAL(state_of(id), "RUNNING");
  for (auto id : held) BOOST_CHECK_EQUAL(state_of(id), "PENDING");

  // The primary returns and takes everything back from the backup's saved state.
  start_primary();
  BOOST_REQUIRE(wait_until(
      [&] { return log_has("ctl1-2.log", "controller in control role=primary"); }, takeover_bound));
  for (auto id : running) BOOST_CHECK_EQUAL(state_of(id), "RUNNING");
  for (auto id : held) BOOST_CHECK_EQUAL(state_of(id), "PENDING");

  // The gate opens: each running job ends once, with its own exit code.
  write_file(gate, "open\n");
  for (auto id : running) {
    BOOST_CHECK(wait_until(
        [&] { return id % 4 == 0 ? state_of(id) == "COMPLETED" : state_of(id) == "FAILED"; }, 60s));
    BOOST_CHECK_EQUAL(count_lines_with(read_file(dir.file("runs-" + std::to_string(id))), "ran"),
                      1u);
  }
  std::string list;
  for (auto id : held) list += (list.empty() ? "" : ",") + std::to_string(id);
  auto r = shoal({"control", "release", list});
  BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
  for (auto id : held) BOOST_CHECK(wait_until([&] { return state_of(id) == "COMPLETED"; }, 60s));
}

BOOST_AUTO_TEST_CASE(a_primary_still_writing_the_shared_state_is_not_taken_over) {
  BOOST_REQUIRE_MESSAGE(wait_until([&] { return nodes_idle(); }, 60s), "the cluster never came up");
  BOOST_REQUIRE(
      wait_until([&] { return std::filesystem::exists(dir.file("state") + "/heartbeat"); }, 30s));
  // The primary stops answering on the network, but its heartbeat file in StateSaveLocation stays
  // fresh, as behind a network split (written here for it, as the primary writes it).
  primary->kill_now();
  auto forge = [&] {
    auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count();
    write_file(dir.file("state") + "/heartbeat.forged", std::to_string(now) + " 0\n");
    std::filesystem::rename(dir.file("state") + "/heartbeat.forged",
                            dir.file("state") + "/heartbeat");
  };
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds{3 * slurmctld_timeout_s};
  while (std::chrono::steady_clock::now() < until) {
    forge();
    std::this_thread::sleep_for(500ms);
  }
  BOOST_CHECK(log_has("ctl2.log", "not taking over: the primary ctl1"));
  BOOST_CHECK(!log_has("ctl2.log", "controller in control role=backup"));
  // The heartbeat stops too: now the primary is gone, and the backup takes over.
  BOOST_CHECK(wait_for_log("ctl2.log", "controller in control role=backup"));
  BOOST_REQUIRE_MESSAGE(wait_until([&] { return nodes_idle(); }, takeover_bound),
                        "the node daemons did not register with the backup");
  check_a_job_runs();
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

/// One SlurmctldHost line on a free port, and no shoalctld yet.
struct lone_line {
  scratch_dir dir;
  uint16_t port = free_port();
  std::string conf;

  explicit lone_line(const std::string& extra = "") {
    conf = write_file(dir.file("shoal.conf"),
                      "SlurmctldHost=ctl(127.0.0.1:" + std::to_string(port) + ")\n" +
                          "MetricsPort=0\nStateSaveLocation=" + dir.file("state") + "\n" +
                          test_auth_config() + extra);
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(waiting_for_the_controller)

BOOST_AUTO_TEST_CASE(a_request_waits_for_the_controller_and_succeeds_once_it_starts) {
  lone_line line;  // MessageTimeout: Slurm's 10 s
  command_options opt;
  opt.env = {{"SHOAL_CONF", line.conf}};
  child_process queue{{bin_path("shoal"), "queue"}, opt};
  // Down for about 3 s: long enough for the waiting message.
  std::this_thread::sleep_for(3s);
  daemon_process ctl{{bin_path("shoalctld"), "-f", line.conf}, line.dir.file("ctl.log")};
  auto r = queue.finish();
  BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_MESSAGE(count_lines_with(r.err,
                                       "shoal: waiting for the controller (ctl at "
                                       "127.0.0.1:" +
                                           std::to_string(line.port) + ": ") == 1,
                      r.describe());
  BOOST_CHECK_EQUAL(count_lines_with(r.err, "error"), 0u);
  BOOST_CHECK_EQUAL(count_lines_with(r.out, "JOBID"), 1u);
}

BOOST_AUTO_TEST_CASE(without_a_controller_a_request_fails_after_message_timeout) {
  lone_line line{"MessageTimeout=3\n"};
  auto r = run_shoal(line.conf, {"queue"});
  BOOST_CHECK_MESSAGE(r.exit_code == 1 && !r.timed_out, r.describe());
  BOOST_CHECK_MESSAGE(count_lines_with(r.err, "shoal: waiting for the controller") == 1,
                      r.describe());
  BOOST_CHECK_MESSAGE(count_lines_with(r.err, "error") == 1, r.describe());
  BOOST_CHECK_MESSAGE(count_lines_with(r.err, "cannot reach the controller at 127.0.0.1:") == 1,
                      r.describe());
  BOOST_CHECK_MESSAGE(r.err.find("waited 3 s: MessageTimeout") != std::string::npos, r.describe());
  auto ping = run_shoal(line.conf, {"control", "ping"});
  BOOST_CHECK_EQUAL(ping.exit_code, 1);
  BOOST_CHECK_EQUAL(count_lines_with(ping.out, "shoalctld(primary) at ctl is DOWN"), 1u);
}

BOOST_AUTO_TEST_SUITE_END()
