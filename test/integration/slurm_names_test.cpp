// Slurm's command names and variables: `sbatch`, `srun`, ... as links to `shoal`, and a batch
// script written for Slurm running unchanged through them.

#include <pwd.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"
#include "test/preconditions.hpp"

using namespace shoal::test;
namespace fs = std::filesystem;

namespace {

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

/// Submits `script` (a file in the scratch directory) with the sbatch link, waits up to 90 s
/// for the job to complete, and returns its output file's lines; empty after a failed check.
std::vector<std::string> batch_output_lines(cluster_fixture& c, const std::string& script) {
  auto r = run_slurm(c, "sbatch", {script});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto id = submitted_job_id(r.out);
  BOOST_REQUIRE_MESSAGE(id != 0, r.describe());
  bool done = c.wait_job_state(id, "COMPLETED", std::chrono::seconds{90});
  auto out = read_file(c.scratch.file("slurm-" + std::to_string(id) + ".out"));
  BOOST_CHECK_MESSAGE(done, out);
  return done ? lines_of(out) : std::vector<std::string>{};
}

/// The lines that start with "rank ", sorted.
std::vector<std::string> rank_lines(const std::vector<std::string>& lines) {
  std::vector<std::string> ranks;
  for (auto& line : lines)
    if (line.rfind("rank ", 0) == 0) ranks.push_back(line);
  std::sort(ranks.begin(), ranks.end());
  return ranks;
}

/// `Key=` `value` of a scontrol record.
std::string field(const std::string& record, const std::string& key) {
  auto at = record.find(" " + key + "=");
  if (at == std::string::npos) at = record.find("\n" + key + "=");
  if (at == std::string::npos) return "<none>";
  at += key.size() + 2;
  return record.substr(at, record.find_first_of(" \n", at) - at);
}

/// Unix seconds as scontrol prints them (local time).
std::string iso_local(int64_t t) {
  auto secs = static_cast<std::time_t>(t);
  std::tm parts{};
  localtime_r(&secs, &parts);
  char buf[64];
  std::strftime(buf, sizeof buf, "%FT%T", &parts);
  return buf;
}

std::string my_user_name() {
  auto* pw = ::getpwuid(::geteuid());
  return pw != nullptr ? pw->pw_name : std::to_string(::geteuid());
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
  std::set<std::string> expected{"sacct",    "sacctmgr", "salloc", "sbatch", "scancel",
                                 "scontrol", "sdiag",    "sinfo",  "smap",   "sprio",
                                 "squeue",   "srun",     "sshare", "sstat"};
  BOOST_TEST(found == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(help_under_a_slurm_name_names_the_command_as_run) {
  auto r = run_link("sbatch", {"--help"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_MESSAGE(r.out.find("Usage: sbatch [OPTIONS]") != std::string::npos, r.out);
  BOOST_CHECK_MESSAGE(r.out.find("sbatch is `shoal batch`") != std::string::npos, r.out);
  BOOST_CHECK_MESSAGE(r.out.find("Usage: sbatch [OPTIONS] [SCRIPT [ARGS...]]") != std::string::npos,
                      r.out);
  BOOST_CHECK_MESSAGE(r.out.find("shoal batch [OPTIONS]") == std::string::npos, r.out);
  auto control = run_link("scontrol", {"--help"});
  BOOST_CHECK_MESSAGE(control.out.find("\n  scontrol show node node1\n") != std::string::npos,
                      control.out);
  auto prio = run_link("sprio", {"--help"});
  BOOST_REQUIRE_MESSAGE(prio.exit_code == 0, prio.describe());
  BOOST_CHECK_MESSAGE(prio.out.find("Usage: sprio [OPTIONS]") != std::string::npos, prio.out);
  BOOST_CHECK_MESSAGE(prio.out.find("sprio is `shoal prio`") != std::string::npos,
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

BOOST_AUTO_TEST_CASE(sstat_is_shoal_stat) {
  auto r = run_link("sstat", {"--help"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_MESSAGE(r.out.find("Usage: sstat [OPTIONS]") != std::string::npos, r.out);
  BOOST_CHECK_MESSAGE(r.out.find("sstat is `shoal stat`") != std::string::npos, r.out);
  // As sstat: the field list, four to a line.
  auto e = run_link("sstat", {"-e"});
  BOOST_REQUIRE_MESSAGE(e.exit_code == 0, e.describe());
  BOOST_CHECK_MESSAGE(e.out.rfind("AveCPU              AveCPUFreq          AveDiskRead         "
                                  "AveDiskWrite       \n",
                                  0) == 0,
                      e.out);
  auto none = run_link("sstat", {});
  BOOST_CHECK_EQUAL(none.exit_code, 1);
  BOOST_CHECK_EQUAL(none.err, "sstat: error: You didn't give me any jobs to stat.\n");
}

BOOST_AUTO_TEST_CASE(bad_usage_under_a_slurm_name_points_at_that_names_help) {
  auto r = run_link("squeue", {"--no-such-option"});
  BOOST_CHECK_MESSAGE(r.exit_code == 2, r.describe());
  BOOST_CHECK_MESSAGE(r.err.rfind("squeue: error: ", 0) == 0, r.err);
  BOOST_CHECK_MESSAGE(r.err.find("Run 'squeue --help'.") != std::string::npos, r.err);
}

BOOST_AUTO_TEST_CASE(help_has_one_usage_and_says_what_the_command_does) {
  for (auto name : {"sbatch", "srun", "salloc"}) {
    auto r = run_link(name, {"--help"});
    BOOST_CHECK_MESSAGE(count_lines_with(r.out, "Usage:") == 1, name << ":\n" << r.out);
  }
  // sbatch writes slurm-%j.out, shoal batch shoal-%j.out: each help names its own.
  auto sbatch = run_link("sbatch", {"--help"});
  BOOST_CHECK_MESSAGE(sbatch.out.find("default: slurm-%j.out") != std::string::npos, sbatch.out);
  BOOST_CHECK_MESSAGE(sbatch.out.find("shoal-%j.out") == std::string::npos, sbatch.out);
  auto shoal = run_command({bin_path("shoal"), "batch", "--help"});
  BOOST_CHECK_MESSAGE(shoal.out.find("default: shoal-%j.out") != std::string::npos, shoal.out);
  // Cyclic is placed cyclic (job_options.cpp sets workload.cyclic), and the help says so.
  BOOST_CHECK_MESSAGE(sbatch.out.find("block (the default) or cyclic") != std::string::npos,
                      sbatch.out);
}

BOOST_AUTO_TEST_CASE(bad_input_is_refused_in_slurms_words_before_any_cluster) {
  scratch_dir dir;
  write_file(dir.file("noshebang.sh"), "echo hi\n");
  write_file(dir.file("dos.sh"), "#!/bin/sh\r\necho hi\r\n");
  write_file(dir.file("bad.sh"), "#!/bin/sh\n#SBATCH -J fine\n#SBATCH --bogus=3\necho hi\n");
  struct refusal {
    std::string name;
    std::vector<std::string> args;
    std::string err;
    int code;
  };
  // The words are Slurm 22.05's (sbatch.c's _get_script_buffer, squeue's _build_job_list,
  // scancel's _opt_verify and _xlate_state_name); -n 0 exits 1, as parse_int exits.
  std::vector<refusal> cases = {
      {"sbatch", {"/dev/null"}, "sbatch: error: Batch script is empty!\n", 1},
      {"sbatch", {dir.path()}, "sbatch: error: Batch script is empty!\n", 1},
      {"sbatch",
       {dir.file("noshebang.sh")},
       "sbatch: error: This does not look like a batch script.  The first\n"
       "sbatch: error: line must start with #! followed by the path to an interpreter.\n"
       "sbatch: error: For instance: #!/bin/sh\n",
       1},
      {"sbatch",
       {dir.file("dos.sh")},
       "sbatch: error: Batch script contains DOS line breaks (\\r\\n)\n"
       "sbatch: error: instead of expected UNIX line breaks (\\n).\n",
       1},
      {"sbatch", {"-"}, "sbatch: error: Unable to open file -\n", 1},
      {"sbatch",
       {"-n", "0", "--wrap=true"},
       "sbatch: error: Invalid numeric value \"0\" for --ntasks.\n",
       1},
      {"squeue", {"-j", "abc"}, "squeue: error: Invalid job id: abc\n", 1},
      {"scancel", {}, "scancel: error: No job identification provided\n", 1},
      {"scancel",
       {"-t", "bogus"},
       "Invalid job state specified: bogus\nValid job states are PENDING, RUNNING, and "
       "SUSPENDED\n",
       1},
      // A key shoal does not update is bad usage, refused before any cluster is asked.
      {"scontrol",
       {"update", "JobId=12", "MinMemoryNode=5"},
       "scontrol: error: Update of this parameter is not supported: MinMemoryNode=5\n",
       2},
  };
  for (auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name << " " << (c.args.empty() ? "" : c.args.front())) {
      auto r = run_link(c.name, c.args);
      BOOST_CHECK_EQUAL(r.exit_code, c.code);
      BOOST_CHECK_EQUAL(r.err, c.err);
      BOOST_CHECK_EQUAL(r.out, "");
    }
  }
  // A bad directive is named by its line.
  auto bad = run_link("sbatch", {dir.file("bad.sh")});
  BOOST_CHECK_EQUAL(bad.exit_code, 2);
  BOOST_CHECK_MESSAGE(
      bad.err.rfind("sbatch: error: " + dir.file("bad.sh") + ":3: bad #SBATCH line: ", 0) == 0 &&
          bad.err.find("--bogus") != std::string::npos,
      bad.err);
  auto version = run_link("scontrol", {"version"});
  BOOST_CHECK_EQUAL(version.exit_code, 0);
  BOOST_CHECK_MESSAGE(version.out.rfind("shoal ", 0) == 0, version.out);
}

BOOST_AUTO_TEST_CASE(version_lines_start_as_slurms_so_mpi_launchers_read_them) {
  // PRRTE (Open MPI 5) asks srun, then scontrol, sbatch and sinfo, and reads "slurm X.Y".
  for (const char* name : {"srun", "scontrol", "sbatch", "sinfo", "salloc", "squeue"})
    for (const char* flag : {"--version", "-V"}) {
      auto r = run_link(name, {flag});
      BOOST_CHECK_EQUAL(r.exit_code, 0);
      BOOST_CHECK_MESSAGE(r.out.rfind("slurm 22.05.", 0) == 0 &&
                              r.out.find(std::string{name} + " is shoal") != std::string::npos,
                          name << " " << flag << ": " << r.describe());
    }
}

BOOST_AUTO_TEST_CASE(srun_mpi_lists_none_pmi2_and_pmix_and_refuses_the_pmi_servers_shoal_lacks) {
  const std::string types =
      "MPI plugin types are...\n\tnone\n\tpmi2\n\tpmix\n"
      "specific pmix plugin versions available: pmix_v4\n";
  auto list = run_link("srun", {"--mpi=list"});
  BOOST_CHECK_EQUAL(list.exit_code, 0);
  BOOST_CHECK_EQUAL(list.out, types);
  for (const char* type : {"cray_shasta"}) {
    auto r = run_link("srun", {std::string{"--mpi="} + type, "true"});
    BOOST_CHECK_EQUAL(r.exit_code, 2);
    BOOST_CHECK_MESSAGE(
        r.err.rfind(std::string{"srun: error: --mpi="} + type + ": shoal runs no such PMI server",
                    0) == 0 &&
            r.err.find("--mpi=pmix (Open MPI) or --mpi=pmi2 (MPICH)") != std::string::npos &&
            r.err.find(types) != std::string::npos,
        r.describe());
  }
  // A PMIx version other than the server's own (PMIx 4).
  for (const char* type : {"pmix_v3", "pmix_v5"}) {
    auto r = run_link("srun", {std::string{"--mpi="} + type, "true"});
    BOOST_CHECK_EQUAL(r.exit_code, 2);
    BOOST_CHECK_MESSAGE(
        r.err == std::string{"srun: error: --mpi="} + type +
                     ": shoal's PMIx server is PMIx 4 (OpenPMIx): use --mpi=pmix or "
                     "--mpi=pmix_v4\n" +
                     types,
        r.describe());
  }
  auto bad = run_link("srun", {"--mpi=mvapich", "true"});
  BOOST_CHECK_EQUAL(bad.exit_code, 2);
  BOOST_CHECK_MESSAGE(bad.err ==
                          "srun: error: Invalid MPI type 'mvapich', --mpi=list for "
                          "acceptable types\n" +
                              types,
                      bad.describe());
  // SLURM_MPI_TYPE is --mpi's variable, as in srun.
  command_options opt;
  opt.env = {{"SLURM_MPI_TYPE", "pmix_v3"}};
  auto from_env = run_command({link_path("srun"), "true"}, opt);
  BOOST_CHECK_EQUAL(from_env.exit_code, 2);
  BOOST_CHECK_MESSAGE(from_env.err.find("--mpi=pmix_v3") != std::string::npos, from_env.describe());
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

BOOST_AUTO_TEST_CASE(mpi_launchers_srun_lines_start_one_daemon_a_node) {
  // The srun lines of Open MPI 4.1's mpirun (its daemons on all the job's nodes, then on a
  // subset: mpirun's own node needs none), of Open MPI 5's PRRTE and of MPICH's Hydra, as their
  // launchers pass them inside an allocation; each task says where it runs.
  const std::string where = "sh -c 'echo \"$0 $SLURM_NODEID $SLURMD_NODENAME\"'";
  write_file(
      scratch.file("launchers.sh"),
      "#!/bin/sh\n"
      "#SBATCH -N2\n"
      "#SBATCH -n4\n"
      "echo \"job nodelist=$SLURM_NODELIST tpn=$SLURM_TASKS_PER_NODE nnodes=$SLURM_NNODES\"\n"
      "echo \"cpus $SLURM_JOB_CPUS_PER_NODE $SLURM_CPUS_ON_NODE\"\n"
      "SLURM_CPU_BIND=none srun --ntasks-per-node=1 --kill-on-bad-exit --mpi=none "
      "--ntasks=2 " +
          where +
          " ompi\n"
          "srun --ntasks-per-node=1 --kill-on-bad-exit --cpu_bind=none --nodes=1 "
          "--nodelist=node2 --ntasks=1 " +
          where +
          " subset\n"
          "srun --ntasks-per-node=1 --kill-on-bad-exit --mpi=none --external-launcher "
          "--nodes=2 --nodelist=node1,node2 --ntasks=2 " +
          where +
          " prrte\n"
          "srun --nodelist node1,node2 -N 2 -n 2 --input none " +
          where +
          " hydra\n"
          "srun --jobid=$SLURM_JOB_ID --export=ALL -N 1 -n 1 -w node2 " +
          where +
          " jobid\n"
          "echo \"end rc=$?\"\n");
  command_options opt;
  opt.env = {{"SHOAL_CONF", conf}};
  opt.cwd = scratch.path();
  auto r = run_command({link_path("sbatch"), "launchers.sh"}, opt);
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto id = submitted_job_id(r.out);
  BOOST_REQUIRE_MESSAGE(id != 0, r.describe());
  BOOST_REQUIRE(wait_job_state(id, "COMPLETED"));
  auto out = read_file(scratch.file("slurm-" + std::to_string(id) + ".out"));
  auto lines = lines_of(out);
  BOOST_REQUIRE_MESSAGE(lines.size() == 11u, out);
  BOOST_TEST(lines[0] == "job nodelist=node[1-2] tpn=2(x2) nnodes=2");
  // Both nodes whole, with the CPUs this machine has: "cpus N(x2) N".
  auto cpus = lines[1].substr(lines[1].rfind(' ') + 1);
  BOOST_TEST(lines[1] == "cpus " + cpus + "(x2) " + cpus);
  BOOST_TEST(lines.back() == "end rc=0");
  std::vector<std::string> tasks(lines.begin() + 2, lines.end() - 1);
  std::sort(tasks.begin(), tasks.end());
  std::vector<std::string> expected{
      "hydra 0 node1", "hydra 1 node2", "jobid 0 node2", "ompi 0 node1",
      "ompi 1 node2",  "prrte 0 node1", "prrte 1 node2", "subset 0 node2",
  };
  BOOST_TEST(tasks == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(mpirun_inside_sbatch_starts_its_ranks_through_srun,
                     *boost::unit_test::precondition(needs_open_mpi{
                         "(apt-get install openmpi-bin libopenmpi-dev)"})) {
  write_file(scratch.file("allreduce.c"),
             "#include <mpi.h>\n"
             "#include <stdio.h>\n"
             "#include <stdlib.h>\n"
             "int main(int argc, char** argv) {\n"
             "  int rank = -1, size = -1, sum = -1;\n"
             "  MPI_Init(&argc, &argv);\n"
             "  MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n"
             "  MPI_Comm_size(MPI_COMM_WORLD, &size);\n"
             "  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);\n"
             "  const char* node = getenv(\"SLURMD_NODENAME\");\n"
             "  printf(\"rank %d of %d on %s sum %d\\n\", rank, size, node ? node : \"?\", sum);\n"
             "  MPI_Finalize();\n"
             "  return 0;\n"
             "}\n");
  auto cc = run_command({"mpicc", "-o", scratch.file("allreduce"), scratch.file("allreduce.c")});
  BOOST_REQUIRE_MESSAGE(cc.exit_code == 0, cc.describe());
  // mpirun finds the allocation in SLURM_* and starts one orted a node with srun. The tests run
  // as root, which mpirun refuses unless told. The local cluster's two nodes share one host,
  // where Open MPI's shared-memory transport (vader) names its files after the host and a rank's
  // place on its node: rank 0 of node1 and rank 0 of node2 would share one, so TCP it is.
  write_file(scratch.file("mpi.sh"),
             "#!/bin/sh\n"
             "#SBATCH -N2\n"
             "#SBATCH -n4\n"
             "mpirun --allow-run-as-root --mca btl self,tcp ./allreduce\n"
             "echo \"mpirun rc=$?\"\n"
             // Daemons on some nodes only: srun --nodes=1 --nodelist=node2 --ntasks=1.
             "mpirun --allow-run-as-root --mca btl self,tcp -np 2 --host node2:2 ./allreduce\n"
             "echo \"mpirun rc=$?\"\n");
  auto lines = batch_output_lines(*this, "mpi.sh");
  auto ranks = rank_lines(lines);
  // Two ranks on each node (SLURM_TASKS_PER_NODE=2(x2)); 0+1+2+3 = 6 everywhere. Then two on
  // node2 alone: 0+1 = 1.
  std::vector<std::string> expected{"rank 0 of 2 on node2 sum 1", "rank 0 of 4 on node1 sum 6",
                                    "rank 1 of 2 on node2 sum 1", "rank 1 of 4 on node1 sum 6",
                                    "rank 2 of 4 on node2 sum 6", "rank 3 of 4 on node2 sum 6"};
  BOOST_TEST(ranks == expected, boost::test_tools::per_element());
  BOOST_TEST(std::count(lines.begin(), lines.end(), "mpirun rc=0") == 2);
}

BOOST_AUTO_TEST_CASE(mpich_hydra_inside_sbatch_starts_one_proxy_a_node_through_srun,
                     *boost::unit_test::precondition(needs_mpich{
                         "(apt-get install mpich libmpich-dev)"})) {
  // Each rank names the node its Hydra proxy runs on: the proxy's own environment (its
  // parent's), since Hydra gives the ranks mpiexec's environment, SLURMD_NODENAME included.
  write_file(scratch.file("hydra.c"),
             "#include <mpi.h>\n"
             "#include <stdio.h>\n"
             "#include <string.h>\n"
             "#include <unistd.h>\n"
             "static void proxy_node(char* out, size_t n) {\n"
             "  char path[64], buf[65536];\n"
             "  snprintf(path, sizeof path, \"/proc/%d/environ\", (int)getppid());\n"
             "  FILE* f = fopen(path, \"r\");\n"
             "  size_t len = f ? fread(buf, 1, sizeof buf - 1, f) : 0;\n"
             "  if (f) fclose(f);\n"
             "  buf[len] = 0;\n"
             "  snprintf(out, n, \"?\");\n"
             "  for (size_t i = 0; i < len; i += strlen(buf + i) + 1)\n"
             "    if (strncmp(buf + i, \"SLURMD_NODENAME=\", 16) == 0) snprintf(out, n, \"%s\", "
             "buf + i + 16);\n"
             "}\n"
             "int main(int argc, char** argv) {\n"
             "  int rank = -1, size = -1, sum = -1;\n"
             "  char node[64];\n"
             "  MPI_Init(&argc, &argv);\n"
             "  MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n"
             "  MPI_Comm_size(MPI_COMM_WORLD, &size);\n"
             "  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);\n"
             "  proxy_node(node, sizeof node);\n"
             "  printf(\"rank %d of %d on %s sum %d\\n\", rank, size, node, sum);\n"
             "  MPI_Finalize();\n"
             "  return 0;\n"
             "}\n");
  auto cc = run_command({"mpicc.mpich", "-o", scratch.file("hydra"), scratch.file("hydra.c")});
  BOOST_REQUIRE_MESSAGE(cc.exit_code == 0, cc.describe());
  // Hydra reads SLURM_NODELIST and SLURM_TASKS_PER_NODE and starts its proxies with
  // `srun -N 2 -n 2 --input none hydra_pmi_proxy ...` (its tools/bootstrap/external/slurm).
  write_file(scratch.file("hydra.sh"),
             "#!/bin/sh\n"
             "#SBATCH -N2\n"
             "#SBATCH -n4\n"
             "mpiexec.hydra ./hydra\n"
             "echo \"mpiexec rc=$?\"\n");
  auto lines = batch_output_lines(*this, "hydra.sh");
  auto ranks = rank_lines(lines);
  std::vector<std::string> expected{"rank 0 of 4 on node1 sum 6", "rank 1 of 4 on node1 sum 6",
                                    "rank 2 of 4 on node2 sum 6", "rank 3 of 4 on node2 sum 6"};
  BOOST_TEST(ranks == expected, boost::test_tools::per_element());
  BOOST_TEST(std::count(lines.begin(), lines.end(), "mpiexec rc=0") == 1);
}

BOOST_AUTO_TEST_CASE(scontrol_and_squeue_print_jobs_and_arrays_as_slurm_does) {
  // The script on standard input, as Open OnDemand submits it.
  auto sub = run_slurm(*this, "sbatch", {"--parsable", "-t", "3", "-J", "timed"},
                       "#!/bin/sh\nsleep 120\n");
  BOOST_REQUIRE_MESSAGE(sub.exit_code == 0, sub.describe());
  auto id = std::stoull(sub.out);
  BOOST_REQUIRE(wait_job_state(id, "RUNNING"));
  auto start = job(id).value("start_time", int64_t{0});
  auto show = run_slurm(*this, "scontrol", {"show", "job", std::to_string(id)});
  BOOST_REQUIRE_MESSAGE(show.exit_code == 0, show.describe());
  BOOST_CHECK_EQUAL(field(show.out, "JobName"), "timed");
  BOOST_CHECK_EQUAL(field(show.out, "TimeLimit"), "00:03:00");
  BOOST_CHECK_EQUAL(field(show.out, "EndTime"), iso_local(start + 180));
  BOOST_CHECK_EQUAL(field(show.out, "StdOut"),
                    scratch.file("slurm-" + std::to_string(id) + ".out"));
  BOOST_CHECK_EQUAL(field(show.out, "StdErr"), field(show.out, "StdOut"));
  // -o: one line per record, no blank line between them.
  auto one = run_slurm(*this, "scontrol", {"-d", "-o", "show", "jobs"});
  BOOST_REQUIRE_MESSAGE(one.exit_code == 0, one.describe());
  BOOST_CHECK_EQUAL(lines_of(one.out).size(), 1u);
  BOOST_CHECK_MESSAGE(
      one.out.rfind("JobId=" + std::to_string(id) + " JobName=timed UserId=", 0) == 0, one.out);
  auto nodes = run_slurm(*this, "scontrol", {"show", "nodes", "-o"});
  BOOST_REQUIRE_MESSAGE(nodes.exit_code == 0, nodes.describe());
  auto node_lines = lines_of(nodes.out);
  BOOST_REQUIRE_EQUAL(node_lines.size(), 2u);
  for (auto& l : node_lines) BOOST_CHECK_MESSAGE(l.rfind("NodeName=node", 0) == 0, l);
  BOOST_REQUIRE(run_slurm(*this, "scancel", {std::to_string(id)}).exit_code == 0);

  // A throttled array: tasks 1-2 run, the rest wait on the throttle.
  auto arr = run_slurm(*this, "sbatch", {"--parsable", "-a", "1-6%2", "--wrap=sleep 120"});
  BOOST_REQUIRE_MESSAGE(arr.exit_code == 0, arr.describe());
  auto a = std::to_string(std::stoull(arr.out));
  command_result q;
  BOOST_CHECK_MESSAGE(wait_until(
                          [&] {
                            q = run_slurm(*this, "squeue", {"-h", "-o", "%i %t %r"});
                            return q.out.find(a + "_[3-6%2] PD JobArrayTaskLimit\n") !=
                                   std::string::npos;
                          },
                          30s),
                      q.describe());
  BOOST_CHECK_MESSAGE(q.out.find(a + "_1 R ") != std::string::npos, q.out);
  BOOST_CHECK_MESSAGE(q.out.find(a + "_2 R ") != std::string::npos, q.out);
  BOOST_CHECK_MESSAGE(q.out.find("[[") == std::string::npos, q.out);
  auto tasks = run_slurm(*this, "squeue", {"-r", "-h", "-o", "%i %t", "-S", "i"});
  BOOST_CHECK_EQUAL(tasks.out, a + "_1 R\n" + a + "_2 R\n" + a + "_3 PD\n" + a + "_4 PD\n" + a +
                                   "_5 PD\n" + a + "_6 PD\n");
  // Cancelled whole: the tasks that never started stay as one CANCELLED line, never `_[]`.
  BOOST_REQUIRE(run_slurm(*this, "scancel", {a}).exit_code == 0);
  auto all = run_slurm(*this, "squeue", {"-t", "all", "-h", "-o", "%i %T"});
  BOOST_CHECK_MESSAGE(all.out.find(a + "_[3-6%2] CANCELLED") != std::string::npos, all.out);
  auto acct = run_slurm(*this, "sacct", {"-X", "-n", "-P", "--format=JobID,State"});
  BOOST_CHECK_MESSAGE(
      all.out.find("_[]") == std::string::npos && acct.out.find("_[]") == std::string::npos,
      all.out << acct.out);
}

BOOST_AUTO_TEST_CASE(sinfo_views_scancel_filters_and_refused_requests) {
  BOOST_REQUIRE(
      run_slurm(*this, "scontrol", {"update", "nodename=node2", "state=drain", "reason=disk swap"})
          .exit_code == 0);
  auto reasons = run_slurm(*this, "sinfo", {"-R"});
  BOOST_REQUIRE_MESSAGE(reasons.exit_code == 0, reasons.describe());
  auto lines = lines_of(reasons.out);
  BOOST_REQUIRE_EQUAL(lines.size(), 2u);
  BOOST_CHECK_EQUAL(lines[0], "REASON               USER      TIMESTAMP           NODELIST");
  BOOST_CHECK_MESSAGE(lines[1].rfind("disk swap            ", 0) == 0 && lines[1].size() > 6 &&
                          lines[1].substr(lines[1].size() - 6) == " node2",
                      lines[1]);
  auto summary = run_slurm(*this, "sinfo", {"-s"});
  BOOST_CHECK_EQUAL(summary.out,
                    "PARTITION AVAIL  TIMELIMIT   NODES(A/I/O/T) NODELIST\n"
                    "debug*       up   infinite          0/1/1/2 node[1-2]\n");
  auto long_list = run_slurm(*this, "sinfo", {"-l"});
  auto long_lines = lines_of(long_list.out);
  BOOST_REQUIRE_GE(long_lines.size(), 3u);
  BOOST_CHECK_EQUAL(long_lines[1],
                    "PARTITION AVAIL  TIMELIMIT   JOB_SIZE ROOT OVERSUBS     GROUPS  NODES       "
                    "STATE NODELIST");
  BOOST_REQUIRE(
      run_slurm(*this, "scontrol", {"update", "nodename=node2", "state=resume"}).exit_code == 0);

  // scancel's filters: each narrows, ids and filters together must both match.
  std::vector<uint64_t> ids;
  for (auto name : {"a", "a", "b"}) {
    auto r = run_slurm(*this, "sbatch", {"--parsable", "-H", "-J", name, "--wrap=true"});
    BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
    ids.push_back(std::stoull(r.out));
  }
  BOOST_CHECK(run_slurm(*this, "scancel", {"--name", "a"}).exit_code == 0);
  BOOST_CHECK_EQUAL(job_state(ids[0]), "CANCELLED");
  BOOST_CHECK_EQUAL(job_state(ids[1]), "CANCELLED");
  auto b = std::to_string(ids[2]);
  BOOST_CHECK(run_slurm(*this, "scancel", {"-n", "nosuch", b}).exit_code == 0);
  BOOST_CHECK(run_slurm(*this, "scancel", {"-t", "R", b}).exit_code == 0);
  BOOST_CHECK_EQUAL(job_state(ids[2]), "PENDING");
  BOOST_CHECK(run_slurm(*this, "scancel", {"-t", "PD", "-u", my_user_name()}).exit_code == 0);
  BOOST_CHECK_EQUAL(job_state(ids[2]), "CANCELLED");

  // What no node can ever hold is refused at submission, in Slurm's words: slurmctld's
  // explanation, then the failure.
  for (auto [ask, explanation] : {std::pair{"--mem=100000000", "Memory specification"},
                                  std::pair{"--cpus-per-task=1000", "CPU count per node"}}) {
    BOOST_TEST_CONTEXT(ask) {
      auto r = run_slurm(*this, "sbatch", {ask, "--wrap=true"});
      BOOST_CHECK_EQUAL(r.exit_code, 1);
      auto lines = lines_of(r.err);
      BOOST_REQUIRE_MESSAGE(lines.size() == 2, r.err);
      BOOST_CHECK_MESSAGE(
          lines[0].rfind("sbatch: error: " + std::string{explanation} + " can not be satisfied",
                         0) == 0,
          r.err);
      BOOST_CHECK_EQUAL(lines[1],
                        "sbatch: error: Batch job submission failed: Requested node "
                        "configuration is not available");
      auto test_only = run_slurm(*this, "sbatch", {"--test-only", ask, "--wrap=true"});
      BOOST_CHECK_EQUAL(test_only.exit_code, 1);
      BOOST_CHECK_EQUAL(test_only.err,
                        "allocation failure: Requested node configuration is not available\n");
    }
  }
  // srun's own notes speak as srun.
  auto missing = run_slurm(*this, "srun", {"-N1", "/nonexistent/cmd"});
  BOOST_CHECK_MESSAGE(missing.err.rfind("srun: error: node1: ", 0) == 0, missing.describe());
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
