// The daemons' CAF transport in TLS (runtime/tls): over real loopback sockets, two actor systems
// holding the cluster's identity talk as over plain CAF; a peer without it, or with another
// cluster's, gets no actor at all. And the identity file shoalctld keeps.

#include <boost/test/unit_test.hpp>

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>
#include <vector>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "messages/caf/error.hpp"
#include "messages/codec.hpp"
#include "runtime/bootstrap/controller_link.hpp"
#include "runtime/bootstrap/system_setup.hpp"
#include "runtime/bootstrap/tcp_connect.hpp"
#include "runtime/bootstrap/temp_dir.hpp"
#include "runtime/tls/cluster_identity.hpp"
#include "runtime/tls/tls_transport.hpp"

namespace {

using namespace shoal;
using namespace std::chrono_literals;

std::string fresh_identity() {
  auto made = runtime::make_cluster_identity();
  BOOST_REQUIRE_MESSAGE(made, (made ? "" : describe(made.error())));
  return *made;
}

struct system_holder {
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;

  /// An actor system; with an identity, its daemons' transport is TLS.
  explicit system_holder(const std::string& identity = {}) {
    runtime::configure_actor_system(cfg, 2);
    sys = std::make_unique<caf::actor_system>(cfg);
    if (!identity.empty()) {
      auto err = runtime::start_tls_transport(*sys, identity);
      BOOST_REQUIRE_MESSAGE(!err, describe(err));
    }
  }
};

/// A controller stand-in that adds one, published through the TLS transport on 127.0.0.1.
struct tls_server {
  std::string identity = fresh_identity();
  system_holder server{identity};
  caf::actor adder;
  uint16_t port = 0;

  tls_server() {
    adder =
        server.sys->spawn([](int) -> caf::behavior { return {[](int x) { return x + 1; }}; }, 0);
    auto bound =
        runtime::publish_daemon_actor(*server.sys, adder, 0, "127.0.0.1", {msg::wire_interface()});
    BOOST_REQUIRE_MESSAGE(bound, (bound ? "" : describe(bound.error())));
    port = *bound;
  }

  ~tls_server() { caf::anon_send_exit(adder, caf::exit_reason::kill); }

  /// What `client` gets when it asks its daemons' transport for the actor on our port.
  caf::expected<caf::actor> reach_from(caf::actor_system& client, caf::duration patience) {
    caf::expected<caf::actor> out{caf::error{}};
    caf::scoped_actor self{client};
    auto mm = client.registry().get<caf::io::middleman_actor>(caf::atom("shoaltls"));
    if (!mm) mm = client.middleman().actor_handle();
    self->request(mm, patience, caf::connect_atom::value, std::string{"127.0.0.1"}, port)
        .receive(
            [&](const caf::node_id&, caf::strong_actor_ptr& ptr, const std::set<std::string>&) {
              out = ptr ? caf::actor_cast<caf::actor>(ptr)
                        : caf::expected<caf::actor>{make_error(errc::unreachable, "no actor")};
            },
            [&](caf::error& err) { out = std::move(err); });
    return out;
  }

  /// A peer that holds the identity is still served (after one that was refused).
  void a_member_is_served(int x) {
    system_holder member{identity};
    auto ctl = runtime::connect_controller_at(*member.sys, "127.0.0.1", port);
    BOOST_REQUIRE_MESSAGE(ctl, (ctl ? "" : describe(ctl.error())));
    BOOST_TEST(ask(*member.sys, *ctl, x) == x + 1);
  }

  static int ask(caf::actor_system& sys, const caf::actor& whom, int x) {
    caf::scoped_actor self{sys};
    int got = -1;
    self->request(whom, 10s, x).receive([&](int y) { got = y; }, [](caf::error&) {});
    return got;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(tls_transport, tls_server)

BOOST_AUTO_TEST_CASE(peers_holding_the_cluster_identity_talk_as_over_plain_caf) {
  system_holder client{identity};
  auto ctl = runtime::connect_controller_at(*client.sys, "127.0.0.1", port);
  BOOST_REQUIRE_MESSAGE(ctl, (ctl ? "" : describe(ctl.error())));
  for (int i = 0; i < 50; ++i) BOOST_TEST(ask(*client.sys, *ctl, i) == i + 1);
  // A large message crosses in many TLS records.
  caf::scoped_actor self{*client.sys};
  auto echo = server.sys->spawn(
      [](int) -> caf::behavior { return {[](const std::string& s) { return s; }}; }, 0);
  auto bound =
      runtime::publish_daemon_actor(*server.sys, echo, 0, "127.0.0.1", {msg::wire_interface()});
  BOOST_REQUIRE(bound);
  auto far = runtime::connect_controller_at(*client.sys, "127.0.0.1", *bound);
  BOOST_REQUIRE(far);
  std::string big(3u << 20, 'x');
  for (size_t i = 0; i < big.size(); i += 4093) big[i] = static_cast<char>('a' + i % 26);
  std::string back;
  self->request(*far, 30s, big)
      .receive([&](std::string& s) { back = std::move(s); }, [](caf::error&) {});
  BOOST_TEST((back == big));
  caf::anon_send_exit(echo, caf::exit_reason::kill);
}

BOOST_AUTO_TEST_CASE(a_plain_caf_peer_gets_no_actor) {
  system_holder plain;
  auto got = reach_from(*plain.sys, caf::duration{2s});
  BOOST_TEST(!got);
  // The server spins on nothing meanwhile and serves a peer that holds the identity.
  a_member_is_served(41);
}

BOOST_AUTO_TEST_CASE(a_peer_that_never_starts_a_handshake_is_dropped) {
  auto fd = runtime::tcp_connect("127.0.0.1", port, 5s);
  BOOST_REQUIRE_MESSAGE(fd, (fd ? "" : describe(fd.error())));
  // The port's patience is 10 s; the bound only keeps a port that never drops from hanging us.
  bool readable = runtime::wait_ready(*fd, POLLIN, std::chrono::steady_clock::now() + 60s);
  char c;
  auto n = ::recv(*fd, &c, 1, 0);
  ::close(*fd);
  BOOST_TEST(readable);
  BOOST_TEST((n == 0 || (n < 0 && errno == ECONNRESET)));
}

BOOST_AUTO_TEST_CASE(a_peer_of_another_cluster_is_refused) {
  system_holder stranger{fresh_identity()};
  auto got = reach_from(*stranger.sys, caf::duration{30s});
  BOOST_TEST(!got);
  a_member_is_served(1);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(cluster_identity)

BOOST_AUTO_TEST_CASE(shoalctld_makes_a_private_identity_once_and_reads_it_back) {
  auto dir = runtime::make_temp_dir("shoal-identity-test");
  BOOST_REQUIRE(dir);
  auto first = runtime::load_or_create_cluster_identity(*dir);
  BOOST_REQUIRE_MESSAGE(first, (first ? "" : describe(first.error())));
  BOOST_TEST(!runtime::check_cluster_identity(*first));
  auto path = *dir + "/" + runtime::cluster_identity_file;
  struct stat st {};
  BOOST_REQUIRE(::stat(path.c_str(), &st) == 0);
  BOOST_TEST((st.st_mode & 0777) == 0600u);
  auto again = runtime::load_or_create_cluster_identity(*dir);
  BOOST_REQUIRE(again);
  BOOST_TEST((*again == *first));
  ::chmod(path.c_str(), 0644);
  auto open_to_all = runtime::load_or_create_cluster_identity(*dir);
  BOOST_REQUIRE(!open_to_all);
  BOOST_TEST((open_to_all.error() == errc::invalid_config));
  BOOST_TEST(describe(open_to_all.error()).find("chmod 600") != std::string::npos);
  ::chmod(path.c_str(), 0600);
  std::ofstream{path, std::ios::trunc} << "-----BEGIN CERTIFICATE-----\nnot one\n";
  auto garbage = runtime::load_or_create_cluster_identity(*dir);
  BOOST_REQUIRE(!garbage);
  BOOST_TEST((garbage.error() == errc::invalid_config));
  ::unlink(path.c_str());
  ::rmdir(dir->c_str());
}

BOOST_AUTO_TEST_CASE(controllers_starting_together_share_one_complete_identity) {
  // A primary and a backup over one StateSaveLocation, started at once: each gets the same,
  // whole identity (one once read the other's half-written file and stopped).
  auto dir = runtime::make_temp_dir("shoal-identity-race");
  BOOST_REQUIRE(dir);
  std::vector<shoal::expected<std::string>> got(8, shoal::error(errc::system_error, "not run"));
  std::vector<std::thread> starters;
  for (size_t i = 0; i < got.size(); ++i)
    starters.emplace_back([&, i] { got[i] = runtime::load_or_create_cluster_identity(*dir); });
  for (auto& t : starters) t.join();
  for (auto& g : got) {
    BOOST_REQUIRE_MESSAGE(g, (g ? "" : describe(g.error())));
    BOOST_TEST((*g == *got.front()));
  }
  std::filesystem::remove_all(*dir);
}

BOOST_AUTO_TEST_CASE(each_identity_is_new) {
  BOOST_TEST(fresh_identity() != fresh_identity());
  system_holder holder;
  BOOST_TEST(static_cast<bool>(runtime::start_tls_transport(*holder.sys, "not a pem")));
}

BOOST_AUTO_TEST_SUITE_END()
