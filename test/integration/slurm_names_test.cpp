// Slurm's command names and variables: `sbatch`, `srun`, ... as links to `shoal`, and a batch
// script written for Slurm running unchanged through them.

#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;
namespace fs = std::filesystem;

namespace {

std::string local_hostname() {
  char buf[256] = {};
  ::gethostname(buf, sizeof buf - 1);
  return buf;
}

/// The build's link named `name` (bin/slurm-names/NAME).
std::string link_path(const std::string& name) {
  return bin_path("slurm-names/" + name);
}

/// Runs the link `name` with `args` (no cluster: SHOAL_CONF names nothing).
command_result run_link(const std::string& name, const std::vector<std::string>& args) {
  std::vector<std::string> argv{link_path(name)};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(slurm_command_names)

BOOST_AUTO_TEST_CASE(the_build_links_every_slurm_name_to_shoal) {
  std::set<std::string> found;
  for (auto& entry : fs::directory_iterator(bin_path("slurm-names"))) {
    BOOST_CHECK_MESSAGE(fs::is_symlink(entry.symlink_status()), entry.path());
    BOOST_CHECK(fs::equivalent(entry.path(), bin_path("shoal")));
    found.insert(entry.path().filename().string());
  }
  std::set<std::string> expected{"sacct", "salloc", "sbatch", "scancel", "scontrol", "sdiag",
                                 "sinfo", "smap",   "sprio",  "squeue",  "srun"};
  BOOST_TEST(found == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(help_under_a_slurm_name_names_the_command_as_run) {
  auto r = run_link("sbatch", {"--help"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_MESSAGE(r.out.find("Usage: sbatch [OPTIONS]") != std::string::npos, r.out);
  BOOST_CHECK_MESSAGE(r.out.find("sbatch is `shoal batch`") != std::string::npos, r.out);
  BOOST_CHECK_MESSAGE(r.out.find("Usage: sbatch [OPTIONS] SCRIPT") != std::string::npos, r.out);
  BOOST_CHECK_MESSAGE(r.out.find("shoal batch [OPTIONS]") == std::string::npos, r.out);
  auto control = run_link("scontrol", {"--help"});
  BOOST_CHECK_MESSAGE(control.out.find("\n  scontrol show node node1\n") != std::string::npos,
                      control.out);
  auto prio = run_link("sprio", {"--help"});
  BOOST_REQUIRE_MESSAGE(prio.exit_code == 0, prio.describe());
  BOOST_CHECK_MESSAGE(prio.out.find("Usage: sprio [OPTIONS]") != std::string::npos, prio.out);
  BOOST_CHECK_MESSAGE(prio.out.find("sprio is `shoal queue --priority`") != std::string::npos,
                      prio.out);
}

BOOST_AUTO_TEST_CASE(sacct_is_shoal_acct) {
  auto r = run_link("sacct", {"--help"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_MESSAGE(r.out.find("Usage: sacct [OPTIONS]") != std::string::npos, r.out);
  BOOST_CHECK_MESSAGE(r.out.find("sacct is `shoal acct`") != std::string::npos, r.out);
  auto bad = run_link("sacct", {"-N1", "hostname"});
  BOOST_CHECK_MESSAGE(bad.exit_code == 2, bad.describe());
  BOOST_CHECK_MESSAGE(bad.err.rfind("sacct: error: ", 0) == 0, bad.err);
}

BOOST_AUTO_TEST_CASE(bad_usage_under_a_slurm_name_points_at_that_names_help) {
  auto r = run_link("squeue", {"--no-such-option"});
  BOOST_CHECK_MESSAGE(r.exit_code == 2, r.describe());
  BOOST_CHECK_MESSAGE(r.err.rfind("squeue: error: ", 0) == 0, r.err);
  BOOST_CHECK_MESSAGE(r.err.find("Run 'squeue --help'.") != std::string::npos, r.err);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(slurm_scripts, two_nodes)

BOOST_AUTO_TEST_CASE(a_slurm_batch_script_runs_unchanged_through_sbatch) {
  // Nothing of shoal's in it: #SBATCH lines, srun, SLURM_* variables. The test's PATH holds no
  // srun: the node daemon puts its own folders on the script's PATH.
  write_file(scratch.file("slurmish.sh"),
             "#!/bin/sh\n"
             "#SBATCH --job-name=slurmish\n"
             "#SBATCH -N 2\n"
             "#SBATCH --ntasks=2\n"
             "echo \"batch job=$SLURM_JOB_ID jobid=$SLURM_JOBID ntasks=$SLURM_NTASKS "
             "nodelist=$SLURM_JOB_NODELIST nnodes=$SLURM_NNODES procid=$SLURM_PROCID "
             "tpn=$SLURM_TASKS_PER_NODE name=$SLURM_JOB_NAME step=${SLURM_STEP_ID-none}\"\n"
             "srun hostname\n"
             "srun sh -c 'echo \"task procid=$SLURM_PROCID ntasks=$SLURM_NTASKS "
             "job=$SLURM_JOB_ID step=$SLURM_STEP_ID nodelist=$SLURM_JOB_NODELIST "
             "node=$SLURMD_NODENAME\"'\n"
             "echo \"end rc=$?\"\n");
  command_options opt;
  opt.env = {{"SHOAL_CONF", conf}};
  opt.cwd = scratch.path();
  auto r = run_command({link_path("sbatch"), "slurmish.sh"}, opt);
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto id = submitted_job_id(r.out);
  BOOST_REQUIRE_MESSAGE(id != 0, r.describe());
  BOOST_REQUIRE(wait_job_state(id, "COMPLETED"));
  auto n = std::to_string(id);
  // Run as sbatch, the output file has Slurm's default name.
  auto lines = lines_of(read_file(scratch.file("slurm-" + n + ".out")));
  BOOST_REQUIRE_MESSAGE(lines.size() == 6u, read_file(scratch.file("slurm-" + n + ".out")));
  BOOST_TEST(lines[0] == "batch job=" + n + " jobid=" + n +
                             " ntasks=2 nodelist=node[1-2] nnodes=2 procid=0 tpn=1(x2) "
                             "name=slurmish step=none");
  // The two steps' tasks print in either order within their step.
  std::vector<std::string> hosts{lines[1], lines[2]};
  BOOST_TEST(hosts == std::vector<std::string>(2, local_hostname()),
             boost::test_tools::per_element());
  std::vector<std::string> tasks{lines[3], lines[4]};
  std::sort(tasks.begin(), tasks.end());
  std::vector<std::string> expected{
      "task procid=0 ntasks=2 job=" + n + " step=1 nodelist=node[1-2] node=node1",
      "task procid=1 ntasks=2 job=" + n + " step=1 nodelist=node[1-2] node=node2"};
  BOOST_TEST(tasks == expected, boost::test_tools::per_element());
  BOOST_TEST(lines[5] == "end rc=0");
  BOOST_CHECK_EQUAL(job(id).value("step_count", 0), 2);
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

/// One node whose shoald runs with SlurmEnv=NO.
struct slurm_env_off : cluster_fixture {
  slurm_env_off() : cluster_fixture(1, "SlurmEnv=NO\n") {}
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(slurm_env_switch, slurm_env_off)

BOOST_AUTO_TEST_CASE(slurm_env_no_gives_tasks_no_slurm_variables_or_names) {
  // Only what the caller had (nothing, unless the tests themselves run inside a Slurm job).
  size_t callers = 0;
  for (char** e = environ; *e != nullptr; ++e) callers += std::string{*e}.rfind("SLURM", 0) == 0;
  auto r = run_cli({"run", "sh", "-c",
                    "env | grep -c '^SLURM'; echo \"$PATH\"; command -v shoal; "
                    "case \"$(command -v srun)\" in *slurm-names*) echo ours;; *) echo none;; "
                    "esac"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto lines = lines_of(r.out);
  BOOST_REQUIRE_MESSAGE(lines.size() == 4u, r.describe());
  BOOST_TEST(lines[0] == std::to_string(callers));
  BOOST_TEST(lines[1].find(bin_path("slurm-names")) == std::string::npos);
  // `shoal` itself stays reachable.
  BOOST_TEST(lines[2] == bin_path("shoal"));
  BOOST_TEST(lines[3] == "none");
}

BOOST_AUTO_TEST_SUITE_END()
