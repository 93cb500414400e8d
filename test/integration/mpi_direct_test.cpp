// Direct launch of MPI programs (issue 33): `shoal run --mpi=pmi2` starts MPICH ranks itself and
// shoal-stepd's PMI server on each node makes them one world, across the step's nodes through
// shoald. Skipped where MPICH (mpicc.mpich) is not installed.

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "test/integration/harness.hpp"
#include "test/preconditions.hpp"

using namespace shoal::test;
using namespace std::chrono_literals;

namespace {

/// Two nodes whose fences give up after 10 s, so a test of a fence nobody completes ends soon.
struct four_nodes_short_fences : cluster_fixture {
  four_nodes_short_fences() : cluster_fixture(4, "PMIxTimeout=10\n") {}

  /// test/data/mpi/allreduce.c, built with MPICH's compiler in the scratch directory.
  std::string allreduce() {
    auto exe = scratch.file("allreduce");
    auto cc = run_command({"mpicc.mpich", "-o", exe, data_path("mpi/allreduce.c")});
    BOOST_REQUIRE_MESSAGE(cc.exit_code == 0, cc.describe());
    return exe;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(mpi_direct, four_nodes_short_fences)

BOOST_AUTO_TEST_CASE(mpich_ranks_started_by_shoal_run_form_one_world_across_nodes,
                     *boost::unit_test::precondition(needs_mpich{
                         "(apt-get install mpich libmpich-dev)"})) {
  auto exe = allreduce();
  auto r = run_cli({"run", "-N4", "-n8", "--mpi=pmi2", exe});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto lines = lines_of(r.out);
  std::sort(lines.begin(), lines.end());
  auto expected = allreduce_lines(8);
  BOOST_TEST(lines == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_rank_that_exits_before_mpi_init_fails_the_others_with_the_reason,
                     *boost::unit_test::precondition(needs_mpich{
                         "(apt-get install mpich libmpich-dev)"})) {
  auto exe = allreduce();
  command_options opt;
  opt.timeout = 90s;
  auto r = run_cli({"run", "-N2", "-n4", "--mpi=pmi2", exe, "--exit-before-init", "3"}, opt);
  // Ended, not killed by the test's timeout, and not a success.
  BOOST_REQUIRE_MESSAGE(r.exit_code > 0, r.describe());
  BOOST_CHECK_MESSAGE(contains(r.err, "rank 3 exited with code 3 before PMI finalize"),
                      r.describe());
  BOOST_CHECK_MESSAGE(!contains(r.out, "sum"), r.describe());
}

BOOST_AUTO_TEST_SUITE_END()
