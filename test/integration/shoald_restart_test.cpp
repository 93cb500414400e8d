// A node daemon killed (kill -9) and started again while its jobs run: each step lives in a
// shoal-stepd of its own, which the new shoald adopts, so the jobs finish normally, with their
// real exit codes and output, and the node never goes DOWN.

#include <signal.h>

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <set>
#include <string>

#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;
namespace fs = std::filesystem;

namespace {

/// One node; a restart well inside SlurmdTimeout even on a loaded machine.
struct restartable_node : cluster_fixture {
  restartable_node() : cluster_fixture(1, "SlurmdTimeout=10\n") {}

  /// Polls until job `id` is `state`, noting every state node1 showed meanwhile.
  bool wait_job_watching_node(uint64_t id, const std::string& state,
                              std::set<std::string>& node_states) {
    return wait_until(
        [&] {
          node_states.insert(node_state("node1"));
          return job_state(id) == state;
        },
        30s);
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(shoald_restart, restartable_node)

BOOST_AUTO_TEST_CASE(a_batch_job_finishes_normally_across_a_killed_and_restarted_shoald) {
  auto out = scratch.file("restart.out");
  auto started = scratch.file("started");
  auto id = submit_script("restart.sh",
                          "#!/bin/sh\necho started\ntouch " + started + "\nsleep 3\necho done\n",
                          {"-o", out});
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_until([&] { return fs::exists(started); }, 30s));
  kill_and_restart_node(1);
  std::set<std::string> node_states;
  BOOST_CHECK(wait_job_watching_node(id, "COMPLETED", node_states));
  auto record = job(id);
  BOOST_CHECK_EQUAL(record.value("exit_code", -1), 0);
  BOOST_CHECK_EQUAL(read_file(out), "started\ndone\n");
  BOOST_CHECK_MESSAGE(node_states.count("DOWN") == 0, "node1 went DOWN");
  BOOST_CHECK(wait_node_state("node1", "IDLE", 15s));
}

BOOST_AUTO_TEST_CASE(a_run_exits_with_its_tasks_code_across_a_killed_and_restarted_shoald) {
  auto started = scratch.file("started");
  command_options opt;
  opt.timeout = 60s;
  auto run = start_cli({"run", "sh", "-c", "touch " + started + "; sleep 3; exit 3"}, opt);
  BOOST_REQUIRE(wait_until([&] { return fs::exists(started); }, 30s));
  uint64_t id = 0;
  BOOST_REQUIRE(wait_until(
      [&] {
        auto all = jobs();
        if (all.size() != 1) return false;
        id = all[0].value("job_id", uint64_t{0});
        return true;
      },
      10s));
  kill_and_restart_node(1);
  std::set<std::string> node_states;
  BOOST_CHECK(wait_job_watching_node(id, "FAILED", node_states));
  BOOST_CHECK_EQUAL(job(id).value("exit_code", -1), 3);
  auto r = run->finish();
  BOOST_CHECK_MESSAGE(r.exit_code == 3, r.describe());
  BOOST_CHECK_MESSAGE(node_states.count("DOWN") == 0, "node1 went DOWN");
}

BOOST_AUTO_TEST_CASE(a_step_signalled_after_the_restart_gets_the_signal) {
  // The adopted step is the new shoald's: a cancel reaches its tasks through it.
  auto started = scratch.file("started");
  auto id = submit_script("long.sh", "#!/bin/sh\ntouch " + started + "\nsleep 60\n");
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_until([&] { return fs::exists(started); }, 30s));
  kill_and_restart_node(1);
  // Signals reach a node's steps through its registered shoald: wait for the new one's
  // registration (the log is appended to), then cancel.
  BOOST_REQUIRE(wait_until(
      [&] {
        auto log = read_file(cluster.directory() + "/shoald-node1.log");
        return count_lines_with(log, "registered node=node1") >= 2 &&
               count_lines_with(log, "step adopted") >= 1;
      },
      15s));
  auto r = run_cli({"cancel", std::to_string(id)});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK(wait_job_state(id, "CANCELLED", 15s));
  // Well before the script's 60 s: the tasks got the signal, not the end of their sleep.
  BOOST_CHECK(wait_node_state("node1", "IDLE", 15s));
}

BOOST_AUTO_TEST_SUITE_END()
