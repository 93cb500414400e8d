// Power saving's choices (cluster/power_plan.hpp): which idle nodes go down under SuspendTime and
// the exclusions, how the rates meter them, and ResumeProgram's file.

#include "cluster/power_plan.hpp"

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include "cluster/node_health.hpp"

namespace {

using shoal::cluster::nodes_to_suspend;
using shoal::cluster::power_node;
using shoal::msg::node_state;
using shoal::msg::power_state;

constexpr int64_t now = 10'000;

/// `count` nodes n1..nN, idle since `idle_for` seconds, SuspendTime 60, in partition "cloud".
std::vector<power_node> idle_nodes(size_t count, int64_t idle_for = 120) {
  std::vector<power_node> out;
  for (size_t i = 1; i <= count; ++i) {
    power_node n;
    n.name = "n" + std::to_string(i);
    n.state = node_state::idle;
    n.idle_since = now - idle_for;
    n.timing.suspend_time_s = 60;
    n.partitions = {"cloud"};
    out.push_back(n);
  }
  return out;
}

std::vector<std::string> names(const std::vector<power_node>& nodes,
                               const std::vector<size_t>& picked) {
  std::vector<std::string> out;
  for (auto i : picked) out.push_back(nodes[i].name);
  return out;
}

shoal::config::suspend_exclusion exclusion(std::vector<std::string> nodes, uint32_t count) {
  shoal::config::suspend_exclusion e;
  e.nodes = std::move(nodes);
  e.count = count;
  return e;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(power_plan)

BOOST_AUTO_TEST_CASE(idle_nodes_go_after_their_suspend_time_and_busy_ones_stay) {
  auto nodes = idle_nodes(4);
  nodes[1].idle_since = now - 30;  // idle for less than SuspendTime
  nodes[2].has_jobs = true;
  nodes[2].state = node_state::allocated;
  nodes[3].timing.suspend_time_s = shoal::config::suspend_never;  // INFINITE
  shoal::config::power_settings s;
  BOOST_TEST(names(nodes, nodes_to_suspend(nodes, s, now, 100)) == std::vector<std::string>{"n1"},
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(down_and_drained_idle_nodes_go_too_unless_their_state_is_excluded) {
  auto nodes = idle_nodes(4);
  nodes[0].state = node_state::down;
  nodes[1].state = node_state::drained;
  nodes[2].state = node_state::down;
  nodes[2].not_responding = true;
  nodes[3].cloud = true;
  shoal::config::power_settings s;
  BOOST_TEST(nodes_to_suspend(nodes, s, now, 100).size() == 4u);
  s.exc_states = {"DRAIN", "NOT_RESPONDING"};
  BOOST_TEST(
      names(nodes, nodes_to_suspend(nodes, s, now, 100)) == (std::vector<std::string>{"n1", "n4"}),
      boost::test_tools::per_element());
  s.exc_states = {"DOWN", "CLOUD"};
  BOOST_TEST(names(nodes, nodes_to_suspend(nodes, s, now, 100)) == std::vector<std::string>{"n2"},
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(excluded_nodes_and_partitions_stay_up) {
  auto nodes = idle_nodes(4);
  nodes[3].partitions = {"onprem"};
  shoal::config::power_settings s;
  s.exc_nodes = {exclusion({"n1", "n2"}, 0)};
  s.exc_parts = {"onprem"};
  BOOST_TEST(names(nodes, nodes_to_suspend(nodes, s, now, 100)) == std::vector<std::string>{"n3"},
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_count_keeps_that_many_usable_nodes_of_its_set_up) {
  // nid[1-5]:2 : of five usable nodes, three may go; two stay.
  auto nodes = idle_nodes(6);
  shoal::config::power_settings s;
  s.exc_nodes = {exclusion({"n1", "n2", "n3", "n4", "n5"}, 2)};
  BOOST_TEST(names(nodes, nodes_to_suspend(nodes, s, now, 100)) ==
                 (std::vector<std::string>{"n1", "n2", "n3", "n6"}),
             boost::test_tools::per_element());
  // Powered down already, n1 and n2 no longer count as usable: one more may go, not three.
  nodes[0].power = power_state::powered_down;
  nodes[1].power = power_state::powered_down;
  BOOST_TEST(
      names(nodes, nodes_to_suspend(nodes, s, now, 100)) == (std::vector<std::string>{"n3", "n6"}),
      boost::test_tools::per_element());
  // A DOWN node of the set is not what the count keeps: it goes.
  nodes[3].state = node_state::down;
  BOOST_TEST(
      names(nodes, nodes_to_suspend(nodes, s, now, 100)) == (std::vector<std::string>{"n4", "n6"}),
      boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(an_admins_power_down_ignores_timing_and_exclusions_but_waits_for_jobs) {
  auto nodes = idle_nodes(2, 0);
  nodes[0].down_asked = true;
  nodes[1].down_asked = true;
  nodes[1].has_jobs = true;
  nodes[1].state = node_state::allocated;
  shoal::config::power_settings s;
  s.exc_parts = {"cloud"};
  BOOST_TEST(names(nodes, nodes_to_suspend(nodes, s, now, 100)) == std::vector<std::string>{"n1"},
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(the_budget_caps_one_round) {
  auto nodes = idle_nodes(10);
  shoal::config::power_settings s;
  BOOST_TEST(nodes_to_suspend(nodes, s, now, 3).size() == 3u);
}

BOOST_AUTO_TEST_CASE(a_rate_allows_a_minutes_worth_then_refills_over_the_minute) {
  shoal::cluster::rate_limit unlimited{0, 0};
  BOOST_TEST(unlimited.available(0) == SIZE_MAX);
  shoal::cluster::rate_limit rate{60, 0};
  BOOST_TEST(rate.available(0) == 60u);
  rate.take(60);
  BOOST_TEST(rate.available(0) == 0u);
  BOOST_TEST(rate.available(10'000) == 10u);   // 10 s: ten nodes at 60 a minute
  BOOST_TEST(rate.available(600'000) == 60u);  // never more than a minute's worth
}

BOOST_AUTO_TEST_CASE(the_resume_file_is_the_guides_document_with_nulls_for_unset_texts) {
  shoal::cluster::resume_job a;
  a.job_id = 140814;
  a.features = "c1,c2";
  a.nodes_alloc = "cloud[1-4]";
  a.nodes_resume = "cloud[1-3]";
  a.oversubscribe = "OK";
  a.partition = "cloud";
  auto doc = nlohmann::json::parse(shoal::cluster::resume_file_json("cloud[1-3,7-8]", {a}));
  BOOST_TEST(doc["all_nodes_resume"] == "cloud[1-3,7-8]");
  BOOST_REQUIRE(doc["jobs"].size() == 1u);
  auto& j = doc["jobs"][0];
  BOOST_TEST(j["job_id"] == 140814);
  BOOST_TEST(j["features"] == "c1,c2");
  BOOST_TEST(j["nodes_alloc"] == "cloud[1-4]");
  BOOST_TEST(j["nodes_resume"] == "cloud[1-3]");
  BOOST_TEST(j["oversubscribe"] == "OK");
  BOOST_TEST(j["partition"] == "cloud");
  BOOST_TEST(j["reservation"].is_null());
  BOOST_TEST(j["extra"].is_null());
}

BOOST_AUTO_TEST_CASE(placement_skips_nodes_powering_down_or_asked_down_but_not_powered_down) {
  shoal::msg::node_info n;
  n.state = node_state::idle;
  n.power = power_state::powered_down;
  BOOST_CHECK(shoal::cluster::placement_state(n) == node_state::idle);
  n.power = power_state::powering_down;
  BOOST_CHECK(shoal::cluster::placement_state(n) == node_state::drained);
  n.power = power_state::on;
  n.power_down_asked = true;
  BOOST_CHECK(shoal::cluster::placement_state(n) == node_state::drained);
}

BOOST_AUTO_TEST_SUITE_END()
