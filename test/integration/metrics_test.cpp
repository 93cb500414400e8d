// Metrics: /metrics of shoalctld and of a shoald scraped over real sockets while jobs run,
// parsed with shoal's Prometheus text parser; `shoal top` and `shoal diag`.

#include <signal.h>

#include <boost/test/unit_test.hpp>

#include <httplib.h>

#include <string>
#include <vector>

#include "messages/caf/error.hpp"
#include "metrics/text_parser.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;
using shoal::metrics::exposition;

namespace {

/// GET http://127.0.0.1:PORT/metrics and parse it; fails the test when either fails.
exposition scrape(uint16_t port) {
  httplib::Client client{"127.0.0.1", port};
  client.set_connection_timeout(5);
  client.set_read_timeout(10);
  auto res = client.Get("/metrics");
  BOOST_REQUIRE_MESSAGE(res, "no answer from 127.0.0.1:" << port << "/metrics");
  BOOST_REQUIRE_EQUAL(res->status, 200);
  BOOST_CHECK(res->get_header_value("Content-Type").find("version=0.0.4") != std::string::npos);
  auto parsed = shoal::metrics::parse_text(res->body);
  BOOST_REQUIRE_MESSAGE(parsed, "not Prometheus text: "
                                    << (parsed ? std::string{} : shoal::describe(parsed.error())));
  auto err = shoal::metrics::check_histograms(*parsed);
  BOOST_CHECK_MESSAGE(!err, (err ? shoal::describe(err) : std::string{}));
  return *parsed;
}

double value(const exposition& e, const std::string& name,
             const std::vector<std::pair<std::string, std::string>>& labels = {}) {
  return e.value(name, labels).value_or(-1);
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(metrics_endpoint, two_nodes)

BOOST_AUTO_TEST_CASE(controller_counters_move_while_jobs_run) {
  auto before = scrape(cluster.metrics_port());
  BOOST_CHECK_EQUAL(value(before, "shoal_actors_alive", {{"actor", "controller"}}), 1);
  BOOST_CHECK_EQUAL(value(before, "shoal_actors_alive", {{"actor", "node"}}), 2);
  BOOST_CHECK_EQUAL(value(before, "shoal_nodes", {{"state", "IDLE"}}), 2);
  BOOST_CHECK_GT(value(before, "shoal_start_time_seconds"), 0);
  auto handled_before =
      value(before, "shoal_actor_messages_total", {{"actor", "node"}, {"message", "heartbeat"}});

  auto id = submit_script("sleepy.sh", "#!/bin/sh\nsleep 2\n");
  BOOST_REQUIRE(id != 0);
  // While it runs, the controller says so.
  BOOST_CHECK(wait_until(
      [&] {
        auto now = scrape(cluster.metrics_port());
        return value(now, "shoal_jobs", {{"state", "RUNNING"}}) == 1 &&
               value(now, "shoal_actors_alive", {{"actor", "job"}}) == 1 &&
               value(now, "shoal_nodes", {{"state", "ALLOCATED"}}) == 1;
      },
      30s));
  auto r = run_cli({"run", "-N1", "true"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_REQUIRE(wait_job_state(id, "COMPLETED"));
  BOOST_CHECK(wait_until(
      [&] {
        auto now = scrape(cluster.metrics_port());
        return value(now, "shoal_jobs_finished_total", {{"state", "COMPLETED"}}) == 2 &&
               value(now, "shoal_actors_alive", {{"actor", "job"}}) == 0;
      },
      30s));
  auto after = scrape(cluster.metrics_port());
  BOOST_CHECK_EQUAL(value(after, "shoal_jobs_submitted_total"), 2);
  BOOST_CHECK_EQUAL(value(after, "shoal_jobs_started_total"), 2);
  BOOST_CHECK_EQUAL(value(after, "shoal_jobs", {{"state", "COMPLETED"}}), 2);
  BOOST_CHECK_GE(value(after, "shoal_scheduler_cycle_seconds_count"), 1);
  BOOST_CHECK_GE(value(after, "shoal_rpc_seconds_count", {{"type", "submit"}}), 2);
  BOOST_CHECK_GE(
      value(after, "shoal_actor_messages_total", {{"actor", "job"}, {"message", "start"}}), 2);
  // Heartbeats go straight to the node actors; the controller handles none.
  BOOST_CHECK_GT(
      value(after, "shoal_actor_messages_total", {{"actor", "node"}, {"message", "heartbeat"}}),
      handled_before);
  BOOST_CHECK_LE(value(after, "shoal_actor_messages_total",
                       {{"actor", "controller"}, {"message", "heartbeat"}}),
                 0);
  BOOST_CHECK_GE(value(after, "shoal_heartbeat_lag_seconds_count", {{"collector", "shoalctld"}}),
                 1);
}

BOOST_AUTO_TEST_CASE(each_shoald_serves_its_own_metrics) {
  auto& ports = cluster.node_metrics_ports();
  BOOST_REQUIRE_EQUAL(ports.size(), 2u);
  auto r = run_cli({"run", "-N2", "true"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  for (auto port : ports) {
    BOOST_CHECK(wait_until(
        [&] {
          auto e = scrape(port);
          return value(e, "shoal_actors_alive", {{"actor", "node_daemon"}}) == 1 &&
                 value(e, "shoal_actor_messages_total",
                       {{"actor", "node_daemon"}, {"message", "launch"}}) == 1 &&
                 value(e, "shoal_actors_alive", {{"actor", "shepherd"}}) == 0;
        },
        30s));
  }
}

BOOST_AUTO_TEST_CASE(each_shoald_serves_its_nodes_own_load_cpu_time_and_memory) {
  auto& ports = cluster.node_metrics_ports();
  BOOST_REQUIRE_EQUAL(ports.size(), 2u);
  for (size_t i = 0; i < ports.size(); ++i) {
    auto node = "node" + std::to_string(i + 1);
    // Read at each beat: there once the daemon has beaten.
    BOOST_CHECK_MESSAGE(
        wait_until(
            [&] {
              auto e = scrape(ports[i]);
              return value(e, "shoal_node_memory_bytes", {{"node", node}, {"kind", "total"}}) > 0 &&
                     value(e, "shoal_node_cpu_seconds", {{"node", node}, {"mode", "idle"}}) > 0 &&
                     value(e, "shoal_node_load", {{"node", node}, {"minutes", "1"}}) >= 0;
            },
            30s),
        node << "'s figures never appeared");
  }
}

BOOST_AUTO_TEST_CASE(top_once_json_lists_the_actor_types) {
  auto r = run_cli({"top", "--once", "--json", "-i", "0.5"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto j = parse_json(r.out);
  BOOST_REQUIRE_MESSAGE(j.is_object(), r.out);
  bool controller = false;
  for (auto& a : j["actors"]) {
    if (a["actor"] == "controller") {
      controller = true;
      BOOST_CHECK_EQUAL(a["alive"].get<double>(), 1);
      BOOST_CHECK_GT(a["messages"].get<double>(), 0);
    }
  }
  BOOST_CHECK_MESSAGE(controller, r.out);
  auto table = run_cli({"top", "-n", "1", "-i", "0.2", "-s", "messages"});
  BOOST_REQUIRE_MESSAGE(table.exit_code == 0, table.describe());
  BOOST_CHECK(table.out.find("ACTOR") != std::string::npos);
  BOOST_CHECK(table.out.find("controller") != std::string::npos);
  auto bad = run_cli({"top", "--once", "-s", "nonsense"});
  BOOST_CHECK_EQUAL(bad.exit_code, 2);
}

BOOST_AUTO_TEST_CASE(diag_reports_jobs_cycles_and_rpcs_and_resets) {
  auto r = run_cli({"run", "-N1", "true"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  nlohmann::json j;
  BOOST_CHECK(wait_until(
      [&] {
        auto d = run_cli({"diag", "--json"});
        j = parse_json(d.out);
        return d.exit_code == 0 && j.is_object() && j["jobs"]["completed"] == 1;
      },
      30s));
  BOOST_CHECK_EQUAL(j["jobs"]["submitted"].get<double>(), 1);
  BOOST_CHECK_GE(j["schedule"]["cycles"].get<double>(), 1);
  BOOST_CHECK_GE(j["uptime_seconds"].get<double>(), 0);
  bool submit = false;
  for (auto& t : j["rpcs_by_type"]) submit = submit || t["type"] == "submit";
  BOOST_CHECK_MESSAGE(submit, j.dump());
  BOOST_CHECK_MESSAGE(!j["rpcs_by_user"].empty(), j.dump());
  auto text = run_cli({"diag"});
  BOOST_REQUIRE_MESSAGE(text.exit_code == 0, text.describe());
  BOOST_CHECK(text.out.find("Main schedule statistics") != std::string::npos);
  BOOST_CHECK(text.out.find("\nJobs submitted: 1\n") != std::string::npos);
  auto reset = run_cli({"diag", "--reset"});
  BOOST_REQUIRE_MESSAGE(reset.exit_code == 0, reset.describe());
  auto after = parse_json(run_cli({"diag", "--json"}).out);
  BOOST_REQUIRE(after.is_object());
  BOOST_CHECK_EQUAL(after["jobs"]["submitted"].get<double>(), 0);
  BOOST_CHECK_EQUAL(after["schedule"]["cycles"].get<double>(), 0);
}

BOOST_AUTO_TEST_CASE(diag_names_each_user_once_and_counts_no_recovered_job_again) {
  auto r = run_cli({"run", "-N1", "true"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  // scancel carries only a uid; the submission carried the name: one user in the table.
  run_cli({"cancel", "999999"});
  auto j = parse_json(run_cli({"diag", "--json"}).out);
  BOOST_REQUIRE(j.is_object());
  std::vector<std::string> users;
  for (auto& u : j["rpcs_by_user"]) users.push_back(u["user"].get<std::string>());
  BOOST_CHECK_MESSAGE(users.size() == 1 && users[0].rfind("uid:", 0) != 0, j.dump());
  BOOST_CHECK_EQUAL(j["jobs"]["completed"].get<double>(), 1);
  // Slurm's counters begin with the controller: the recovered job has not completed again.
  cluster.signal_controller(SIGKILL);
  BOOST_REQUIRE(!cluster.restart_controller());
  BOOST_REQUIRE(wait_until([&] { return run_cli({"diag", "--json"}).exit_code == 0; }, 30s));
  auto after = parse_json(run_cli({"diag", "--json"}).out);
  BOOST_REQUIRE(after.is_object());
  BOOST_CHECK_EQUAL(after["jobs"]["completed"].get<double>(), 0);
  BOOST_CHECK_EQUAL(after["jobs"]["started"].get<double>(), 0);
}

BOOST_AUTO_TEST_SUITE_END()
