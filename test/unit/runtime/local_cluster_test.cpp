#include <boost/test/unit_test.hpp>

#include <fstream>
#include <set>

#include "messages/caf/error.hpp"
#include "runtime/bootstrap/local_cluster.hpp"

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
BOOST_AUTO_TEST_CASE(ports_are_picked_below_the_ephemeral_range) {
  std::ifstream range{"/proc/sys/net/ipv4/ip_local_port_range"};
  unsigned first_ephemeral = 0;
  if (!(range >> first_ephemeral) || first_ephemeral < 12000) return;  // no room below it
  auto ports = shoal::runtime::free_loopback_ports(12, 3);
  BOOST_REQUIRE_MESSAGE(ports, (ports ? "" : shoal::describe(ports.error())));
  for (size_t i = 0; i < ports->size(); ++i) {
    BOOST_TEST((*ports)[i] >= 10000u);
    BOOST_TEST((*ports)[i] + (i < 3 ? 1u : 0u) < first_ephemeral);
  }
}

BOOST_AUTO_TEST_SUITE_END()
