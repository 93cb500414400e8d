// Slurm's input environment variables on a real cluster: SBATCH_* beneath the command line and
// over a script's #SBATCH lines, and a bare `srun` inside a batch job starting the job's tasks
// (SLURM_NTASKS), as Slurm's does.

#include <boost/test/unit_test.hpp>

#include <string>

#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// Two nodes of two CPUs, partitions `debug` (the default) and `extra`.
struct two_partitions : cluster_fixture {
  two_partitions() : cluster_fixture(2, "PartitionName=extra Nodes=node[1-2]\n") {}

  uint64_t submit_with(const std::vector<std::pair<std::string, std::string>>& env,
                       const std::vector<std::string>& args) {
    command_options opt;
    opt.env = env;
    std::vector<std::string> words{"batch"};
    words.insert(words.end(), args.begin(), args.end());
    auto r = run_cli(words, opt);
    BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
    return submitted_job_id(r.out);
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(input_environment, two_partitions)

BOOST_AUTO_TEST_CASE(sbatch_variables_sit_between_the_script_and_the_command_line) {
  auto script = write_file(scratch.file("p.sh"),
                           "#!/bin/sh\n#SBATCH -p debug\n#SBATCH -J fromscript\ntrue\n", true);
  // The variable overrides the script's line...
  auto by_env = submit_with({{"SBATCH_PARTITION", "extra"}, {"SBATCH_TIMELIMIT", "7"}}, {script});
  BOOST_REQUIRE(by_env != 0);
  BOOST_TEST(job(by_env).value("partition", "") == "extra");
  BOOST_TEST(job(by_env).value("name", "") == "fromscript");
  auto shown = run_cli({"control", "show", "job", std::to_string(by_env)});
  BOOST_TEST(shown.out.find("TimeLimit=00:07:00") != std::string::npos, shown.out);
  // ...and the command line overrides the variable.
  auto by_cli = submit_with({{"SBATCH_PARTITION", "extra"}}, {"-p", "debug", script});
  BOOST_REQUIRE(by_cli != 0);
  BOOST_TEST(job(by_cli).value("partition", "") == "debug");
  // A bad value is a usage error naming it.
  command_options opt;
  opt.env = {{"SBATCH_TIMELIMIT", "soon"}};
  auto bad = run_cli({"batch", script}, opt);
  BOOST_CHECK_MESSAGE(bad.exit_code == 2 && bad.err.find("'soon'") != std::string::npos,
                      bad.describe());
}

BOOST_AUTO_TEST_CASE(a_bare_srun_in_a_batch_job_starts_the_jobs_tasks) {
  auto out = scratch.file("tasks.out");
  auto id = submit_script("tasks.sh",
                          "#!/bin/sh\n"
                          "shoal run hostname | wc -l\n"
                          "shoal run -n1 hostname | wc -l\n"
                          "shoal run -N1 hostname | wc -l\n",
                          {"-N2", "-n4", "-o", out});
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_job_state(id, "COMPLETED", 60s));
  auto lines = lines_of(read_file(out));
  BOOST_REQUIRE_MESSAGE(lines.size() == 3u, read_file(out));
  BOOST_TEST(lines[0].find('4') != std::string::npos, lines[0]);  // SLURM_NTASKS=4
  BOOST_TEST(lines[1].find('1') != std::string::npos, lines[1]);  // -n1: one node, one task
  BOOST_TEST(lines[2].find('4') != std::string::npos, lines[2]);  // -N1: four tasks on one node
}

BOOST_AUTO_TEST_SUITE_END()
