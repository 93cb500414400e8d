#include <boost/test/unit_test.hpp>

#include <set>

#include "messages/errc.hpp"
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

BOOST_AUTO_TEST_SUITE_END()
