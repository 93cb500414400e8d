// What running steps use, live (issue 35): `shoal stat` (sstat) asks the nodes running a step,
// whose shoal-stepd samples it on the spot; `show job` shows what the ended steps used, and
// `show node` the node's own load.

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <string>
#include <vector>

#include "test/integration/harness.hpp"

using namespace shoal::test;
using namespace std::chrono_literals;

namespace {

/// Touches 100 MB and keeps it, then burns CPU until killed.
constexpr const char* hog_source =
    "#include <stdlib.h>\n"
    "#include <string.h>\n"
    "int main(void) {\n"
    "  size_t size = 100u << 20;\n"
    "  volatile char* p = malloc(size);\n"
    "  if (!p) return 1;\n"
    "  memset((char*)p, 1, size);\n"
    "  for (unsigned long i = 0;; ++i) p[i % size] += 1;\n"
    "}\n";

struct live_cluster : cluster_fixture {
  live_cluster() : cluster_fixture(2) {}

  bool build(const std::string& name, const char* source) {
    write_file(scratch.file(name + ".c"), source);
    auto cc = run_command({"cc", "-O0", "-o", scratch.file(name), scratch.file(name + ".c")});
    BOOST_CHECK_MESSAGE(cc.exit_code == 0, cc.describe());
    return cc.exit_code == 0;
  }
};

/// The fields of the one line of `sstat -n -P` output, or none.
std::vector<std::string> fields_of(const std::string& out) {
  auto lines = lines_of(out);
  if (lines.size() != 1) return {};
  std::vector<std::string> fields;
  size_t pos = 0;
  for (auto bar = lines[0].find('|'); bar != std::string::npos; bar = lines[0].find('|', pos)) {
    fields.push_back(lines[0].substr(pos, bar - pos));
    pos = bar + 1;
  }
  fields.push_back(lines[0].substr(pos));
  return fields;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(live_usage, live_cluster)

BOOST_AUTO_TEST_CASE(sstat_shows_the_cpu_and_memory_of_a_step_while_it_runs) {
  BOOST_REQUIRE(build("hog", hog_source));
  auto run = start_cli({"run", "-N2", "-n2", "./hog"});
  BOOST_REQUIRE(wait_job_state(1, "RUNNING"));
  std::vector<std::string> f;
  std::string last;
  // Until both figures moved: the tasks must have touched their memory and burnt a second.
  bool seen = wait_until(
      [&] {
        auto r = run_cli({"stat", "-j", "1", "-n", "-P", "--noconvert", "-o",
                          "JobID,MaxRSS,MaxRSSNode,AveCPU,MinCPU,NTasks,Nodelist"});
        last = r.describe();
        f = fields_of(r.out);
        return r.exit_code == 0 && f.size() == 7 && !f[1].empty() &&
               std::stoull(f[1]) >= (90ull << 20) && f[3] != "00:00:00" && f[4] != "00:00:00";
      },
      60s);
  BOOST_REQUIRE_MESSAGE(seen, last);
  BOOST_CHECK_EQUAL(f[0], "1.0");
  BOOST_CHECK(f[2] == "node1" || f[2] == "node2");
  BOOST_CHECK_EQUAL(f[5], "2");
  BOOST_CHECK_EQUAL(f[6], "node[1-2]");
  // The header, as sstat prints it, under the Slurm name too.
  auto r = run_cli({"sstat", "-j", "1", "-p", "-o", "JobID,MaxRSS"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto lines = lines_of(r.out);
  BOOST_REQUIRE_EQUAL(lines.size(), 2u);
  BOOST_CHECK_EQUAL(lines[0], "JobID|MaxRSS|");
  BOOST_CHECK(lines[1].rfind("1.0|", 0) == 0);
  // A step named alone, and one that does not run.
  r = run_cli({"stat", "-n", "-P", "-o", "JobID", "1.0"});
  BOOST_CHECK_EQUAL(r.out, "1.0\n");
  r = run_cli({"stat", "-n", "-P", "-o", "JobID", "-j", "1.5"});
  BOOST_CHECK_EQUAL(r.exit_code, 0);
  BOOST_CHECK_EQUAL(r.out, "");
  BOOST_CHECK_MESSAGE(contains(r.err, "error: StepId=1.5 not found running."), r.describe());
  BOOST_REQUIRE_EQUAL(run_cli({"cancel", "1"}).exit_code, 0);
  run->finish();
  // Ended: its steps' use is the job's, in show job.
  BOOST_REQUIRE(wait_until([&] { return job_state(1) == "CANCELLED"; }, 30s));
  r = run_cli({"control", "show", "job", "1"});
  BOOST_CHECK_MESSAGE(contains(r.out, "   TotalCPU=") && contains(r.out, "   MaxRSS="), r.out);
  r = run_cli({"stat", "-j", "1"});
  BOOST_CHECK_EQUAL(r.exit_code, 0);
  BOOST_CHECK_MESSAGE(contains(r.err, "error: No steps running for job 1"), r.describe());
}

BOOST_AUTO_TEST_CASE(a_batch_jobs_own_step_shows_with_allsteps_or_by_name) {
  auto id = submit_script("sleeper.sh", "#!/bin/sh\nsleep 60\n");
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_job_state(id, "RUNNING"));
  auto job = std::to_string(id);
  // As sstat: without a step, the first of 0, 1, ...: a batch script alone shows none.
  auto r = run_cli({"stat", "-n", "-P", "-o", "JobID,NTasks", "-j", job});
  BOOST_CHECK_EQUAL(r.exit_code, 0);
  BOOST_CHECK_EQUAL(r.out, "");
  bool shown = wait_until(
      [&] {
        r = run_cli({"stat", "-a", "-n", "-P", "-o", "JobID,NTasks", "-j", job});
        return r.out == job + ".batch|1\n";
      },
      30s);
  BOOST_CHECK_MESSAGE(shown, r.describe());
  r = run_cli({"stat", "-n", "-P", "-o", "JobID", "-j", job + ".batch"});
  BOOST_CHECK_EQUAL(r.out, job + ".batch\n");
  run_cli({"cancel", job});
}

BOOST_AUTO_TEST_CASE(sstat_of_no_job_or_an_unknown_one_says_so_as_slurm_does) {
  auto r = run_cli({"stat"});
  BOOST_CHECK_EQUAL(r.exit_code, 1);
  BOOST_CHECK_MESSAGE(contains(r.err, "error: You didn't give me any jobs to stat."), r.describe());
  r = run_cli({"stat", "-n", "-j", "999"});
  BOOST_CHECK_EQUAL(r.exit_code, 0);
  BOOST_CHECK_MESSAGE(contains(r.err, "error: couldn't get steps for job 999"), r.describe());
  r = run_cli({"stat", "-o", "JobID,TotalCPU", "-j", "1"});
  BOOST_CHECK_EQUAL(r.exit_code, 1);
  BOOST_CHECK_MESSAGE(contains(r.err, "Invalid field requested: \"TotalCPU\""), r.describe());
}

BOOST_AUTO_TEST_CASE(show_node_has_the_nodes_own_load_once_its_daemon_beat) {
  std::string out;
  bool shown = wait_until(
      [&] {
        out = run_cli({"control", "show", "node", "node1"}).out;
        return !contains(out, "CPULoad=N/A") && contains(out, "   LoadAverage=");
      },
      30s);
  BOOST_CHECK_MESSAGE(shown, out);
  BOOST_CHECK(contains(out, " CPULoad="));
  BOOST_CHECK(contains(out, " KernelTime=") && contains(out, " IdleTime="));
}

BOOST_AUTO_TEST_SUITE_END()
