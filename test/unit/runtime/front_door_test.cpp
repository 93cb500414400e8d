// The CLI's front door over a real loopback socket, in front of a real controller actor (no node
// daemons): requests and replies, and what it does with bytes it cannot trust.

#include <boost/test/unit_test.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <random>
#include <set>
#include <thread>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/controller.hpp"
#include "actors/standby.hpp"
#include "messages/codec.hpp"
#include "messages/errc.hpp"
#include "messages/front_door.hpp"
#include "messages/type_ids.hpp"
#include "runtime/bootstrap/front_door_client.hpp"
#include "runtime/bootstrap/system_setup.hpp"
#include "runtime/ctld/front_door.hpp"

namespace {

using namespace shoal;
using namespace std::chrono_literals;

struct door_fixture {
  door_fixture() {
    runtime::configure_actor_system(cfg, 2);
    sys = std::make_unique<caf::actor_system>(cfg);
    auto conf = config::parse_config(config::default_config_text(2, 6917), "<embedded>", "/");
    BOOST_REQUIRE(conf);
    controller = caf::actor_cast<caf::actor>(actors::spawn_controller(*sys, *conf));
    runtime::front_door_setup setup;
    setup.address = "127.0.0.1";
    setup.frame_patience = 400ms;
    auto opened = runtime::open_front_door(*sys, setup);
    BOOST_REQUIRE_MESSAGE(opened, (opened ? "" : describe(opened.error())));
    door = opened->actor;
    port = opened->port;
    retarget(controller);
  }

  /// Points the door at `target` and waits until it took effect.
  void retarget(const caf::actor& target) {
    caf::scoped_actor self{*sys};
    bool done = false;
    self->request(door, 5s, runtime::retarget_atom::value, target)
        .receive([&](caf::ok_atom) { done = true; }, [](caf::error&) {});
    BOOST_REQUIRE(done);
  }

  ~door_fixture() {
    caf::scoped_actor self{*sys};
    for (auto id : submitted)
      self->request(controller, 5s, msg::cancel_atom_v, id, int32_t{0}, uint32_t{0})
          .receive([](caf::ok_atom) {}, [](caf::error&) {});
    caf::anon_send_exit(door, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(controller, caf::exit_reason::user_shutdown);
  }

  runtime::front_door_client connect() {
    auto c = runtime::front_door_client::connect("127.0.0.1", port, 2s);
    BOOST_REQUIRE_MESSAGE(c, (c ? "" : describe(c.error())));
    return std::move(*c);
  }

  msg::client_reply call(runtime::front_door_client& c, const msg::client_request& req) {
    auto reply = c.call(req, 5s);
    BOOST_REQUIRE_MESSAGE(reply, (reply ? "" : describe(reply.error())));
    return std::move(*reply);
  }

  msg::client_request submission(const std::string& token) {
    auto req = msg::make_client_request(msg::client_op::submit);
    req.submission.user = "alice";
    req.submission.uid = 1000;
    req.submission.argv = {"true"};
    req.submission.cwd = "/tmp";
    req.submission.submit_token = token;
    return req;
  }

  /// A raw socket to the door, for bytes no client would send.
  int raw_socket() {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(port);
    BOOST_REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    return fd;
  }

  /// True when the door closes `fd` within `limit` (a read sees the end of the stream).
  static bool closed_by_peer(int fd, std::chrono::milliseconds limit) {
    timeval tv{static_cast<time_t>(limit.count() / 1000),
               static_cast<suseconds_t>((limit.count() % 1000) * 1000)};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char c;
    auto n = ::recv(fd, &c, 1, 0);
    ::close(fd);
    return n == 0 || (n < 0 && errno == ECONNRESET);
  }

  /// The door still serves a fresh client.
  void still_serving() {
    auto c = connect();
    auto reply = call(c, msg::make_client_request(msg::client_op::ping));
    BOOST_TEST(reply.error_code == 0);
    BOOST_TEST(reply.status.in_control);
  }

  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  caf::actor controller;
  caf::actor door;
  uint16_t port = 0;
  std::vector<uint64_t> submitted;
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(front_door, door_fixture)

BOOST_AUTO_TEST_CASE(requests_are_answered_in_order_on_one_connection) {
  auto c = connect();
  auto first = call(c, submission("door:1"));
  BOOST_REQUIRE_EQUAL(first.error_code, 0);
  BOOST_REQUIRE_EQUAL(first.jobs.size(), 1u);
  submitted.push_back(first.jobs[0].job_id);
  auto again = call(c, submission("door:1"));  // a retried submission: the same job
  BOOST_REQUIRE_EQUAL(again.jobs.size(), 1u);
  BOOST_TEST(again.jobs[0].job_id == first.jobs[0].job_id);
  auto jobs = msg::make_client_request(msg::client_op::jobs);
  auto listed = call(c, jobs);
  BOOST_REQUIRE_EQUAL(listed.jobs.size(), 1u);
  BOOST_TEST(listed.jobs[0].user == "alice");
  auto nodes = call(c, msg::make_client_request(msg::client_op::nodes));
  BOOST_TEST(nodes.nodes.size() == 2u);
  auto parts = call(c, msg::make_client_request(msg::client_op::partitions));
  BOOST_TEST(parts.partitions.size() == 1u);
  auto conf = call(c, msg::make_client_request(msg::client_op::config));
  BOOST_TEST(conf.text.find("SlurmctldPort") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_refusal_comes_back_with_its_code_and_text) {
  auto c = connect();
  auto req = msg::make_client_request(msg::client_op::job);
  req.job_id = 424242;
  auto reply = call(c, req);
  BOOST_TEST(reply.error_code == static_cast<uint8_t>(errc::unknown_job));
  BOOST_TEST(!reply.error_text.empty());
  // A request kind this door does not know (a newer client): refused, the connection goes on.
  auto odd = msg::make_client_request(static_cast<msg::client_op>(200));
  auto refused = call(c, odd);
  BOOST_TEST(refused.error_code == static_cast<uint8_t>(errc::invalid_request));
  BOOST_TEST(call(c, msg::make_client_request(msg::client_op::ping)).error_code == 0);
}

BOOST_AUTO_TEST_CASE(without_a_target_every_request_is_not_in_control) {
  retarget(caf::actor{});
  auto c = connect();
  auto reply = call(c, msg::make_client_request(msg::client_op::jobs));
  BOOST_TEST(reply.error_code == static_cast<uint8_t>(errc::not_in_control));
  // A standby behind it answers a ping as not in control and refuses the rest.
  actors::standby_setup setup;
  setup.refusal = "not in control: the primary ctl1 at 127.0.0.1:1 is";
  auto standby = caf::actor_cast<caf::actor>(actors::spawn_standby(*sys, setup));
  retarget(standby);
  auto ping = call(c, msg::make_client_request(msg::client_op::ping));
  BOOST_TEST(ping.error_code == 0);
  BOOST_TEST(!ping.status.in_control);
  auto refused = call(c, msg::make_client_request(msg::client_op::nodes));
  BOOST_TEST(refused.error_code == static_cast<uint8_t>(errc::not_in_control));
  BOOST_TEST(refused.error_text == setup.refusal);
  caf::anon_send_exit(standby, caf::exit_reason::user_shutdown);
}

BOOST_AUTO_TEST_CASE(administration_is_for_root_and_the_admins_only) {
  auto c = connect();
  auto drain = msg::make_client_request(msg::client_op::node_update);
  drain.update.nodes = "node1";
  drain.update.state = "DRAIN";
  drain.update.reason = "test";
  drain.uid = 4321;  // neither root nor an admin (the fixture's door has none)
  auto refused = call(c, drain);
  BOOST_TEST(refused.error_code == static_cast<uint8_t>(errc::permission_denied));
  BOOST_TEST(refused.error_text == "Access/permission denied");
  auto debug = msg::make_client_request(msg::client_op::set_debug);
  debug.text = "debug";
  debug.uid = 4321;
  BOOST_TEST(call(c, debug).error_code == static_cast<uint8_t>(errc::permission_denied));
  // Listing is for everyone.
  auto nodes = msg::make_client_request(msg::client_op::nodes);
  nodes.uid = 4321;
  BOOST_TEST(call(c, nodes).error_code == 0);
  // Root's update reaches the controller.
  drain.uid = 0;
  BOOST_TEST(call(c, drain).error_code == 0);
}

BOOST_AUTO_TEST_CASE(random_bytes_drop_the_peer_and_others_carry_on) {
  std::mt19937 rng{17};
  for (int round = 0; round < 20; ++round) {
    int fd = raw_socket();
    std::string junk(64 + rng() % 512, '\0');
    for (auto& ch : junk) ch = static_cast<char>(rng());
    auto body = static_cast<uint32_t>(junk.size() - 4);  // a length the bytes fill: decoded
    for (int i = 0; i < 4; ++i) junk[i] = static_cast<char>((body >> (8 * i)) & 0xff);
    ::send(fd, junk.data(), junk.size(), MSG_NOSIGNAL);
    ::shutdown(fd, SHUT_WR);
    BOOST_TEST(closed_by_peer(fd, 3s));
  }
  still_serving();
}

BOOST_AUTO_TEST_CASE(an_oversized_length_drops_the_peer_at_once) {
  int fd = raw_socket();
  const unsigned char huge[4] = {0xff, 0xff, 0xff, 0xff};
  ::send(fd, huge, sizeof huge, MSG_NOSIGNAL);
  BOOST_TEST(closed_by_peer(fd, 3s));
  int zero = raw_socket();
  const unsigned char nothing[4] = {0, 0, 0, 0};
  ::send(zero, nothing, sizeof nothing, MSG_NOSIGNAL);
  BOOST_TEST(closed_by_peer(zero, 3s));
  still_serving();
}

BOOST_AUTO_TEST_CASE(a_valid_frame_with_another_major_version_is_dropped) {
  auto frame = msg::encode_client_frame(msg::make_client_request(msg::client_op::ping));
  frame[4 + 4] = static_cast<char>(frame[4 + 4] + 1);  // the header's major version
  int fd = raw_socket();
  ::send(fd, frame.data(), frame.size(), MSG_NOSIGNAL);
  BOOST_TEST(closed_by_peer(fd, 3s));
  still_serving();
}

BOOST_AUTO_TEST_CASE(a_client_that_never_finishes_its_frame_is_dropped) {
  auto frame = msg::encode_client_frame(msg::make_client_request(msg::client_op::ping));
  int fd = raw_socket();
  ::send(fd, frame.data(), frame.size() - 3, MSG_NOSIGNAL);  // and then nothing
  // Others are served meanwhile.
  still_serving();
  BOOST_TEST(closed_by_peer(fd, 5s));
}

BOOST_AUTO_TEST_CASE(many_clients_at_once_each_get_their_own_replies) {
  constexpr int clients = 16;
  constexpr int each = 10;
  std::vector<std::thread> threads;
  std::vector<std::vector<uint64_t>> ids(clients);
  for (int t = 0; t < clients; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < each; ++i) {
        // A connection per request, as CLI processes do: socket numbers are reused at once.
        auto c = runtime::front_door_client::connect("127.0.0.1", port, 2s);
        if (!c) continue;
        auto reply =
            c->call(submission("many:" + std::to_string(t) + ":" + std::to_string(i)), 10s);
        if (reply && reply->error_code == 0 && reply->jobs.size() == 1)
          ids[t].push_back(reply->jobs[0].job_id);
        auto listing = c->call(msg::make_client_request(msg::client_op::nodes), 10s);
        if (!listing || listing->nodes.size() != 2) ids[t].push_back(0);
      }
    });
  for (auto& th : threads) th.join();
  std::set<uint64_t> distinct;
  size_t total = 0;
  for (auto& v : ids) {
    total += v.size();
    distinct.insert(v.begin(), v.end());
  }
  BOOST_TEST(total == size_t{clients * each});
  BOOST_TEST(distinct.size() == size_t{clients * each});
  BOOST_TEST(distinct.count(0) == 0u);
  submitted.assign(distinct.begin(), distinct.end());
}

BOOST_AUTO_TEST_SUITE_END()
