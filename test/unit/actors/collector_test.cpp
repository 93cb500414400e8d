// A collector (the shoald side of heartbeat fan-in) under CAF's test coordinator: its rounds and
// the changes each report carries.

#include <boost/test/unit_test.hpp>

#include "actors/collector.hpp"
#include "test/unit/actors/coordinated.hpp"

namespace {

using namespace shoal;
using namespace std::chrono_literals;

/// The collector manager: the reports it received.
caf::behavior manager_double(caf::event_based_actor*, test::inbox<msg::collector_report> reports) {
  return {
      [reports](msg::collect_atom, msg::collector_report& r) { reports->push_back(std::move(r)); }};
}

struct collector_fixture : test::coordinated_fixture {
  test::inbox<msg::collector_report> reports = test::make_inbox<msg::collector_report>();
  caf::actor manager = keep(sys.spawn(manager_double, reports));
  actors::collector_actor collector = actors::spawn_collector(sys, "c1", nullptr);

  collector_fixture() {
    keep(caf::actor_cast<caf::actor>(collector));
    give({"n1", "n2", "n3"}, 1);
  }

  void give(std::vector<std::string> nodes, uint64_t version) {
    msg::collector_list list;
    list.nodes = std::move(nodes);
    list.version = version;
    list.interval_ms = 1000;
    caf::anon_send(collector, msg::collector_atom_v, list, manager);
    sched.run();
  }

  /// These nodes beat; then the round's time runs out if they were not all.
  const msg::collector_report& round(std::vector<std::string> beating) {
    auto before = reports->size();
    for (auto& n : beating) caf::anon_send(collector, msg::heartbeat_atom_v, n);
    sched.run();
    if (reports->size() == before) advance(1500ms);
    BOOST_REQUIRE_EQUAL(reports->size(), before + 1);
    return reports->back();
  }
};

using names = std::vector<std::string>;

}  // namespace

BOOST_FIXTURE_TEST_SUITE(collector, collector_fixture)

BOOST_AUTO_TEST_CASE(a_round_ends_when_every_node_beat_and_the_first_report_is_full) {
  auto& r = round({"n1", "n2", "n3"});
  BOOST_TEST(r.collector == "c1");
  BOOST_TEST(r.version == 1u);
  BOOST_TEST(r.answered == 3u);
  BOOST_TEST(r.full);
  BOOST_TEST(r.silent.empty());
}

BOOST_AUTO_TEST_CASE(later_reports_carry_only_who_stopped_and_who_came_back) {
  round({"n1", "n2", "n3"});
  auto r = round({"n1"});  // n2 and n3 stop: the round ends at 1.5 intervals
  BOOST_TEST(!r.full);
  BOOST_TEST(r.answered == 1u);
  BOOST_TEST(r.silent == (names{"n2", "n3"}), boost::test_tools::per_element());
  r = round({"n1"});  // nothing changed: nothing named
  BOOST_TEST(r.silent.empty());
  BOOST_TEST(r.returned.empty());
  r = round({"n1", "n2"});
  BOOST_TEST(r.returned == (names{"n2"}), boost::test_tools::per_element());
  BOOST_TEST(r.silent.empty());
  r = round({"n1", "n2", "n3"});
  BOOST_TEST(r.returned == (names{"n3"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_new_list_replaces_the_old_one_and_its_first_report_is_full) {
  round({"n1", "n2", "n3"});
  round({"n1"});
  give({"n1", "n2", "n4"}, 2);
  auto r = round({"n1", "n3"});  // n3 is not on the list any more: its beat does not count
  BOOST_TEST(r.version == 2u);
  BOOST_TEST(r.full);
  BOOST_TEST(r.answered == 1u);
  BOOST_TEST(r.silent == (names{"n2", "n4"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
