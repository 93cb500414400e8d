// Connecting to a controller over a real loopback socket: the wire version travels in CAF's
// handshake (the published interface), so a peer of another major is refused before any request.

#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "messages/caf/error.hpp"
#include "messages/codec.hpp"
#include "runtime/bootstrap/controller_client.hpp"
#include "runtime/bootstrap/controller_link.hpp"
#include "runtime/bootstrap/system_setup.hpp"

namespace {

using namespace shoal;

/// A stand-in published under a chosen interface set, on a free port of 127.0.0.1.
struct published_fixture {
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  caf::actor stand_in;

  published_fixture() {
    runtime::configure_actor_system(cfg, 2);
    sys = std::make_unique<caf::actor_system>(cfg);
    // An argument: CAF 0.17 dereferences a null tuple for argument-less spawns.
    stand_in = sys->spawn([](int) -> caf::behavior { return {[](caf::ok_atom) {}}; }, 0);
  }

  ~published_fixture() { caf::anon_send_exit(stand_in, caf::exit_reason::kill); }

  /// Publishes the stand-in announcing `ifs`; returns the client config pointing at it.
  config::cluster_config publish(std::set<std::string> ifs) {
    caf::scoped_actor self{*sys};
    uint16_t port = 0;
    self->request(sys->middleman().actor_handle(), caf::infinite, caf::publish_atom::value,
                  uint16_t{0}, caf::actor_cast<caf::strong_actor_ptr>(stand_in), std::move(ifs),
                  std::string{"127.0.0.1"}, true)
        .receive([&](uint16_t p) { port = p; },
                 [](caf::error& err) { BOOST_FAIL("publish: " << to_string(err)); });
    config::cluster_config client;
    client.controller_port = port;
    client.controller_hosts = {config::controller_host{"local", "127.0.0.1", port}};
    return client;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(controller_client, published_fixture)

BOOST_AUTO_TEST_CASE(a_controller_of_this_wire_version_is_reached) {
  auto client = publish({msg::wire_interface()});
  auto ctl = runtime::connect_controller(*sys, client);
  BOOST_REQUIRE_MESSAGE(ctl, (ctl ? "" : describe(ctl.error())));
  BOOST_CHECK(ctl->address() == stand_in.address());
}

BOOST_AUTO_TEST_CASE(a_controller_of_another_major_is_refused_naming_both_versions) {
  msg::wire_version other{static_cast<uint16_t>(msg::current_wire_version.major + 1), 0};
  auto client = publish({msg::wire_interface(other)});
  auto ctl = runtime::connect_controller(*sys, client);
  BOOST_REQUIRE(!ctl);
  auto text = describe(ctl.error());
  BOOST_TEST(text.find(msg::to_string(other)) != std::string::npos, text);
  BOOST_TEST(text.find(msg::to_string(msg::current_wire_version)) != std::string::npos, text);
}

BOOST_AUTO_TEST_CASE(another_minor_is_reached) {
  msg::wire_version newer{msg::current_wire_version.major,
                          static_cast<uint16_t>(msg::current_wire_version.minor + 3)};
  auto ctl = runtime::connect_controller(*sys, publish({msg::wire_interface(newer)}));
  BOOST_CHECK(static_cast<bool>(ctl));
}

BOOST_AUTO_TEST_CASE(a_peer_announcing_no_wire_version_is_refused) {
  auto ctl = runtime::connect_controller(*sys, publish({}));
  BOOST_REQUIRE(!ctl);
  BOOST_TEST(describe(ctl.error()).find("reports no wire version") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
