// pmi2_server (--mpi=pmi2) driven as shoal-stepd drives it: its descriptors polled, the tasks'
// ends of its socketpairs spoken to as MPICH's clients speak, the step's other nodes played by a
// fake step_exchange. Last, real MPICH programs started directly under two servers.

#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "messages/types.hpp"
#include "process/mpi_server.hpp"
#include "process/pmi_wire.hpp"
#include "process/task_launch.hpp"
#include "test/preconditions.hpp"

using namespace shoal;
using namespace shoal::process;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

/// The step's other nodes: records what this node contributes; the test ends each round.
struct fake_exchange : step_exchange {
  std::vector<std::string> blobs;
  done_fn pending;
  std::vector<std::string> failures;

  void allgather(std::string blob, done_fn done) override {
    blobs.push_back(std::move(blob));
    pending = std::move(done);
  }
  void fail(std::string why) override { failures.push_back(std::move(why)); }
  /// Runs the open round's done, as the poll loop would, with `result`.
  void finish(result r) {
    BOOST_REQUIRE(pending);
    auto done = std::move(pending);
    pending = nullptr;
    done(std::move(r));
  }
};

/// One node of a step of `ntasks` ranks spread over nodes as `rank_nodes` says, serving the
/// ranks that `rank_nodes` puts on `node`.
struct node_fixture {
  msg::launch_request req;
  fake_exchange exchange;
  std::vector<std::pair<uint32_t, std::string>> reports;
  std::vector<std::pair<uint32_t, std::string>> aborts;
  std::unique_ptr<mpi_server> server;
  std::vector<int> task_fds;  ///< the tasks' ends, by local id
  std::vector<std::vector<std::string>> envs;

  explicit node_fixture(std::vector<uint32_t> rank_nodes = {0, 0, 1, 1}, uint32_t node = 0) {
    req.job_id = 7;
    req.step_id = 3;
    req.ntasks = static_cast<uint32_t>(rank_nodes.size());
    req.node_index = node;
    for (uint32_t r = 0; r < rank_nodes.size(); ++r)
      if (rank_nodes[r] == node) req.ranks.push_back(r);
    req.rank_nodes = std::move(rank_nodes);
    req.io.mpi = "pmi2";
    mpi_step step;
    step.request = &req;
    step.node_name = "node" + std::to_string(node + 1);
    step.exchange = &exchange;
    step.report = [this](uint32_t rank, const std::string& text) {
      reports.emplace_back(rank, text);
    };
    step.abort = [this](uint32_t rank, const std::string& why) { aborts.emplace_back(rank, why); };
    auto made = make_mpi_server(step);
    BOOST_REQUIRE(made);
    server = std::move(*made);
    BOOST_REQUIRE(server);
    for (uint32_t i = 0; i < req.ranks.size(); ++i) {
      std::vector<std::string> env{"PMI_ID=9", "PATH=/bin"};
      int fd = -1;
      BOOST_REQUIRE(!server->prepare_task(i, req.ranks[i], env, fd));
      BOOST_REQUIRE(fd >= 0);
      // As step_tasks' child would: its own copy; the server's closes in task_started.
      int mine = ::dup(fd);
      BOOST_REQUIRE(mine >= 0);
      server->task_started(i, 1000 + static_cast<pid_t>(i));
      task_fds.push_back(mine);
      envs.push_back(env);
    }
  }

  ~node_fixture() {
    server.reset();
    for (int fd : task_fds)
      if (fd >= 0) ::close(fd);
  }

  /// One pass of shoal-stepd's poll loop over the server's descriptors.
  void serve(int timeout_ms = 0) {
    std::vector<pollfd> fds;
    server->add_fds(fds);
    if (fds.empty()) return;
    if (::poll(fds.data(), fds.size(), timeout_ms) > 0) server->handle_fds(fds.data(), fds.size());
  }

  void send(uint32_t local_id, const std::string& bytes) {
    BOOST_REQUIRE_EQUAL(::write(task_fds[local_id], bytes.data(), bytes.size()),
                        static_cast<ssize_t>(bytes.size()));
    serve();
  }

  /// What the server answered task `local_id`, once it says something (or "" after 2 s).
  std::string receive(uint32_t local_id) {
    std::string got;
    auto until = std::chrono::steady_clock::now() + 2s;
    while (std::chrono::steady_clock::now() < until) {
      serve(10);
      pollfd p{task_fds[local_id], POLLIN, 0};
      if (::poll(&p, 1, 0) <= 0) continue;
      char buf[8192];
      auto n = ::recv(task_fds[local_id], buf, sizeof buf, MSG_DONTWAIT);
      if (n <= 0) break;
      got.append(buf, static_cast<size_t>(n));
      // A PMI-1 answer ends with its newline, a PMI-2 one with its length.
      if (got.back() == '\n') break;
      if (got.size() >= 6 && got.size() - 6 >= std::strtoul(got.substr(0, 6).c_str(), nullptr, 10))
        break;
    }
    return got;
  }

  std::string ask(uint32_t local_id, const std::string& bytes) {
    send(local_id, bytes);
    return receive(local_id);
  }

  std::string ask2(uint32_t local_id, const pmi_command& cmd) {
    return ask(local_id, format_pmi2(cmd));
  }

  /// True when the task's end reads end-of-file: the server closed the connection.
  bool closed(uint32_t local_id) {
    serve();
    char c;
    pollfd p{task_fds[local_id], POLLIN, 0};
    return ::poll(&p, 1, 500) > 0 && ::recv(task_fds[local_id], &c, 1, MSG_DONTWAIT) == 0;
  }
};

pmi_command command(std::string name, std::vector<std::pair<std::string, std::string>> args = {}) {
  pmi_command cmd;
  cmd.name = std::move(name);
  cmd.args = std::move(args);
  return cmd;
}

std::string env_value(const std::vector<std::string>& env, const std::string& key) {
  auto* entry = find_env(env, key);
  return entry ? entry->substr(key.size() + 1) : std::string("<unset>");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(pmi2_server_suite)

BOOST_AUTO_TEST_CASE(each_task_gets_its_descriptor_rank_size_and_jobid_as_slurm_sets_them) {
  node_fixture node({0, 1, 0, 1}, 1);
  BOOST_REQUIRE_EQUAL(node.envs.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    auto& env = node.envs[i];
    BOOST_CHECK_EQUAL(env_value(env, "PMI_RANK"), std::to_string(node.req.ranks[i]));
    BOOST_CHECK_EQUAL(env_value(env, "PMI_SIZE"), "4");
    BOOST_CHECK_EQUAL(env_value(env, "PMI_JOBID"), "7.3");
    BOOST_CHECK_EQUAL(env_value(env, "PMI_ID"), "<unset>");
    BOOST_CHECK_EQUAL(env_value(env, "PATH"), "/bin");
    // A descriptor the child keeps (no FD_CLOEXEC once step_tasks cleared it there).
    BOOST_CHECK(std::stoi(env_value(env, "PMI_FD")) > 2);
  }
  BOOST_CHECK(node.req.ranks == (std::vector<uint32_t>{1, 3}));
  std::vector<std::string> env;
  int fd = 0;
  BOOST_CHECK(node.server->prepare_task(2, 5, env, fd) == errc::invalid_request);
  BOOST_CHECK_EQUAL(fd, -1);
}

BOOST_AUTO_TEST_CASE(pmi1_ranks_init_put_fence_and_get_across_nodes) {
  node_fixture node;
  for (uint32_t i = 0; i < 2; ++i) {
    BOOST_CHECK_EQUAL(node.ask(i, "cmd=init pmi_version=1 pmi_subversion=1\n"),
                      "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
    BOOST_CHECK_EQUAL(node.ask(i, "cmd=get_maxes\n"),
                      "cmd=maxes rc=0 kvsname_max=256 keylen_max=64 vallen_max=1024\n");
  }
  BOOST_CHECK_EQUAL(node.ask(0, "cmd=get_my_kvsname\n"), "cmd=my_kvsname rc=0 kvsname=7.3\n");
  BOOST_CHECK_EQUAL(node.ask(0, "cmd=get_universe_size\n"), "cmd=universe_size rc=0 size=4\n");
  BOOST_CHECK_EQUAL(node.ask(0, "cmd=get_appnum\n"), "cmd=appnum rc=0 appnum=-1\n");
  BOOST_CHECK_EQUAL(node.ask(0, "cmd=get kvsname=7.3 key=PMI_process_mapping\n"),
                    "cmd=get_result rc=0 msg=success value=(vector,(0,2,2))\n");
  BOOST_CHECK_EQUAL(node.ask(0, "cmd=put kvsname=7.3 key=bc-0 value=here0\n"),
                    "cmd=put_result rc=0 msg=success\n");
  // Not visible before the fence.
  BOOST_CHECK_EQUAL(node.ask(1, "cmd=get kvsname=7.3 key=bc-0\n"),
                    "cmd=get_result rc=-1 msg=key_not_found\n");
  node.send(0, "cmd=barrier_in\n");
  BOOST_CHECK(!node.exchange.pending);  // rank 1 has not joined
  node.send(1, "cmd=barrier_in\n");
  BOOST_REQUIRE(node.exchange.pending);
  BOOST_REQUIRE_EQUAL(node.exchange.blobs.size(), 1u);
  pmi_kvs other;
  BOOST_REQUIRE(!other.put("bc-2", "there2"));
  node.exchange.finish(std::vector<std::string>{node.exchange.blobs[0], other.take_pending()});
  BOOST_CHECK_EQUAL(node.receive(0), "cmd=barrier_out rc=0\n");
  BOOST_CHECK_EQUAL(node.receive(1), "cmd=barrier_out rc=0\n");
  BOOST_CHECK_EQUAL(node.ask(1, "cmd=get kvsname=7.3 key=bc-0\n"),
                    "cmd=get_result rc=0 msg=success value=here0\n");
  BOOST_CHECK_EQUAL(node.ask(0, "cmd=get kvsname=7.3 key=bc-2\n"),
                    "cmd=get_result rc=0 msg=success value=there2\n");
  BOOST_CHECK_EQUAL(node.ask(0, "cmd=finalize\n"), "cmd=finalize_ack rc=0\n");
  BOOST_CHECK(node.closed(0));
  // A finalized rank's exit fails nothing.
  node.server->task_exited(0, 0);
  BOOST_CHECK(node.exchange.failures.empty());
  BOOST_CHECK(node.reports.empty());
}

BOOST_AUTO_TEST_CASE(pmi2_ranks_fullinit_put_fence_and_read_job_and_node_attributes) {
  node_fixture node;
  for (uint32_t i = 0; i < 2; ++i) {
    BOOST_CHECK_EQUAL(node.ask(i, "cmd=init pmi_version=2 pmi_subversion=0\n"),
                      "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n");
    auto full = node.ask2(
        i, command("fullinit",
                   {{"pmijobid", "7.3"}, {"pmirank", std::to_string(i)}, {"threaded", "FALSE"}}));
    auto parsed = parse_pmi2(full.substr(6));
    BOOST_REQUIRE_MESSAGE(parsed, full);
    BOOST_CHECK_EQUAL(parsed->name, "fullinit-response");
    BOOST_CHECK_EQUAL(*parsed->find("rc"), "0");
    BOOST_CHECK_EQUAL(*parsed->find("rank"), std::to_string(i));
    BOOST_CHECK_EQUAL(*parsed->find("size"), "4");
    BOOST_CHECK_EQUAL(*parsed->find("pmi-version"), "2");
    BOOST_CHECK(parsed->find("spawner-jobid") == nullptr);
  }
  auto answer = [](const std::string& framed) {
    auto parsed = parse_pmi2(framed.size() > 6 ? framed.substr(6) : std::string{});
    return parsed ? format_pmi1(*parsed) : "unparsable: " + framed;
  };
  BOOST_CHECK_EQUAL(answer(node.ask2(0, command("job-getid", {{"thrid", "0x1"}}))),
                    "cmd=job-getid-response thrid=0x1 rc=0 jobid=7.3\n");
  BOOST_CHECK_EQUAL(
      answer(node.ask2(0, command("info-getjobattr", {{"key", "PMI_process_mapping"}}))),
      "cmd=info-getjobattr-response rc=0 found=TRUE value=(vector,(0,2,2))\n");
  BOOST_CHECK_EQUAL(answer(node.ask2(0, command("info-getjobattr", {{"key", "bc-0"}}))),
                    "cmd=info-getjobattr-response rc=0 found=FALSE\n");
  BOOST_CHECK_EQUAL(answer(node.ask2(0, command("kvs-put", {{"key", "bc-0"}, {"value", "a;b"}}))),
                    "cmd=kvs-put-response rc=0\n");
  // A node attribute one rank waits for arrives when another puts it.
  node.send(1, format_pmi2(command("info-getnodeattr", {{"key", "shm"}, {"wait", "TRUE"}})));
  BOOST_CHECK_EQUAL(
      answer(node.ask2(0, command("info-putnodeattr", {{"key", "shm"}, {"value", "seg1"}}))),
      "cmd=info-putnodeattr-response rc=0\n");
  BOOST_CHECK_EQUAL(answer(node.receive(1)),
                    "cmd=info-getnodeattr-response rc=0 found=TRUE value=seg1\n");
  BOOST_CHECK_EQUAL(
      answer(node.ask2(1, command("info-getnodeattr", {{"key", "none"}, {"wait", "FALSE"}}))),
      "cmd=info-getnodeattr-response rc=0 found=FALSE\n");
  node.send(0, format_pmi2(command("kvs-fence")));
  node.send(1, format_pmi2(command("kvs-fence", {{"thrid", "0x2"}})));
  BOOST_REQUIRE(node.exchange.pending);
  node.exchange.finish(std::vector<std::string>{node.exchange.blobs[0], {}});
  BOOST_CHECK_EQUAL(answer(node.receive(0)), "cmd=kvs-fence-response rc=0\n");
  BOOST_CHECK_EQUAL(answer(node.receive(1)), "cmd=kvs-fence-response thrid=0x2 rc=0\n");
  BOOST_CHECK_EQUAL(
      answer(node.ask2(1, command("kvs-get", {{"jobid", "7.3"}, {"srcid", "0"}, {"key", "bc-0"}}))),
      "cmd=kvs-get-response rc=0 found=TRUE value=a;b\n");
  BOOST_CHECK_EQUAL(answer(node.ask2(1, command("kvs-get", {{"key", "nope"}}))),
                    "cmd=kvs-get-response rc=0 found=FALSE\n");
  BOOST_CHECK_EQUAL(answer(node.ask2(1, command("spawn", {{"ncmds", "1"}}))),
                    "cmd=spawn-response rc=-1 errmsg=shoal's_PMI_server_does_not_serve_spawn\n");
  BOOST_CHECK_EQUAL(answer(node.ask2(1, command("finalize"))), "cmd=finalize-response rc=0\n");
  BOOST_CHECK(node.closed(1));
}

BOOST_AUTO_TEST_CASE(a_rank_that_exits_before_the_fence_fails_it_with_its_exit_and_ends_the_step) {
  node_fixture node;
  for (uint32_t i = 0; i < 2; ++i) node.ask(i, "cmd=init pmi_version=1 pmi_subversion=1\n");
  node.send(0, "cmd=barrier_in\n");
  node.server->task_exited(1, 3 << 8);  // exit code 3, as waitpid reports it
  BOOST_REQUIRE_EQUAL(node.exchange.failures.size(), 1u);
  BOOST_CHECK_EQUAL(node.exchange.failures[0], "rank 1 exited with code 3 before PMI finalize");
  BOOST_CHECK(!node.exchange.pending);
  auto reply = node.receive(0);
  BOOST_CHECK_EQUAL(reply,
                    "cmd=barrier_out rc=-1 msg=rank_1_exited_with_code_3_before_PMI_finalize\n");
  // Then the step ends, the reason on its stderr.
  BOOST_REQUIRE_EQUAL(node.aborts.size(), 1u);
  BOOST_CHECK_EQUAL(node.aborts[0].second, "rank 1 exited with code 3 before PMI finalize");
  // Later fences fail at once; the step ends once.
  node.send(0, "cmd=barrier_in\n");
  BOOST_CHECK_EQUAL(node.receive(0), reply);
  BOOST_CHECK_EQUAL(node.aborts.size(), 1u);
}

BOOST_AUTO_TEST_CASE(a_rank_killed_while_the_round_is_out_fails_it_through_the_exchange) {
  node_fixture node;
  for (uint32_t i = 0; i < 2; ++i) {
    node.ask(i, "cmd=init pmi_version=1 pmi_subversion=1\n");
    node.send(i, "cmd=barrier_in\n");
  }
  BOOST_REQUIRE(node.exchange.pending);
  node.server->task_exited(1, SIGKILL);
  BOOST_REQUIRE_EQUAL(node.exchange.failures.size(), 1u);
  BOOST_CHECK_EQUAL(node.exchange.failures[0],
                    "rank 1 was killed by signal 9 (SIGKILL) before PMI finalize");
  node.exchange.finish(error{errc::unreachable, node.exchange.failures[0]});
  BOOST_CHECK_EQUAL(node.receive(0),
                    "cmd=barrier_out rc=-1 msg=PMI_fence_failed:_rank_1_was_killed_by_signal_9_"
                    "(SIGKILL)_before_PMI_finalize\n");
  BOOST_REQUIRE_EQUAL(node.aborts.size(), 1u);
  BOOST_CHECK_EQUAL(node.aborts[0].second,
                    "PMI fence failed: rank 1 was killed by signal 9 (SIGKILL) before PMI "
                    "finalize");
}

BOOST_AUTO_TEST_CASE(a_fence_the_exchange_fails_answers_every_rank_with_the_error_then_ends) {
  node_fixture node;
  for (uint32_t i = 0; i < 2; ++i) {
    node.ask(i, "cmd=init pmi_version=2 pmi_subversion=0\n");
    node.send(i, format_pmi2(command("kvs-fence")));
  }
  node.exchange.finish(
      error{errc::system_error, "PMIxTimeout=5: node2 did not join the fence within 5 s"});
  for (uint32_t i = 0; i < 2; ++i) {
    auto reply = node.receive(i);
    auto parsed = parse_pmi2(reply.substr(6));
    BOOST_REQUIRE_MESSAGE(parsed, reply);
    BOOST_CHECK_EQUAL(*parsed->find("rc"), "-1");
    BOOST_CHECK_EQUAL(*parsed->find("errmsg"),
                      "PMI fence failed: PMIxTimeout=5: node2 did not join the fence within 5 s");
  }
  BOOST_CHECK_EQUAL(node.aborts.size(), 1u);
}

BOOST_AUTO_TEST_CASE(tasks_that_never_speak_pmi_and_end_well_fail_nothing) {
  node_fixture node;
  node.server->task_exited(0, 0);
  node.server->task_exited(1, 0);
  BOOST_CHECK(node.exchange.failures.empty());
  BOOST_CHECK(node.reports.empty());
}

BOOST_AUTO_TEST_CASE(a_fence_fails_at_once_when_a_rank_here_already_ended_without_pmi) {
  node_fixture node;
  node.server->task_exited(1, 0);
  BOOST_CHECK(node.exchange.failures.empty());
  node.ask(0, "cmd=init pmi_version=1 pmi_subversion=1\n");
  BOOST_CHECK_EQUAL(node.ask(0, "cmd=barrier_in\n"),
                    "cmd=barrier_out rc=-1 msg=rank_1_exited_with_code_0_before_PMI_finalize\n");
  BOOST_REQUIRE_EQUAL(node.exchange.failures.size(), 1u);
  BOOST_CHECK(!node.exchange.pending);
  BOOST_CHECK_EQUAL(node.aborts.size(), 1u);
}

BOOST_AUTO_TEST_CASE(abort_ends_the_step_with_the_ranks_message) {
  node_fixture node;
  node.ask(0, "cmd=init pmi_version=1 pmi_subversion=1\n");
  node.send(0, "cmd=abort exitcode=17\n");
  BOOST_REQUIRE_EQUAL(node.aborts.size(), 1u);
  BOOST_CHECK_EQUAL(node.aborts[0].first, 0u);
  BOOST_CHECK_EQUAL(node.aborts[0].second, "rank 0 aborted the step through PMI (exit code 17)");
  node.ask(1, "cmd=init pmi_version=2 pmi_subversion=0\n");
  node.send(1, format_pmi2(command("abort", {{"isworld", "TRUE"}, {"msg", "bad input; stop"}})));
  BOOST_REQUIRE_EQUAL(node.aborts.size(), 2u);
  BOOST_CHECK_EQUAL(node.aborts[1].second, "rank 1 aborted the step through PMI (bad input; stop)");
  // Its exit afterwards is the abort's: no second failure through the exchange.
  node.server->task_exited(0, 17 << 8);
  BOOST_CHECK(node.exchange.failures.empty());
}

BOOST_AUTO_TEST_CASE(malformed_commands_get_error_answers_and_oversized_ones_close) {
  node_fixture node;
  BOOST_CHECK_EQUAL(node.ask(0, "cmd=get_maxes\n"),
                    "cmd=get_maxes_result rc=-1 msg=the_first_PMI_command_must_be_cmd=init\n");
  BOOST_CHECK_EQUAL(node.ask(0, "hello\n"),
                    "cmd=error rc=-1 msg=malformed_PMI_command:_'hello'_is_not_key=value\n");
  BOOST_CHECK_EQUAL(node.ask(0, "cmd=init pmi_version=3 pmi_subversion=0\n"),
                    "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1\n");
  node.ask(0, "cmd=init pmi_version=1 pmi_subversion=1\n");
  BOOST_CHECK_EQUAL(node.ask(0, "cmd=put kvsname=7.3 value=v\n"),
                    "cmd=put_result rc=-1 msg=put_without_key=\n");
  BOOST_CHECK_EQUAL(node.ask(0, "cmd=frobnicate\n"),
                    "cmd=frobnicate_result rc=-1 msg=unknown_PMI-1_command_frobnicate\n");
  // A spawn's lines get one answer, after its endcmd.
  node.send(0, "mcmd=spawn\nnprocs=2\nexecname=/bin/true\n");
  node.send(0, "endcmd\n");
  BOOST_CHECK_EQUAL(node.receive(0),
                    "cmd=spawn_result rc=-1 msg=shoal's_PMI_server_does_not_spawn_processes\n");
  // Still served after all that.
  BOOST_CHECK_EQUAL(node.ask(0, "cmd=get_appnum\n"), "cmd=appnum rc=0 appnum=-1\n");
  // A line past the bound: an error answer, the connection closed, the user told.
  node.send(0, std::string(pmi_max_message + 10, 'x'));
  auto reply = node.receive(0);
  BOOST_CHECK_MESSAGE(reply.rfind("cmd=error rc=-1 msg=rank_0:_PMI:_a_PMI-1_line_longer", 0) == 0,
                      reply);
  BOOST_CHECK(node.closed(0));
  BOOST_REQUIRE_EQUAL(node.reports.size(), 1u);
  // PMI-2: a bad length field.
  node.ask(1, "cmd=init pmi_version=2 pmi_subversion=0\n");
  node.send(1, "zzzzzzcmd=x;");
  BOOST_CHECK(node.receive(1).find("errmsg=rank 1: PMI: a PMI-2 length field") !=
              std::string::npos);
  BOOST_CHECK(node.closed(1));
}

// -- real MPICH ---------------------------------------------------------------------------

namespace {

/// Two nodes' exchanges joined: a round ends, for both, once both contributed.
struct paired_exchange {
  struct side : step_exchange {
    paired_exchange* pair = nullptr;
    size_t index = 0;
    void allgather(std::string blob, done_fn done) override {
      pair->blobs[index] = std::move(blob);
      pair->dones[index] = std::move(done);
      pair->joined[index] = true;
    }
    void fail(std::string why) override { pair->failure = std::move(why); }
  };
  side sides[2];
  std::string blobs[2];
  step_exchange::done_fn dones[2];
  bool joined[2] = {false, false};
  std::string failure;

  paired_exchange() {
    for (size_t i = 0; i < 2; ++i) {
      sides[i].pair = this;
      sides[i].index = i;
    }
  }
  /// From the poll loop: ends a round both joined, or fails one a node joined after a failure.
  void progress() {
    if (joined[0] && joined[1]) {
      joined[0] = joined[1] = false;
      std::vector<std::string> all{blobs[0], blobs[1]};
      auto d0 = std::move(dones[0]), d1 = std::move(dones[1]);
      d0(all);
      d1(all);
      return;
    }
    if (failure.empty()) return;
    for (size_t i = 0; i < 2; ++i)
      if (joined[i]) {
        joined[i] = false;
        auto d = std::move(dones[i]);
        d(shoal::error{errc::unreachable, failure});
      }
  }
};

struct mpich_run {
  std::vector<std::string> outputs;  ///< per rank
  std::vector<int> statuses;         ///< per rank
  std::vector<std::string> reports;
  std::vector<std::string> aborts;
  bool finished = false;
};

/// Runs `argv` as the 4 ranks of a step over two nodes of two ranks each, each node's ranks
/// under its own pmi2_server, as shoal-stepd would start them.
mpich_run run_mpich(const fs::path& dir, const std::vector<std::string>& argv) {
  mpich_run run;
  run.outputs.resize(4);
  run.statuses.assign(4, -1);
  paired_exchange pair;
  std::vector<msg::launch_request> reqs(2);
  std::vector<std::unique_ptr<mpi_server>> servers;
  for (uint32_t n = 0; n < 2; ++n) {
    auto& req = reqs[n];
    req.job_id = 12;
    req.step_id = 0;
    req.ntasks = 4;
    req.node_index = n;
    req.ranks = {2 * n, 2 * n + 1};
    req.rank_nodes = {0, 0, 1, 1};
    req.io.mpi = "pmi2";
    mpi_step step;
    step.request = &req;
    step.node_name = "node" + std::to_string(n + 1);
    step.exchange = &pair.sides[n];
    step.report = [&run](uint32_t rank, const std::string& text) {
      run.reports.push_back(std::to_string(rank) + ": " + text);
    };
    step.abort = [&run](uint32_t rank, const std::string& why) {
      run.aborts.push_back(std::to_string(rank) + ": " + why);
    };
    auto made = make_mpi_server(step);
    BOOST_REQUIRE(made && *made);
    servers.push_back(std::move(*made));
  }
  std::vector<pid_t> pids(4, -1);
  for (uint32_t rank = 0; rank < 4; ++rank) {
    auto& server = servers[rank / 2];
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e) env.emplace_back(*e);
    int fd = -1;
    BOOST_REQUIRE(!server->prepare_task(rank % 2, rank, env, fd));
    auto out = (dir / ("rank" + std::to_string(rank) + ".out")).string();
    pid_t pid = ::fork();
    BOOST_REQUIRE(pid >= 0);
    if (pid == 0) {
      ::fcntl(fd, F_SETFD, 0);
      int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      ::dup2(o, 1);
      ::dup2(o, 2);
      std::vector<char*> args, envp;
      for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      for (auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
      envp.push_back(nullptr);
      ::execve(args[0], args.data(), envp.data());
      ::_exit(127);
    }
    pids[rank] = pid;
    server->task_started(rank % 2, pid);
  }
  auto until = std::chrono::steady_clock::now() + 30s;
  size_t running = 4;
  while (running > 0 && std::chrono::steady_clock::now() < until) {
    std::vector<pollfd> fds;
    size_t first_count = 0;
    servers[0]->add_fds(fds);
    first_count = fds.size();
    servers[1]->add_fds(fds);
    if (::poll(fds.data(), fds.size(), 20) > 0) {
      servers[0]->handle_fds(fds.data(), first_count);
      servers[1]->handle_fds(fds.data() + first_count, fds.size() - first_count);
    }
    pair.progress();
    // As shoal-stepd ends the step on an abort: every task killed.
    if (!run.aborts.empty())
      for (auto pid : pids)
        if (pid > 0) ::kill(pid, SIGKILL);
    for (uint32_t rank = 0; rank < 4; ++rank) {
      if (pids[rank] < 0) continue;
      int status = 0;
      if (::waitpid(pids[rank], &status, WNOHANG) != pids[rank]) continue;
      pids[rank] = -1;
      run.statuses[rank] = status;
      --running;
      servers[rank / 2]->task_exited(rank % 2, status);
    }
  }
  for (auto pid : pids)
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  run.finished = running == 0;
  for (uint32_t rank = 0; rank < 4; ++rank) {
    std::ifstream in(dir / ("rank" + std::to_string(rank) + ".out"));
    std::stringstream ss;
    ss << in.rdbuf();
    run.outputs[rank] = ss.str();
  }
  return run;
}

fs::path build_allreduce(const fs::path& dir) {
  auto exe = dir / "allreduce";
  std::string cc = "mpicc.mpich -o " + exe.string() + " " SHOAL_TEST_DATA "/mpi/allreduce.c";
  BOOST_REQUIRE_MESSAGE(std::system(cc.c_str()) == 0, cc);
  return exe;
}

struct scratch_dir {
  fs::path path;
  scratch_dir() {
    // mkdtemp fills in the XXXXXX: a directory of this test's own.
    char tmpl[] = "/tmp/shoal-pmi2-XXXXXX";
    BOOST_REQUIRE(::mkdtemp(tmpl) != nullptr);
    path = tmpl;
  }
  ~scratch_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(mpich_ranks_started_directly_form_one_world_across_two_servers,
                     *boost::unit_test::precondition(test::needs_mpich{
                         "(apt-get install mpich libmpich-dev)"})) {
  scratch_dir scratch;
  auto exe = build_allreduce(scratch.path);
  auto run = run_mpich(scratch.path, {exe.string()});
  BOOST_REQUIRE(run.finished);
  for (uint32_t rank = 0; rank < 4; ++rank) {
    BOOST_CHECK_MESSAGE(run.statuses[rank] == 0, "rank " << rank << ": " << run.outputs[rank]);
    BOOST_CHECK_EQUAL(run.outputs[rank], "rank " + std::to_string(rank) + " of 4 sum 6\n");
  }
  BOOST_CHECK(run.reports.empty());
  BOOST_CHECK(run.aborts.empty());
}

BOOST_AUTO_TEST_CASE(mpich_ranks_fail_with_the_reason_when_one_exits_before_mpi_init,
                     *boost::unit_test::precondition(test::needs_mpich{
                         "(apt-get install mpich libmpich-dev)"})) {
  scratch_dir scratch;
  auto exe = build_allreduce(scratch.path);
  auto run = run_mpich(scratch.path, {exe.string(), "--exit-before-init", "3"});
  std::string all;
  for (auto& r : run.reports) all += r + "\n";
  for (auto& a : run.aborts) all += "abort " + a + "\n";
  for (auto& o : run.outputs) all += o;
  // Nobody hangs: every rank ends (an MPI_Init failure aborts through PMI).
  BOOST_REQUIRE_MESSAGE(run.finished, all);
  BOOST_CHECK_EQUAL(run.statuses[3], 3 << 8);
  for (uint32_t rank = 0; rank < 3; ++rank)
    BOOST_CHECK_MESSAGE(run.statuses[rank] != 0, "rank " << rank << ": " << run.outputs[rank]);
  bool told = false;
  for (auto& a : run.aborts)
    told = told || a.find("rank 3 exited with code 3 before PMI finalize") != std::string::npos;
  BOOST_CHECK_MESSAGE(told, all);
}

BOOST_AUTO_TEST_SUITE_END()
