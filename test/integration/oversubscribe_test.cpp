// Partition OverSubscribe=YES:N / FORCE:N: more than one job per node (whole-node selection) or
// per CPU (cons_tres), with real daemons and real tasks.

#include <boost/test/unit_test.hpp>

#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

const std::string sleeper = "#!/bin/sh\nsleep 60\n";

/// select/consecutive (the default): partition `shared` lets two jobs hold node1 at once;
/// partition `debug` (the default one) holds it whole.
struct forced_whole_node : cluster_fixture {
  forced_whole_node()
      : cluster_fixture(1, "PartitionName=shared Nodes=node1 OverSubscribe=FORCE:2\n") {}
};

/// select/cons_tres: partition `shared` lets jobs submitted with -s share each CPU, two per CPU.
struct shared_cpus : cluster_fixture {
  shared_cpus()
      : cluster_fixture(1,
                        "SelectType=select/cons_tres\n"
                        "PartitionName=shared Nodes=node1 OverSubscribe=YES:2\n") {}
};

void cancel_all(cluster_fixture& c, const std::vector<uint64_t>& jobs) {
  std::vector<std::string> args{"cancel"};
  for (auto id : jobs) args.push_back(std::to_string(id));
  c.run_cli(args);
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(oversubscribe_whole_nodes, forced_whole_node)

BOOST_AUTO_TEST_CASE(force_lets_two_jobs_hold_one_node_and_no_more) {
  auto shown = run_cli({"control", "show", "partition", "shared"});
  BOOST_TEST(shown.out.find("OverSubscribe=FORCE:2") != std::string::npos, shown.out);
  auto a = submit_script("a.sh", sleeper, {"-p", "shared"});
  auto b = submit_script("b.sh", sleeper, {"-p", "shared"});
  BOOST_REQUIRE(a != 0);
  BOOST_REQUIRE(b != 0);
  BOOST_CHECK(wait_job_state(a, "RUNNING"));
  BOOST_CHECK(wait_job_state(b, "RUNNING"));
  BOOST_TEST(job(a).value("nodelist", "") == "node1");
  BOOST_TEST(job(b).value("nodelist", "") == "node1");
  // A third sharing job waits; so does a job of the partition that does not share.
  auto c = submit_script("c.sh", "#!/bin/sh\ntrue\n", {"-p", "shared"});
  auto whole = submit_script("d.sh", "#!/bin/sh\ntrue\n", {"-p", "debug"});
  BOOST_REQUIRE(c != 0);
  BOOST_REQUIRE(whole != 0);
  BOOST_CHECK(wait_until([&] { return job(c).value("reason", "") == "Resources"; }, 10s));
  BOOST_CHECK_EQUAL(job_state(c), "PENDING");
  BOOST_CHECK_EQUAL(job_state(whole), "PENDING");
  // One share frees: the third sharing job runs (and ends); the whole-node job still waits.
  run_cli({"cancel", std::to_string(a)});
  BOOST_CHECK(wait_job_state(c, "COMPLETED"));
  BOOST_CHECK_EQUAL(job_state(whole), "PENDING");
  run_cli({"cancel", std::to_string(b)});
  BOOST_CHECK(wait_job_state(whole, "COMPLETED"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(oversubscribe_cpus, shared_cpus)

BOOST_AUTO_TEST_CASE(yes_shares_cpus_only_among_jobs_that_ask) {
  auto node = this->node("node1");
  unsigned cpus = node.is_object() ? node.value("cpus", 0u) : 0u;
  BOOST_REQUIRE(cpus >= 1);
  // Twice as many one-CPU -s jobs as CPUs: all run at once.
  std::vector<uint64_t> jobs;
  for (unsigned i = 0; i < 2 * cpus; ++i) {
    auto id = submit_script("s.sh", sleeper, {"-p", "shared", "-n1", "-s"});
    BOOST_REQUIRE(id != 0);
    jobs.push_back(id);
  }
  for (auto id : jobs) BOOST_CHECK(wait_job_state(id, "RUNNING"));
  BOOST_CHECK(wait_node_state("node1", "ALLOCATED"));
  auto shown = run_cli({"control", "show", "job", std::to_string(jobs[0])});
  BOOST_TEST(shown.out.find("OverSubscribe=YES") != std::string::npos, shown.out);
  // One more sharing job waits, and so does one that does not ask to share.
  auto extra = submit_script("e.sh", "#!/bin/sh\ntrue\n", {"-p", "shared", "-n1", "-s"});
  auto plain = submit_script("p.sh", "#!/bin/sh\ntrue\n", {"-p", "shared", "-n1"});
  BOOST_REQUIRE(extra != 0);
  BOOST_REQUIRE(plain != 0);
  BOOST_CHECK(wait_until([&] { return job(extra).value("reason", "") == "Resources"; }, 10s));
  BOOST_CHECK_EQUAL(job_state(extra), "PENDING");
  BOOST_CHECK_EQUAL(job_state(plain), "PENDING");
  run_cli({"cancel", std::to_string(jobs[0])});
  BOOST_CHECK(wait_job_state(extra, "COMPLETED"));
  BOOST_CHECK_EQUAL(job_state(plain), "PENDING");  // the node still holds sharing jobs
  jobs.erase(jobs.begin());
  cancel_all(*this, jobs);
  BOOST_CHECK(wait_job_state(plain, "COMPLETED"));
}

BOOST_AUTO_TEST_CASE(exclusive_with_oversubscribe_is_bad_usage) {
  write_file(scratch.file("x.sh"), "#!/bin/sh\ntrue\n", true);
  auto r = run_cli({"batch", "--exclusive", "-s", "x.sh"});
  BOOST_TEST(r.exit_code == 2, r.err);
  BOOST_TEST(r.err.find("mutually exclusive") != std::string::npos, r.err);
}

BOOST_AUTO_TEST_SUITE_END()
