// The ports the daemons listen on: a /metrics endpoint stops cleanly and leaves its port free.

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

}  // namespace

BOOST_AUTO_TEST_SUITE(listening_ports)

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

BOOST_AUTO_TEST_SUITE_END()
