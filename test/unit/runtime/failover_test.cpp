// The backup controller's pieces that need no second process: which SlurmctldHost line a
// shoalctld is, the clients' patience, and the port a shoalctld hands from a standby to a
// controller and back, over a real loopback socket (CAF 0.17's publish/unpublish).

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstdlib>
#include <thread>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/standby.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "messages/codec.hpp"
#include "runtime/bootstrap/controller_client.hpp"
#include "runtime/bootstrap/controller_link.hpp"
#include "runtime/bootstrap/local_cluster.hpp"
#include "runtime/bootstrap/system_setup.hpp"
#include "runtime/ctld/failover.hpp"

namespace {

using namespace shoal;
using namespace std::chrono_literals;
using lines_t = std::vector<config::controller_host>;

const lines_t two_lines = {{"head1", "10.0.0.1", 6917}, {"head2", "10.0.0.2", 6917}};

std::string error_text(const caf::expected<size_t>& x) {
  return x ? std::string{} : describe(x.error());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(controller_lines)

BOOST_AUTO_TEST_CASE(controller_flag_picks_its_line_by_name) {
  auto line = runtime::choose_controller_line(two_lines, "head2", "vm", "vm.example.org");
  BOOST_REQUIRE_MESSAGE(line, error_text(line));
  BOOST_CHECK_EQUAL(*line, 1u);
  auto unknown = runtime::choose_controller_line(two_lines, "head3", "head1", "");
  BOOST_REQUIRE(!unknown);
  BOOST_CHECK_EQUAL(error_text(unknown),
                    "--controller head3 names no SlurmctldHost line (the lines: head1, head2)");
}

BOOST_AUTO_TEST_CASE(without_the_flag_the_host_name_picks_the_line) {
  auto by_short = runtime::choose_controller_line(two_lines, "", "head2", "head2.example.org");
  BOOST_REQUIRE(by_short);
  BOOST_CHECK_EQUAL(*by_short, 1u);
  lines_t long_names = {{"a.example.org", "a", 1}, {"b.example.org", "b", 1}};
  auto by_long = runtime::choose_controller_line(long_names, "", "b", "b.example.org");
  BOOST_REQUIRE(by_long);
  BOOST_CHECK_EQUAL(*by_long, 1u);
}

BOOST_AUTO_TEST_CASE(one_line_is_taken_by_any_host_but_two_need_a_match) {
  auto only = runtime::choose_controller_line({two_lines[0]}, "", "vm", "vm");
  BOOST_REQUIRE(only);
  BOOST_CHECK_EQUAL(*only, 0u);
  auto none = runtime::choose_controller_line(two_lines, "", "vm", "vm");
  BOOST_REQUIRE(!none);
  BOOST_CHECK_EQUAL(error_text(none),
                    "this host (vm) is none of the SlurmctldHost lines (head1, head2): say which "
                    "one this shoalctld is with --controller NAME");
}

BOOST_AUTO_TEST_CASE(roles_are_named_as_scontrol_ping_names_them) {
  BOOST_CHECK_EQUAL(runtime::controller_role(0, 1), "primary");
  BOOST_CHECK_EQUAL(runtime::controller_role(0, 2), "primary");
  BOOST_CHECK_EQUAL(runtime::controller_role(1, 2), "backup");
  BOOST_CHECK_EQUAL(runtime::controller_role(1, 3), "backup1");
  BOOST_CHECK_EQUAL(runtime::controller_role(2, 3), "backup2");
}

BOOST_AUTO_TEST_CASE(clients_wait_message_timeout_and_with_a_backup_time_for_a_takeover) {
  config::cluster_config cfg;
  cfg.message_timeout_s = 10;
  cfg.slurmctld_timeout_s = 120;
  cfg.controller_hosts = {two_lines[0]};
  BOOST_CHECK(runtime::controller_patience(cfg) == 10s);
  cfg.controller_hosts = two_lines;
  BOOST_CHECK(runtime::controller_patience(cfg) == 180s);
  cfg.slurmctld_timeout_s = 3;
  BOOST_CHECK(runtime::controller_patience(cfg) == 10s);
}

BOOST_AUTO_TEST_CASE(backups_ping_a_third_of_slurmctld_timeout_between_1_and_10_s) {
  config::cluster_config cfg;
  cfg.slurmctld_timeout_s = 120;
  BOOST_CHECK(runtime::ping_interval(cfg) == 10s);
  cfg.slurmctld_timeout_s = 9;
  BOOST_CHECK(runtime::ping_interval(cfg) == 3s);
  cfg.slurmctld_timeout_s = 1;
  BOOST_CHECK(runtime::ping_interval(cfg) == 1s);
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

/// A "shoalctld" and a client, two actor systems talking over loopback.
struct port_fixture {
  caf::actor_system_config server_cfg;
  caf::actor_system_config client_cfg;
  std::unique_ptr<caf::actor_system> server;
  std::unique_ptr<caf::actor_system> client;
  uint16_t port = 0;
  std::vector<caf::actor> spawned;

  port_fixture() {
    runtime::configure_actor_system(server_cfg, 2);
    runtime::configure_actor_system(client_cfg, 2);
    server = std::make_unique<caf::actor_system>(server_cfg);
    client = std::make_unique<caf::actor_system>(client_cfg);
    auto free = runtime::free_loopback_port();
    BOOST_REQUIRE(free);
    port = *free;
  }

  ~port_fixture() {
    for (auto& a : spawned) caf::anon_send_exit(a, caf::exit_reason::kill);
  }

  caf::actor standby(const std::string& refusal) {
    actors::standby_setup setup;
    setup.refusal = refusal;
    auto a = caf::actor_cast<caf::actor>(actors::spawn_standby(*server, setup));
    spawned.push_back(a);
    return a;
  }

  /// Stands in for the controller: answers a ping as in control.
  caf::actor controller() {
    auto a = server->spawn(
        [](int) -> caf::behavior {
          return {[](caf::ping_atom) {
            msg::controller_status status;
            status.in_control = true;
            return status;
          }};
        },
        0);
    spawned.push_back(a);
    return a;
  }

  void publish(const caf::actor& whom, bool standby) {
    auto published = runtime::publish_controller(*server, whom, port, "127.0.0.1", standby);
    // Boost evaluates the message eagerly: render only an error.
    BOOST_REQUIRE_MESSAGE(published, (published ? "" : server->render(published.error())));
    BOOST_CHECK_EQUAL(*published, port);
  }

  /// Gives the port up and ends the actor, as shoalctld does on a transition.
  void retire(const caf::actor& whom) {
    caf::scoped_actor self{*server};
    self->request(server->middleman().actor_handle(), caf::infinite, caf::unpublish_atom::value,
                  whom.address(), port)
        .receive([] {}, [&](caf::error& err) { BOOST_FAIL(server->render(err)); });
    caf::anon_send_exit(whom, caf::exit_reason::kill);
  }

  /// Polls the client's connect until it reaches `whom` (the client's cached handle to the
  /// previous actor goes when that actor's end reaches it).
  bool client_reaches(const caf::actor& whom, bool accept_standby) {
    auto deadline = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < deadline) {
      auto got = runtime::connect_controller_at(*client, "127.0.0.1", port, accept_standby);
      if (got && got->address() == whom.address()) return true;
      std::this_thread::sleep_for(20ms);
    }
    return false;
  }

  caf::expected<msg::controller_status> ping(const caf::actor& peer) {
    caf::expected<msg::controller_status> out{caf::error{}};
    caf::scoped_actor self{*client};
    self->request(peer, 5s, caf::ping_atom::value)
        .receive([&](msg::controller_status& s) { out = s; },
                 [&](caf::error& err) { out = std::move(err); });
    return out;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(standby_port, port_fixture)

BOOST_AUTO_TEST_CASE(a_standby_answers_ping_and_refuses_every_other_request_naming_the_primary) {
  auto sb = standby("not in control: the primary head1 at 10.0.0.1:6917 is");
  publish(sb, true);
  std::string reason;
  auto refused = runtime::connect_controller_at(*client, "127.0.0.1", port, false, &reason);
  BOOST_REQUIRE(!refused);
  BOOST_CHECK(refused.error() == make_error(errc::not_in_control));
  BOOST_CHECK_EQUAL(reason, "not in control");
  auto peer = runtime::connect_controller_at(*client, "127.0.0.1", port, true);
  BOOST_REQUIRE(peer);
  auto status = ping(*peer);
  BOOST_REQUIRE(status);
  BOOST_CHECK(!status->in_control);
  BOOST_CHECK(!status->reclaiming);
  caf::scoped_actor self{*client};
  caf::error err;
  self->request(*peer, 5s, msg::nodes_atom_v)
      .receive([](const std::vector<msg::node_info>&) { BOOST_FAIL("answered"); },
               [&](caf::error& e) { err = std::move(e); });
  BOOST_CHECK(err == make_error(errc::not_in_control));
  BOOST_CHECK_EQUAL(describe(err), "not in control: the primary head1 at 10.0.0.1:6917 is");
}

BOOST_AUTO_TEST_CASE(the_port_passes_from_standby_to_controller_and_back) {
  auto first = standby("not in control");
  publish(first, true);
  BOOST_REQUIRE(client_reaches(first, true));
  // Takeover: the standby gives the port up and the controller gets it.
  retire(first);
  auto ctl = controller();
  publish(ctl, false);
  BOOST_REQUIRE(client_reaches(ctl, false));
  auto status = ping(ctl);
  BOOST_REQUIRE(status);
  BOOST_CHECK(status->in_control);
  // Hand-back: a fresh standby on the same port; the client is refused again.
  retire(ctl);
  auto second = standby("not in control");
  publish(second, true);
  BOOST_REQUIRE(client_reaches(second, true));
  auto refused = runtime::connect_controller_at(*client, "127.0.0.1", port);
  BOOST_CHECK(!refused && refused.error() == make_error(errc::not_in_control));
}

BOOST_AUTO_TEST_SUITE_END()
