// `shoal info`'s default view from the controller's grouping (topology::summarize_partitions)
// must print exactly what the CLI prints from every node's record.

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "messages/errc.hpp"
#include "tools/format/listing.hpp"
#include "topology/partition_summary.hpp"

using namespace shoal;

namespace {

struct cluster {
  std::vector<msg::partition_info> parts;
  std::vector<msg::node_info> nodes;

  cluster() {
    auto state_of = [](int i) {
      if (i % 7 == 0) return msg::node_state::down;
      if (i % 3 == 0) return msg::node_state::allocated;
      return msg::node_state::idle;
    };
    msg::partition_info all;
    all.name = "batch";
    all.is_default = true;
    msg::partition_info small;
    small.name = "debug";
    small.max_time_s = 3600;
    for (int i = 1; i <= 40; ++i) {
      msg::node_info n;
      n.name = "n" + std::to_string(i);
      n.state = state_of(i);
      if (i != 40) nodes.push_back(n);  // n40 never reported: unknown
      all.nodes.push_back(n.name);
      if (i <= 10) small.nodes.push_back(n.name);
    }
    msg::partition_info empty;
    empty.name = "empty";
    empty.state = "DOWN";
    parts = {all, small, empty};
  }

  std::vector<msg::partition_summary> summary() const {
    return topology::summarize_partitions(parts, [this](const std::string& name) {
      for (auto& n : nodes)
        if (n.name == name) return n.state;
      return msg::node_state::unknown;
    });
  }
};

std::string text(const shoal::expected<std::string>& r) {
  BOOST_REQUIRE_MESSAGE(static_cast<bool>(r), (r ? std::string{} : describe(r.error())));
  return *r;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(partition_summary)

BOOST_AUTO_TEST_CASE(groups_follow_first_appearance_and_leave_the_node_lists_out) {
  cluster c;
  auto sums = c.summary();
  BOOST_REQUIRE_EQUAL(sums.size(), 3u);
  BOOST_TEST(sums[0].partition.nodes.empty());
  BOOST_REQUIRE_EQUAL(sums[0].groups.size(), 4u);
  BOOST_TEST((sums[0].groups[0].state == msg::node_state::idle));
  BOOST_TEST((sums[0].groups[1].state == msg::node_state::allocated));
  BOOST_TEST((sums[0].groups[2].state == msg::node_state::down));
  BOOST_TEST((sums[0].groups[3].state == msg::node_state::unknown));
  BOOST_TEST(sums[0].groups[2].nodes == "n[7,14,21,28,35]");
  BOOST_TEST(sums[0].groups[3].count == 1u);
  BOOST_TEST(sums[2].groups.empty());
}

BOOST_AUTO_TEST_CASE(the_table_is_the_same_from_the_summary_as_from_every_node) {
  cluster c;
  for (auto filters : std::vector<std::vector<std::string>>{
           {}, {"State=idle"}, {"Partition=debug"}, {"NodeList=n[1-5]"}, {"State=n/a"}}) {
    cli::listing_options opt;
    opt.filters = filters;
    auto full = text(cli::render_partitions(c.parts, c.nodes, opt));
    auto summarized = text(cli::render_partition_summary(c.summary(), opt));
    BOOST_TEST(summarized == full);
  }
}

BOOST_AUTO_TEST_SUITE_END()
