// Node administration: drain and resume through `shoal control update`, and a node that reports
// less than its configuration.

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "config/config.hpp"
#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// True when the job stays PENDING for about a second (a condition that must not change can
/// only be watched for a while).
bool stays_pending(cluster_fixture& c, uint64_t id) {
  return !wait_until([&] { return c.job_state(id) != "PENDING"; }, 1s);
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(drain_and_resume, two_nodes)

BOOST_AUTO_TEST_CASE(a_drained_node_shows_its_state_and_reason) {
  auto r =
      run_cli({"control", "update", "nodename=node1", "state=drain", "reason=disk maintenance"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_REQUIRE(wait_node_state("node1", "DRAINED", 10s));
  auto text = run_cli({"control", "show", "node", "node1"});
  BOOST_CHECK_MESSAGE(text.exit_code == 0, text.describe());
  BOOST_CHECK_MESSAGE(text.out.find("State=IDLE+DRAIN ") != std::string::npos, text.out);
  BOOST_CHECK_MESSAGE(text.out.find("Reason=disk maintenance") != std::string::npos, text.out);
  auto json = run_cli({"control", "show", "node", "node1", "--json"});
  auto doc = parse_json(json.out);
  BOOST_REQUIRE_MESSAGE(doc.is_object() && doc["nodes"].size() == 1, json.describe());
  BOOST_CHECK_EQUAL(doc["nodes"][0].value("state", ""), "DRAINED");
  BOOST_CHECK_EQUAL(doc["nodes"][0].value("reason", ""), "disk maintenance");
  BOOST_CHECK_EQUAL(node_state("node2"), "IDLE");
}

BOOST_AUTO_TEST_CASE(a_job_needing_a_drained_node_waits_until_it_is_resumed) {
  auto r = run_cli({"control", "update", "nodename=node1", "state=drain", "reason=maintenance"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_REQUIRE(wait_node_state("node1", "DRAINED", 10s));
  auto id = submit_script("wide.sh", "#!/bin/sh\necho wide\n", {"-N2"});
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_until([&] { return !job(id).value("reason", "").empty(); }, 10s));
  auto reason = job(id).value("reason", "");
  BOOST_CHECK_MESSAGE(reason == "Resources" || reason == "ReqNodeNotAvail", reason);
  BOOST_CHECK(stays_pending(*this, id));
  r = run_cli({"control", "update", "nodename=node1", "state=resume"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK(wait_job_state(id, "COMPLETED", 15s));
  BOOST_CHECK_EQUAL(job(id).value("nodelist", ""), "node[1-2]");
  BOOST_CHECK(wait_node_state("node1", "IDLE", 10s));
}

BOOST_AUTO_TEST_CASE(drain_without_a_reason_is_rejected) {
  auto r = run_cli({"control", "update", "nodename=node1", "state=drain"});
  BOOST_CHECK_MESSAGE(r.exit_code != 0 && !r.timed_out, r.describe());
  BOOST_CHECK_MESSAGE(count_lines_with(r.err, "reason") + count_lines_with(r.err, "Reason") >= 1,
                      r.describe());
  BOOST_CHECK_EQUAL(node_state("node1"), "IDLE");
}

BOOST_AUTO_TEST_CASE(draining_a_busy_node_waits_for_its_job_to_end) {
  // The job ends when the test says so: no timing guesses.
  auto go = scratch.file("go");
  auto id = submit_script("busy.sh", "#!/bin/sh\nwhile [ ! -e " + go + " ]; do sleep 0.1; done\n",
                          {"-w", "node1"});
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_job_state(id, "RUNNING"));
  auto r = run_cli({"control", "update", "nodename=node1", "state=drain", "reason=retire"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK(wait_node_state("node1", "DRAINING", 10s));
  BOOST_CHECK_EQUAL(job_state(id), "RUNNING");
  write_file(go, "");
  BOOST_CHECK(wait_job_state(id, "COMPLETED", 15s));
  BOOST_CHECK(wait_node_state("node1", "DRAINED", 10s));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(low_resources)

BOOST_AUTO_TEST_CASE(a_node_reporting_less_memory_than_configured_is_drained) {
  // local_cluster cannot give one node its own line (a second NodeName=node1 is a duplicate), so
  // this test writes the config and starts the daemons itself.
  scratch_dir dir;
  auto port = free_port();
  auto text = shoal::config::default_config_text(2, port);
  const std::string nodes_line = "NodeName=node[1-2] NodeAddr=127.0.0.1\n";
  auto at = text.find(nodes_line);
  BOOST_REQUIRE_MESSAGE(at != std::string::npos, text);
  text.replace(at, nodes_line.size(),
               "NodeName=node1 NodeAddr=127.0.0.1 RealMemory=99999999\n"
               "NodeName=node2 NodeAddr=127.0.0.1\n");
  text += "StateSaveLocation=" + dir.path() + "/state\nTmpFS=" + dir.path() + "\n";
  text += "SlurmdSpoolDir=" + dir.path() + "/spool\n" + test_auth_config();
  auto conf = write_file(dir.file("shoal.conf"), text);
  daemon_process ctld{{bin_path("shoalctld"), "-f", conf}, dir.file("shoalctld.log")};
  daemon_process node1{{bin_path("shoald"), "-f", conf, "--node-name", "node1"},
                       dir.file("shoald-node1.log")};
  daemon_process node2{{bin_path("shoald"), "-f", conf, "--node-name", "node2"},
                       dir.file("shoald-node2.log")};
  nlohmann::json seen;
  auto state_of = [&](const std::string& name) -> nlohmann::json {
    for (auto& n : seen)
      if (n.value("name", "") == name) return n;
    return nlohmann::json::object();
  };
  bool settled = wait_until(
      [&] {
        auto r = run_shoal(conf, {"info", "-N", "--json"});
        auto doc = parse_json(r.out);
        if (!doc.is_object()) return false;
        seen = doc["nodes"];
        return state_of("node1").value("state", "") == "DRAINED" &&
               state_of("node2").value("state", "") == "IDLE";
      },
      30s);
  BOOST_CHECK_MESSAGE(settled, "nodes: " << seen << "\nshoalctld.log:\n"
                                         << read_file(dir.file("shoalctld.log")));
  auto reason = state_of("node1").value("reason", "");
  BOOST_CHECK_MESSAGE(reason.rfind("Low RealMemory", 0) == 0, reason);
  BOOST_CHECK(ctld.running());
  if (!current_test_passed()) dir.keep();
}

BOOST_AUTO_TEST_SUITE_END()
