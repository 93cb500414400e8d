// Faults together (issue 31): a primary and a backup shoalctld with collectors gathering the
// heartbeats of simulated nodes. Each fault alone was covered; these cover them combined.

#include <boost/test/unit_test.hpp>

#include <map>
#include <string>
#include <vector>

#include "test/integration/controller_pair.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// node1..node40, simulated, in two front-end shoald (node1..20 and node21..40); node1, node11,
/// node21 and node31 collect the others' heartbeats.
struct collectors_and_backup : controller_pair {
  collectors_and_backup()
      : controller_pair(
            "NodeName=node[1-40] NodeAddr=127.0.0.1\n"
            "PartitionName=debug Nodes=node[1-40] Default=YES MaxTime=INFINITE\n"
            "CollectorNodes=node[1,11,21,31]\n",
            40,
            {{"fe1", {"--nodes", "node[1-20]", "--simulate"}},
             {"fe2", {"--nodes", "node[21-40]", "--simulate"}}}) {}

  /// `control show collectors --json`: name -> state.
  std::map<std::string, std::string> collectors() {
    std::map<std::string, std::string> out;
    auto doc = parse_json(shoal({"control", "show", "collectors", "--json"}).out);
    if (doc.is_object())
      for (auto& c : doc.value("collectors", nlohmann::json::array()))
        out[c.value("name", "")] = c.value("state", "");
    return out;
  }

  bool collectors_up() {
    auto all = collectors();
    if (all.size() != 4) return false;
    for (auto& [name, state] : all)
      if (state != "UP") return false;
    return true;
  }

  /// Submits a one-node job of `sleep seconds` on `node`; its id.
  uint64_t sleep_on(const std::string& node, int seconds) {
    auto r = shoal({"batch", "-N1", "-w", node, "--wrap", "sleep " + std::to_string(seconds)});
    BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
    return submitted_job_id(r.out);
  }

  /// No daemon's log shows CAF's last words about a message it had no handler for.
  void check_no_unexpected_message() {
    std::vector<std::string> logs{"ctl1-1.log", "ctl1-2.log", "ctl2.log"};
    logs.insert(logs.end(), node_logs.begin(), node_logs.end());
    for (auto& log : logs) BOOST_CHECK_MESSAGE(!log_has(log, "*** unexpected message"), log);
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(faults_together, collectors_and_backup)

BOOST_AUTO_TEST_CASE(jobs_and_collectors_ride_through_a_takeover_and_the_hand_back) {
  BOOST_REQUIRE_MESSAGE(wait_until([&] { return nodes_idle() && collectors_up(); }, 60s),
                        "the cluster never came up");
  // Ten one-node jobs that outlast the takeover and the hand-back (a simulated sleep takes its
  // seconds), spread over both front ends' nodes.
  std::vector<uint64_t> jobs;
  for (int i = 0; i < 10; ++i) {
    auto r = shoal({"batch", "-N1", "--wrap", "sleep 25"});
    BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
    jobs.push_back(submitted_job_id(r.out));
  }
  for (auto id : jobs) BOOST_REQUIRE(wait_until([&] { return state_of(id) == "RUNNING"; }, 30s));

  primary->kill_now();
  BOOST_REQUIRE(wait_for_log("ctl2.log", "controller in control role=backup"));
  BOOST_CHECK(wait_until([&] { return collectors_up(); }, takeover_bound));
  start_primary();
  BOOST_REQUIRE(wait_for_log("ctl1-2.log", "controller in control role=primary"));

  // Every job ends once, as it would have without the faults; no node that kept beating went
  // DOWN; every front end still serves its nodes and every collector gathers again.
  for (auto id : jobs)
    BOOST_CHECK_MESSAGE(wait_until([&] { return state_of(id) == "COMPLETED"; }, 90s),
                        "job " << id << " is " << state_of(id));
  BOOST_CHECK(wait_until([&] { return nodes_idle(); }, takeover_bound));
  BOOST_CHECK(wait_until([&] { return collectors_up(); }, takeover_bound));
  for (size_t i = 0; i < nodes.size(); ++i)
    BOOST_CHECK_MESSAGE(nodes[i]->running(), node_logs[i] << ": the front end stopped");
  check_no_unexpected_message();
}

BOOST_AUTO_TEST_CASE(a_front_end_killed_with_the_primary_costs_only_its_own_nodes) {
  BOOST_REQUIRE_MESSAGE(wait_until([&] { return nodes_idle() && collectors_up(); }, 60s),
                        "the cluster never came up");
  std::vector<uint64_t> on_fe1, on_fe2;
  for (int i = 2; i <= 4; ++i) on_fe1.push_back(sleep_on("node" + std::to_string(i), 15));
  for (int i = 22; i <= 24; ++i) on_fe2.push_back(sleep_on("node" + std::to_string(i), 15));
  for (auto id : on_fe1) BOOST_REQUIRE(wait_until([&] { return state_of(id) == "RUNNING"; }, 30s));
  for (auto id : on_fe2) BOOST_REQUIRE(wait_until([&] { return state_of(id) == "RUNNING"; }, 30s));

  // fe2 (two collectors and their nodes) dies with the primary, before the backup takes over.
  primary->kill_now();
  nodes[1]->kill_now();
  BOOST_REQUIRE(wait_for_log("ctl2.log", "controller in control role=backup"));
  // fe1's jobs finish as if nothing happened; fe2's nodes go DOWN and their jobs leave RUNNING.
  for (auto id : on_fe1)
    BOOST_CHECK_MESSAGE(wait_until([&] { return state_of(id) == "COMPLETED"; }, 60s),
                        "job " << id << " is " << state_of(id));
  for (auto id : on_fe2)
    BOOST_CHECK_MESSAGE(wait_until([&] { return state_of(id) != "RUNNING"; }, 60s),
                        "job " << id << " is " << state_of(id));

  // fe2 and the primary return: every node is IDLE again, every collector UP, and each of fe2's
  // jobs ends once (requeued and run again, or failed with its node).
  nodes[1] = std::make_unique<daemon_process>(
      std::vector<std::string>{bin_path("shoald"), "-f", conf, "--nodes", "node[21-40]",
                               "--simulate"},
      dir.file("fe2-again.log"));
  node_logs.push_back("fe2-again.log");
  start_primary();
  BOOST_REQUIRE(wait_for_log("ctl1-2.log", "controller in control role=primary"));
  for (auto id : on_fe2)
    BOOST_CHECK_MESSAGE(wait_until(
                            [&] {
                              auto state = state_of(id);
                              return state == "COMPLETED" || state == "NODE_FAIL";
                            },
                            90s),
                        "job " << id << " is " << state_of(id));
  BOOST_CHECK(wait_until([&] { return nodes_idle(); }, takeover_bound));
  BOOST_CHECK(wait_until([&] { return collectors_up(); }, takeover_bound));
  for (auto id : on_fe1) BOOST_CHECK_EQUAL(state_of(id), "COMPLETED");
  BOOST_CHECK(nodes[0]->running());
  check_no_unexpected_message();
}

BOOST_AUTO_TEST_SUITE_END()
