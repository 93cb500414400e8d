// Under auth/munge a client's request counts only when it came through the front door, where
// its MUNGE credential was checked. A peer on the daemons' port, even one holding the cluster's
// TLS identity (any node daemon's host), is refused for every request a client sends; what
// daemons and listings ask is still served. The check is made once, for every client request
// (actors/controller/controller.cpp, from_client).

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <memory>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/controller/controller.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "messages/codec.hpp"
#include "runtime/bootstrap/controller_link.hpp"
#include "runtime/bootstrap/system_setup.hpp"
#include "runtime/tls/cluster_identity.hpp"
#include "runtime/tls/tls_transport.hpp"

namespace {

using namespace shoal;
using namespace std::chrono_literals;

struct member_system {
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;

  explicit member_system(const std::string& identity) {
    runtime::configure_actor_system(cfg, 2);
    sys = std::make_unique<caf::actor_system>(cfg);
    auto err = runtime::start_tls_transport(*sys, identity);
    BOOST_REQUIRE_MESSAGE(!err, describe(err));
  }
};

std::string fresh_identity() {
  auto made = runtime::make_cluster_identity();
  BOOST_REQUIRE_MESSAGE(made, (made ? "" : describe(made.error())));
  return *made;
}

/// A controller under auth/munge, published on the daemons' port as shoalctld publishes it,
/// and a second actor system holding the same identity that reached it there.
struct controller_over_the_port {
  std::string identity = fresh_identity();
  member_system server{identity};
  member_system peer{identity};
  caf::actor controller;
  caf::actor remote;

  controller_over_the_port() {
    auto conf = config::parse_config(config::default_config_text(2, 6917), "<embedded>", "/");
    BOOST_REQUIRE(conf);
    conf->auth.munge = true;
    controller = caf::actor_cast<caf::actor>(actors::spawn_controller(*server.sys, *conf));
    auto port = runtime::publish_daemon_actor(*server.sys, controller, 0, "127.0.0.1",
                                              {msg::wire_interface()});
    BOOST_REQUIRE_MESSAGE(port, (port ? "" : describe(port.error())));
    auto reached = runtime::connect_controller_at(*peer.sys, "127.0.0.1", *port);
    BOOST_REQUIRE_MESSAGE(reached, (reached ? "" : describe(reached.error())));
    remote = *reached;
  }

  ~controller_over_the_port() { caf::anon_send_exit(controller, caf::exit_reason::kill); }

  /// The error `whom` answers `xs` with, from `sys` (none when it answered a `Reply`).
  template <class Reply, class... Ts>
  static caf::error error_of(caf::actor_system& sys, const caf::actor& whom, Ts&&... xs) {
    caf::scoped_actor self{sys};
    caf::error out;
    self->request(whom, 10s, std::forward<Ts>(xs)...)
        .receive([](Reply&) {}, [&](caf::error& err) { out = std::move(err); });
    return out;
  }
};

bool refused(const caf::error& err) {
  return err == errc::authentication_failed;
}

msg::job_request a_job() {
  msg::job_request req;
  req.user = "someone";
  req.uid = 1000;
  req.argv = {"true"};
  req.cwd = "/tmp";
  return req;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(controller_port, controller_over_the_port)

BOOST_AUTO_TEST_CASE(every_client_request_from_the_daemons_port_is_refused) {
  auto& sys = *peer.sys;
  BOOST_TEST(
      refused(error_of<msg::job_info>(sys, remote, msg::submit_atom_v, a_job(), caf::actor{})));
  BOOST_TEST(refused(error_of<msg::start_estimate>(sys, remote, msg::willrun_atom_v, a_job())));
  BOOST_TEST(refused(error_of<caf::ok_atom>(sys, remote, msg::cancel_atom_v, std::string{"1"},
                                            int32_t{0}, uint32_t{0})));
  BOOST_TEST(refused(error_of<caf::ok_atom>(sys, remote, msg::cancel_atom_v, uint64_t{1},
                                            int32_t{0}, uint32_t{0})));
  BOOST_TEST(refused(error_of<msg::job_info>(sys, remote, msg::attach_atom_v, uint64_t{1},
                                             uint32_t{msg::all_steps}, caf::actor{})));
  BOOST_TEST(refused(error_of<caf::ok_atom>(sys, remote, msg::complete_atom_v, uint64_t{1},
                                            int32_t{0}, int32_t{0}, uint32_t{0})));
  msg::job_control hold;
  hold.op = "hold";
  hold.jobs = {"1"};
  BOOST_TEST(refused(error_of<caf::ok_atom>(sys, remote, msg::jobctl_atom_v, hold)));
  msg::node_update drain;
  drain.nodes = "node1";
  drain.state = "drain";
  drain.reason = "forged";
  BOOST_TEST(refused(error_of<caf::ok_atom>(sys, remote, msg::nodeupd_atom_v, drain)));
  msg::partition_edit edit;
  edit.action = "delete";
  edit.name = "debug";
  BOOST_TEST(refused(error_of<caf::ok_atom>(sys, remote, msg::partedit_atom_v, edit)));
  BOOST_TEST(refused(error_of<std::string>(sys, remote, msg::setdebug_atom_v, std::string{"debug5"},
                                           std::string{"root"})));
  BOOST_TEST(refused(error_of<std::string>(sys, remote, msg::dbgflags_atom_v, std::string{"+msg"},
                                           std::string{"root"})));
  BOOST_TEST(refused(error_of<caf::ok_atom>(sys, remote, msg::diagreset_atom_v, uint32_t{0})));
  // Nothing was submitted or changed.
  caf::scoped_actor self{sys};
  size_t jobs = 99;
  self->request(remote, 10s, msg::jobs_atom_v)
      .receive([&](std::vector<msg::job_info>& all) { jobs = all.size(); }, [](caf::error&) {});
  BOOST_TEST(jobs == 0u);
}

BOOST_AUTO_TEST_CASE(the_same_requests_from_the_controllers_own_process_are_served) {
  auto& sys = *server.sys;
  // Refused for what they are, not for where they came from.
  auto err = error_of<caf::ok_atom>(sys, controller, msg::cancel_atom_v, uint64_t{42}, int32_t{0},
                                    uint32_t{0});
  BOOST_TEST((err == errc::unknown_job));
  BOOST_TEST(!error_of<msg::job_info>(sys, controller, msg::submit_atom_v, a_job(), caf::actor{}));
}

BOOST_AUTO_TEST_CASE(listings_and_pings_from_the_daemons_port_are_served) {
  auto& sys = *peer.sys;
  BOOST_TEST(!error_of<msg::controller_status>(sys, remote, caf::ping_atom::value));
  BOOST_TEST(!error_of<std::vector<msg::node_info>>(sys, remote, msg::nodes_atom_v));
  BOOST_TEST(!error_of<std::vector<msg::partition_info>>(sys, remote, msg::parts_atom_v));
}

BOOST_AUTO_TEST_SUITE_END()
