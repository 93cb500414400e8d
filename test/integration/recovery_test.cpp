// A controller that dies and comes back: every job it acknowledged is still there, running
// steps finish with their real exit codes, time limits hold across the gap, node states an
// admin set survive, and `shoalctld -c` starts cold.

#include <signal.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "messages/caf/error.hpp"
#include "runtime/bootstrap/temp_dir.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// Four nodes; partition `crash` runs up to five jobs on each (20 at once). Heartbeats every
/// half second, so a restarted controller hears from its daemons at once.
struct four_shared_nodes : cluster_fixture {
  four_shared_nodes()
      : cluster_fixture(4,
                        "HeartBeatInterval=0.5\nSlurmdTimeout=10\n"
                        "PartitionName=crash Nodes=node[1-4] OverSubscribe=FORCE:5\n") {}

  /// Kills shoalctld with SIGKILL and starts it again on the same state; true once it answers.
  bool crash_and_restart(const std::vector<std::string>& args = {}) {
    cluster.signal_controller(SIGKILL);
    auto err = cluster.restart_controller(args);
    BOOST_REQUIRE_MESSAGE(!err, "restart failed");
    return wait_until([&] { return run_cli({"queue"}).exit_code == 0; }, 30s);
  }

  /// id -> state of every job the controller lists.
  std::map<uint64_t, std::string> states() {
    std::map<uint64_t, std::string> out;
    for (auto& j : jobs()) out[j.value("job_id", uint64_t{0})] = j.value("state", "");
    return out;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(recovery, four_shared_nodes)

BOOST_AUTO_TEST_CASE(a_killed_controller_comes_back_with_every_job_and_running_ones_finish) {
  // 20 running (5 per node), each exiting with its id modulo 4 once the gate opens (after the
  // restart).
  auto gate = scratch.file("gate");
  std::vector<uint64_t> running;
  for (int i = 0; i < 20; ++i) {
    auto id = submit_script(
        "long.sh",
        "#!/bin/sh\nwhile [ ! -e " + gate + " ]; do sleep 0.2; done\nexit $((SHOAL_JOB_ID % 4))\n",
        {"-p", "crash", "-N1"});
    BOOST_REQUIRE(id != 0);
    running.push_back(id);
  }
  // 200 pending: 100 waiting for resources, 100 held by their owner.
  std::set<uint64_t> held;
  std::vector<uint64_t> waiting;
  for (int i = 0; i < 200; ++i) {
    bool hold = i % 2 == 0;
    std::vector<std::string> opts{"-p", "crash", "-N1"};
    if (hold) opts.push_back("-H");
    auto id = submit_script("short.sh", "#!/bin/sh\ntrue\n", opts);
    BOOST_REQUIRE(id != 0);
    if (hold)
      held.insert(id);
    else
      waiting.push_back(id);
  }
  BOOST_REQUIRE(wait_until(
      [&] {
        auto now = states();
        for (auto id : running)
          if (now[id] != "RUNNING") return false;
        return true;
      },
      30s));
  auto before = states();
  BOOST_REQUIRE_EQUAL(before.size(), 220u);
  auto last_id = before.rbegin()->first;

  BOOST_REQUIRE(crash_and_restart());

  auto after = states();
  BOOST_CHECK_EQUAL(after.size(), 220u);
  for (auto& [id, state] : before) {
    BOOST_REQUIRE_MESSAGE(after.count(id) == 1, "job " << id << " was lost");
    if (state == "RUNNING")
      BOOST_CHECK_MESSAGE(after[id] == "RUNNING",
                          "job " << id << " was RUNNING, now " << after[id]);
    else
      BOOST_CHECK_MESSAGE(after[id] == "PENDING",
                          "job " << id << " was PENDING, now " << after[id]);
  }
  for (auto id : held)
    BOOST_CHECK_MESSAGE(job(id).value("reason", "") == "JobHeldUser",
                        "job " << id << " lost its hold");

  // The running jobs end as their tasks did, after the restart.
  write_file(gate, "open\n");
  for (auto id : running) {
    auto want = id % 4 == 0 ? "COMPLETED" : "FAILED";
    BOOST_CHECK_MESSAGE(wait_job_state(id, want, 40s),
                        "job " << id << " is " << job_state(id) << ", wanted " << want);
    auto code = job(id).value("exit_code", -1);
    BOOST_CHECK_EQUAL(code, static_cast<int>(id % 4));
  }
  // The queued ones run once there is room; the held ones once released.
  for (auto id : waiting) BOOST_CHECK(wait_job_state(id, "COMPLETED", 60s));
  std::vector<std::string> release{"control", "release"};
  std::string list;
  for (auto id : held) list += (list.empty() ? "" : ",") + std::to_string(id);
  release.push_back(list);
  auto r = run_cli(release);
  BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
  for (auto id : held) BOOST_CHECK(wait_job_state(id, "COMPLETED", 60s));

  // Job ids carry on from where they were.
  auto next = submit_script("after.sh", "#!/bin/sh\ntrue\n", {"-p", "crash"});
  BOOST_CHECK_GT(next, last_id);
}

BOOST_AUTO_TEST_CASE(a_shoal_run_streams_across_a_controller_restart_and_exits_with_its_code) {
  command_options opt;
  opt.timeout = 90s;
  auto started = scratch.file("started");
  auto run = start_cli({"run", "-N1", "sh", "-c",
                        "touch " + started +
                            "; i=0; while [ $i -lt 40 ]; do echo line$i; i=$((i+1)); sleep 0.2; "
                            "done; exit 3"},
                       opt);
  // RUNNING is not enough: a crash while the launch is still on its way loses the step (the
  // restarted controller finds the node not running it). Wait until the task runs.
  BOOST_REQUIRE(wait_until([&] { return ::access(started.c_str(), F_OK) == 0; }, 30s));
  BOOST_REQUIRE(crash_and_restart());
  auto r = run->finish();
  BOOST_CHECK_MESSAGE(r.exit_code == 3, r.describe());
  // What the tasks print after the client reattached reaches it.
  BOOST_CHECK_MESSAGE(count_lines_with(r.out, "line39") == 1, r.describe());
  BOOST_CHECK_MESSAGE(count_lines_with(r.err, "reattached to job") == 1, r.describe());
}

BOOST_AUTO_TEST_CASE(a_time_limit_holds_across_the_controller_gap) {
  auto id = submit_script("forever.sh", "#!/bin/sh\nsleep 120\n", {"--time=0:06", "-N1"});
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_job_state(id, "RUNNING"));
  BOOST_REQUIRE(crash_and_restart());
  BOOST_CHECK_EQUAL(job_state(id), "RUNNING");
  BOOST_CHECK(wait_job_state(id, "TIMEOUT", 30s));
}

BOOST_AUTO_TEST_CASE(node_states_an_admin_set_survive_a_restart) {
  auto r = run_cli({"control", "update", "nodename=node2", "state=drain", "reason=fan broken"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  r = run_cli({"control", "update", "nodename=node3", "state=down", "reason=disk gone"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_REQUIRE(crash_and_restart());
  BOOST_CHECK(wait_node_state("node1", "IDLE", 15s));
  BOOST_CHECK(wait_node_state("node2", "DRAINED", 15s));
  BOOST_CHECK_EQUAL(node("node2").value("reason", ""), "fan broken");
  BOOST_CHECK_EQUAL(node_state("node3"), "DOWN");
  BOOST_CHECK_EQUAL(node("node3").value("reason", ""), "disk gone");
}

BOOST_AUTO_TEST_CASE(a_cold_start_forgets_the_saved_state_and_kills_unknown_tasks) {
  auto marker = scratch.file("should-not-exist");
  auto id = submit_script("late.sh", "#!/bin/sh\nsleep 4\ntouch " + marker + "\n", {"-N1"});
  BOOST_REQUIRE(id != 0);
  auto pending = submit_script("held.sh", "#!/bin/sh\ntrue\n", {"-H"});
  BOOST_REQUIRE(pending != 0);
  BOOST_REQUIRE(wait_job_state(id, "RUNNING"));
  BOOST_REQUIRE(crash_and_restart({"-c"}));
  BOOST_CHECK_EQUAL(jobs().size(), 0u);
  // The node daemon reported the step of a job this controller never heard of: killed.
  BOOST_CHECK(wait_until(
      [&] {
        return read_file(cluster.directory() + "/shoalctld.1.log")
                   .find("job unknown to the controller") != std::string::npos;
      },
      15s));
  // Long enough for the script to have reached its touch, had it lived.
  BOOST_CHECK(!wait_until([&] { return std::filesystem::exists(marker); }, 6s));
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

/// A private root for the pair of state directories StateSaveLocation=PRIMARY,SECONDARY names.
std::string fresh_state_root() {
  auto dir = shoal::runtime::make_temp_dir("shoal-state-it");
  BOOST_REQUIRE(dir);
  return *dir;
}

/// One node, state saved in two copies.
struct two_state_copies : cluster_fixture {
  inline static std::string root;
  two_state_copies()
      : cluster_fixture(1, "StateSaveLocation=" + (root = fresh_state_root()) + "/a," + root +
                               "/b\nHeartBeatInterval=0.5\nSlurmdTimeout=10\n") {}
  ~two_state_copies() { std::filesystem::remove_all(root); }

  /// The newest file named PREFIX.N in `dir`.
  static std::string newest(const std::string& dir, const std::string& prefix) {
    std::string best;
    uint64_t best_n = 0;
    for (auto& entry : std::filesystem::directory_iterator(dir)) {
      auto name = entry.path().filename().string();
      if (name.rfind(prefix + ".", 0) != 0) continue;
      auto n = std::strtoull(name.c_str() + prefix.size() + 1, nullptr, 10);
      if (best.empty() || n > best_n) {
        best = entry.path().string();
        best_n = n;
      }
    }
    return best;
  }

  bool restart_after_kill() {
    cluster.signal_controller(SIGKILL);
    BOOST_REQUIRE(!cluster.restart_controller());
    return wait_until([&] { return run_cli({"queue"}).exit_code == 0; }, 30s);
  }

  std::string latest_controller_log() {
    std::string last;
    for (unsigned k = 1; k < 10; ++k) {
      auto text = read_file(cluster.directory() + "/shoalctld." + std::to_string(k) + ".log");
      if (text.empty()) break;
      last = text;
    }
    return last;
  }
};

/// Flips every byte in [from, from + count) of `path`.
void damage(const std::string& path, std::streamoff from, size_t count) {
  std::fstream f{path, std::ios::in | std::ios::out | std::ios::binary};
  BOOST_REQUIRE(f);
  f.seekg(from);
  std::string bytes(count, '\0');
  f.read(bytes.data(), static_cast<std::streamsize>(count));
  for (auto& c : bytes) c = static_cast<char>(~c);
  f.seekp(from);
  f.write(bytes.data(), static_cast<std::streamsize>(count));
}

/// Where `path`'s data ends: past its last byte that is not zero (a journal's zeroed room after
/// its last batch is no data).
uintmax_t data_end(const std::string& path) {
  auto bytes = read_file(path);
  auto last = bytes.find_last_not_of('\0');
  return last == std::string::npos ? 0 : last + 1;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(recovery_files, two_state_copies)

BOOST_AUTO_TEST_CASE(a_corrupt_primary_snapshot_is_recovered_from_the_secondary) {
  std::vector<uint64_t> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(submit_script("held.sh", "#!/bin/sh\ntrue\n", {"-H"}));
  // A restart writes what it recovered as a new snapshot: the jobs are in it now.
  BOOST_REQUIRE(restart_after_kill());
  auto snapshot = newest(root + "/a", "snapshot");
  BOOST_REQUIRE(!snapshot.empty());
  auto size = std::filesystem::file_size(snapshot);
  BOOST_REQUIRE_GT(size, 64u);
  damage(snapshot, static_cast<std::streamoff>(size / 2), 16);
  BOOST_REQUIRE(restart_after_kill());
  for (auto id : ids) BOOST_CHECK_EQUAL(job_state(id), "PENDING");
  auto log = latest_controller_log();
  BOOST_CHECK_MESSAGE(log.find(snapshot) != std::string::npos,
                      "the damaged file is not named in the log");
}

BOOST_AUTO_TEST_CASE(a_journal_torn_in_its_last_record_keeps_everything_before) {
  std::vector<uint64_t> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(submit_script("held.sh", "#!/bin/sh\ntrue\n", {"-H"}));
  cluster.signal_controller(SIGKILL);
  // Both copies lose the tail of their last record, as a power cut mid-write would leave them.
  for (auto dir : {root + "/a", root + "/b"}) {
    auto journal = newest(dir, "journal");
    BOOST_REQUIRE(!journal.empty());
    std::filesystem::resize_file(journal, data_end(journal) - 5);
  }
  BOOST_REQUIRE(!cluster.restart_controller());
  BOOST_REQUIRE(wait_until([&] { return run_cli({"queue"}).exit_code == 0; }, 30s));
  // Every job but the last (whose records were torn) is back.
  for (size_t i = 0; i + 1 < ids.size(); ++i) BOOST_CHECK_EQUAL(job_state(ids[i]), "PENDING");
  BOOST_CHECK_MESSAGE(latest_controller_log().find("saved state:") != std::string::npos,
                      "the torn record is not reported");
}

BOOST_AUTO_TEST_SUITE_END()
