// SelectType=select/cons_tres: jobs share a node by CPUs; the node shows MIXED while partly
// held and never takes more jobs than it has CPUs for.

#include <boost/test/unit_test.hpp>

#include "test/integration/harness.hpp"
#include "test/preconditions.hpp"

using namespace shoal::test;

namespace {

struct one_shared_node : cluster_fixture {
  one_shared_node() : cluster_fixture(1, "SelectType=select/cons_tres\n") {}
};

unsigned reported_cpus(cluster_fixture& c) {
  auto n = c.node("node1");
  return n.is_object() ? n.value("cpus", 0u) : 0u;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(shared_nodes, one_shared_node)

BOOST_AUTO_TEST_CASE(one_cpu_jobs_share_a_node_until_its_cpus_are_used,
                     *boost::unit_test::precondition(needs_cpus{
                         2, "for two one-CPU jobs to share node1"})) {
  auto cpus = reported_cpus(*this);
  // node1's shoald reports the CPUs hwloc finds here, all of them allowed.
  BOOST_REQUIRE_MESSAGE(cpus >= 2, "node1 reports " << cpus << " CPUs");
  std::vector<uint64_t> jobs;
  auto first = submit_script("a.sh", "#!/bin/sh\nsleep 60\n", {"-n1"});
  BOOST_REQUIRE(first != 0);
  BOOST_REQUIRE(wait_job_state(first, "RUNNING"));
  BOOST_CHECK(wait_node_state("node1", "MIXED"));
  jobs.push_back(first);
  // Fill the rest of the node's CPUs with one-CPU jobs: all run at once.
  for (unsigned i = 1; i < cpus; ++i) {
    auto id = submit_script("b.sh", "#!/bin/sh\nsleep 60\n", {"-n1"});
    BOOST_REQUIRE(id != 0);
    BOOST_CHECK(wait_job_state(id, "RUNNING"));
    jobs.push_back(id);
  }
  BOOST_CHECK(wait_node_state("node1", "ALLOCATED"));
  // One more does not fit: it waits for resources.
  auto extra = submit_script("c.sh", "#!/bin/sh\ntrue\n", {"-n1"});
  BOOST_REQUIRE(extra != 0);
  BOOST_CHECK(wait_until([&] { return job(extra).value("reason", "") == "Resources"; }, 10s));
  BOOST_CHECK_EQUAL(job_state(extra), "PENDING");
  // An --exclusive job waits for the whole node.
  auto whole = submit_script("d.sh", "#!/bin/sh\ntrue\n", {"-n1", "--exclusive"});
  BOOST_REQUIRE(whole != 0);
  run_cli({"cancel", std::to_string(first)});
  BOOST_CHECK(wait_job_state(extra, "COMPLETED"));
  BOOST_CHECK_EQUAL(job_state(whole), "PENDING");
  for (auto id : jobs) run_cli({"cancel", std::to_string(id)});
  BOOST_CHECK(wait_job_state(whole, "COMPLETED"));
}

BOOST_AUTO_TEST_CASE(tasks_run_only_on_the_cpus_their_job_holds,
                     *boost::unit_test::precondition(needs_cpus{
                         2, "to confine two jobs to different ones"})) {
  auto cpus = reported_cpus(*this);
  BOOST_REQUIRE_MESSAGE(cpus >= 2, "node1 reports " << cpus << " CPUs");
  const std::string script =
      "#!/bin/sh\ngrep Cpus_allowed_list /proc/self/status | cut -f2 > cpus.$SHOAL_JOB_ID\n"
      "sleep 60\n";
  auto a = submit_script("a.sh", script, {"-n1"});
  auto b = submit_script("b.sh", script, {"-n1"});
  BOOST_REQUIRE(a != 0);
  BOOST_REQUIRE(b != 0);
  auto listed = [&](uint64_t id) {
    return read_file(scratch.path() + "/cpus." + std::to_string(id));
  };
  BOOST_REQUIRE(wait_until([&] { return !listed(a).empty() && !listed(b).empty(); }, 30s));
  // One CPU each (a single number, no range or list), and not the same one.
  for (auto id : {a, b}) {
    auto text = listed(id);
    BOOST_TEST(text.find_first_not_of("0123456789\n") == std::string::npos, text);
  }
  BOOST_TEST(listed(a) != listed(b));
  run_cli({"cancel", std::to_string(a), std::to_string(b)});
}

BOOST_AUTO_TEST_CASE(a_job_over_its_memory_limit_ends_out_of_memory) {
  // The shell holds ~100 MB in a variable, then waits: over --mem=20M.
  auto hog = submit_script(
      "hog.sh", "#!/bin/sh\nx=$(head -c 100000000 /dev/zero | tr '\\0' a)\nsleep 60\n",
      {"--mem=20M"});
  auto modest = submit_script("modest.sh", "#!/bin/sh\necho fine\n", {"--mem=20M"});
  BOOST_REQUIRE(hog != 0);
  BOOST_REQUIRE(modest != 0);
  BOOST_CHECK(wait_job_state(hog, "OUT_OF_MEMORY", 60s));
  BOOST_CHECK(wait_job_state(modest, "COMPLETED"));
  auto shown = run_cli({"queue", "-t", "all", "-j", std::to_string(hog)});
  BOOST_TEST(shown.out.find("OOM") != std::string::npos, shown.out);
}

BOOST_AUTO_TEST_SUITE_END()
