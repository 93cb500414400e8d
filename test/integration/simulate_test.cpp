// Simulated nodes (`shoald --simulate`, `shoal start --simulate=N --front-ends=F`): no task
// runs, but every controller path (registration, scheduling, launch, step ends, cancel) is the
// real one. 64 nodes served by two front-end shoald processes.

#include <boost/test/unit_test.hpp>

#include <string>

#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

struct simulated_cluster : simulated_cluster_fixture {
  simulated_cluster() : simulated_cluster_fixture(64, 2) {}

  /// How many nodes `info -N --json` lists in `state`.
  size_t nodes_in(const std::string& state) {
    auto doc = parse_json(shoal({"info", "-N", "--json"}).out);
    size_t n = 0;
    if (doc.is_object())
      for (auto& node : doc.value("nodes", nlohmann::json::array()))
        if (node.value("state", "") == state) ++n;
    return n;
  }

  /// The job's state in `queue -t all --json` ("" when not listed).
  std::string job_state(uint64_t id) {
    auto doc = parse_json(shoal({"queue", "-t", "all", "--json"}).out);
    if (doc.is_object())
      for (auto& job : doc.value("jobs", nlohmann::json::array()))
        if (job.value("job_id", uint64_t{0}) == id) return job.value("state", "");
    return "";
  }

  command_result shoal(const std::vector<std::string>& args) {
    command_options opt;
    opt.cwd = scratch.path();
    return run_shoal(cluster.config_path(), args, opt);
  }

  scratch_dir scratch;
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(simulated_nodes, simulated_cluster)

BOOST_AUTO_TEST_CASE(sixty_four_nodes_in_two_front_ends_run_what_the_commands_say) {
  BOOST_CHECK_EQUAL(nodes_in("IDLE"), 64u);
  // Every node runs a task of `sleep 1`: it takes its second, and nothing is printed.
  auto slept = shoal({"run", "-N64", "sleep", "1"});
  BOOST_CHECK_MESSAGE(slept.exit_code == 0 && slept.out.empty(), slept.describe());
  BOOST_CHECK(slept.elapsed.count() >= 1.0);
  auto failed = shoal({"run", "-N2", "false"});
  BOOST_CHECK_MESSAGE(failed.exit_code == 1, failed.describe());
  auto other = shoal({"run", "-N4", "hostname"});
  BOOST_CHECK_MESSAGE(other.exit_code == 0 && other.out.empty(), other.describe());
}

BOOST_AUTO_TEST_CASE(a_cancelled_simulated_job_ends_at_once) {
  auto script = write_file(scratch.file("long.sh"), "#!/bin/sh\nsleep 600\n", true);
  auto r = shoal({"batch", "-N8", "-o", "/dev/null", script});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto id = submitted_job_id(r.out);
  BOOST_REQUIRE(wait_until([&] { return job_state(id) == "RUNNING"; }, 30s));
  auto cancel = shoal({"cancel", std::to_string(id)});
  BOOST_CHECK_MESSAGE(cancel.exit_code == 0, cancel.describe());
  BOOST_CHECK(wait_until([&] { return job_state(id) == "CANCELLED"; }, 30s));
  BOOST_CHECK(wait_until([&] { return nodes_in("IDLE") == 64; }, 30s));
}

BOOST_AUTO_TEST_SUITE_END()
