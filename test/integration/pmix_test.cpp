// Direct launch of Open MPI programs with --mpi=pmix (docs/mpi.md, "Direct launch with PMIx"):
// shoal-stepd's PMIx server on each node, the ranks' fences all-gathered between the step's
// nodes along the shepherds' tree.

#include <boost/test/unit_test.hpp>

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "test/integration/harness.hpp"
#include "test/preconditions.hpp"

using namespace shoal::test;
using namespace std::chrono_literals;

namespace {

/// An MPI_Allreduce of the ranks' numbers; rank $DIE_RANK (SLURM_PROCID) kills itself as it
/// starts, before MPI_Init (so before the fence there, and possibly before its node's shepherd
/// joined the step's tree); rank $HANG_RANK sleeps before MPI_Init, holding the others in its
/// fence. With $GO_FILE every rank waits for that file before MPI_Init; with $RESULT_DIR each
/// also writes its line to RESULT_DIR/rank.N. After the sum, rank $ABORT_RANK calls MPI_Abort
/// with 7 while the others sleep.
constexpr const char* allreduce_source =
    "#include <mpi.h>\n"
    "#include <signal.h>\n"
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "#include <unistd.h>\n"
    "int main(int argc, char** argv) {\n"
    "  const char* die = getenv(\"DIE_RANK\");\n"
    "  const char* me = getenv(\"SLURM_PROCID\");\n"
    "  if (die && me && atoi(die) == atoi(me)) raise(SIGKILL);\n"
    "  const char* hang = getenv(\"HANG_RANK\");\n"
    "  if (hang && me && atoi(hang) == atoi(me)) sleep(600);\n"
    "  const char* go = getenv(\"GO_FILE\");\n"
    "  while (go && access(go, F_OK) != 0) usleep(20000);\n"
    "  int rank = -1, size = -1, sum = -1;\n"
    "  MPI_Init(&argc, &argv);\n"
    "  MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n"
    "  MPI_Comm_size(MPI_COMM_WORLD, &size);\n"
    "  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);\n"
    "  printf(\"rank %d of %d sum %d\\n\", rank, size, sum);\n"
    "  fflush(stdout);\n"
    "  const char* dir = getenv(\"RESULT_DIR\");\n"
    "  if (dir) {\n"
    "    char path[4096];\n"
    "    snprintf(path, sizeof path, \"%s/rank.%d\", dir, rank);\n"
    "    FILE* f = fopen(path, \"w\");\n"
    "    if (f) { fprintf(f, \"rank %d of %d sum %d\\n\", rank, size, sum); fclose(f); }\n"
    "  }\n"
    "  const char* abort_rank = getenv(\"ABORT_RANK\");\n"
    "  if (abort_rank) MPI_Barrier(MPI_COMM_WORLD);\n"
    "  if (abort_rank && atoi(abort_rank) == rank) MPI_Abort(MPI_COMM_WORLD, 7);\n"
    "  if (abort_rank) sleep(600);\n"
    "  MPI_Finalize();\n"
    "  return 0;\n"
    "}\n";

struct four_nodes_pmix : cluster_fixture {
  // A short PMIxTimeout=: a fence that waited for it would outlast the test's own patience.
  four_nodes_pmix() : cluster_fixture(4, "PMIxTimeout=20\n") {}

  /// Builds allreduce_source into the scratch directory; false after a failed check.
  bool build_allreduce() {
    write_file(scratch.file("allreduce.c"), allreduce_source);
    auto cc = run_command(
        {"mpicc.openmpi", "-o", scratch.file("allreduce"), scratch.file("allreduce.c")});
    BOOST_CHECK_MESSAGE(cc.exit_code == 0, cc.describe());
    return cc.exit_code == 0;
  }

  /// Open MPI on a local cluster: both nodes share one host, where its shared-memory transport
  /// would mix up the ranks of the two nodes (docs/mpi.md), so TCP; the tests run as root.
  command_options mpi_options() {
    command_options opt;
    opt.env = {{"OMPI_MCA_btl", "self,tcp"},
               {"OMPI_ALLOW_RUN_AS_ROOT", "1"},
               {"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"}};
    opt.timeout = 90s;
    return opt;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(pmix_direct_launch, four_nodes_pmix)

BOOST_AUTO_TEST_CASE(ranks_started_by_shoal_run_know_their_place_and_reduce_together,
                     *boost::unit_test::precondition(needs_program{
                         "mpicc.openmpi", "(apt-get install openmpi-bin libopenmpi-dev)"})) {
  BOOST_REQUIRE(build_allreduce());
  auto r = run_cli({"run", "-N4", "-n8", "--mpi=pmix", "./allreduce"}, mpi_options());
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto lines = lines_of(r.out);
  std::sort(lines.begin(), lines.end());
  auto expected = allreduce_lines(8);
  BOOST_TEST(lines == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_rank_killed_before_the_fence_fails_the_step_at_once_saying_which,
                     *boost::unit_test::precondition(needs_program{
                         "mpicc.openmpi", "(apt-get install openmpi-bin libopenmpi-dev)"})) {
  BOOST_REQUIRE(build_allreduce());
  auto opt = mpi_options();
  // Rank 3 is on node2 (two ranks a node, in order); node1's ranks wait in MPI_Init's fence.
  opt.env.emplace_back("DIE_RANK", "3");
  auto r = run_cli({"run", "-N2", "-n4", "--mpi=pmix", "./allreduce"}, opt);
  BOOST_CHECK_MESSAGE(r.exit_code != 0, r.describe());
  BOOST_CHECK_MESSAGE(
      contains(r.err, "rank 3 on node2 was killed by signal 9 before PMIx_Finalize"), r.describe());
  // node1's ranks heard of it through the fence, not from the timeout: as rank 3's failure, or,
  // when node2's step ended before its part reached the tree, as node2's (step index 1) end.
  BOOST_CHECK_MESSAGE(contains(r.err, "PMIx fence failed: rank 3 on node2") ||
                          contains(r.err, "PMIx fence failed: the step's part on node index 1"),
                      r.describe());
  BOOST_CHECK_MESSAGE(!contains(r.err, "PMIxTimeout"), r.describe());
  BOOST_CHECK(r.out.find("sum") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(cancelling_a_job_whose_ranks_wait_in_mpi_init_ends_every_rank,
                     *boost::unit_test::precondition(needs_program{
                         "mpicc.openmpi", "(apt-get install openmpi-bin libopenmpi-dev)"})) {
  BOOST_REQUIRE(build_allreduce());
  // A name of its own, so that other suites' MPI programs running meanwhile are not counted.
  auto cp = run_command({"cp", scratch.file("allreduce"), scratch.file("held_in_mpi_init")});
  BOOST_REQUIRE_MESSAGE(cp.exit_code == 0, cp.describe());
  auto opt = mpi_options();
  opt.env.emplace_back("HANG_RANK", "3");
  auto run = start_cli(
      {"run", "-N2", "-n4", "-J", "held-in-init", "--mpi=pmix", "./held_in_mpi_init"}, opt);
  auto ranks_alive = [] {
    auto ps = run_command({"pgrep", "-c", "-f", "held_in_mpi_init$"});
    return ps.exit_code == 0 ? std::stoi(ps.out) : 0;
  };
  // Ranks 0-2 wait in MPI_Init's fence; rank 3 sleeps before it.
  BOOST_REQUIRE_MESSAGE(wait_until([&] { return ranks_alive() >= 4; }, 30s),
                        "the four ranks never ran");
  std::this_thread::sleep_for(1s);
  auto cancel = run_cli({"cancel", "-n", "held-in-init"});
  BOOST_CHECK_MESSAGE(cancel.exit_code == 0, cancel.describe());
  auto r = run->finish();
  BOOST_CHECK_MESSAGE(r.exit_code != 0, r.describe());
  BOOST_CHECK(r.out.find("sum") == std::string::npos);
  // Every rank went with the step: none is left waiting in the fence or asleep.
  BOOST_CHECK_MESSAGE(wait_until([&] { return ranks_alive() == 0; }, 10s),
                      run_command({"pgrep", "-a", "-f", "held_in_mpi_init"}).out);
}

BOOST_AUTO_TEST_CASE(the_fences_go_between_the_nodes_while_the_controller_is_stopped,
                     *boost::unit_test::precondition(needs_program{
                         "mpicc.openmpi", "(apt-get install openmpi-bin libopenmpi-dev)"})) {
  BOOST_REQUIRE(build_allreduce());
  auto opt = mpi_options();
  opt.env.emplace_back("GO_FILE", scratch.file("go"));
  opt.env.emplace_back("RESULT_DIR", scratch.path());
  auto run = start_cli({"run", "-N4", "-n8", "--mpi=pmix", "./allreduce"}, opt);
  // Tree indices 1-3 (node2-node4) are node1's children: each connects to node1's door.
  auto linked = [&] {
    for (const char* node : {"node2", "node3", "node4"})
      if (!contains(read_file(cluster.directory() + "/shoald-" + node + ".log"),
                    "step peer linked"))
        return false;
    return true;
  };
  BOOST_REQUIRE_MESSAGE(wait_until(linked, 60s), "the step's shepherds never linked to node1");
  // With shoalctld stopped, nothing can pass through it: the fences in MPI_Init and the sum
  // complete only if the shoalds speak directly.
  cluster.signal_controller(SIGSTOP);
  write_file(scratch.file("go"), "");
  auto expected = allreduce_lines(8);
  auto results = [&] {
    std::vector<std::string> lines;
    for (int rank = 0; rank < 8; ++rank) {
      auto text = read_file(scratch.file("rank." + std::to_string(rank)));
      if (text.empty()) return std::vector<std::string>{};
      lines.push_back(text.substr(0, text.find('\n')));
    }
    std::sort(lines.begin(), lines.end());
    return lines;
  };
  bool all_done = wait_until([&] { return results() == expected; }, 60s);
  cluster.signal_controller(SIGCONT);
  BOOST_TEST(all_done);
  auto got = results();
  BOOST_TEST(got == expected, boost::test_tools::per_element());
  auto r = run->finish();
  BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
}

BOOST_AUTO_TEST_CASE(mpi_abort_on_one_node_ends_the_ranks_of_every_node,
                     *boost::unit_test::precondition(needs_program{
                         "mpicc.openmpi", "(apt-get install openmpi-bin libopenmpi-dev)"})) {
  BOOST_REQUIRE(build_allreduce());
  auto opt = mpi_options();
  // Rank 0 (node1) aborts; ranks 2 and 3 (node2) sleep, and only the abort can end them.
  opt.env.emplace_back("ABORT_RANK", "0");
  auto r = run_cli({"run", "-N2", "-n4", "--mpi=pmix", "./allreduce"}, opt);
  BOOST_REQUIRE_MESSAGE(r.exit_code != -1, "the step outlived the abort: " + r.describe());
  BOOST_CHECK_MESSAGE(r.exit_code != 0, r.describe());
  BOOST_CHECK_MESSAGE(contains(r.err, "rank 0 called PMIx_Abort (status 7"), r.describe());
  BOOST_CHECK_EQUAL(count_lines_with(r.out, "sum 6"), 4u);
}

BOOST_AUTO_TEST_SUITE_END()
