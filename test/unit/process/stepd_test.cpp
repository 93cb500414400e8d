// shoal-stepd, the per-step process, driven through its socket as shoald drives it: the real
// binary from beside this test, in a private spool directory.

#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "messages/errc.hpp"
#include "process/stepd_client.hpp"
#include "process/stepd_wire.hpp"

using namespace shoal;
using namespace shoal::process;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

/// Longer than any step here takes, far shorter than the `sleep 30` steps that must end early.
constexpr int patience_ms = 10000;

template <class Pred>
bool eventually(Pred pred, std::chrono::seconds limit = 10s) {
  auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (pred()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return pred();
}

/// What one connection saw until the step's exit.
struct seen {
  std::string out;  ///< every rank's stdout, in arrival order
  bool got_exit = false;
  msg::step_exit exit;
  std::string error;  ///< why reading stopped early
};

struct stepd_fixture {
  fs::path dir;
  std::vector<int> open_fds;

  stepd_fixture() {
    char tmpl[] = "/tmp/shoal-stepd-test-XXXXXX";
    BOOST_REQUIRE(::mkdtemp(tmpl) != nullptr);
    dir = tmpl;
  }

  ~stepd_fixture() {
    // Steps left running by a failed check end here, with their daemons.
    terminate_stepds(dir.string());
    for (int fd : open_fds) ::close(fd);
    std::error_code ec;
    fs::remove_all(dir, ec);
  }

  msg::stepd_setup setup(std::vector<std::string> argv, std::vector<uint32_t> ranks = {0},
                         uint64_t job = 42, uint32_t step = 7) {
    msg::stepd_setup s;
    auto& req = s.request;
    req.job_id = job;
    req.step_id = step;
    req.uid = ::geteuid();
    req.gid = ::getegid();
    req.argv = std::move(argv);
    req.env = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + dir.string()};
    req.cwd = dir.string();
    req.nodelist = "n1";
    req.node_count = 1;
    req.ntasks = static_cast<uint32_t>(ranks.size());
    req.ranks = std::move(ranks);
    s.node_name = "n1";
    s.socket_path = step_socket_path(dir.string(), job, step);
    return s;
  }

  /// Starts a step daemon and attaches, as a shepherd does.
  step_connection start(const msg::stepd_setup& s) {
    auto conn = start_stepd(sibling_stepd_path(), s);
    BOOST_REQUIRE_MESSAGE(conn, "start_stepd: " << (conn ? "" : describe(conn.error())));
    open_fds.push_back(conn->fd);
    send(*conn, make_frame(frame_kind::attach));
    return std::move(*conn);
  }

  /// Connects and attaches, as an adopting shepherd does.
  step_connection reconnect(const std::string& path) {
    auto conn = connect_stepd(path);
    BOOST_REQUIRE_MESSAGE(conn, "connect_stepd: " << (conn ? "" : describe(conn.error())));
    open_fds.push_back(conn->fd);
    send(*conn, make_frame(frame_kind::attach));
    return std::move(*conn);
  }

  static void send(const step_connection& conn, const msg::stepd_frame& frame) {
    auto bytes = encode_frame(frame);
    BOOST_REQUIRE_EQUAL(write_all(conn.fd, bytes.data(), bytes.size()), 0);
  }

  static seen read_until_exit(step_connection& conn) {
    seen s;
    for (;;) {
      auto frame = read_frame(conn.fd, conn.reader, patience_ms);
      if (!frame) {
        s.error = describe(frame.error());
        return s;
      }
      if (kind_of(*frame) == frame_kind::output) s.out += frame->output.data;
      if (kind_of(*frame) == frame_kind::exit) {
        s.got_exit = true;
        s.exit = std::move(frame->exit);
        return s;
      }
    }
  }

  /// True once the peer closed the connection (reading past any frames still queued).
  static bool closed_by_peer(step_connection& conn) {
    for (;;) {
      auto frame = read_frame(conn.fd, conn.reader, patience_ms);
      if (!frame) return describe(frame.error()) == "shoal-stepd closed the connection";
    }
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(stepd, stepd_fixture)

BOOST_AUTO_TEST_CASE(a_step_says_hello_streams_output_and_exits_once_acknowledged) {
  auto s = setup({"sh", "-c", "echo hello; exit 3"});
  auto conn = start(s);
  BOOST_TEST(conn.hello.request.job_id == 42u);
  BOOST_TEST(conn.hello.request.step_id == 7u);
  BOOST_TEST(conn.hello.node_name == "n1");
  BOOST_TEST(conn.hello.pid > 0);
  // Detached from us: a session of its own, so our end (or a signal to our group) spares it.
  BOOST_TEST(::getsid(conn.hello.pid) == conn.hello.pid);
  BOOST_TEST(fs::exists(s.socket_path));
  auto r = read_until_exit(conn);
  BOOST_REQUIRE_MESSAGE(r.got_exit, r.error);
  BOOST_TEST(r.out == "hello\n");
  BOOST_REQUIRE_EQUAL(r.exit.tasks.size(), 1u);
  BOOST_TEST(r.exit.tasks[0].exit_code == 3);
  BOOST_TEST(r.exit.tasks[0].signal == 0);
  BOOST_TEST(r.exit.launch_error == "");
  send(conn, make_frame(frame_kind::ack));
  BOOST_TEST(closed_by_peer(conn));
  BOOST_TEST(!fs::exists(s.socket_path));
}

BOOST_AUTO_TEST_CASE(a_signal_frame_reaches_every_task) {
  auto conn = start(setup({"sleep", "30"}, {0, 1}));
  send(conn, make_frame(frame_kind::signal, SIGTERM));
  auto r = read_until_exit(conn);
  BOOST_REQUIRE_MESSAGE(r.got_exit, r.error);
  BOOST_REQUIRE_EQUAL(r.exit.tasks.size(), 2u);
  for (auto& t : r.exit.tasks) BOOST_TEST(t.signal == SIGTERM);
  send(conn, make_frame(frame_kind::ack));
}

BOOST_AUTO_TEST_CASE(a_kill_frame_kills_every_task) {
  auto conn = start(setup({"sleep", "30"}, {0, 1, 2}));
  send(conn, make_frame(frame_kind::kill));
  auto r = read_until_exit(conn);
  BOOST_REQUIRE_MESSAGE(r.got_exit, r.error);
  BOOST_REQUIRE_EQUAL(r.exit.tasks.size(), 3u);
  for (auto& t : r.exit.tasks) BOOST_TEST(t.signal == SIGKILL);
  send(conn, make_frame(frame_kind::ack));
}

BOOST_AUTO_TEST_CASE(a_launch_failure_comes_back_as_the_exit) {
  auto conn = start(setup({"/nonexistent/program"}));
  auto r = read_until_exit(conn);
  BOOST_REQUIRE_MESSAGE(r.got_exit, r.error);
  BOOST_TEST(r.exit.tasks.at(0).exit_code == 127);
  BOOST_TEST(r.exit.launch_error.find("No such file or directory") != std::string::npos,
             r.exit.launch_error);
  send(conn, make_frame(frame_kind::ack));
}

BOOST_AUTO_TEST_CASE(a_reconnecting_client_gets_the_buffered_output_and_the_exit) {
  // The task writes only once its shoald is gone, so all of its output waits in the daemon.
  auto go = (dir / "go").string();
  auto s = setup(
      {"sh", "-c", "while [ ! -e " + go + " ]; do sleep 0.01; done; echo one; echo two; exit 5"});
  {
    auto first = start(s);
    ::shutdown(first.fd, SHUT_RDWR);
  }
  ::close(::creat(go.c_str(), 0644));
  // The step ends with nobody attached and waits, its output and exit kept. Probing it (a
  // connection that never attaches) takes none of them.
  BOOST_REQUIRE(eventually([&] {
    auto probe = connect_stepd(s.socket_path);
    if (!probe) return false;
    ::close(probe->fd);
    return !probe->hello.tasks_running;
  }));
  auto later = reconnect(s.socket_path);
  auto r = read_until_exit(later);
  BOOST_REQUIRE_MESSAGE(r.got_exit, r.error);
  BOOST_TEST(r.out == "one\ntwo\n");
  BOOST_TEST(r.exit.tasks.at(0).exit_code == 5);
  send(later, make_frame(frame_kind::ack));
  BOOST_TEST(closed_by_peer(later));
}

BOOST_AUTO_TEST_CASE(the_exit_is_repeated_on_every_connection_until_acknowledged) {
  auto s = setup({"sh", "-c", "exit 4"});
  auto first = start(s);
  auto r1 = read_until_exit(first);
  BOOST_REQUIRE_MESSAGE(r1.got_exit, r1.error);
  // A second connection only says hello while the first is there: probes change nothing.
  auto second = reconnect(s.socket_path);
  BOOST_TEST(!second.hello.tasks_running);
  ::shutdown(first.fd, SHUT_RDWR);
  // The first shoald died without acknowledging: the second gets the exit again.
  auto r2 = read_until_exit(second);
  BOOST_REQUIRE_MESSAGE(r2.got_exit, r2.error);
  BOOST_TEST(r2.exit.tasks.at(0).exit_code == 4);
  BOOST_TEST(fs::exists(s.socket_path));
  send(second, make_frame(frame_kind::ack));
  BOOST_TEST(closed_by_peer(second));
  BOOST_TEST(!fs::exists(s.socket_path));
}

BOOST_AUTO_TEST_CASE(output_beyond_the_buffer_waits_for_a_reader_instead_of_being_lost) {
  // 10 MB, more than the daemon holds (4 MiB) plus what a pipe holds, written once its shoald
  // is gone: the task must block until a client reads, then everything arrives.
  constexpr size_t total = 10'000'000;
  auto go = (dir / "go").string();
  auto s = setup({"sh", "-c",
                  "while [ ! -e " + go + " ]; do sleep 0.01; done; head -c " +
                      std::to_string(total) + " /dev/zero | tr '\\0' a"});
  {
    auto first = start(s);
    ::shutdown(first.fd, SHUT_RDWR);
  }
  ::close(::creat(go.c_str(), 0644));
  auto later = reconnect(s.socket_path);
  auto r = read_until_exit(later);
  BOOST_REQUIRE_MESSAGE(r.got_exit, r.error);
  BOOST_TEST(r.out.size() == total);
  BOOST_TEST(r.out.find_first_not_of('a') == std::string::npos);
  BOOST_TEST(r.exit.tasks.at(0).exit_code == 0);
  send(later, make_frame(frame_kind::ack));
}

BOOST_AUTO_TEST_CASE(a_stale_socket_is_removed_by_the_scan_and_live_ones_are_found) {
  // A socket file nobody listens on, as a killed daemon leaves it.
  auto stale = step_socket_path(dir.string(), 9, 0);
  {
    int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strcpy(addr.sun_path, stale.c_str());
    BOOST_REQUIRE_EQUAL(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ::close(fd);
  }
  BOOST_REQUIRE(fs::exists(stale));
  auto running = start(setup({"sleep", "30"}, {0}, 43, 1));
  auto scan = scan_spool_dir(dir.string());
  BOOST_TEST(scan.problems.empty());
  BOOST_REQUIRE_EQUAL(scan.removed.size(), 1u);
  BOOST_TEST(scan.removed[0] == stale);
  BOOST_TEST(!fs::exists(stale));
  BOOST_REQUIRE_EQUAL(scan.live.size(), 1u);
  for (auto& conn : scan.live) open_fds.push_back(conn.fd);
  BOOST_TEST(scan.live[0].hello.request.job_id == 43u);
  BOOST_TEST(scan.live[0].hello.tasks_running);
  // A signal from the scan's connection counts too; the exit still goes to the first one.
  send(scan.live[0], make_frame(frame_kind::kill));
  auto r = read_until_exit(running);
  BOOST_REQUIRE_MESSAGE(r.got_exit, r.error);
  BOOST_TEST(r.exit.tasks.at(0).signal == SIGKILL);
  send(running, make_frame(frame_kind::ack));
}

BOOST_AUTO_TEST_CASE(a_stale_socket_at_the_steps_path_does_not_stop_it) {
  auto s = setup({"true"});
  {
    int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strcpy(addr.sun_path, s.socket_path.c_str());
    BOOST_REQUIRE_EQUAL(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ::close(fd);
  }
  auto conn = start(s);
  auto r = read_until_exit(conn);
  BOOST_REQUIRE_MESSAGE(r.got_exit, r.error);
  send(conn, make_frame(frame_kind::ack));
}

BOOST_AUTO_TEST_CASE(the_same_step_cannot_run_twice) {
  auto s = setup({"sleep", "30"});
  auto conn = start(s);
  auto again = start_stepd(sibling_stepd_path(), s);
  BOOST_REQUIRE(!again);
  BOOST_TEST(describe(again.error()).find("already runs here") != std::string::npos,
             describe(again.error()));
  send(conn, make_frame(frame_kind::kill));
  BOOST_TEST(read_until_exit(conn).got_exit);
  send(conn, make_frame(frame_kind::ack));
}

BOOST_AUTO_TEST_CASE(sigterm_kills_the_tasks_and_ends_the_daemon_without_an_ack) {
  auto s = setup({"sleep", "30"}, {0, 1});
  auto conn = start(s);
  BOOST_TEST(terminate_stepds(dir.string()) == 1u);
  auto r = read_until_exit(conn);
  BOOST_REQUIRE_MESSAGE(r.got_exit, r.error);
  for (auto& t : r.exit.tasks) BOOST_TEST(t.signal == SIGKILL);
  BOOST_TEST(closed_by_peer(conn));
  BOOST_TEST(!fs::exists(s.socket_path));
}

/// Runs step `step` of job `job` through `spares`: `sh -c "echo STEP; exit STEP"`, then checks
/// its output and exit code, acknowledges the exit and makes the next spare. Returns the pid of
/// the step daemon that ran it.
int32_t run_spare_step(stepd_fixture& f, stepd_spares& spares, uint64_t job, uint32_t step) {
  auto s = f.setup({"sh", "-c", "echo " + std::to_string(step) + "; exit " + std::to_string(step)},
                   {0}, job, step);
  auto conn = spares.start(s);
  BOOST_REQUIRE_MESSAGE(conn, "spares.start: " << (conn ? "" : describe(conn.error())));
  f.open_fds.push_back(conn->fd);
  f.send(*conn, make_frame(frame_kind::attach));
  auto r = f.read_until_exit(*conn);
  BOOST_REQUIRE_MESSAGE(r.got_exit, r.error);
  BOOST_TEST(r.out == std::to_string(step) + "\n");
  BOOST_TEST(r.exit.tasks.at(0).exit_code == static_cast<int32_t>(step));
  f.send(*conn, make_frame(frame_kind::ack));
  BOOST_TEST(f.closed_by_peer(*conn));
  spares.replenish();
  return conn->hello.pid;
}

BOOST_AUTO_TEST_CASE(spares_run_one_step_after_another) {
  stepd_spares spares{sibling_stepd_path()};
  for (uint32_t step = 1; step <= 3; ++step) run_spare_step(*this, spares, 42, step);
}

BOOST_AUTO_TEST_CASE(spares_come_from_a_zygote_and_outlive_its_death) {
  stepd_spares spares{sibling_stepd_path()};
  auto first = spares.zygote_pid();
  BOOST_REQUIRE(first > 0);
  run_spare_step(*this, spares, 43, 1);
  BOOST_TEST(spares.zygote_pid() == first);  // one zygote makes every spare
  // Killed, it is started again once...
  BOOST_REQUIRE(::kill(first, SIGKILL) == 0);
  run_spare_step(*this, spares, 43, 2);
  run_spare_step(*this, spares, 43, 3);
  auto second = spares.zygote_pid();
  BOOST_TEST(second > 0);
  BOOST_TEST(second != first);
  // ...and after a second death, spares are processes of their own: steps still run.
  BOOST_REQUIRE(::kill(second, SIGKILL) == 0);
  run_spare_step(*this, spares, 43, 4);
  run_spare_step(*this, spares, 43, 5);
  BOOST_TEST(spares.zygote_pid() == -1);
}

/// /proc's state letter of `pid` ('R', 'S', 'Z', ...), 0 when there is no such process.
char state_of(pid_t pid) {
  std::ifstream stat{"/proc/" + std::to_string(pid) + "/stat"};
  std::string line;
  if (!std::getline(stat, line)) return 0;
  auto close = line.rfind(')');
  return close == std::string::npos || close + 2 >= line.size() ? 0 : line[close + 2];
}

/// The children of `parent` that ended and were not reaped.
size_t zombies_of(pid_t parent) {
  size_t n = 0;
  for (auto& entry : fs::directory_iterator("/proc")) {
    std::ifstream stat{entry.path() / "stat"};
    std::string line;
    if (!std::getline(stat, line)) continue;
    // pid (comm) state ppid ...: comm may hold spaces, so read after its last ')'.
    auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest{line.substr(close + 1)};
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent && state == 'Z') ++n;
  }
  return n;
}

BOOST_AUTO_TEST_CASE(a_zygote_leaves_no_ended_step_daemon_unreaped) {
  stepd_spares spares{sibling_stepd_path()};
  auto zygote = spares.zygote_pid();
  BOOST_REQUIRE(zygote > 0);
  for (uint32_t step = 1; step <= 3; ++step) run_spare_step(*this, spares, 44, step);
  BOOST_TEST(spares.zygote_pid() == zygote);
  BOOST_TEST(zombies_of(zygote) == 0u);
}

BOOST_AUTO_TEST_CASE(a_step_daemon_serves_step_after_step_up_to_a_bound) {
  stepd_spares spares{sibling_stepd_path()};
  // The daemon that served a step takes a later one instead of a fork, at most 64 in all.
  std::map<int32_t, int> steps_of;
  for (uint32_t step = 1; step <= 130; ++step) ++steps_of[run_spare_step(*this, spares, 46, step)];
  int most = 0;
  for (auto& [pid, n] : steps_of) most = std::max(most, n);
  BOOST_TEST(most >= 2);
  BOOST_TEST(most <= 64);
  BOOST_TEST(zombies_of(spares.zygote_pid()) == 0u);
}

BOOST_AUTO_TEST_CASE(step_daemons_waiting_for_a_step_end_with_their_zygote_and_shoald) {
  std::set<int32_t> daemons;
  {
    stepd_spares spares{sibling_stepd_path()};
    auto zygote = spares.zygote_pid();
    BOOST_REQUIRE(zygote > 0);
    for (uint32_t step = 1; step <= 4; ++step)
      daemons.insert(run_spare_step(*this, spares, 47, step));
    BOOST_REQUIRE(::kill(zygote, SIGKILL) == 0);
  }  // shoald's side goes too: the current spare's socket closes
  // The idle ones read EOF on their link to the zygote, the spare on its socket: each ends
  // (bounded, so that the test cannot hang).
  auto alive = [&] {
    size_t n = 0;
    for (auto pid : daemons) n += state_of(pid) != 'Z' && state_of(pid) != 0 ? 1 : 0;
    return n;
  };
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{10};
  while (alive() > 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds{10});
  BOOST_TEST(alive() == 0u);
}

BOOST_AUTO_TEST_CASE(a_socket_path_too_long_is_a_start_error) {
  auto s = setup({"true"});
  s.socket_path = dir.string() + "/" + std::string(200, 'x') + ".sock";
  auto conn = start_stepd(sibling_stepd_path(), s);
  BOOST_REQUIRE(!conn);
  BOOST_TEST(describe(conn.error()).find("shoal-stepd: step socket path") == 0,
             describe(conn.error()));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(stepd_wire)

BOOST_AUTO_TEST_CASE(frames_cut_anywhere_come_out_whole) {
  auto a = make_frame(frame_kind::signal, 15);
  auto b = make_frame(frame_kind::output);
  b.output.data = std::string(100'000, 'x');
  b.output.rank = 3;
  auto bytes = encode_frame(a) + encode_frame(b);
  frame_reader reader;
  std::vector<msg::stepd_frame> got;
  // One byte at a time: the worst a socket can do.
  for (char c : bytes) {
    reader.feed(&c, 1);
    msg::stepd_frame f;
    auto more = reader.next(f);
    BOOST_REQUIRE(more);
    if (*more) got.push_back(std::move(f));
  }
  BOOST_REQUIRE_EQUAL(got.size(), 2u);
  BOOST_TEST(got[0].signo == 15);
  BOOST_TEST(got[1].output.data.size() == 100'000u);
  BOOST_TEST(got[1].output.rank == 3);
  BOOST_TEST(reader.pending() == 0u);
}

BOOST_AUTO_TEST_CASE(an_oversized_or_garbled_frame_is_an_error) {
  frame_reader huge;
  const char length[4] = {'\xff', '\xff', '\xff', '\x7f'};
  huge.feed(length, 4);
  msg::stepd_frame f;
  BOOST_TEST(!huge.next(f));
  frame_reader garbled;
  const char bytes[12] = {8, 0, 0, 0, 'n', 'o', 't', ' ', 's', 'h', 'o', 'l'};
  garbled.feed(bytes, sizeof bytes);
  BOOST_TEST(!garbled.next(f));
}

BOOST_AUTO_TEST_CASE(socket_paths_name_the_job_and_step_as_slurm_does) {
  BOOST_TEST(step_socket_path("/s/n1", 12, 0) == "/s/n1/job12.step0.sock");
  BOOST_TEST(step_socket_path("/s/n1", 12, msg::batch_step_id) == "/s/n1/job12.stepbatch.sock");
}

BOOST_AUTO_TEST_SUITE_END()
