// The everyday options of Slurm's commands that issue 34 (item 1) added, each asserted in the
// words Slurm 22.05 uses: squeue's -A/-q/-R/-w/-L filters, -v and -i; sinfo's -d/-r/-T, -v and
// -i; scancel's filters, -v, -Q and -i; sprio's -j/-u and -w; sacct's -q/-g/-i/-I/-k/-K/-C/-T;
// scontrol -Q and sdiag's orders; srun's --prolog/--epilog, -r, -I and -F (sbatch's too),
// sbatch --export-file, --priority; and --usage under every Slurm name (src/squeue/opts.c,
// src/sinfo/opts.c and print.c, src/scancel/scancel.c, src/sprio/sprio.c, src/sacct/options.c,
// src/srun/srun_job.c, src/common/env.c).

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <string>
#include <thread>
#include <vector>

#include "test/integration/harness.hpp"
#include "test/preconditions.hpp"

using namespace shoal::test;

namespace {

const std::string long_sleep = "#!/bin/sh\nsleep 120\n";

/// Two nodes and a license pool, for squeue -L.
struct licensed_pair : cluster_fixture {
  licensed_pair() : cluster_fixture(2, "Licenses=sim:2\n") {}
};

/// The first column of each line of `out` after its header: the job ids squeue printed.
std::vector<std::string> first_column(const std::string& out) {
  std::vector<std::string> ids;
  size_t start = out.find('\n');
  while (start != std::string::npos && start + 1 < out.size()) {
    auto end = out.find('\n', start + 1);
    auto line = out.substr(start + 1, end == std::string::npos ? end : end - start - 1);
    auto first = line.find_first_not_of(' ');
    if (first != std::string::npos)
      ids.push_back(line.substr(first, line.find(' ', first) - first));
    start = end;
  }
  return ids;
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(slurm_everyday_options, licensed_pair)

BOOST_AUTO_TEST_CASE(squeue_selects_by_account_qos_nodes_and_licenses) {
  auto a = submit_script("a.sh", long_sleep, {"-A", "physics", "-q", "normal", "-w", "node1"});
  auto b = submit_script("b.sh", long_sleep, {"-A", "chemistry", "-L", "sim:1", "-w", "node2"});
  BOOST_REQUIRE(a != 0 && b != 0);
  BOOST_REQUIRE(wait_job_state(a, "RUNNING"));
  BOOST_REQUIRE(wait_job_state(b, "RUNNING"));
  auto ids = [&](const std::vector<std::string>& args) {
    auto r = run_slurm(*this, "squeue", args);
    BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
    return first_column(r.out);
  };
  auto only_a = std::vector<std::string>{std::to_string(a)};
  auto only_b = std::vector<std::string>{std::to_string(b)};
  BOOST_CHECK(ids({"-A", "physics"}) == only_a);
  BOOST_CHECK(ids({"--account=CHEMISTRY,none"}) == only_b);  // case does not matter, as Slurm
  BOOST_CHECK(ids({"-q", "normal"}) == only_a);
  BOOST_CHECK(ids({"-w", "node2"}) == only_b);
  BOOST_CHECK(ids({"--nodelist=node[1-2]", "-S", "i"}).size() == 2u);
  BOOST_CHECK(ids({"-L", "sim"}) == only_b);
  BOOST_CHECK(ids({"-R", "nosuch"}).empty());
  BOOST_CHECK(ids({"--local", "--federation", "--sibling", "-A", "physics"}) == only_a);
  BOOST_CHECK(ids({"--hide", "--array-unique", "-A", "physics"}) == only_a);
}

BOOST_AUTO_TEST_CASE(squeue_v_prints_its_settings_then_the_date_then_the_jobs) {
  auto r = run_slurm(*this, "squeue", {"-v", "-A", "physics"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_MESSAGE(r.out.rfind("-----------------------------\n", 0) == 0, r.describe());
  BOOST_CHECK_MESSAGE(r.out.find("\naccount     = physics\n") != std::string::npos, r.describe());
  BOOST_CHECK_MESSAGE(r.out.find("\nverbose     = 1\n") != std::string::npos, r.describe());
  // After the closing rule: the date (ctime's "Thu Dec  3 05:58:37 2026"), then the header.
  auto rule_end = r.out.find("-----------------------------\n", 1);
  BOOST_REQUIRE(rule_end != std::string::npos);
  auto date_end = r.out.find('\n', rule_end + 30);
  BOOST_REQUIRE(date_end != std::string::npos);
  BOOST_CHECK_EQUAL(date_end - (rule_end + 30), 24u);
  BOOST_CHECK_MESSAGE(r.out.compare(date_end + 1, 5, "JOBID") == 0, r.describe());
}

BOOST_AUTO_TEST_CASE(squeue_and_sinfo_i_list_again_until_interrupted) {
  for (const char* name : {"squeue", "sinfo"}) {
    command_options opt;
    opt.env = {{"SHOAL_CONF", conf}};
    opt.cwd = scratch.path();
    opt.timeout = 5s;
    auto r = run_command({bin_path(std::string{"slurm-names/"} + name), "-i", "1"}, opt);
    BOOST_CHECK_MESSAGE(r.timed_out, r.describe());  // it runs until killed, as Slurm's
    auto header = std::string{name} == "squeue" ? "JOBID" : "PARTITION";
    BOOST_CHECK_MESSAGE(count_of(r.out, header) >= 2, r.describe());
    // Each listing ends with a blank line, as squeue.c and sinfo.c print.
    BOOST_CHECK_MESSAGE(r.out.find("\n\n") != std::string::npos, r.describe());
  }
  auto bad = run_slurm(*this, "squeue", {"-i", "0"});
  BOOST_CHECK_MESSAGE(bad.exit_code == 2, bad.describe());
}

BOOST_AUTO_TEST_CASE(sinfo_d_and_r_split_the_nodes_by_whether_they_respond) {
  // An admin's DOWN still answers (Slurm's -d lists only NOT_RESPONDING nodes).
  auto down = run_cli({"control", "update", "nodename=node2", "state=down", "reason=maint"});
  BOOST_REQUIRE_MESSAGE(down.exit_code == 0, down.describe());
  auto dead = run_slurm(*this, "sinfo", {"-d", "-h"});
  BOOST_CHECK_MESSAGE(dead.exit_code == 0 && dead.out.empty(), dead.describe());
  auto dead_nodes = run_slurm(*this, "sinfo", {"-d", "-N", "-h"});
  BOOST_CHECK_MESSAGE(dead_nodes.exit_code == 0 && dead_nodes.out.empty(), dead_nodes.describe());
  auto responding = run_slurm(*this, "sinfo", {"-r", "-h", "-o", "%D %t %N"});
  BOOST_CHECK_MESSAGE(responding.out.find("1 down node2") != std::string::npos,
                      responding.describe());
  BOOST_CHECK_MESSAGE(responding.out.find("1 idle node1") != std::string::npos,
                      responding.describe());
  auto both = run_slurm(*this, "sinfo", {"-d", "-r"});
  BOOST_CHECK_MESSAGE(both.exit_code == 2, both.describe());
}

BOOST_AUTO_TEST_CASE(sinfo_T_lists_the_reservations_as_sinfo_does) {
  auto none = run_slurm(*this, "sinfo", {"-T"});
  BOOST_CHECK_EQUAL(none.out, "No reservations in the system\n");
  auto made = run_cli({"control", "create", "reservation", "reservationname=weekly",
                       "starttime=now+1hour", "duration=90", "nodes=node1", "users=root"});
  BOOST_REQUIRE_MESSAGE(made.exit_code == 0, made.describe());
  auto r = run_slurm(*this, "sinfo", {"-T"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  // print_sinfo_reservation's "%-9s  %8s  %19s  %19s  %11s  %s".
  BOOST_CHECK_MESSAGE(r.out.rfind("RESV_NAME     STATE           START_TIME             END_TIME  "
                                  "   DURATION  NODELIST\n",
                                  0) == 0,
                      r.describe());
  auto line = r.out.substr(r.out.find('\n') + 1);
  BOOST_CHECK_MESSAGE(line.rfind("weekly     INACTIVE  ", 0) == 0, r.describe());
  BOOST_CHECK_MESSAGE(line.find("     01:30:00  node1\n") != std::string::npos, r.describe());
  auto bare = run_slurm(*this, "sinfo", {"-T", "-h"});
  BOOST_CHECK_EQUAL(bare.out, line);
}

BOOST_AUTO_TEST_CASE(scancel_selects_by_account_and_nodes_and_says_so_with_v) {
  auto a = submit_script("a.sh", long_sleep, {"-A", "physics", "-w", "node1"});
  auto b = submit_script("b.sh", long_sleep, {"-A", "chemistry", "-w", "node2"});
  BOOST_REQUIRE(a != 0 && b != 0);
  BOOST_REQUIRE(wait_job_state(a, "RUNNING"));
  BOOST_REQUIRE(wait_job_state(b, "RUNNING"));
  auto none = run_slurm(*this, "scancel", {"-v", "-A", "physics", "-w", "node2"});
  BOOST_CHECK_MESSAGE(none.exit_code == 0, none.describe());
  BOOST_CHECK_MESSAGE(
      none.err.find("scancel: error: No active jobs match ALL job filters, "
                    "including: account=physics nodelist=node2") != std::string::npos,
      none.describe());
  auto r = run_slurm(*this, "scancel", {"-v", "--account=physics"});
  BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_EQUAL(r.err, "scancel: Terminating job " + std::to_string(a) + "\n");
  BOOST_CHECK(wait_job_state(a, "CANCELLED"));
  BOOST_CHECK_EQUAL(job_state(b), "RUNNING");
  auto by_node = run_slurm(*this, "scancel", {"-w", "node2", "-q", "normal,nosuch"});
  BOOST_CHECK_MESSAGE(by_node.exit_code == 0, by_node.describe());
  BOOST_CHECK_EQUAL(job_state(b), "RUNNING");  // its QOS is none of them
  auto hurried = run_slurm(*this, "scancel", {"--ctld", "-H", "-w", "node2"});
  BOOST_CHECK_MESSAGE(hurried.exit_code == 0, hurried.describe());
  BOOST_CHECK(wait_job_state(b, "CANCELLED"));
}

BOOST_AUTO_TEST_CASE(scancel_i_asks_before_each_job_and_Q_keeps_quiet) {
  auto a = submit_script("a.sh", long_sleep);
  BOOST_REQUIRE(a != 0);
  BOOST_REQUIRE(wait_job_state(a, "RUNNING"));
  auto id = std::to_string(a);
  auto prompt = "Cancel job_id=" + id + " name=a.sh partition=debug [y/n]? ";
  auto kept = run_slurm(*this, "scancel", {"-i", id}, std::string{"n\n"});
  BOOST_CHECK_MESSAGE(kept.exit_code == 0 && kept.out == prompt, kept.describe());
  BOOST_CHECK_EQUAL(job_state(a), "RUNNING");
  // An answer that is neither y nor n asks again.
  auto cancelled = run_slurm(*this, "scancel", {"--interactive", id}, std::string{"maybe\ny\n"});
  BOOST_CHECK_MESSAGE(cancelled.exit_code == 0 && cancelled.out == prompt + prompt,
                      cancelled.describe());
  BOOST_CHECK(wait_job_state(a, "CANCELLED"));
  auto loud = run_slurm(*this, "scancel", {"987654"});
  BOOST_CHECK_MESSAGE(loud.exit_code == 1 && !loud.err.empty(), loud.describe());
  auto quiet = run_slurm(*this, "scancel", {"-Q", "987654"});
  BOOST_CHECK_MESSAGE(quiet.exit_code == 1 && quiet.err.empty(), quiet.describe());
}

BOOST_AUTO_TEST_CASE(sprio_selects_pending_jobs_and_w_shows_the_weights) {
  auto busy = submit_script("busy.sh", long_sleep, {"-N2"});
  BOOST_REQUIRE(busy != 0);
  BOOST_REQUIRE(wait_job_state(busy, "RUNNING"));
  auto a = submit_script("a.sh", long_sleep, {"-p", "debug"});
  auto b = submit_script("b.sh", long_sleep);
  BOOST_REQUIRE(a != 0 && b != 0);
  BOOST_REQUIRE(wait_job_state(b, "PENDING"));
  auto all = run_slurm(*this, "sprio", {"-h"});
  BOOST_CHECK_MESSAGE(first_column("\n" + all.out).size() == 2u, all.describe());
  auto one = run_slurm(*this, "sprio", {"-h", "-j", std::to_string(b)});
  BOOST_CHECK(first_column("\n" + one.out) == std::vector<std::string>{std::to_string(b)});
  auto nobody = run_slurm(*this, "sprio", {"-h", "-u", "nobody"});
  BOOST_CHECK_MESSAGE(nobody.exit_code == 0 && nobody.out.empty(), nobody.describe());
  // The default weights: PriorityWeightAge, JobSize and Partition 1000 (fair share and QOS off).
  auto weights = run_slurm(*this, "sprio", {"-w"});
  BOOST_CHECK_MESSAGE(weights.out.find("\nWeights ") != std::string::npos, weights.describe());
  BOOST_CHECK_MESSAGE(weights.out.find("1000    1000      1000") != std::string::npos,
                      weights.describe());
  // sprio's -n (normalized) is not built: refused by name, exit 2.
  auto norm = run_slurm(*this, "sprio", {"-n"});
  BOOST_CHECK_MESSAGE(norm.exit_code == 2 && norm.err.find("-n") != std::string::npos,
                      norm.describe());
}

BOOST_AUTO_TEST_CASE(sacct_selects_by_qos_sizes_and_time_limit) {
  auto small = submit_script("small.sh", "#!/bin/sh\ntrue\n", {"-q", "normal", "-t", "10"});
  auto wide = submit_script("wide.sh", "#!/bin/sh\ntrue\n", {"-N2", "-n4", "-t", "1:00:00"});
  BOOST_REQUIRE(small != 0 && wide != 0);
  BOOST_REQUIRE(wait_job_state(small, "COMPLETED"));
  BOOST_REQUIRE(wait_job_state(wide, "COMPLETED"));
  auto ids = [&](const std::vector<std::string>& filters) {
    std::vector<std::string> args{"-X", "-n", "-P", "-o", "JobID"};
    args.insert(args.end(), filters.begin(), filters.end());
    auto r = run_slurm(*this, "sacct", args);
    BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
    return r.out;
  };
  auto a = std::to_string(small) + "\n";
  auto b = std::to_string(wide) + "\n";
  BOOST_CHECK_EQUAL(ids({"-q", "NORMAL"}), a);
  BOOST_CHECK_EQUAL(ids({"-i", "2"}), b);
  BOOST_CHECK_EQUAL(ids({"--nnodes=1-1"}), a);
  BOOST_CHECK_EQUAL(ids({"-I", "2-8"}), b);
  BOOST_CHECK_EQUAL(ids({"-k", "10"}), a);
  BOOST_CHECK_EQUAL(ids({"-k", "30", "-K", "2:00:00"}), b);
  BOOST_CHECK_EQUAL(ids({"-K", "30"}), a);
  BOOST_CHECK_EQUAL(ids({"-C", "nosuchfeature"}), "");
  BOOST_CHECK_EQUAL(ids({"--local", "--federation", "-q", "normal"}), a);
  // -g: the owner's primary group (the test's), by name or number.
  const passwd* me = ::getpwuid(::getuid());
  BOOST_REQUIRE(me != nullptr);
  const group* mine = ::getgrgid(me->pw_gid);
  BOOST_REQUIRE(mine != nullptr);
  BOOST_CHECK_EQUAL(ids({"-g", mine->gr_name, "-q", "normal"}), a);
  BOOST_CHECK_EQUAL(ids({"--gid=" + std::to_string(me->pw_gid), "-L", "-i", "2"}), b);
  BOOST_CHECK_EQUAL(ids({"--group=4242"}), "");
  auto no_group = run_slurm(*this, "sacct", {"-g", "no-such-group"});
  BOOST_CHECK_MESSAGE(no_group.exit_code == 1 &&
                          no_group.err.find("Invalid group id: no-such-group") != std::string::npos,
                      no_group.describe());
  auto bad = run_slurm(*this, "sacct", {"-i", "two"});
  BOOST_CHECK_MESSAGE(
      bad.exit_code == 1 && bad.err.find("Invalid numeric value \"two\" for "
                                         "requested node range.") != std::string::npos,
      bad.describe());
  // -T: a start before -S reads as -S. A running job started at least a second before "now".
  auto running = submit_script("running.sh", long_sleep);
  BOOST_REQUIRE(running != 0);
  BOOST_REQUIRE(wait_job_state(running, "RUNNING"));
  std::this_thread::sleep_for(1500ms);
  auto start = [&](bool truncate) {
    std::vector<std::string> args{"-X", "-n",   "-P", "-S", "now", "-j", std::to_string(running),
                                  "-o", "Start"};
    if (truncate) args.push_back("-T");
    auto r = run_slurm(*this, "sacct", args);
    BOOST_CHECK_MESSAGE(r.exit_code == 0 && r.out.size() > 1, r.describe());
    return r.out;
  };
  auto as_run = start(false);
  auto cut = start(true);
  BOOST_CHECK_MESSAGE(as_run < cut, as_run << " should be before " << cut);  // ISO times sort
}

BOOST_AUTO_TEST_CASE(scontrol_Q_keeps_errors_to_the_exit_code_and_sdiag_sorts) {
  auto loud = run_slurm(*this, "scontrol", {"show", "job", "987654"});
  BOOST_CHECK_MESSAGE(loud.exit_code == 1 && !loud.err.empty(), loud.describe());
  auto quiet = run_slurm(*this, "scontrol", {"-Q", "show", "job", "987654"});
  BOOST_CHECK_MESSAGE(quiet.exit_code == 1 && quiet.err.empty(), quiet.describe());
  auto all = run_slurm(*this, "scontrol", {"-a", "--local", "show", "partition", "-o"});
  BOOST_CHECK_MESSAGE(all.exit_code == 0 && all.out.rfind("PartitionName=debug", 0) == 0,
                      all.describe());
  for (const char* order : {"-a", "-t", "-T", "-i"}) {
    auto r = run_slurm(*this, "sdiag", {order});
    BOOST_CHECK_MESSAGE(r.exit_code == 0 && r.out.find("Remote Procedure Call statistics by "
                                                       "message type") != std::string::npos,
                        order << ": " << r.describe());
  }
  auto both = run_slurm(*this, "sdiag", {"-t", "-T"});
  BOOST_CHECK_MESSAGE(both.exit_code == 2, both.describe());
}

BOOST_AUTO_TEST_CASE(srun_prolog_and_epilog_run_here_around_the_step) {
  auto log = scratch.file("scripts.log");
  write_file(
      scratch.file("pro.sh"),
      "#!/bin/sh\necho \"prolog $SLURM_SCRIPT_CONTEXT $*\" >> " + log + "\nexit ${PROLOG_RC:-0}\n",
      true);
  write_file(scratch.file("epi.sh"),
             "#!/bin/sh\necho \"epilog $SLURM_SCRIPT_CONTEXT $*\" >> " + log + "\nexit 3\n", true);
  auto r = run_slurm(
      *this, "srun",
      {"--prolog=" + scratch.file("pro.sh"), "--epilog", scratch.file("epi.sh"), "echo", "hi"});
  // The epilog's failure is reported; the exit code stays the step's.
  BOOST_CHECK_MESSAGE(r.exit_code == 0 && r.out == "hi\n", r.describe());
  BOOST_CHECK_MESSAGE(r.err.find("srun: error: srun epilog failed status=3") != std::string::npos,
                      r.describe());
  BOOST_CHECK_EQUAL(read_file(log), "prolog prolog_srun echo hi\nepilog epilog_srun echo hi\n");
  // A failing prolog: no step runs.
  command_options opt;
  opt.env = {{"SHOAL_CONF", conf}, {"PROLOG_RC", "4"}};
  opt.cwd = scratch.path();
  auto refused = run_command(
      {bin_path("slurm-names/srun"), "--prolog=" + scratch.file("pro.sh"), "echo", "ran"}, opt);
  BOOST_CHECK_MESSAGE(
      refused.exit_code == 1 && refused.out.empty() &&
          refused.err.find("srun prolog failed rc = 4. Aborting step.") != std::string::npos,
      refused.describe());
  auto none = run_slurm(*this, "srun", {"--prolog=none", "--epilog=none", "true"});
  BOOST_CHECK_MESSAGE(none.exit_code == 0 && none.err.empty(), none.describe());
}

BOOST_AUTO_TEST_CASE(nodefile_names_the_nodes_as_nodelist_does) {
  write_file(scratch.file("nodes"), "# the second node\nnode2\n", false);
  auto r = run_slurm(*this, "srun", {"-F", scratch.file("nodes"), "printenv", "SLURMD_NODENAME"});
  BOOST_CHECK_MESSAGE(r.exit_code == 0 && r.out == "node2\n", r.describe());
  auto batch =
      run_slurm(*this, "sbatch", {"--nodefile=" + scratch.file("nodes"), "--wrap", "true"});
  auto id = submitted_job_id(batch.out);
  BOOST_REQUIRE_MESSAGE(id != 0, batch.describe());
  BOOST_REQUIRE(wait_job_state(id, "COMPLETED"));
  BOOST_CHECK_EQUAL(job(id).value("nodelist", ""), "node2");
  auto missing = run_slurm(*this, "srun", {"-F", scratch.file("no-such-file"), "true"});
  BOOST_CHECK_MESSAGE(missing.exit_code == 2 &&
                          missing.err.find("Invalid --nodefile node file") != std::string::npos,
                      missing.describe());
  // -M: this cluster's name or all, as sbatch already took it.
  auto here = run_slurm(*this, "srun", {"-M", "all", "true"});
  BOOST_CHECK_MESSAGE(here.exit_code == 0, here.describe());
  auto elsewhere = run_slurm(*this, "salloc", {"-M", "nosuchcluster", "true"});
  BOOST_CHECK_MESSAGE(elsewhere.exit_code == 1 &&
                          elsewhere.err.find("invalid entry for --cluster") != std::string::npos,
                      elsewhere.describe());
}

BOOST_AUTO_TEST_CASE(sbatch_export_file_is_the_jobs_environment) {
  write_file(scratch.file("env0"), std::string{"A=1\0B=two words\0C=x", 19});
  command_options opt;
  opt.env = {{"SHOAL_CONF", conf}, {"SUBMITTER_MARK", "here"}};
  opt.cwd = scratch.path();
  auto r =
      run_command({bin_path("slurm-names/sbatch"), "--export-file=" + scratch.file("env0"), "-o",
                   "env.out", "--wrap", "echo \"$A|$B|${C:-no C}|${SUBMITTER_MARK:-not here}\""},
                  opt);
  auto id = submitted_job_id(r.out);
  BOOST_REQUIRE_MESSAGE(id != 0, r.describe());
  BOOST_REQUIRE(wait_job_state(id, "COMPLETED"));
  // C has no NUL after it: no entry, as env_array_from_file reads it. The submitting
  // environment (SUBMITTER_MARK) is not the job's.
  BOOST_CHECK_EQUAL(read_file(scratch.file("env.out")), "1|two words|no C|not here\n");
  auto missing = run_slurm(*this, "sbatch", {"--export-file=/nonexistent", "--wrap", "true"});
  BOOST_CHECK_MESSAGE(missing.exit_code != 0 &&
                          missing.err.find("Could not open user environment file /nonexistent") !=
                              std::string::npos,
                      missing.describe());
}

BOOST_AUTO_TEST_CASE(srun_r_places_the_step_from_a_node_of_the_allocation) {
  auto srun = bin_path("slurm-names/srun");
  auto r = run_slurm(
      *this, "salloc",
      {"-N2", "sh", "-c",
       srun + " -r 1 -N1 printenv SLURMD_NODENAME && " + srun +
           " -r 0 -N1 printenv SLURMD_NODENAME; " + srun + " -r 1 -N2 true || echo refused"});
  BOOST_CHECK_MESSAGE(r.exit_code == 0 && r.out == "node2\nnode1\nrefused\n", r.describe());
  BOOST_CHECK_MESSAGE(r.err.find("--relative and --nodes option incompatible with count of "
                                 "allocated nodes (1+2>2)") != std::string::npos,
                      r.describe());
  auto outside = run_slurm(*this, "srun", {"-r", "0", "true"});
  BOOST_CHECK_MESSAGE(
      outside.exit_code == 1 && outside.err.find("--relative option invalid for job allocation "
                                                 "request") != std::string::npos,
      outside.describe());
  auto with_w = run_slurm(*this, "srun", {"-r", "0", "-w", "node1", "true"});
  BOOST_CHECK_MESSAGE(
      with_w.exit_code == 1 && with_w.err.find("not allowed with") != std::string::npos,
      with_w.describe());
}

BOOST_AUTO_TEST_CASE(priority_and_a_negative_nice_are_the_operators,
                     *boost::unit_test::precondition(needs_root{"to submit as another user"})) {
  auto busy = submit_script("busy.sh", long_sleep, {"-N2"});
  BOOST_REQUIRE(busy != 0);
  BOOST_REQUIRE(wait_job_state(busy, "RUNNING"));
  auto priority_of = [&](uint64_t id) {
    auto r = run_slurm(*this, "squeue", {"-h", "-o", "%Q", "-j", std::to_string(id)});
    return r.out;
  };
  auto fixed = submit_script("fixed.sh", long_sleep, {"--priority=5000"});
  auto top = submit_script("top.sh", long_sleep, {"--priority", "TOP"});
  BOOST_REQUIRE(fixed != 0 && top != 0);
  BOOST_CHECK_EQUAL(priority_of(fixed), "5000\n");
  BOOST_CHECK_EQUAL(priority_of(top), "4294967294\n");
  auto bad = run_slurm(*this, "sbatch", {"--priority=-3", "--wrap", "true"});
  BOOST_CHECK_MESSAGE(
      bad.exit_code != 0 && bad.err.find("Priority must be >= 0") != std::string::npos,
      bad.describe());
  const passwd* pw = ensure_user("shoaltest");
  BOOST_REQUIRE_MESSAGE(pw != nullptr, "no test user");
  // Anyone else's --priority is dropped, as slurmctld drops it; a negative nice is refused.
  auto theirs =
      run_as(pw, {"-o", "/dev/null", "--priority=5000", "--wrap", "true"}, "slurm-names/sbatch");
  auto their_id = submitted_job_id(theirs.out);
  BOOST_REQUIRE_MESSAGE(their_id != 0, theirs.describe());
  BOOST_CHECK_NE(priority_of(their_id), "5000\n");
  auto raised =
      run_as(pw, {"-o", "/dev/null", "--nice=-5", "--wrap", "true"}, "slurm-names/sbatch");
  BOOST_CHECK_MESSAGE(
      raised.exit_code == 1 &&
          raised.err.find("Batch job submission failed: Invalid nice value") != std::string::npos,
      raised.describe());
}

BOOST_AUTO_TEST_CASE(srun_I_gives_the_job_back_when_no_allocation_comes) {
  auto fits = run_slurm(*this, "srun", {"-I30", "true"});
  BOOST_CHECK_MESSAGE(fits.exit_code == 0, fits.describe());
  auto busy = submit_script("busy.sh", long_sleep, {"-N2"});
  BOOST_REQUIRE(busy != 0);
  BOOST_REQUIRE(wait_job_state(busy, "RUNNING"));
  // -I alone: slurmctld's refusal, and no "queued" line; -I<SECS>: the timeout's words.
  auto at_once = run_slurm(*this, "srun", {"-I", "-J", "at_once", "true"});
  BOOST_CHECK_MESSAGE(
      at_once.exit_code == 1 && at_once.err ==
                                    "srun: error: Unable to allocate resources: Requested "
                                    "nodes are busy\n",
      at_once.describe());
  auto later = run_slurm(*this, "srun", {"--immediate=2", "true"});
  BOOST_CHECK_MESSAGE(
      later.exit_code == 1 && later.err.find("Connection timed out") != std::string::npos,
      later.describe());
  // Neither is left waiting.
  size_t given_back = 0;
  for (auto& j : jobs()) {
    auto id = j.value("job_id", uint64_t{0});
    if (id == busy || j.value("state", "") == "COMPLETED") continue;  // the one that fit
    BOOST_CHECK(wait_job_state(id, "CANCELLED", 10s));
    ++given_back;
  }
  BOOST_CHECK_EQUAL(given_back, 2u);
}

BOOST_AUTO_TEST_CASE(usage_is_a_brief_synopsis_under_every_slurm_name) {
  for (const char* name : {"srun", "sbatch", "salloc", "squeue", "sinfo", "scancel", "sacct",
                           "sprio", "sdiag", "scontrol", "sacctmgr", "sstat", "sshare"}) {
    auto r = run_slurm(*this, name, {"--usage"});
    BOOST_CHECK_MESSAGE(r.exit_code == 0, name << ": " << r.describe());
    BOOST_CHECK_MESSAGE(r.out.rfind(std::string{"Usage: "} + name + " [", 0) == 0,
                        name << ": " << r.describe());
    BOOST_CHECK_MESSAGE(r.out.find("[--usage]") != std::string::npos, name << ": " << r.describe());
    for (size_t start = 0, end = r.out.find('\n'); end != std::string::npos;
         start = end + 1, end = r.out.find('\n', start))
      BOOST_CHECK_MESSAGE(end - start <= 80, name << " wraps at 80 columns: " << r.out);
  }
  // Where the program's arguments begin, --usage is theirs.
  auto script = run_slurm(*this, "sbatch", {"--usage"});
  BOOST_CHECK_MESSAGE(script.out.find("[script [args...]]\n") != std::string::npos,
                      script.describe());
}

BOOST_AUTO_TEST_SUITE_END()
