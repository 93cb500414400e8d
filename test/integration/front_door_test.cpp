// The CLI's front door on a real cluster: many CLI processes at once lose no reply and make no
// duplicate job, and bytes nobody should send to the controller's ports leave it serving.

#include <boost/test/unit_test.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// Sends `bytes` to 127.0.0.1:`port` and closes (or leaves it half-sent, open, when `linger`).
int send_raw(uint16_t port, const std::string& bytes, bool keep_open = false) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0)
    ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  if (keep_open) return fd;
  ::close(fd);
  return -1;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(front_door_clients, two_nodes)

// 32 CLI processes submitting 40 jobs each at once while others list the queue and the nodes
// and four run `shoal run` in turn and two cancel what they submit: 1,280 replies, 1,280 distinct
// jobs, every one COMPLETED; every run printed its own output and exited 0; every cancelled job
// ended CANCELLED.
BOOST_AUTO_TEST_CASE(parallel_clients_lose_no_reply_and_make_no_duplicate) {
  constexpr int submitters = 32;
  constexpr int each = 40;
  write_file(scratch.file("job.sh"), "#!/bin/sh\ntrue\n", true);
  std::vector<std::vector<uint64_t>> ids(submitters);
  std::vector<std::string> failures(submitters);
  std::atomic<bool> submitting{true};
  std::atomic<int> listing_failures{0};
  std::atomic<int> listings{0};
  command_options patient;
  patient.timeout = 120s;
  std::vector<std::thread> threads;
  for (int t = 0; t < submitters; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < each; ++i) {
        auto r = run_cli({"batch", "-o", "/dev/null", "job.sh"}, patient);
        auto id = submitted_job_id(r.out);
        if (r.exit_code != 0 || id == 0) {
          failures[t] = r.describe();
          continue;
        }
        ids[t].push_back(id);
      }
    });
  constexpr int runners = 4;
  constexpr int runs_each = 10;
  std::vector<std::string> run_failures(runners);
  std::vector<std::thread> runs;
  for (int t = 0; t < runners; ++t)
    runs.emplace_back([&, t] {
      for (int i = 0; i < runs_each; ++i) {
        auto word = "run-" + std::to_string(t) + "-" + std::to_string(i);
        auto r = run_cli({"run", "-N1", "echo", word}, patient);
        if (r.exit_code != 0 || r.out != word + "\n") run_failures[t] = r.describe();
      }
    });
  // And two that submit a long job and cancel it at once, 10 times each.
  constexpr int cancellers = 2;
  constexpr int cancels_each = 10;
  write_file(scratch.file("long.sh"), "#!/bin/sh\nsleep 60\n", true);
  std::vector<std::vector<uint64_t>> cancelled_ids(cancellers);
  std::vector<std::string> cancel_failures(cancellers);
  for (int t = 0; t < cancellers; ++t)
    runs.emplace_back([&, t] {
      for (int i = 0; i < cancels_each; ++i) {
        auto r = run_cli({"batch", "-o", "/dev/null", "long.sh"}, patient);
        auto id = submitted_job_id(r.out);
        if (r.exit_code != 0 || id == 0) {
          cancel_failures[t] = r.describe();
          continue;
        }
        auto c = run_cli({"cancel", std::to_string(id)}, patient);
        if (c.exit_code != 0) cancel_failures[t] = c.describe();
        cancelled_ids[t].push_back(id);
      }
    });
  std::vector<std::thread> listers;
  for (auto* what : {"queue", "info", "queue"})
    listers.emplace_back([&, what] {
      while (submitting) {
        auto r = run_cli({what}, patient);
        ++listings;
        if (r.exit_code != 0) ++listing_failures;
      }
    });
  for (auto& th : threads) th.join();
  for (auto& th : runs) th.join();
  submitting = false;
  for (auto& th : listers) th.join();
  std::set<uint64_t> distinct;
  size_t replies = 0;
  for (int t = 0; t < submitters; ++t) {
    BOOST_CHECK_MESSAGE(failures[t].empty(), "submitter " << t << ": " << failures[t]);
    replies += ids[t].size();
    distinct.insert(ids[t].begin(), ids[t].end());
  }
  BOOST_TEST(replies == size_t{submitters * each});
  BOOST_TEST(distinct.size() == size_t{submitters * each});
  for (int t = 0; t < runners; ++t)
    BOOST_CHECK_MESSAGE(run_failures[t].empty(), "runner " << t << ": " << run_failures[t]);
  std::set<uint64_t> to_cancel;
  for (int t = 0; t < cancellers; ++t) {
    BOOST_CHECK_MESSAGE(cancel_failures[t].empty(),
                        "canceller " << t << ": " << cancel_failures[t]);
    to_cancel.insert(cancelled_ids[t].begin(), cancelled_ids[t].end());
  }
  BOOST_TEST(to_cancel.size() == size_t{cancellers * cancels_each});
  BOOST_TEST(listings > 0);
  BOOST_TEST(listing_failures == 0);
  // Every job ran to the end: none was lost between the reply and the scheduler.
  bool all_done = wait_until(
      [&] {
        auto all = jobs();
        size_t completed = 0;
        size_t cancelled = 0;
        for (auto& j : all) {
          auto id = j.value("job_id", uint64_t{0});
          auto state = j.value("state", "");
          completed += distinct.count(id) > 0 && state == "COMPLETED" ? 1 : 0;
          cancelled += to_cancel.count(id) > 0 && state == "CANCELLED" ? 1 : 0;
        }
        return completed == distinct.size() && cancelled == to_cancel.size();
      },
      120s);
  BOOST_TEST(all_done);
}

// Random bytes, an oversized length, a truncated frame and a client that never finishes, sent to
// the controller's CAF port and to its front door: the controller keeps serving both ways.
BOOST_AUTO_TEST_CASE(garbage_to_the_controller_ports_leaves_it_serving) {
  const uint16_t caf_port = cluster.port();
  const uint16_t door_port = static_cast<uint16_t>(cluster.port() + 1);
  std::mt19937 rng{42};
  std::vector<int> held;
  for (auto port : {door_port, caf_port}) {
    for (int round = 0; round < 10; ++round) {
      std::string junk(16 + rng() % 4096, '\0');
      for (auto& c : junk) c = static_cast<char>(rng());
      send_raw(port, junk);
    }
    send_raw(port, std::string("\xff\xff\xff\x7f", 4));               // a length of 2 GiB
    send_raw(port, std::string("\x40\x00\x00\x00SHOL\x01\x00", 10));  // truncated frame
    held.push_back(send_raw(port, std::string("\x40\x00\x00\x00SHOL", 8), true));  // stalls
  }
  auto q = run_cli({"queue"});
  BOOST_CHECK_MESSAGE(q.exit_code == 0, q.describe());
  auto info = run_cli({"info"});
  BOOST_CHECK_MESSAGE(info.exit_code == 0, info.describe());
  auto run = run_cli({"run", "-N1", "echo", "still here"});
  BOOST_CHECK_MESSAGE(run.exit_code == 0 && run.out.find("still here") != std::string::npos,
                      run.describe());
  for (int fd : held) ::close(fd);
  if (!test_auth_config().empty()) {
    // Under auth/munge the daemons' port speaks TLS: junk fails the handshake, and is logged.
    auto log = cluster.directory() + "/shoalctld.log";
    BOOST_CHECK_MESSAGE(wait_until(
                            [&] {
                              return read_file(log).find("daemon port: TLS handshake refused") !=
                                     std::string::npos;
                            },
                            30s),
                        read_file(log));
  }
}

BOOST_AUTO_TEST_SUITE_END()
