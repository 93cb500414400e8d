#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "tools/format/map.hpp"

using namespace shoal;

namespace {

/// A 2x2x3 torus: job 7 on x=0 y=0 (z 0-2), job 9 on (1,1,2); (1,0,0) down, (1,0,1) unknown.
msg::topology_view torus_view() {
  msg::topology_view v;
  v.select_type = "select/torus3d";
  v.dims = {2, 2, 3};
  for (uint32_t x = 0; x < 2; ++x)
    for (uint32_t y = 0; y < 2; ++y)
      for (uint32_t z = 0; z < 3; ++z) {
        msg::map_node n;
        n.name = "bgl" + std::to_string(x) + std::to_string(y) + std::to_string(z);
        n.coord = {x, y, z};
        n.state = msg::node_state::idle;
        if (x == 0 && y == 0) {
          n.job_id = 7;
          n.state = msg::node_state::allocated;
        }
        if (x == 1 && y == 1 && z == 2) n.job_id = 9;
        if (x == 1 && y == 0 && z == 0) n.state = msg::node_state::down;
        if (x == 1 && y == 0 && z == 1) n.state = msg::node_state::unknown;
        v.nodes.push_back(n);
      }
  v.allocations = {{7, "bgl[000x002]", 3, {0, 0, 0}, {1, 1, 3}, "mesh", "coprocessor"},
                   {9, "bgl112", 1, {1, 1, 2}, {1, 1, 1}, "torus", "virtual"}};
  return v;
}

std::vector<msg::job_info> jobs() {
  msg::job_info a;
  a.job_id = 7;
  a.user = "alice";
  a.partition = "debug";
  a.name = "relax";
  a.state = msg::job_state::running;
  return {a};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(map_rendering)

BOOST_AUTO_TEST_CASE(letters_run_upper_lower_digits_then_round_again) {
  BOOST_CHECK_EQUAL(cli::map_letter(0), 'A');
  BOOST_CHECK_EQUAL(cli::map_letter(25), 'Z');
  BOOST_CHECK_EQUAL(cli::map_letter(26), 'a');
  BOOST_CHECK_EQUAL(cli::map_letter(52), '0');
  BOOST_CHECK_EQUAL(cli::map_letter(62), 'A');
}

BOOST_AUTO_TEST_CASE(a_torus_draws_one_block_per_x_plane_and_a_legend) {
  auto text = cli::render_map(torus_view(), jobs());
  BOOST_CHECK_EQUAL(text,
                    "x=0  x=1\n"
                    "AAA  #?.\n"
                    "...  ..B\n"
                    "\n"
                    "ID JOBID PARTITION USER  NAME  ST NODES CONN  NODE_USE    NODELIST\n"
                    "A      7 debug     alice relax R      3 mesh  coprocessor bgl[000x002]\n"
                    "B      9 ?         ?     ?     ?      1 torus virtual     bgl112\n");
}

BOOST_AUTO_TEST_CASE(a_line_cluster_draws_fifty_nodes_per_row) {
  msg::topology_view v;
  v.select_type = "select/consecutive";
  for (int i = 1; i <= 52; ++i) {
    msg::map_node n;
    n.name = "n" + std::to_string(i);
    n.state = i == 52 ? msg::node_state::drained : msg::node_state::idle;
    n.job_id = i <= 2 ? 3 : 0;
    v.nodes.push_back(n);
  }
  v.allocations = {{3, "n[1-2]", 2, {}, {}, "", ""}};
  auto text = cli::render_map(v, {});
  auto first_row = "n1  AA" + std::string(48, '.') + "\n";
  BOOST_CHECK_EQUAL(text.substr(0, first_row.size()), first_row);
  BOOST_CHECK(text.find("n51 .#\n\n") != std::string::npos);
  BOOST_CHECK(text.find("A      3 ?         ?    ?    ?      2 n[1-2]\n") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(json_has_dims_nodes_with_letters_and_each_allocation) {
  auto doc = cli::map_json(torus_view(), jobs());
  BOOST_CHECK_EQUAL(doc["select_type"], "select/torus3d");
  BOOST_CHECK(doc["dims"] == nlohmann::json::array({2, 2, 3}));
  BOOST_REQUIRE_EQUAL(doc["nodes"].size(), 12u);
  BOOST_CHECK_EQUAL(doc["nodes"][0]["letter"], "A");
  BOOST_CHECK_EQUAL(doc["nodes"][6]["letter"], "#");
  BOOST_CHECK_EQUAL(doc["nodes"][6]["state"], "DOWN");
  BOOST_CHECK(doc["nodes"][11]["coord"] == nlohmann::json::array({1, 1, 2}));
  BOOST_REQUIRE_EQUAL(doc["jobs"].size(), 2u);
  auto& a = doc["jobs"][0];
  BOOST_CHECK_EQUAL(a["job_id"], 7);
  BOOST_CHECK_EQUAL(a["user"], "alice");
  BOOST_CHECK_EQUAL(a["nodelist"], "bgl[000x002]");
  BOOST_CHECK(a["size"] == nlohmann::json::array({1, 1, 3}));
  BOOST_CHECK_EQUAL(a["conn_type"], "mesh");
  BOOST_CHECK_EQUAL(doc["jobs"][1]["node_use"], "virtual");
}

BOOST_AUTO_TEST_SUITE_END()
