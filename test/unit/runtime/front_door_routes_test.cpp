// The front door's routing table against messages/shoal.capnp's ClientOp: every kind the schema
// names has a handler of its own, so no request a client may send is refused as unknown. (The
// build already fails when a kind has no line in the table; this walks the generated kinds as a
// client sends them.)

#include <boost/test/unit_test.hpp>

#include <cstddef>

#include "messages/front_door.hpp"
#include "runtime/ctld/front_door/routing.hpp"

using shoal::msg::client_op;
using shoal::runtime::door::routed;

BOOST_AUTO_TEST_SUITE(front_door_routes)

BOOST_AUTO_TEST_CASE(every_kind_of_the_schema_has_a_route) {
  for (size_t i = 1; i < shoal::msg::client_op_count; ++i) {
    auto kind = static_cast<client_op>(i);
    BOOST_TEST(routed(kind), "no route for " << shoal::msg::to_string(kind));
  }
}

BOOST_AUTO_TEST_CASE(unknown_and_numbers_past_the_schema_are_refused) {
  BOOST_TEST(!routed(client_op::unknown));
  BOOST_TEST(!routed(static_cast<client_op>(shoal::msg::client_op_count)));
  BOOST_TEST(!routed(static_cast<client_op>(255)));
}

BOOST_AUTO_TEST_SUITE_END()
