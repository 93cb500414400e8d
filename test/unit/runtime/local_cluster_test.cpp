#include <boost/test/unit_test.hpp>

#include <fstream>
#include <set>

#include "messages/caf/error.hpp"
#include "runtime/bootstrap/local_cluster.hpp"

namespace {

/// The first port of the kernel's ephemeral range; 0 when it cannot be read.
unsigned first_ephemeral_port() {
  std::ifstream range{"/proc/sys/net/ipv4/ip_local_port_range"};
  unsigned first = 0;
  return range >> first ? first : 0;
}

/// Precondition: the ephemeral range leaves room below it, from 10000 (ports are picked
/// anywhere, as the kernel gives them, when it does not).
boost::test_tools::assertion_result room_below_the_ephemeral_range(boost::unit_test::test_unit_id) {
  auto first = first_ephemeral_port();
  boost::test_tools::assertion_result ok{first >= 12000};
  if (first == 0)
    ok.message() << "cannot read /proc/sys/net/ipv4/ip_local_port_range";
  else
    ok.message() << "the kernel's ephemeral ports start at " << first
                 << " (ip_local_port_range): no room below it from 10000";
  return ok;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(local_cluster_ports)

// One cluster's controller and /metrics ports are picked together: two equal ones made the
// controller fail to listen on the port its own /metrics endpoint had just taken.
BOOST_AUTO_TEST_CASE(ports_picked_together_are_all_different) {
  for (int round = 0; round < 20; ++round) {
    auto ports = shoal::runtime::free_loopback_ports(40);
    BOOST_REQUIRE_MESSAGE(ports, (ports ? "" : shoal::describe(ports.error())));
    std::set<uint16_t> distinct(ports->begin(), ports->end());
    BOOST_REQUIRE_EQUAL(distinct.size(), 40u);
  }
}

// A controller's front door listens on the port after its own: that one must be free too, and
// not handed to anyone else.
BOOST_AUTO_TEST_CASE(controller_ports_come_with_the_next_port_free_and_unshared) {
  for (int round = 0; round < 20; ++round) {
    auto ports = shoal::runtime::free_loopback_ports(12, 3);
    BOOST_REQUIRE_MESSAGE(ports, (ports ? "" : shoal::describe(ports.error())));
    std::set<uint16_t> taken(ports->begin(), ports->end());
    for (size_t i = 0; i < 3; ++i) taken.insert(static_cast<uint16_t>((*ports)[i] + 1));
    BOOST_REQUIRE_EQUAL(taken.size(), 15u);
  }
}

// A port found free is bound by its daemon a moment later; in the kernel's ephemeral range any
// connection made meanwhile (a test beside this one makes hundreds) could take it as its local
// port, and the daemon would fail with "Address already in use".
BOOST_AUTO_TEST_CASE(ports_are_picked_below_the_ephemeral_range,
                     *boost::unit_test::precondition(room_below_the_ephemeral_range)) {
  auto first_ephemeral = first_ephemeral_port();
  auto ports = shoal::runtime::free_loopback_ports(12, 3);
  BOOST_REQUIRE_MESSAGE(ports, (ports ? "" : shoal::describe(ports.error())));
  for (size_t i = 0; i < ports->size(); ++i) {
    BOOST_TEST((*ports)[i] >= 10000u);
    BOOST_TEST((*ports)[i] + (i < 3 ? 1u : 0u) < first_ephemeral);
  }
}

BOOST_AUTO_TEST_SUITE_END()
