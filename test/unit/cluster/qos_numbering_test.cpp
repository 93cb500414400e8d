// preempt/qos: the QOS numbered as the scheduling pass knows them, and their rules
// (cluster/qos_numbering.hpp).

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "cluster/qos_numbering.hpp"

using namespace shoal;

namespace {

msg::qos_info qos_named(std::string name, std::vector<std::string> preempt = {},
                        std::string mode = "", int64_t grace = 0, uint32_t priority = 0) {
  msg::qos_info q;
  q.name = std::move(name);
  q.preempt = std::move(preempt);
  q.preempt_mode = std::move(mode);
  q.grace_time_s = grace;
  q.priority = priority;
  return q;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(qos_numbering_suite)

BOOST_AUTO_TEST_CASE(numbers_stay_with_their_names_and_rules_follow_the_table) {
  cluster::qos_numbering n;
  BOOST_TEST(n.number("") == 0u);
  auto normal = n.number("normal");  // a job queued before the store's QOS came
  BOOST_TEST(normal == 1u);
  BOOST_TEST(n.number("normal") == normal);
  n.set_table({qos_named("high", {"scavenger", "normal"}, "", 0, 100),
               qos_named("scavenger", {}, "REQUEUE", 30), qos_named("normal")});
  auto rules = n.rules();
  auto high = n.number("high");
  auto scavenger = n.number("scavenger");
  BOOST_TEST(n.number("normal") == normal);
  BOOST_REQUIRE_EQUAL(rules->size(), 3u);
  const auto& h = (*rules)[high - 1];
  BOOST_TEST(h.preempts == (std::vector<uint32_t>{normal, scavenger}));
  BOOST_TEST(!h.mode.has_value());
  BOOST_TEST(h.priority == 100u);
  BOOST_TEST(h.rank == 1u);  // above the QOS it preempts, which rank 0
  BOOST_TEST((*rules)[normal - 1].rank == 0u);
  const auto& s = (*rules)[scavenger - 1];
  BOOST_CHECK(s.mode == policy::preempt_mode::requeue);
  BOOST_TEST(s.grace_time == 30);
  // Made once per change: the same rules until a new name or table.
  BOOST_TEST(n.rules() == rules);
  auto other = n.number("gone-from-the-store");
  auto again = n.rules();
  BOOST_TEST(again != rules);
  BOOST_REQUIRE_EQUAL(again->size(), 4u);
  BOOST_TEST((*again)[other - 1].preempts.empty());
  // A new table keeps every number.
  n.set_table({qos_named("normal", {"high"})});
  BOOST_TEST(n.number("high") == high);
  BOOST_TEST((*n.rules())[normal - 1].preempts == std::vector<uint32_t>{high});
  BOOST_TEST((*n.rules())[high - 1].preempts.empty());
  BOOST_TEST((*n.rules())[normal - 1].rank == 1u);
  // A cycle is cut where it closes.
  n.set_table({qos_named("a", {"b"}), qos_named("b", {"a"})});
  auto cyclic = n.rules();
  BOOST_TEST((*cyclic)[n.number("a") - 1].rank == 2u);  // a > b > (a: cut)
  BOOST_TEST((*cyclic)[n.number("b") - 1].rank == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
