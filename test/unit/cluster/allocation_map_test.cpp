// The allocation map's part in generic resources: the kinds a --gres needs, which devices each
// start takes, and the devices a recovered job names coming back as the same ones.

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "cluster/allocation_map.hpp"
#include "config/config.hpp"
#include "messages/errc.hpp"
#include "policy/gres.hpp"

using namespace shoal;

namespace {

/// n1: gpu:a100:1 then gpu:v100:2 (devices 0, 1, 2; gpu indices 0, 1, 2); n2: nothing.
config::cluster_config gpu_config() {
  auto cfg = config::parse_config(
      "SelectType=select/cons_tres\nGresTypes=gpu\n"
      "NodeName=n1 CPUs=8 Gres=gpu:a100:1,gpu:v100:2\nNodeName=n2 CPUs=8\n"
      "PartitionName=p Nodes=n[1-2] Default=YES\n",
      "test.conf", "");
  BOOST_REQUIRE_MESSAGE(cfg, (cfg ? std::string{} : describe(cfg.error())));
  return std::move(*cfg);
}

/// A --gres request as the controller parses it at submission.
policy::gres_list needs(const std::string& text) {
  auto parsed = policy::parse_gres_request(text);
  BOOST_REQUIRE(parsed);
  return *parsed;
}

policy::pending_job job(const cluster::allocation_map& map, uint64_t id, const std::string& gres) {
  policy::pending_job j;
  j.id = id;
  j.time_limit = 60;
  j.request.gres = map.gres_needs(needs(gres));
  return j;
}

std::vector<uint32_t> indices_of(const std::vector<msg::gres_held>& held) {
  BOOST_REQUIRE_EQUAL(held.size(), 1u);
  BOOST_CHECK_EQUAL(held[0].name, "gpu");
  return held[0].indices;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(allocation_map_gres)

BOOST_AUTO_TEST_CASE(starts_take_the_lowest_free_devices_of_their_kinds) {
  auto cfg = gpu_config();
  cluster::allocation_map map{cfg};
  map.node_changed("n1", msg::node_state::idle, 0, 0);
  map.node_changed("n2", msg::node_state::idle, 0, 0);
  BOOST_REQUIRE_EQUAL(map.capacity_of(0).gres.size(), 2u);
  BOOST_CHECK_EQUAL(map.gres_needs(needs("gpu:v100:1"))[0].kinds.size(), 1u);
  BOOST_CHECK_EQUAL(map.gres_needs(needs("gpu:2"))[0].kinds.size(), 2u);
  auto placed = map.place({job(map, 1, "gpu:v100:1"), job(map, 2, "gpu:a100:2"), job(map, 3, "")},
                          {}, {}, 1000);
  const auto& started = placed.result.started;
  BOOST_REQUIRE_EQUAL(started.size(), 2u);  // no node has two a100s
  BOOST_CHECK_EQUAL(started[0].job, 1u);
  BOOST_CHECK((started[0].alloc[0].devices == std::vector<uint32_t>{1}));
  BOOST_CHECK(
      (indices_of(map.held_of(0, started[0].alloc[0].devices)) == std::vector<uint32_t>{1}));
  BOOST_CHECK_EQUAL(started[1].job, 3u);
  BOOST_CHECK(started[1].alloc[0].devices.empty());
  // With job 1 running, the next gpu:2 takes devices 0 and 2.
  std::vector<policy::running_job> running{{1, started[0].alloc, 1060, {}}};
  auto next = map.place({job(map, 4, "gpu:2")}, {}, running, 1001);
  BOOST_REQUIRE_EQUAL(next.result.started.size(), 1u);
  const auto& share = next.result.started[0].alloc[0];
  BOOST_CHECK((share.devices == std::vector<uint32_t>{0, 2}));
  BOOST_CHECK((indices_of(map.held_of(0, share.devices)) == std::vector<uint32_t>{0, 2}));
}

BOOST_AUTO_TEST_CASE(a_recovered_jobs_indices_name_the_same_devices) {
  auto cfg = gpu_config();
  cluster::allocation_map map{cfg};
  auto [devices, per_kind] = map.devices_of(0, {{0, "gpu", {0, 2}}, {0, "gpu", {7}}});
  BOOST_CHECK((devices == std::vector<uint32_t>{0, 2}));  // index 7 is not there any more
  BOOST_CHECK((per_kind == std::vector<uint32_t>{1, 1}));
  BOOST_CHECK((indices_of(map.held_of(0, devices)) == std::vector<uint32_t>{0, 2}));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(allocation_map_switch)

/// Five nodes, n2 down: a two-node job takes n1 and n3 by first fit, n3 and n4 by consecutive
/// best fit.
std::vector<std::string> two_nodes_placed(const std::string& config_lines, bool exclusive = false) {
  auto cfg = config::parse_config(config_lines +
                                      "NodeName=n[1-5] CPUs=1\n"
                                      "PartitionName=p Nodes=n[1-5] Default=YES\n",
                                  "test.conf", "");
  BOOST_REQUIRE_MESSAGE(cfg, (cfg ? std::string{} : describe(cfg.error())));
  cluster::allocation_map map{*cfg};
  for (auto* name : {"n1", "n3", "n4", "n5"}) map.node_changed(name, msg::node_state::idle, 0, 0);
  map.node_changed("n2", msg::node_state::down, 0, 0);
  policy::pending_job j;
  j.id = 1;
  j.time_limit = 60;
  j.request.min_nodes = 2;
  j.request.tasks = 2;
  j.request.exclusive = exclusive;
  auto placed = map.place({j}, {}, {}, 1000);
  BOOST_REQUIRE_EQUAL(placed.result.started.size(), 1u);
  std::vector<std::string> names;
  for (auto& share : placed.result.started[0].alloc) names.push_back(map.name_of(share.node));
  return names;
}

BOOST_AUTO_TEST_CASE(switch_elan_places_whole_nodes_by_consecutive_best_fit) {
  BOOST_CHECK(
      (two_nodes_placed("SelectType=select/linear\n") == std::vector<std::string>{"n1", "n3"}));
  BOOST_CHECK((two_nodes_placed("SelectType=select/linear\nSwitchType=switch/elan\n") ==
               std::vector<std::string>{"n3", "n4"}));
  // cons_tres: --exclusive jobs too.
  BOOST_CHECK((two_nodes_placed("SelectType=select/cons_tres\n", true) ==
               std::vector<std::string>{"n1", "n3"}));
  BOOST_CHECK((two_nodes_placed("SelectType=select/cons_tres\nSwitchType=switch/elan\n", true) ==
               std::vector<std::string>{"n3", "n4"}));
}

BOOST_AUTO_TEST_SUITE_END()

// A reconfigure's nodes: a new one is placed on once it reports idle; a removed one never again,
// and its index is not reused (the scheduler's node list keeps its place).
BOOST_AUTO_TEST_SUITE(allocation_map_reconfigure)

BOOST_AUTO_TEST_CASE(added_nodes_come_last_and_removed_ones_are_never_placed_on) {
  auto cfg = gpu_config();
  cluster::allocation_map map{cfg};
  auto fresh = config::parse_config(
      "SelectType=select/cons_tres\nGresTypes=gpu\n"
      "NodeName=n1 CPUs=8 Gres=gpu:a100:1,gpu:v100:2\nNodeName=n3 CPUs=4 Gres=gpu:v100:1\n"
      "PartitionName=p Nodes=n[1,3] Default=YES\n",
      "test.conf", "");
  BOOST_REQUIRE(fresh);
  map.node_changed("n2", msg::node_state::idle, 0, 0);
  map.take_nodes(fresh->nodes);
  BOOST_TEST(!map.index_of("n2"));
  BOOST_REQUIRE(map.index_of("n3"));
  BOOST_TEST(*map.index_of("n3") == 2u);
  BOOST_TEST(map.capacity_of(2).cpus == 4u);
  BOOST_TEST(map.capacity_of(2).gres == (std::vector<uint32_t>{0, 1}),
             boost::test_tools::per_element());
  map.set_partition(0, &fresh->partitions[0]);
  // n2 reporting idle again changes nothing: it is no node of the cluster now.
  BOOST_TEST(!map.node_changed("n2", msg::node_state::idle, 0, 0));
  auto none = map.place({job(map, 1, "")}, {}, {}, 1000);
  BOOST_TEST(none.result.started.empty());
  map.node_changed("n3", msg::node_state::idle, 0, 0);
  auto placed = map.place({job(map, 2, "gpu:v100:1")}, {}, {}, 1001);
  BOOST_REQUIRE_EQUAL(placed.result.started.size(), 1u);
  BOOST_TEST(placed.result.started[0].alloc[0].node == 2u);
  BOOST_TEST(placed.nodelists.at(2) == "n3");
  auto view = map.view();
  BOOST_TEST(view.nodes.size() == 2u);  // n1 and n3: the removed n2 is not drawn
}

BOOST_AUTO_TEST_SUITE_END()
