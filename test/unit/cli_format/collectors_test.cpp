// `shoal control show collectors`: the table and its JSON.

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/format/listing.hpp"

using namespace shoal;

namespace {

msg::collector_info collector(std::string name, std::string state, uint32_t nodes,
                              int64_t last_report, int64_t round_ms) {
  msg::collector_info c;
  c.name = std::move(name);
  c.state = std::move(state);
  c.nodes = nodes;
  c.last_report = last_report;
  c.round_ms = round_ms;
  c.reports = 12;
  return c;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(collectors_listing)

BOOST_AUTO_TEST_CASE(one_aligned_line_per_collector_with_never_before_the_first_report) {
  ::setenv("TZ", "UTC", 1);
  ::tzset();
  auto text = cli::render_collectors({collector("node1", "UP", 1000, 1'700'000'000, 31'250),
                                      collector("node1001", "DOWN", 0, 1'699'999'000, 45'000),
                                      collector("node2001", "WAITING", 0, 0, 0)});
  BOOST_TEST(text ==
             "COLLECTOR STATE   NODES LAST_REPORT         ROUND_MS\n"
             "node1     UP       1000 2023-11-14T22:13:20    31250\n"
             "node1001  DOWN        0 2023-11-14T21:56:40    45000\n"
             "node2001  WAITING     0 Never                      -\n");
}

BOOST_AUTO_TEST_CASE(json_has_every_field) {
  auto j = cli::to_json(collector("node1", "UP", 7, 5, 9));
  BOOST_TEST(j.at("name") == "node1");
  BOOST_TEST(j.at("state") == "UP");
  BOOST_TEST(j.at("nodes") == 7);
  BOOST_TEST(j.at("last_report") == 5);
  BOOST_TEST(j.at("round_ms") == 9);
  BOOST_TEST(j.at("reports") == 12);
}

BOOST_AUTO_TEST_SUITE_END()
