// A step's nodes inside a running job: srun -N, -w and -x as MPI launchers pass them.

#include <boost/test/unit_test.hpp>

#include "cluster/step_nodes.hpp"

using shoal::cluster::pick_step_nodes;
using indices = std::vector<size_t>;

namespace {

const std::vector<std::string> job{"node1", "node2", "node3", "node4"};

std::string why(const shoal::expected<indices>& r) {
  return r ? std::string{} : describe(r.error());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(step_nodes)

BOOST_AUTO_TEST_CASE(without_a_nodelist_the_first_nodes_of_the_job_run_the_step) {
  auto r = pick_step_nodes(job, 2, true, "", "");
  BOOST_REQUIRE_MESSAGE(r, why(r));
  BOOST_TEST(*r == (indices{0, 1}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(mpiruns_subset_runs_on_the_nodes_it_names) {
  // Open MPI's mpirun on node1 asks for daemons elsewhere: --nodes=2 --nodelist=node2,node4.
  auto r = pick_step_nodes(job, 2, true, "node2,node4", "");
  BOOST_REQUIRE_MESSAGE(r, why(r));
  BOOST_TEST(*r == (indices{1, 3}), boost::test_tools::per_element());
  // Hydra's --nodelist in a hostlist's compressed form, the count as -N.
  auto hydra = pick_step_nodes(job, 3, true, "node[2-4]", "");
  BOOST_REQUIRE_MESSAGE(hydra, why(hydra));
  BOOST_TEST(*hydra == (indices{1, 2, 3}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_nodelist_without_a_count_is_the_count_and_a_count_fills_up_after_it) {
  auto exact = pick_step_nodes(job, 4, false, "node3", "");
  BOOST_REQUIRE_MESSAGE(exact, why(exact));
  BOOST_TEST(*exact == (indices{2}), boost::test_tools::per_element());
  auto filled = pick_step_nodes(job, 3, true, "node4", "");
  BOOST_REQUIRE_MESSAGE(filled, why(filled));
  BOOST_TEST(*filled == (indices{0, 1, 3}), boost::test_tools::per_element());
  auto raised = pick_step_nodes(job, 1, true, "node1,node2", "");
  BOOST_REQUIRE_MESSAGE(raised, why(raised));
  BOOST_TEST(*raised == (indices{0, 1}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(excluded_nodes_are_left_out_and_cap_a_count_not_given) {
  auto r = pick_step_nodes(job, 4, false, "", "node[1-2]");
  BOOST_REQUIRE_MESSAGE(r, why(r));
  BOOST_TEST(*r == (indices{2, 3}), boost::test_tools::per_element());
  auto two = pick_step_nodes(job, 2, true, "", "node1");
  BOOST_REQUIRE_MESSAGE(two, why(two));
  BOOST_TEST(*two == (indices{1, 2}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(nodes_the_job_lacks_or_too_few_nodes_are_refused_in_slurms_words) {
  auto other = pick_step_nodes(job, 1, true, "node9", "");
  BOOST_REQUIRE(!other);
  BOOST_CHECK(other.error() == shoal::errc::unsatisfiable);
  BOOST_TEST(why(other).find("Requested node configuration is not available") != std::string::npos);
  BOOST_TEST(why(other).find("node9") != std::string::npos);
  auto both = pick_step_nodes(job, 1, true, "node2", "node2");
  BOOST_REQUIRE(!both);
  auto many = pick_step_nodes(job, 4, true, "", "node1");
  BOOST_REQUIRE(!many);
  BOOST_CHECK(many.error() == shoal::errc::unsatisfiable);
  auto bad = pick_step_nodes(job, 1, true, "node[", "");
  BOOST_REQUIRE(!bad);
}

BOOST_AUTO_TEST_SUITE_END()
