// Every port a daemon listens on is its own: a second bind of a port some process listens on
// fails, so a daemon started with a taken port says so at start instead of sharing the port with
// the first (cpp-httplib's SO_REUSEPORT let three shoald serve 6921 together, a scrape answered
// by one at random). The /metrics endpoint, the controller's CAF port (plain and TLS) and the
// front door.

#include <boost/test/unit_test.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "messages/caf/error.hpp"
#include "messages/codec.hpp"
#include "metrics/registry.hpp"
#include "runtime/bootstrap/controller_link.hpp"
#include "runtime/bootstrap/local_cluster.hpp"
#include "runtime/bootstrap/metrics_server.hpp"
#include "runtime/bootstrap/system_setup.hpp"
#include "runtime/ctld/front_door.hpp"
#include "runtime/tls/cluster_identity.hpp"
#include "runtime/tls/tls_transport.hpp"

namespace {

using namespace shoal;
using namespace std::chrono_literals;

uint16_t free_port() {
  auto port = runtime::free_loopback_port();
  BOOST_REQUIRE_MESSAGE(port, (port ? "" : describe(port.error())));
  return *port;
}

/// The body of GET /metrics on 127.0.0.1:`port`, through a plain socket ("" when it fails).
std::string scrape(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string out;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    std::string request = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    if (::write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      char buf[4096];
      for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;)
        out.append(buf, static_cast<size_t>(n));
    }
  }
  ::close(fd);
  return out;
}

struct actor_system_fixture {
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;

  actor_system_fixture() {
    runtime::configure_actor_system(cfg, 2);
    sys = std::make_unique<caf::actor_system>(cfg);
  }

  /// An actor to publish on a port: the tests need only its handle.
  caf::actor actor_to_publish() {
    // It takes an argument: CAF 0.17 dereferences a null tuple for argument-less spawns (UBSan).
    return sys->spawn([](int) -> caf::behavior { return {[](caf::ok_atom) {}}; }, 0);
  }

  ~actor_system_fixture() {
    for (auto& a : spawned) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  }

  std::vector<caf::actor> spawned;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(listening_ports)

BOOST_AUTO_TEST_CASE(a_second_metrics_endpoint_on_a_taken_port_fails_and_the_first_serves_on) {
  metrics::registry first_meters;
  first_meters.gauge_of("shoal_test_first", "The first endpoint's own series.").set(1);
  metrics::registry second_meters;
  auto port = free_port();
  runtime::metrics_server first{first_meters};
  auto err = first.start("127.0.0.1", port);
  BOOST_REQUIRE_MESSAGE(!err, describe(err));
  runtime::metrics_server second{second_meters};
  auto refused = second.start("127.0.0.1", port);
  BOOST_REQUIRE(refused);
  BOOST_TEST(describe(refused) ==
             "cannot listen on 127.0.0.1:" + std::to_string(port) + ": Address already in use");
  // Every scrape reaches the first: the port is not shared.
  for (int i = 0; i < 8; ++i)
    BOOST_TEST(scrape(port).find("shoal_test_first 1") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_metrics_port_is_free_again_once_its_endpoint_stopped) {
  metrics::registry meters;
  auto port = free_port();
  {
    runtime::metrics_server first{meters};
    BOOST_REQUIRE(!first.start("127.0.0.1", port));
    BOOST_REQUIRE(!scrape(port).empty());  // a connection that lingers in TIME_WAIT
  }
  runtime::metrics_server again{meters};
  auto err = again.start("127.0.0.1", port);
  BOOST_TEST(!err, describe(err));
}

BOOST_FIXTURE_TEST_CASE(a_second_publish_on_the_controller_port_fails, actor_system_fixture) {
  auto port = free_port();
  auto a = actor_to_publish();
  auto b = actor_to_publish();
  spawned = {a, b};
  auto first = runtime::publish_controller(*sys, a, port, "127.0.0.1", false);
  BOOST_REQUIRE_MESSAGE(first, (first ? "" : sys->render(first.error())));
  // Another actor system stands for another shoalctld on the same line.
  actor_system_fixture other;
  auto c = other.actor_to_publish();
  other.spawned = {c};
  auto second = runtime::publish_controller(*other.sys, c, port, "127.0.0.1", false);
  BOOST_TEST(!second);
}

BOOST_FIXTURE_TEST_CASE(a_second_publish_over_tls_on_the_controller_port_fails,
                        actor_system_fixture) {
  auto identity = runtime::make_cluster_identity();
  BOOST_REQUIRE(identity);
  BOOST_REQUIRE(!runtime::start_tls_transport(*sys, *identity));
  auto port = free_port();
  auto a = actor_to_publish();
  spawned = {a};
  auto first = runtime::publish_controller(*sys, a, port, "127.0.0.1", false);
  BOOST_REQUIRE_MESSAGE(first, (first ? "" : sys->render(first.error())));
  actor_system_fixture other;
  BOOST_REQUIRE(!runtime::start_tls_transport(*other.sys, *identity));
  auto c = other.actor_to_publish();
  other.spawned = {c};
  auto second = runtime::publish_controller(*other.sys, c, port, "127.0.0.1", false);
  BOOST_TEST(!second);
}

BOOST_FIXTURE_TEST_CASE(a_second_front_door_on_a_taken_port_fails, actor_system_fixture) {
  runtime::front_door_setup setup;
  setup.address = "127.0.0.1";
  setup.port = free_port();
  auto first = runtime::open_front_door(*sys, setup);
  BOOST_REQUIRE_MESSAGE(first, (first ? "" : describe(first.error())));
  spawned = {first->actor};
  actor_system_fixture other;
  auto second = runtime::open_front_door(*other.sys, setup);
  BOOST_REQUIRE(!second);
  BOOST_TEST(describe(second.error()).find("Address already in use") != std::string::npos,
             describe(second.error()));
}

BOOST_AUTO_TEST_SUITE_END()
