// AccountingStorageEnforce=limits against a real cluster: sacctmgr sets an association's or a
// QOS's limit, the controller's passes hold the jobs past it pending with Slurm's reason
// (AssocMaxJobsLimit, AssocGrpCpuLimit, AssocMaxWallDurationPerJobLimit, AssocMaxCpuPerJobLimit,
// QOSMaxJobsPerUserLimit), and start them once a job ends or the limit is raised.

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "test/integration/harness.hpp"

using namespace shoal::test;
using namespace std::chrono_literals;

namespace {

struct limited_cluster : cluster_fixture {
  limited_cluster()
      : cluster_fixture(2,
                        "AccountingStorageEnforce=associations,limits\n"
                        "SelectType=select/cons_tres\n") {
    // Until the accounting writer has sent the controller its copy of the associations,
    // sacctmgr's first change may find the store still opening: retry as a user would.
    BOOST_REQUIRE(wait_until(
        [&] {
          return sacctmgr({"-i", "add", "account", "physics"}).exit_code == 0 &&
                 sacctmgr({"-i", "add", "user", "root", "account=physics"}).exit_code == 0;
        },
        30s));
    // A job that runs until its flag file (its first argument) appears.
    write_file(scratch.file("wait.sh"), "#!/bin/sh\nwhile [ ! -e \"$1\" ]; do sleep 0.2; done\n",
               true);
  }

  command_result sacctmgr(const std::vector<std::string>& args) {
    return run_slurm(*this, "sacctmgr", args);
  }

  void set_user(const std::vector<std::string>& limits) {
    std::vector<std::string> args{"-i",        "modify",          "user", "where",
                                  "name=root", "account=physics", "set"};
    args.insert(args.end(), limits.begin(), limits.end());
    auto r = sacctmgr(args);
    BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  }

  /// sbatch [options] wait.sh FLAG; the job's id.
  uint64_t submit(const std::string& flag, std::vector<std::string> options = {}) {
    options.insert(options.begin(), "--parsable");
    options.push_back(scratch.file("wait.sh"));
    options.push_back(scratch.file(flag));
    auto r = run_slurm(*this, "sbatch", options);
    BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
    return std::stoull(r.out);
  }

  void release(const std::string& flag) { write_file(scratch.file(flag), ""); }

  std::string reason(uint64_t id) {
    auto out = run_cli({"queue", "-h", "-j", std::to_string(id), "-o", "%r"}).out;
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    return out;
  }

  bool waits_with(uint64_t id, const std::string& why) {
    return wait_until([&] { return reason(id) == why; }, 20s);
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(limits, limited_cluster)

BOOST_AUTO_TEST_CASE(each_association_limit_holds_a_job_with_its_reason_and_releases_it) {
  // MaxJobs=1: the second job waits though a node is free, and starts when the first ends.
  set_user({"maxjobs=1"});
  auto first = submit("f1", {"-A", "physics"});
  BOOST_REQUIRE(wait_job_state(first, "RUNNING"));
  auto second = submit("f2", {"-A", "physics"});
  BOOST_TEST(waits_with(second, "AssocMaxJobsLimit"), reason(second));
  BOOST_TEST(job_state(second) == "PENDING");
  release("f1");
  BOOST_TEST(wait_job_state(second, "RUNNING"));
  release("f2");
  BOOST_REQUIRE(wait_job_state(second, "COMPLETED"));
  set_user({"maxjobs=-1"});

  // GrpJobs on the account: counted over everyone charging it.
  auto grp = sacctmgr({"-i", "modify", "account", "physics", "set", "grpjobs=1"});
  BOOST_REQUIRE_MESSAGE(grp.exit_code == 0, grp.describe());
  auto g1 = submit("g1", {"-A", "physics"});
  BOOST_REQUIRE(wait_job_state(g1, "RUNNING"));
  auto g2 = submit("g2", {"-A", "physics"});
  BOOST_TEST(waits_with(g2, "AssocGrpJobsLimit"), reason(g2));
  release("g1");
  BOOST_TEST(wait_job_state(g2, "RUNNING"));
  release("g2");
  BOOST_REQUIRE(wait_job_state(g2, "COMPLETED"));
  grp = sacctmgr({"-i", "modify", "account", "physics", "set", "grpjobs=-1"});
  BOOST_REQUIRE_MESSAGE(grp.exit_code == 0, grp.describe());

  // GrpTRES on the account: a job asking more CPUs than it allows waits, and starts once the
  // limit is raised.
  auto g = sacctmgr({"-i", "modify", "account", "physics", "set", "grptres=cpu=1"});
  BOOST_REQUIRE_MESSAGE(g.exit_code == 0, g.describe());
  auto wide = submit("f3", {"-A", "physics", "-n", "2"});
  BOOST_TEST(waits_with(wide, "AssocGrpCpuLimit"), reason(wide));
  auto narrow = submit("f4", {"-A", "physics", "-n", "1"});
  BOOST_TEST(wait_job_state(narrow, "RUNNING"));  // within the cap: it runs
  g = sacctmgr({"-i", "modify", "account", "physics", "set", "grptres=cpu=-1"});
  BOOST_REQUIRE_MESSAGE(g.exit_code == 0, g.describe());
  BOOST_TEST(wait_job_state(wide, "RUNNING"));
  release("f3");
  release("f4");

  // MaxTRESPerJob: held whatever runs, until the limit goes.
  set_user({"maxtres=cpu=1"});
  auto big = submit("f5", {"-A", "physics", "-n", "2"});
  BOOST_TEST(waits_with(big, "AssocMaxCpuPerJobLimit"), reason(big));
  set_user({"maxtres=cpu=-1"});
  BOOST_TEST(wait_job_state(big, "RUNNING"));
  release("f5");

  // MaxWall: a longer time limit waits; a job naming none is given the MaxWall, as Slurm's.
  set_user({"maxwall=10"});
  auto slow = submit("f6", {"-A", "physics", "-t", "20"});
  BOOST_TEST(waits_with(slow, "AssocMaxWallDurationPerJobLimit"), reason(slow));
  auto plain = submit("f7", {"-A", "physics"});
  BOOST_TEST(wait_job_state(plain, "RUNNING"));
  auto shown = run_cli({"control", "show", "job", std::to_string(plain)});
  BOOST_TEST(shown.out.find("TimeLimit=00:10:00") != std::string::npos, shown.out);
  release("f7");
  BOOST_REQUIRE(run_cli({"cancel", std::to_string(slow)}).exit_code == 0);
}

BOOST_AUTO_TEST_CASE(a_qos_limit_per_user_holds_across_a_controller_restart) {
  auto q = sacctmgr({"-i", "add", "qos", "short", "maxjobsperuser=1"});
  BOOST_REQUIRE_MESSAGE(q.exit_code == 0, q.describe());
  set_user({"qos+=short", "maxjobs=5"});  // the QOS's per-user limit overrides MaxJobs
  auto first = submit("q1", {"-A", "physics", "-q", "short"});
  BOOST_REQUIRE(wait_job_state(first, "RUNNING"));
  auto second = submit("q2", {"-A", "physics", "-q", "short"});
  BOOST_TEST(waits_with(second, "QOSMaxJobsPerUserLimit"), reason(second));
  // Another QOS is not counted in this one's.
  auto other = submit("q3", {"-A", "physics"});
  BOOST_TEST(wait_job_state(other, "RUNNING"));
  release("q3");
  // The recovered running job still counts after a restart: a job submitted after it starts
  // (so passes have run) while the second still waits.
  BOOST_REQUIRE(!cluster.restart_controller());
  auto later = submit("q4", {"-A", "physics"});
  BOOST_TEST(wait_job_state(later, "RUNNING"));
  release("q4");
  BOOST_TEST(job_state(second) == "PENDING");
  BOOST_TEST(reason(second) == "QOSMaxJobsPerUserLimit");
  release("q1");
  BOOST_TEST(wait_job_state(second, "RUNNING"));
  release("q2");
  BOOST_TEST(wait_job_state(second, "COMPLETED"));
}

BOOST_AUTO_TEST_CASE(a_submit_limit_refuses_a_job_in_slurms_words_until_one_ends) {
  set_user({"maxsubmitjobs=2"});
  auto first = submit("s1", {"-A", "physics"});
  submit("s2", {"-A", "physics"});
  std::vector<std::string> third{"-A", "physics", scratch.file("wait.sh"), scratch.file("s3")};
  auto refused = run_slurm(*this, "sbatch", third);
  BOOST_TEST(refused.exit_code == 1, refused.describe());
  BOOST_TEST(refused.err ==
                 "sbatch: error: Batch job submission failed: Job violates accounting/QOS policy "
                 "(job submit limit, user's size and/or time limits)\n",
             refused.describe());
  // An array counts one job per task.
  auto array = run_slurm(*this, "sbatch", {"-A", "physics", "--array=1-2", "--wrap", "true"});
  BOOST_TEST(array.exit_code == 1, array.describe());
  BOOST_TEST(array.err.find("job submit limit") != std::string::npos, array.describe());
  BOOST_REQUIRE(wait_job_state(first, "RUNNING"));
  release("s1");
  BOOST_REQUIRE(wait_job_state(first, "COMPLETED"));
  auto taken = run_slurm(*this, "sbatch", third);
  BOOST_TEST(taken.exit_code == 0, taken.describe());
  release("s2");
  release("s3");
}

BOOST_AUTO_TEST_SUITE_END()
