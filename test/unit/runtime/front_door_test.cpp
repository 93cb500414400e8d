// The CLI's front door over a real loopback socket, in front of a real controller actor (no node
// daemons): requests and replies, and what it does with bytes it cannot trust.

#include <boost/test/unit_test.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <random>
#include <set>
#include <thread>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/controller/controller.hpp"
#include "actors/standby.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "messages/codec.hpp"
#include "messages/front_door.hpp"
#include "runtime/bootstrap/front_door_client.hpp"
#include "runtime/bootstrap/munge.hpp"
#include "runtime/bootstrap/request_auth.hpp"
#include "runtime/bootstrap/system_setup.hpp"
#include "runtime/ctld/front_door.hpp"
#include "test/unit/runtime/test_munged.hpp"

namespace {

using namespace shoal;
using namespace std::chrono_literals;

/// auth/none: the door believes the uid a request names (most cases here test other things).
config::auth_settings no_auth() {
  config::auth_settings auth;
  auth.munge = false;
  return auth;
}

struct door_fixture {
  explicit door_fixture(config::auth_settings auth = no_auth(),
                        const std::function<void(runtime::front_door_setup&)>& adjust = {}) {
    runtime::configure_actor_system(cfg, 2);
    sys = std::make_unique<caf::actor_system>(cfg);
    auto conf = config::parse_config(config::default_config_text(2, 6917), "<embedded>", "/");
    BOOST_REQUIRE(conf);
    controller = caf::actor_cast<caf::actor>(actors::spawn_controller(*sys, *conf));
    runtime::front_door_setup setup;
    setup.address = "127.0.0.1";
    setup.frame_patience = 400ms;
    setup.auth = auth;
    if (adjust) adjust(setup);
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
  // scontrol reboot and cancel_reboot go as node updates: admins only too.
  auto reboot = msg::make_client_request(msg::client_op::node_update);
  reboot.update.nodes = "ALL";
  reboot.update.reboot = "REBOOT_ASAP";
  reboot.uid = 4321;
  BOOST_TEST(call(c, reboot).error_code == static_cast<uint8_t>(errc::permission_denied));
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

BOOST_AUTO_TEST_CASE(under_auth_none_there_is_no_cluster_identity_to_hand_out) {
  auto c = connect();
  auto reply = call(c, msg::make_client_request(msg::client_op::cluster_identity));
  BOOST_TEST(reply.error_code == static_cast<uint8_t>(errc::invalid_request));
  BOOST_TEST(reply.error_text.find("auth/none") != std::string::npos);
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

BOOST_AUTO_TEST_CASE(a_run_streams_its_jobs_news_and_ends_the_job_when_its_client_leaves) {
  msg::job_info job;
  {
    auto c = connect();
    auto run = submission("door:run");
    run.op = static_cast<uint8_t>(msg::client_op::run);
    BOOST_REQUIRE(!c.send(run, 5s));
    // No node daemon here: the job waits, and its client hears so.
    bool replied = false;
    bool queued = false;
    while (!replied || !queued) {
      auto frame = c.receive(5s);
      BOOST_REQUIRE_MESSAGE(frame, (frame ? "" : describe(frame.error())));
      auto kind = static_cast<msg::client_stream>(frame->stream);
      if (kind == msg::client_stream::reply) {
        BOOST_REQUIRE_EQUAL(frame->error_code, 0);
        BOOST_REQUIRE_EQUAL(frame->jobs.size(), 1u);
        job = frame->jobs[0];
        replied = true;
      } else if (kind == msg::client_stream::event && frame->event.kind == "queued") {
        queued = true;
      }
    }
    auto other = connect();
    auto peek = msg::make_client_request(msg::client_op::job);
    peek.job_id = job.job_id;
    BOOST_TEST((call(other, peek).jobs.at(0).state == msg::job_state::pending));
  }  // the client leaves, as a killed srun does
  auto c = connect();
  auto peek = msg::make_client_request(msg::client_op::job);
  peek.job_id = job.job_id;
  bool cancelled = false;
  for (int i = 0; i < 50 && !cancelled; ++i) {
    cancelled = call(c, peek).jobs.at(0).state == msg::job_state::cancelled;
    if (!cancelled) std::this_thread::sleep_for(100ms);
  }
  BOOST_TEST(cancelled);
}

BOOST_AUTO_TEST_CASE(signals_and_attaching_are_for_the_jobs_owner) {
  auto c = connect();
  auto reply = call(c, submission("door:owned"));  // alice's, uid 1000
  BOOST_REQUIRE_EQUAL(reply.jobs.size(), 1u);
  auto id = reply.jobs[0].job_id;
  submitted.push_back(id);
  auto sig = msg::make_client_request(msg::client_op::signal);
  sig.job_id = id;
  sig.signo = 10;
  sig.uid = 2000;
  auto refused = call(c, sig);
  BOOST_TEST(refused.error_code == static_cast<uint8_t>(errc::permission_denied));
  BOOST_TEST(refused.error_text.rfind("Access/permission denied", 0) == 0);
  sig.uid = 1000;
  BOOST_TEST(call(c, sig).error_code == 0);
  auto attach = msg::make_client_request(msg::client_op::attach);
  attach.job_id = id;
  attach.uid = 2000;
  BOOST_TEST(call(c, attach).error_code == static_cast<uint8_t>(errc::permission_denied));
  attach.uid = 0;
  auto attached = call(c, attach);
  BOOST_TEST(attached.error_code == 0);
  BOOST_TEST(attached.jobs.size() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()

// -- PrivateData=jobs, and clients that do not read ---------------------------------------------

namespace {

struct private_door : door_fixture {
  private_door()
      : door_fixture(no_auth(),
                     [](runtime::front_door_setup& s) { s.access.private_jobs = true; }) {}
};

struct small_buffer_door : door_fixture {
  small_buffer_door()
      : door_fixture(no_auth(),
                     [](runtime::front_door_setup& s) { s.max_unread_reply_bytes = 256 << 10; }) {}
};

}  // namespace

BOOST_AUTO_TEST_SUITE(front_door_limits)

BOOST_FIXTURE_TEST_CASE(private_data_jobs_shows_users_only_their_own_jobs, private_door) {
  auto c = connect();
  auto reply = call(c, submission("door:private"));  // alice's, uid 1000
  BOOST_REQUIRE_EQUAL(reply.jobs.size(), 1u);
  auto id = reply.jobs[0].job_id;
  submitted.push_back(id);
  auto list_as = [&](uint32_t uid) {
    auto req = msg::make_client_request(msg::client_op::jobs);
    req.include_finished = true;
    req.uid = uid;
    std::set<uint64_t> ids;
    for (auto& j : call(c, req).jobs) ids.insert(j.job_id);
    return ids;
  };
  BOOST_TEST(list_as(1000).count(id) == 1u);
  BOOST_TEST(list_as(2000).count(id) == 0u);
  BOOST_TEST(list_as(0).count(id) == 1u);
  auto show = msg::make_client_request(msg::client_op::job);
  show.job_id = id;
  show.uid = 2000;
  auto refused = call(c, show);
  BOOST_TEST(refused.error_code == static_cast<uint8_t>(errc::permission_denied));
  BOOST_TEST(refused.error_text == "Access/permission denied");
  show.uid = 1000;
  BOOST_TEST(call(c, show).jobs.size() == 1u);
}

BOOST_FIXTURE_TEST_CASE(a_client_that_sends_and_never_reads_is_dropped, small_buffer_door) {
  // Each config reply is a few KiB: 20,000 of them outgrow the kernel's socket buffers and the
  // door's 256 KiB bound many times over.
  int fd = raw_socket();
  auto frame = msg::encode_client_frame(msg::make_client_request(msg::client_op::config));
  std::string burst;
  for (int i = 0; i < 200; ++i) burst += frame;
  timeval tv{2, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  for (int i = 0; i < 100; ++i)
    if (::send(fd, burst.data(), burst.size(), MSG_NOSIGNAL) < 0) break;  // dropped already
  // Now read: what was sent before the drop arrives, then the end of the stream.
  tv = {10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  std::vector<char> buf(1 << 16);
  ssize_t n = 0;
  while ((n = ::recv(fd, buf.data(), buf.size(), 0)) > 0) {
  }
  bool closed = n == 0 || (n < 0 && errno == ECONNRESET);
  ::close(fd);
  BOOST_TEST(closed);
  still_serving();
}

BOOST_AUTO_TEST_SUITE_END()

// -- AuthType=auth/munge, with the tests' private munged (test/munge/munged.sh) ----------------

namespace {

namespace utf = boost::unit_test;

using test::have_test_munged;
using test::test_munge;
using test::test_munge_socket;

/// The uid signed_by_someone_else signs as: nobody when the test runs as root, else this
/// (unprivileged) process itself, which is someone other than root all the same.
uint32_t someone_else() {
  return ::getuid() == 0 ? 65534u : static_cast<uint32_t>(::getuid());
}

/// `req` signed by someone_else(): in a child that drops to nobody when the test runs as root,
/// else by this process itself.
msg::client_request signed_by_someone_else(msg::client_request req) {
  if (::getuid() != 0) {
    BOOST_REQUIRE(!runtime::sign_request(test_munge(), req));
    return req;
  }
  int fds[2];
  BOOST_REQUIRE(::pipe(fds) == 0);
  auto pid = ::fork();
  BOOST_REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(fds[0]);
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(3);
    if (runtime::sign_request(test_munge(), req)) ::_exit(4);
    auto n = ::write(fds[1], req.credential.data(), req.credential.size());
    ::_exit(n == static_cast<ssize_t>(req.credential.size()) ? 0 : 5);
  }
  ::close(fds[1]);
  std::string credential;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) credential.append(buf, n);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  BOOST_REQUIRE_MESSAGE(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                        "the child could not sign as nobody");
  req.credential = credential;
  return req;
}

struct munge_door : door_fixture {
  explicit munge_door(const std::function<void(runtime::front_door_setup&)>& adjust = {})
      : door_fixture(test_munge(), adjust) {}

  msg::client_request signed_request(msg::client_request req) {
    BOOST_REQUIRE(!runtime::sign_request(test_munge(), req));
    return req;
  }

  void still_serving_signed() {
    auto c = connect();
    auto reply = call(c, signed_request(msg::make_client_request(msg::client_op::ping)));
    BOOST_TEST(reply.error_code == 0);
  }
};

bool is_auth_refusal(const msg::client_reply& reply) {
  return reply.error_code == static_cast<uint8_t>(errc::authentication_failed) &&
         reply.error_text.rfind("Protocol authentication error", 0) == 0;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(munge_credentials)

BOOST_AUTO_TEST_CASE(a_credential_names_its_maker_and_is_good_for_one_decode,
                     *utf::precondition(have_test_munged)) {
  auto cred = runtime::make_munge_credential(test_munge_socket(), "payload");
  BOOST_REQUIRE_MESSAGE(cred, (cred ? "" : describe(cred.error())));
  auto who = runtime::decode_munge_credential(test_munge_socket(), *cred);
  BOOST_REQUIRE_MESSAGE(who, (who ? "" : describe(who.error())));
  BOOST_TEST(who->uid == ::getuid());
  BOOST_TEST(who->gid == ::getgid());
  BOOST_TEST(who->payload == "payload");
  auto again = runtime::decode_munge_credential(test_munge_socket(), *cred);
  BOOST_REQUIRE(!again);
  BOOST_TEST(describe(again.error()) ==
             "Protocol authentication error (MUNGE: Replayed credential)");
}

BOOST_AUTO_TEST_CASE(an_unreachable_munged_is_a_clear_error_with_the_fix) {
  auto cred = runtime::make_munge_credential("/nonexistent/munge.socket", "x");
  BOOST_REQUIRE(!cred);
  auto text = describe(cred.error());
  BOOST_TEST(text.find("cannot reach munged at /nonexistent/munge.socket") != std::string::npos);
  BOOST_TEST(text.find("AuthType=auth/none") != std::string::npos);
}

BOOST_FIXTURE_TEST_CASE(a_signed_request_is_served_as_the_user_munged_proves, munge_door,
                        *utf::precondition(have_test_munged)) {
  auto c = connect();
  auto ping = signed_request(msg::make_client_request(msg::client_op::ping));
  BOOST_TEST(call(c, ping).error_code == 0);
  // Someone else claims root's uid for a drain: the proven uid is refused, whatever it names.
  auto drain = msg::make_client_request(msg::client_op::node_update);
  drain.update.nodes = "node1";
  drain.update.state = "DRAIN";
  drain.update.reason = "claims to be root";
  drain.uid = 0;
  auto refused = call(c, signed_by_someone_else(drain));
  BOOST_TEST(refused.error_code == static_cast<uint8_t>(errc::permission_denied));
  BOOST_TEST(refused.error_text == "Access/permission denied");
  // A submission's owner is the prover, not the name or uid it carries.
  auto reply = call(c, signed_by_someone_else(submission("door:munge")));
  BOOST_REQUIRE_EQUAL(reply.error_code, 0);
  BOOST_REQUIRE_EQUAL(reply.jobs.size(), 1u);
  submitted.push_back(reply.jobs[0].job_id);
  auto query = msg::make_client_request(msg::client_op::job);
  query.job_id = reply.jobs[0].job_id;
  auto job = call(c, signed_request(query));
  BOOST_REQUIRE_EQUAL(job.jobs.size(), 1u);
  BOOST_TEST(job.jobs[0].uid == someone_else());
  BOOST_TEST(job.jobs[0].user != "alice");
}

BOOST_FIXTURE_TEST_CASE(unsigned_forged_replayed_and_altered_requests_are_refused, munge_door,
                        *utf::precondition(have_test_munged)) {
  auto c = connect();
  auto ping = msg::make_client_request(msg::client_op::ping);
  BOOST_TEST(is_auth_refusal(call(c, ping)));  // no credential
  ping.credential = "MUNGE:not-a-credential:";
  BOOST_TEST(is_auth_refusal(call(c, ping)));  // forged
  auto good = signed_request(msg::make_client_request(msg::client_op::jobs));
  BOOST_TEST(call(c, good).error_code == 0);
  BOOST_TEST(is_auth_refusal(call(c, good)));  // replayed
  auto altered = signed_request(msg::make_client_request(msg::client_op::jobs));
  altered.include_finished = !altered.include_finished;
  auto reply = call(c, altered);
  BOOST_TEST(is_auth_refusal(reply));
  BOOST_TEST(reply.error_text.find("another request") != std::string::npos);
  still_serving_signed();
}

BOOST_AUTO_TEST_CASE(a_credential_sealed_for_another_uid_does_not_open_here,
                     *utf::precondition(have_test_munged)) {
  auto cred = runtime::make_munge_credential(test_munge_socket(), "secret", ::getuid() + 4242);
  BOOST_REQUIRE_MESSAGE(cred, (cred ? "" : describe(cred.error())));
  auto opened = runtime::decode_munge_credential(test_munge_socket(), *cred);
  BOOST_REQUIRE(!opened);
  BOOST_TEST((opened.error() == errc::authentication_failed));
  auto mine = runtime::make_munge_credential(test_munge_socket(), "secret", ::getuid());
  BOOST_REQUIRE(mine);
  auto read = runtime::decode_munge_credential(test_munge_socket(), *mine);
  BOOST_REQUIRE_MESSAGE(read, (read ? "" : describe(read.error())));
  BOOST_TEST(read->payload == "secret");
}

/// A door that holds a cluster identity and hands it to `daemon_uid`.
struct identity_door : munge_door {
  explicit identity_door(uint32_t daemon_uid)
      : munge_door([daemon_uid](runtime::front_door_setup& s) {
          s.cluster_identity = "-----BEGIN PRIVATE KEY-----\nnot checked by the door\n";
          s.access.daemon_users = {daemon_uid};
        }) {}
};

BOOST_AUTO_TEST_CASE(a_daemon_user_gets_the_cluster_identity_sealed_for_its_uid_alone,
                     *utf::precondition(have_test_munged)) {
  identity_door door{static_cast<uint32_t>(::getuid())};
  auto c = door.connect();
  auto reply =
      door.call(c, door.signed_request(msg::make_client_request(msg::client_op::cluster_identity)));
  BOOST_REQUIRE_EQUAL(reply.error_code, 0);
  BOOST_TEST(reply.text.find("not checked by the door") == std::string::npos);  // sealed
  auto opened = runtime::decode_munge_credential(test_munge_socket(), reply.text);
  BOOST_REQUIRE_MESSAGE(opened, (opened ? "" : describe(opened.error())));
  BOOST_TEST(opened->uid == ::getuid());
  BOOST_TEST(opened->payload == "-----BEGIN PRIVATE KEY-----\nnot checked by the door\n");
}

BOOST_AUTO_TEST_CASE(anyone_else_is_refused_the_cluster_identity,
                     *utf::precondition(have_test_munged)) {
  // Signed by a user who is neither root nor a daemon user (nobody, when the test runs as root:
  // root is always a daemon user).
  identity_door door{static_cast<uint32_t>(::getuid()) + 4242};
  auto c = door.connect();
  auto reply = door.call(
      c, signed_by_someone_else(msg::make_client_request(msg::client_op::cluster_identity)));
  BOOST_TEST(reply.error_code == static_cast<uint8_t>(errc::permission_denied));
  BOOST_TEST(reply.error_text == "Access/permission denied");
  BOOST_TEST(reply.text.empty());
  auto unsigned_ask = msg::make_client_request(msg::client_op::cluster_identity);
  BOOST_TEST(is_auth_refusal(door.call(c, unsigned_ask)));
  door.still_serving_signed();
}

BOOST_AUTO_TEST_SUITE_END()
