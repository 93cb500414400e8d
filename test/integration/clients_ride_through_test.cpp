// Every client rides through (issue 31, item 3): `shoal run` steps inside batch jobs and
// allocations, `shoal alloc` itself and `shoal batch --wait` survive a controller killed with
// SIGKILL and started again seconds later, and a takeover by a backup controller, as a top-level
// `shoal run` does. Each step is gated: it prints before the fault, waits for a file the test
// writes once its client has reattached and its nodes have registered again (output written
// before both are back is lost: docs/architecture.md, "Recovery"), then prints again.

#include <signal.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <string>
#include <thread>

#include "test/integration/controller_pair.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// How long the controller stays dead: past MessageTimeout (below), so the clients' own
/// requests give up at least once and they must keep waiting on their own account.
constexpr auto controller_gap = 6s;

/// A step's command: counts its runs in `runs`, says `before`, marks `started`, waits for `gate`,
/// says `after` and exits with `code`. It also stops waiting once the test's directory is gone,
/// so a failed test leaves no task behind.
std::string gated_step(const std::string& runs, const std::string& started, const std::string& gate,
                       int code) {
  auto dir = gate.substr(0, gate.rfind('/'));
  return "'echo ran >> " + runs + "; echo before; touch " + started + "; while [ ! -e " + gate +
         " ] && [ -d " + dir + " ]; do sleep 0.2; done; echo after; exit " + std::to_string(code) +
         "'";
}

/// How many lines of `text` are exactly `line`.
size_t lines_equal(const std::string& text, const std::string& line) {
  auto all = lines_of(text);
  return static_cast<size_t>(std::count(all.begin(), all.end(), line));
}

/// Two nodes; MessageTimeout shorter than the gap; finished jobs kept 12 s, so that `batch
/// --wait` polls every 8 s instead of 32.
struct restartable_controller : cluster_fixture {
  restartable_controller()
      : cluster_fixture(2,
                        "HeartBeatInterval=0.5\nSlurmdTimeout=30\nMessageTimeout=4\n"
                        "MinJobAge=12\n") {}

  /// kill -9 of shoalctld, `controller_gap` with none, then the same shoalctld again; true once
  /// it answers.
  bool crash_and_restart() {
    cluster.signal_controller(SIGKILL);
    std::this_thread::sleep_for(controller_gap);
    auto err = cluster.restart_controller();
    BOOST_REQUIRE_MESSAGE(!err, "restart failed");
    return wait_until([&] { return run_cli({"queue"}).exit_code == 0; }, 30s);
  }

  bool has_file(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

  /// The restarted controller has heard from `node`'s daemon again (it holds a job).
  bool node_back(const std::string& node) {
    return wait_until(
        [&] {
          auto state = node_state(node);
          return state == "ALLOCATED" || state == "MIXED";
        },
        30s);
  }

  std::string job_output(uint64_t id) {
    return read_file(scratch.file("shoal-" + std::to_string(id) + ".out"));
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(clients_ride_through_restart, restartable_controller)

BOOST_AUTO_TEST_CASE(a_batch_scripts_step_finishes_across_a_controller_restart) {
  auto gate = scratch.file("gate");
  auto started = scratch.file("started");
  auto runs = scratch.file("runs");
  auto id =
      submit_script("steps.sh", "#!/bin/sh\n" + bin_path("shoal") + " run -N1 sh -c " +
                                    gated_step(runs, started, gate, 3) + "\necho \"step rc=$?\"\n");
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_until([&] { return has_file(started); }, 30s));
  // The step's output reaches its client through the controller: a line still on its way when
  // the controller dies is lost with it (a loaded machine showed it). The crash comes once
  // "before" is in the job's output, so what follows is the step finishing across the restart.
  BOOST_REQUIRE_MESSAGE(wait_until([&] { return lines_equal(job_output(id), "before") == 1; }, 30s),
                        job_output(id));
  BOOST_REQUIRE(crash_and_restart());
  // The step's client says so in the job's output once it has its step back.
  BOOST_REQUIRE_MESSAGE(
      wait_until([&] { return job_output(id).find("reattached") != std::string::npos; }, 30s),
      job_output(id));
  BOOST_CHECK(node_back("node1"));
  write_file(gate, "open\n");
  BOOST_CHECK_MESSAGE(wait_job_state(id, "COMPLETED", 30s), job_state(id)
                                                                << ": " << job_output(id));
  auto out = job_output(id);
  BOOST_CHECK_MESSAGE(lines_equal(out, "before") == 1, out);
  BOOST_CHECK_MESSAGE(lines_equal(out, "after") == 1, out);
  BOOST_CHECK_MESSAGE(count_lines_with(out, "step rc=3") == 1, out);
  BOOST_CHECK_MESSAGE(count_lines_with(out, "error") == 0, out);
  BOOST_CHECK_EQUAL(count_lines_with(read_file(runs), "ran"), 1u);
}

BOOST_AUTO_TEST_CASE(batch_wait_reports_the_real_exit_across_a_controller_restart) {
  auto gate = scratch.file("gate");
  auto started = scratch.file("started");
  auto runs = scratch.file("runs");
  auto script = write_file(scratch.file("wait.sh"),
                           "#!/bin/sh\n" + bin_path("shoal") + " run -N1 sh -c " +
                               gated_step(runs, started, gate, 5) + "\nexit $?\n",
                           true);
  command_options opt;
  opt.timeout = 120s;
  auto waiting = start_cli({"batch", "--wait", script}, opt);
  BOOST_REQUIRE(wait_until([&] { return has_file(started); }, 30s));
  BOOST_REQUIRE(crash_and_restart());
  BOOST_REQUIRE(wait_until(
      [&] {
        for (auto& j : jobs())
          if (read_file(scratch.file("shoal-" + std::to_string(j.value("job_id", 0)) + ".out"))
                  .find("reattached") != std::string::npos)
            return true;
        return false;
      },
      30s));
  BOOST_CHECK(node_back("node1"));
  write_file(gate, "open\n");
  auto r = waiting->finish();
  BOOST_CHECK_MESSAGE(r.exit_code == 5, r.describe());
  auto id = submitted_job_id(r.out);
  auto record = job(id);
  BOOST_REQUIRE_MESSAGE(record.is_object(), "job " << id << " is not listed");
  BOOST_CHECK_EQUAL(record.value("state", ""), "FAILED");
  BOOST_CHECK_EQUAL(record.value("exit_code", -1), 5);
  BOOST_CHECK_EQUAL(count_lines_with(read_file(runs), "ran"), 1u);
}

BOOST_AUTO_TEST_CASE(an_allocation_and_its_step_ride_through_a_controller_restart) {
  auto gate = scratch.file("gate");
  auto started = scratch.file("started");
  auto runs = scratch.file("runs");
  auto shoal = bin_path("shoal");
  // A step across the restart, then a step started after it.
  auto step_err = scratch.file("step.err");
  auto command = shoal + " run -N1 sh -c " + gated_step(runs, started, gate, 4) + " 2>" + step_err +
                 "; echo \"step rc=$?\"; " + shoal + " run -N2 echo later";
  command_options opt;
  opt.timeout = 120s;
  auto alloc = start_cli({"alloc", "-N2", "-J", "held", "sh", "-c", command}, opt);
  BOOST_REQUIRE(wait_until([&] { return has_file(started); }, 30s));
  BOOST_REQUIRE(crash_and_restart());
  BOOST_REQUIRE_MESSAGE(
      wait_until([&] { return read_file(step_err).find("reattached") != std::string::npos; }, 30s),
      read_file(step_err));
  BOOST_CHECK(node_back("node1"));
  BOOST_CHECK(node_back("node2"));
  write_file(gate, "open\n");
  auto r = alloc->finish();
  BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_MESSAGE(lines_equal(r.out, "before") == 1, r.describe());
  BOOST_CHECK_MESSAGE(lines_equal(r.out, "after") == 1, r.describe());
  BOOST_CHECK_MESSAGE(count_lines_with(r.out, "step rc=4") == 1, r.describe());
  BOOST_CHECK_MESSAGE(count_lines_with(r.out, "later") == 2, r.describe());
  BOOST_CHECK_MESSAGE(count_lines_with(r.err, "reattached to job allocation") == 1, r.describe());
  BOOST_CHECK_EQUAL(count_lines_with(read_file(runs), "ran"), 1u);
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

/// A primary and a backup controller, node1 and node2 with a shoald each (their spool is the
/// pair's own: the default one is shared with every cluster on the host).
struct backup_and_two_nodes : controller_pair {
  backup_and_two_nodes()
      : controller_pair(
            "NodeName=node[1-2] NodeAddr=127.0.0.1\n"
            "PartitionName=debug Nodes=node[1-2] Default=YES MaxTime=INFINITE\n",
            2, {{"node1", {"-N", "node1"}}, {"node2", {"-N", "node2"}}}) {}
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(clients_ride_through_takeover, backup_and_two_nodes)

BOOST_AUTO_TEST_CASE(a_batch_scripts_step_finishes_across_a_takeover_and_the_hand_back) {
  BOOST_REQUIRE_MESSAGE(wait_until([&] { return nodes_idle(); }, 60s), "the cluster never came up");
  auto gate = dir.file("gate");
  auto started = dir.file("started");
  auto runs = dir.file("runs");
  auto script = write_file(dir.file("steps.sh"),
                           "#!/bin/sh\n" + bin_path("shoal") + " run -N1 sh -c " +
                               gated_step(runs, started, gate, 3) + "\necho \"step rc=$?\"\n",
                           true);
  auto r = shoal({"batch", "-N1", script});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto id = submitted_job_id(r.out);
  auto output = [&] { return read_file(dir.file("shoal-" + std::to_string(id) + ".out")); };
  BOOST_REQUIRE(wait_until([&] { return ::access(started.c_str(), F_OK) == 0; }, 30s));

  primary->kill_now();
  BOOST_REQUIRE(wait_for_log("ctl2.log", "controller in control role=backup"));
  auto reattached = [&](size_t times) {
    return wait_until([&] { return count_lines_with(output(), "reattached") >= times; },
                      takeover_bound);
  };
  BOOST_REQUIRE_MESSAGE(reattached(1), output());
  // The primary comes back and takes control from the backup: the client follows again.
  start_primary();
  BOOST_REQUIRE(wait_for_log("ctl1-2.log", "controller in control role=primary"));
  BOOST_REQUIRE_MESSAGE(reattached(2), output());
  BOOST_CHECK(wait_until(
      [&] {
        return count_lines_with(read_file(dir.file("node1.log")),
                                "registered node=node1 controller=ctl1 at") >= 2;
      },
      takeover_bound));
  write_file(gate, "open\n");
  BOOST_CHECK_MESSAGE(wait_until([&] { return state_of(id) == "COMPLETED"; }, 30s),
                      state_of(id) << ": " << output());
  auto out = output();
  BOOST_CHECK_MESSAGE(lines_equal(out, "before") == 1, out);
  BOOST_CHECK_MESSAGE(lines_equal(out, "after") == 1, out);
  BOOST_CHECK_MESSAGE(count_lines_with(out, "step rc=3") == 1, out);
  BOOST_CHECK_EQUAL(count_lines_with(read_file(runs), "ran"), 1u);
}

BOOST_AUTO_TEST_SUITE_END()
