// sacct (`shoal acct`) against a real cluster: the habits scripts have (`sacct -j $jid -n -X -o
// State`, `--format=JobID,State,ExitCode -P`, `-b`, a plain `sacct`) print what Slurm 22.05's
// sacct prints for the jobs the controller still holds.

#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <string>
#include <vector>

#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// Runs the build's `sacct` link (bin/slurm-names/sacct) against the fixture's cluster.
command_result run_sacct(cluster_fixture& c, const std::vector<std::string>& args) {
  std::vector<std::string> argv{bin_path("slurm-names/sacct")};
  argv.insert(argv.end(), args.begin(), args.end());
  command_options opt;
  opt.env = {{"SHOAL_CONF", c.conf}};
  opt.cwd = c.scratch.path();
  return run_command(argv, opt);
}

/// Submits `script` and waits for the job to end in `state`; the job id, or 0.
uint64_t finished_job(cluster_fixture& c, const std::string& name, const std::string& script,
                      const std::string& state) {
  auto id = c.submit_script(name, script);
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE_MESSAGE(c.wait_job_state(id, state), "job " << id << " is " << c.job_state(id));
  return id;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(slurm_acct, two_nodes)

BOOST_AUTO_TEST_CASE(finished_and_failing_jobs_print_as_sacct_prints_them) {
  auto ok = finished_job(*this, "ok.sh", "#!/bin/sh\ntrue\n", "COMPLETED");
  auto bad = finished_job(*this, "bad.sh", "#!/bin/sh\nexit 3\n", "FAILED");
  auto id = std::to_string(ok);
  // State is 10 wide, right-justified, with the blank after every field.
  auto r = run_sacct(*this, {"-j", id, "-n", "-X", "-o", "State"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_TEST(r.out == " COMPLETED \n");
  auto code = run_sacct(*this, {"-j", std::to_string(bad), "-n", "-X", "-o", "ExitCode"});
  BOOST_TEST(code.out == "     3:0 \n");
  auto parsable = run_sacct(*this, {"-j", id, "--format=JobID,State,ExitCode", "-P"});
  BOOST_TEST(parsable.out ==
             "JobID|State|ExitCode\n" + id + "|COMPLETED|0:0\n" + id + ".batch|COMPLETED|0:0\n");
  auto brief = run_cli({"acct", "-b", "-j", std::to_string(bad)});
  auto left12 = [](std::string text) { return text + std::string(12 - text.size(), ' '); };
  BOOST_TEST(brief.out ==
             "JobID             State ExitCode \n"
             "------------ ---------- -------- \n" +
                 left12(std::to_string(bad)) + "     FAILED      3:0 \n" +
                 left12(std::to_string(bad) + ".batch") + "     FAILED      3:0 \n");
  // `sacct -j ID -n -o ExitCode | head -1`: the job's line comes first.
  auto first = run_sacct(*this, {"-j", std::to_string(bad), "-n", "-o", "ExitCode"});
  BOOST_TEST(lines_of(first.out).size() == 2u);
  BOOST_TEST(lines_of(first.out).at(0) == "     3:0 ");
}

BOOST_AUTO_TEST_CASE(json_prints_the_jobs_as_slurmrestds_slurmdb_answer) {
  auto id = finished_job(*this, "steps.sh", "#!/bin/sh\nshoal run true\n", "COMPLETED");
  // Once the store has it, its steps come with it (the batch step and step 0).
  nlohmann::json answer;
  BOOST_REQUIRE(wait_until(
      [&] {
        auto r = run_sacct(*this, {"-j", std::to_string(id), "--json"});
        if (r.exit_code != 0) return false;
        answer = parse_json(r.out);
        return answer.contains("jobs") && answer["jobs"].size() == 1 &&
               answer["jobs"][0]["steps"].size() == 2;
      },
      std::chrono::seconds{30}));
  BOOST_TEST(answer.contains("meta"));
  BOOST_TEST(answer["errors"].empty());
  const auto& job = answer["jobs"][0];
  BOOST_TEST(job["job_id"].get<uint64_t>() == id);
  BOOST_TEST(job["name"].get<std::string>() == "steps.sh");
  BOOST_TEST(job["state"]["current"][0].get<std::string>() == "COMPLETED");
  std::vector<std::string> steps;
  for (const auto& step : job["steps"]) steps.push_back(step["step"]["id"].get<std::string>());
  BOOST_TEST((steps == std::vector<std::string>{"batch", "0"}));
  // A job still running is listed from the controller, without steps from the store.
  auto running = submit_script("wait.sh", "#!/bin/sh\nsleep 30\n");
  BOOST_REQUIRE(wait_job_state(running, "RUNNING"));
  auto live = parse_json(run_sacct(*this, {"-j", std::to_string(running), "--json"}).out);
  BOOST_REQUIRE(live["jobs"].size() == 1u);
  BOOST_TEST(live["jobs"][0]["state"]["current"][0].get<std::string>() == "RUNNING");
  run_cli({"cancel", std::to_string(running)});
}

BOOST_AUTO_TEST_CASE(plain_sacct_lists_todays_jobs_of_the_caller) {
  auto ok = finished_job(*this, "named.sh", "#!/bin/sh\n#SBATCH -J acctname\ntrue\n", "COMPLETED");
  auto r = run_sacct(*this, {});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto lines = lines_of(r.out);
  BOOST_REQUIRE_MESSAGE(lines.size() == 4u, r.out);
  BOOST_TEST(lines[0] ==
             "JobID           JobName  Partition    Account  AllocCPUS      State ExitCode ");
  BOOST_TEST(lines[2].rfind(std::to_string(ok) + " ", 0) == 0u);
  BOOST_TEST(lines[2].find("  acctname ") != std::string::npos);
  BOOST_TEST(lines[3].find("      batch ") != std::string::npos);
  // Another user's jobs: nobody else has any here.
  auto other = run_sacct(*this, {"-n", "-u", std::to_string(::getuid() + 1)});
  BOOST_TEST(other.out.empty());
}

BOOST_AUTO_TEST_CASE(a_cancelled_job_is_cancelled_by_its_uid) {
  auto id = submit_script("long.sh", "#!/bin/sh\nsleep 300\n");
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_job_state(id, "RUNNING"));
  auto cancel = run_cli({"cancel", std::to_string(id)});
  BOOST_REQUIRE_MESSAGE(cancel.exit_code == 0, cancel.describe());
  BOOST_REQUIRE(wait_job_state(id, "CANCELLED"));
  auto r = run_sacct(*this, {"-j", std::to_string(id), "-n", "-X", "-P", "-o", "State"});
  BOOST_TEST(r.out == "CANCELLED by " + std::to_string(::getuid()) + "\n");
  auto cols = run_sacct(*this, {"-j", std::to_string(id), "-n", "-X", "-o", "State"});
  BOOST_TEST(cols.out == "CANCELLED+ \n");
}

BOOST_AUTO_TEST_CASE(an_unknown_field_is_slurms_error) {
  auto r = run_sacct(*this, {"-o", "JobID,Bogus"});
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(r.out.empty());
  BOOST_TEST(r.err == "sacct: error: Invalid field requested: \"Bogus\"\n");
}

BOOST_AUTO_TEST_SUITE_END()
