// The options Slurm's commands read from the environment (tools/cli/input_env.hpp): which
// variables count, their order beneath the command line, and srun's node and task counts
// inherited from a batch job.

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "tools/cli/input_env.hpp"
#include "tools/cli/job_options.hpp"

using shoal::cli::job_options;

namespace {

using words = std::vector<std::string>;

/// Sets variables for one case and removes them after, with any SLURM_*/SBATCH_* the test
/// process inherited out of the way.
struct environment {
  std::vector<std::string> names;

  explicit environment(const std::vector<std::pair<std::string, std::string>>& vars) {
    for (const char* inherited :
         {"SLURM_JOB_ID", "SHOAL_JOB_ID", "SLURM_NNODES", "SLURM_NTASKS", "SLURM_JOB_NAME",
          "SBATCH_PARTITION", "SBATCH_TIMELIMIT", "SLURM_CPUS_PER_TASK"})
      ::unsetenv(inherited);
    for (auto& [name, value] : vars) {
      ::setenv(name.c_str(), value.c_str(), 1);
      names.push_back(name);
    }
  }
  ~environment() {
    for (auto& name : names) ::unsetenv(name.c_str());
  }
};

/// `shoal run ARGS` as the command parses it, with the environment beneath.
job_options run_options(const words& args) {
  CLI::App app{"run"};
  job_options opts;
  shoal::cli::add_job_options(app, opts, false);
  words reversed(args.rbegin(), args.rend());
  app.parse(reversed);
  auto bad = shoal::cli::layer_input_env("run", app, opts, false);
  BOOST_REQUIRE_MESSAGE(bad.empty(), bad);
  return opts;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(input_environment)

BOOST_AUTO_TEST_CASE(each_command_reads_its_own_prefix) {
  environment env{{{"SBATCH_PARTITION", "gpu"},
                   {"SLURM_PARTITION", "cpu"},
                   {"SALLOC_PARTITION", "big"},
                   {"SBATCH_EXCLUSIVE", ""}}};
  CLI::App batch{"batch"};
  job_options o;
  shoal::cli::add_job_options(batch, o, true);
  BOOST_TEST(shoal::cli::input_env_options("batch", batch) ==
             (words{"--exclusive", "--partition=gpu"}));
  CLI::App run{"run"};
  shoal::cli::add_job_options(run, o, false);
  BOOST_TEST(shoal::cli::input_env_options("run", run) == (words{"--partition=cpu"}));
  BOOST_TEST(shoal::cli::input_env_options("sacct", run).empty());
}

BOOST_AUTO_TEST_CASE(the_command_line_wins_over_the_environment) {
  environment env{{{"SLURM_PARTITION", "cpu"}, {"SLURM_TIMELIMIT", "5"}}};
  auto o = run_options({"-p", "gpu"});
  BOOST_TEST(o.partition == "gpu");
  BOOST_TEST(o.time == "5");
}

BOOST_AUTO_TEST_CASE(srun_in_a_batch_job_takes_the_jobs_shape) {
  environment env{{{"SLURM_JOB_ID", "12"},
                   {"SLURM_NNODES", "2"},
                   {"SLURM_NTASKS", "4"},
                   {"SLURM_JOB_NAME", "batchjob"}}};
  auto bare = run_options({});
  BOOST_TEST(bare.nodes == "2");
  BOOST_TEST(bare.ntasks == 4u);
  BOOST_TEST(bare.name.empty());  // steps are not all named after the batch job
  // A smaller -n takes fewer nodes; -w names its own; a larger -N drops the task count.
  BOOST_TEST(run_options({"-n", "1"}).nodes == "1");
  BOOST_TEST(run_options({"-w", "node2"}).nodes.empty());
  auto wide = run_options({"-N", "5"});
  BOOST_TEST(wide.nodes == "5");
  BOOST_TEST(wide.ntasks == 0u);
}

BOOST_AUTO_TEST_CASE(a_bad_count_is_refused_in_slurms_words) {
  // As slurm_process_option_or_exit gives SLURM_NTASKS to parse_int: the variable's value is
  // refused as the option's would be.
  environment env{{{"SLURM_NTASKS", "many"}}};
  CLI::App app{"run"};
  job_options opts;
  shoal::cli::add_job_options(app, opts, false);
  app.parse(words{});
  auto bad = shoal::cli::layer_input_env("run", app, opts, false);
  BOOST_TEST(bad.empty(), bad);
  auto refused = shoal::cli::refused_count(opts);
  BOOST_REQUIRE(refused.has_value());
  BOOST_TEST(refused->text == "Invalid numeric value \"many\" for --ntasks.");
  BOOST_TEST(refused->exit_code == 1);
}

BOOST_AUTO_TEST_SUITE_END()
