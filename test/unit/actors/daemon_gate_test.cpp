// The daemon gate between the controller's node actors and their daemons (actors/daemon_gate):
// launches leave signed and in order with what follows them, and a registration the gate
// refuses never reaches a node actor. Credentials here are plain functions (MUNGE itself is
// tested in unit_runtime's daemon_auth suite); the actors are the real ones.

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "actors/controller/controller.hpp"
#include "actors/daemon_gate.hpp"
#include "actors/node.hpp"
#include "config/config.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"

namespace {

using namespace shoal;
using namespace std::chrono_literals;

actors::daemon_credentials fake_credentials() {
  actors::daemon_credentials creds;
  creds.sign_launch = [](msg::launch_request& req) -> shoal::error {
    req.credential = "signed job " + std::to_string(req.job_id);
    return {};
  };
  creds.sign_signal = [](uint64_t job, uint32_t, int32_t) -> shoal::expected<std::string> {
    return "signal for job " + std::to_string(job);
  };
  creds.check_registration = [](msg::machine_status& status,
                                const msg::node_report&) -> shoal::error {
    auto credential = std::move(status.credential);
    status.credential.clear();
    if (credential != "a daemon of ours")
      return shoal::error(errc::authentication_failed, "Protocol authentication error (forged)");
    return {};
  };
  return creds;
}

struct gate_fixture {
  gate_fixture() {
    cfg.add_message_types<caf::id_block::shoal>();
    sys = std::make_unique<caf::actor_system>(cfg);
    gate = actors::spawn_daemon_gate(*sys, fake_credentials());
  }
  ~gate_fixture() { caf::anon_send_exit(gate, caf::exit_reason::user_shutdown); }

  msg::machine_status status_of(const std::string& node, const std::string& credential) {
    msg::machine_status s;
    s.node_name = node;
    s.hostname = "host1";
    s.cpus = 1;
    s.real_memory_mb = 1000;
    s.credential = credential;
    return s;
  }

  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  actors::daemon_gate_actor gate;
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(daemon_gate, gate_fixture)

BOOST_AUTO_TEST_CASE(launches_leave_signed_and_signals_never_overtake_them) {
  config::node_config n;
  n.name = "n1";
  n.cpus = 1;
  n.real_memory_mb = 1000;
  caf::scoped_actor controller{*sys};
  auto node = actors::spawn_node(*sys, n, caf::actor_cast<caf::actor>(controller), 60'000, 30'000,
                                 nullptr, {}, std::nullopt, gate);
  caf::scoped_actor daemon{*sys};
  daemon
      ->request(node, 5s, msg::register_atom_v, status_of("n1", ""),
                caf::actor_cast<caf::actor>(daemon))
      .receive([](caf::actor&) {},
               [](caf::error& err) { BOOST_FAIL("registration refused: " << to_string(err)); });
  for (uint64_t job = 1; job <= 20; ++job) {
    msg::launch_request req;
    req.job_id = job;
    req.ranks = {0};
    caf::anon_send(node, msg::launch_atom_v, std::move(req), caf::actor{},
                   caf::actor_cast<caf::actor>(controller));
    caf::anon_send(node, msg::signal_atom_v, job, uint32_t{0}, int32_t{15});
  }
  std::vector<std::string> seen;
  for (int i = 0; i < 40; ++i) {
    daemon->receive(
        [&](msg::launch_atom, msg::launch_request& req, caf::actor&, caf::actor&) {
          BOOST_TEST(req.credential == "signed job " + std::to_string(req.job_id));
          seen.push_back("launch " + std::to_string(req.job_id));
        },
        [&](msg::signal_atom, uint64_t job, uint32_t, int32_t, const std::string& credential) {
          BOOST_TEST(credential == "signal for job " + std::to_string(job));
          seen.push_back("signal " + std::to_string(job));
        },
        caf::after(10s) >> [&] { BOOST_FAIL("the daemon heard " << seen.size() << " messages"); });
  }
  std::vector<std::string> expected;
  for (uint64_t job = 1; job <= 20; ++job) {
    expected.push_back("launch " + std::to_string(job));
    expected.push_back("signal " + std::to_string(job));
  }
  BOOST_TEST(seen == expected, boost::test_tools::per_element());
  caf::anon_send_exit(node, caf::exit_reason::user_shutdown);
}

BOOST_AUTO_TEST_CASE(the_controller_takes_only_registrations_the_gate_lets_through) {
  auto conf = config::parse_config(config::default_config_text(2, 6917), "<embedded>", "/");
  BOOST_REQUIRE(conf);
  auto controller = actors::spawn_controller(*sys, *conf, nullptr, nullptr, {}, gate);
  caf::scoped_actor daemon{*sys};
  auto me = caf::actor_cast<caf::actor>(daemon);
  daemon->request(controller, 5s, msg::register_atom_v, status_of("node1", "forged"), me)
      .receive([](caf::actor&) { BOOST_FAIL("a forged registration was taken"); },
               [](caf::error& err) { BOOST_TEST((err == errc::authentication_failed)); });
  caf::actor node;
  daemon->request(controller, 5s, msg::register_atom_v, status_of("node1", "a daemon of ours"), me)
      .receive([&](caf::actor& a) { node = std::move(a); },
               [](caf::error& err) { BOOST_FAIL("registration refused: " << to_string(err)); });
  BOOST_TEST(static_cast<bool>(node));
  caf::anon_send_exit(controller, caf::exit_reason::user_shutdown);
}

BOOST_AUTO_TEST_SUITE_END()
