// The prolog and epilog family (docs/operations.md, "Prolog and epilog"): a Prolog that runs on
// the job's node before its tasks and an Epilog after it; a Prolog that fails drains its node
// and requeues the job, held; TaskProlog's lines shape each task.

#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// The scripts live in a directory of their own, made before the cluster (its config names
/// them).
struct script_dir {
  scratch_dir dir;
  std::string path(const std::string& name) const { return dir.file(name); }
};

/// Prolog writes prolog.JOB.NODE with its Slurm variables; Epilog removes it and leaves
/// epilog.JOB.NODE.
struct prolog_and_epilog_scripts : script_dir {
  std::string config() {
    auto prolog = write_file(path("prolog.sh"),
                             "#!/bin/sh\n"
                             "if [ -e " +
                                 path("wait") + " ]; then while [ ! -e " + path("go") +
                                 " ]; do sleep 0.1; done; fi\n"
                                 "echo \"id=$SLURM_JOB_ID user=$SLURM_JOB_USER uid=$SLURM_JOB_UID "
                                 "nodes=$SLURM_JOB_NODELIST part=$SLURM_JOB_PARTITION "
                                 "twin=$SHOAL_JOB_ID ctx=$SLURM_SCRIPT_CONTEXT\" > " +
                                 dir.path() + "/prolog.$SLURM_JOB_ID.$SLURMD_NODENAME\n",
                             true);
    auto epilog = write_file(path("epilog.sh"),
                             "#!/bin/sh\n"
                             "rm " +
                                 dir.path() +
                                 "/prolog.$SLURM_JOB_ID.$SLURMD_NODENAME\n"
                                 "echo \"$SLURM_SCRIPT_CONTEXT\" > " +
                                 dir.path() + "/epilog.$SLURM_JOB_ID.$SLURMD_NODENAME\n",
                             true);
    return "Prolog=" + prolog + "\nEpilog=" + epilog + "\nPrologEpilogTimeout=60\n";
  }
};

struct prolog_cluster : prolog_and_epilog_scripts, cluster_fixture {
  prolog_cluster() : cluster_fixture(2, config()) {}
};

/// A Prolog that fails with status 3 while the file `fail` exists.
struct failing_prolog_cluster : script_dir, cluster_fixture {
  failing_prolog_cluster() : cluster_fixture(2, config()) {}
  std::string config() {
    auto prolog = write_file(path("prolog.sh"),
                             "#!/bin/sh\n[ -e " + path("fail") + " ] && exit 3\n[ -e " +
                                 path("hang") + " ] && exec sleep 60\nexit 0\n",
                             true);
    write_file(path("fail"), "");
    return "Prolog=" + prolog + "\nPrologEpilogTimeout=2\n";
  }
};

/// PrologFlags=Alloc,Serial: the Prolog runs at allocation on every node; PrologSlurmctld and
/// EpilogSlurmctld leave their environment in files.
struct alloc_prolog_cluster : script_dir, cluster_fixture {
  alloc_prolog_cluster() : cluster_fixture(2, config()) {}
  std::string config() {
    auto prolog = write_file(
        path("prolog.sh"),
        "#!/bin/sh\ntouch " + dir.path() + "/prolog.$SLURM_JOB_ID.$SLURMD_NODENAME\n", true);
    auto ctld = [&](const std::string& name) {
      return write_file(path(name + ".sh"),
                        "#!/bin/sh\necho \"$SLURM_SCRIPT_CONTEXT $SLURM_JOB_NODELIST "
                        "$SLURM_JOB_USER\" > " +
                            dir.path() + "/" + name + ".$SLURM_JOB_ID\n",
                        true);
    };
    return "Prolog=" + prolog +
           "\nPrologFlags=Alloc,Serial\nPrologSlurmctld=" + ctld("prolog_ctld") +
           "\nEpilogSlurmctld=" + ctld("epilog_ctld") + "\n";
  }
};

/// A TaskProlog that exports, unsets and prints.
struct task_prolog_cluster : script_dir, cluster_fixture {
  task_prolog_cluster() : cluster_fixture(1, config()) {}
  std::string config() {
    auto prolog = write_file(path("task_prolog.sh"),
                             "#!/bin/sh\n"
                             "echo \"export FROM_TASK_PROLOG=rank$SLURM_PROCID\"\n"
                             "echo \"unset DROP_ME\"\n"
                             "echo \"print hello from the task prolog\"\n"
                             "echo \"ignored line\"\n",
                             true);
    auto epilog =
        write_file(path("task_epilog.sh"),
                   "#!/bin/sh\ntouch " + dir.path() + "/task_epilog.$SLURM_PROCID\n", true);
    return "TaskProlog=" + prolog + "\nTaskEpilog=" + epilog + "\n";
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(prolog_and_epilog, prolog_cluster)

BOOST_AUTO_TEST_CASE(the_prolog_writes_a_file_before_the_task_and_the_epilog_removes_it) {
  auto dir = script_dir::dir.path();
  auto id =
      submit_script("job.sh", "#!/bin/sh\ncat " + dir + "/prolog.$SLURM_JOB_ID.$SLURMD_NODENAME\n",
                    {"-o", scratch.file("out.txt")});
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_job_state(id, "COMPLETED", 30s));
  auto out = read_file(scratch.file("out.txt"));
  auto ids = std::to_string(id);
  // The task read what the Prolog wrote: it ran first, as root, with Slurm's variables.
  BOOST_CHECK_MESSAGE(contains(out, "id=" + ids + " user=") && contains(out, "uid=0") &&
                          contains(out, "nodes=node1") && contains(out, "part=debug") &&
                          contains(out, "twin=" + ids) && contains(out, "ctx=prolog_slurmd"),
                      out);
  // The Epilog ran once the job ended: the file is gone.
  BOOST_CHECK(
      wait_until([&] { return !read_file(dir + "/epilog." + ids + ".node1").empty(); }, 20s));
  BOOST_CHECK_EQUAL(read_file(dir + "/epilog." + ids + ".node1"), "epilog_slurmd\n");
  BOOST_CHECK(read_file(dir + "/prolog." + ids + ".node1").empty());
  BOOST_CHECK_EQUAL(node_state("node1"), "IDLE");
}

BOOST_AUTO_TEST_CASE(a_run_step_waits_for_the_prolog_on_every_node) {
  auto dir = script_dir::dir.path();
  auto r = run_cli({"run", "-N2", "sh", "-c",
                    "cat " + dir + "/prolog.$SLURM_JOB_ID.$SLURMD_NODENAME | cut -d' ' -f1"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_EQUAL(count_lines_with(r.out, "id="), 2u);
}

BOOST_AUTO_TEST_CASE(a_job_cancelled_while_its_prolog_runs_never_starts_its_tasks) {
  write_file(script_dir::path("wait"), "");
  auto ran = scratch.file("ran");
  auto id = submit_script("job.sh", "#!/bin/sh\ntouch " + ran + "\n");
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_job_state(id, "RUNNING", 30s));
  auto r = run_cli({"cancel", std::to_string(id)});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  write_file(script_dir::path("go"), "");  // the Prolog ends now, after the cancel
  BOOST_CHECK(wait_job_state(id, "CANCELLED", 30s));
  BOOST_CHECK(::access(ran.c_str(), F_OK) != 0);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(failing_prolog, failing_prolog_cluster)

BOOST_AUTO_TEST_CASE(a_failing_prolog_drains_the_node_and_requeues_the_job_held) {
  auto id = submit_script("job.sh", "#!/bin/sh\necho ran\n", {"-w", "node1"});
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_until([&] { return job(id).value("requeue_count", 0) == 1; }, 30s));
  BOOST_REQUIRE(wait_until([&] { return job(id).value("reason", "") == "JobHeldUser"; }, 15s));
  BOOST_CHECK_EQUAL(job_state(id), "PENDING");
  BOOST_REQUIRE(wait_until(
      [&] {
        auto s = node_state("node1");
        return s == "DRAINED" || s == "DRAINING";
      },
      15s));
  auto reason = node("node1").value("reason", "");
  BOOST_CHECK_MESSAGE(
      contains(reason, "Prolog " + script_dir::path("prolog.sh")) && contains(reason, "exit 3"),
      reason);
  BOOST_CHECK_EQUAL(node_state("node2"), "IDLE");
  // Fixed, resumed and released, it runs.
  std::remove(script_dir::path("fail").c_str());
  auto r = run_cli({"control", "update", "nodename=node1", "state=resume"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  r = run_cli({"control", "release", std::to_string(id)});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK(wait_job_state(id, "COMPLETED", 30s));
}

BOOST_AUTO_TEST_CASE(a_prolog_past_its_timeout_is_killed_and_drains_the_node) {
  std::remove(script_dir::path("fail").c_str());
  write_file(script_dir::path("hang"), "");
  auto id = submit_script("job.sh", "#!/bin/sh\necho ran\n", {"-w", "node2"});
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_until([&] { return job(id).value("requeue_count", 0) == 1; }, 30s));
  BOOST_REQUIRE(wait_until([&] { return !node("node2").value("reason", "").empty(); }, 15s));
  auto reason = node("node2").value("reason", "");
  BOOST_CHECK_MESSAGE(contains(reason, "timed out after 2 s"), reason);
  BOOST_CHECK_EQUAL(node_state("node1"), "IDLE");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(prolog_flags_alloc, alloc_prolog_cluster)

BOOST_AUTO_TEST_CASE(alloc_runs_the_prolog_on_every_node_and_the_controller_runs_its_own) {
  auto dir = script_dir::dir.path();
  // A two-node batch job that starts no step on node2: only Alloc runs node2's Prolog.
  auto id = submit_script("job.sh", "#!/bin/sh\necho ran\n", {"-N2"});
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_job_state(id, "COMPLETED", 30s));
  auto ids = std::to_string(id);
  for (auto n : {"node1", "node2"})
    BOOST_CHECK_MESSAGE(
        wait_until([&] { return ::access((dir + "/prolog." + ids + "." + n).c_str(), F_OK) == 0; },
                   10s),
        n);
  BOOST_CHECK(wait_until([&] { return !read_file(dir + "/epilog_ctld." + ids).empty(); }, 10s));
  BOOST_CHECK_MESSAGE(
      contains(read_file(dir + "/prolog_ctld." + ids), "prolog_slurmctld node[1-2]"),
      read_file(dir + "/prolog_ctld." + ids));
  BOOST_CHECK_MESSAGE(
      contains(read_file(dir + "/epilog_ctld." + ids), "epilog_slurmctld node[1-2]"),
      read_file(dir + "/epilog_ctld." + ids));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(task_prolog, task_prolog_cluster)

BOOST_AUTO_TEST_CASE(task_prolog_exports_unsets_and_prints_for_each_task) {
  command_options opt;
  opt.env = {{"DROP_ME", "still here"}};
  auto r =
      run_cli({"run", "-n2", "sh", "-c", "echo value=$FROM_TASK_PROLOG drop=${DROP_ME-gone}"}, opt);
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_MESSAGE(contains(r.out, "value=rank0 drop=gone"), r.out);
  BOOST_CHECK_MESSAGE(contains(r.out, "value=rank1 drop=gone"), r.out);
  BOOST_CHECK_EQUAL(count_lines_with(r.out, "hello from the task prolog"), 2u);
  BOOST_CHECK(!contains(r.out, "ignored line"));
  // TaskEpilog ran after each task, as the user, with the task's environment.
  for (auto rank : {"0", "1"})
    BOOST_CHECK_MESSAGE(
        wait_until(
            [&] {
              return ::access(script_dir::path(std::string{"task_epilog."} + rank).c_str(), F_OK) ==
                     0;
            },
            10s),
        rank);
}

BOOST_AUTO_TEST_CASE(srun_task_prolog_runs_after_task_prolog_and_may_override_it) {
  auto mine = write_file(
      script_dir::path("mine.sh"),
      "#!/bin/sh\necho \"export FROM_TASK_PROLOG=mine-after-$FROM_TASK_PROLOG\"\n", true);
  auto after = script_dir::path("after");
  auto epi =
      write_file(script_dir::path("mine_epilog.sh"), "#!/bin/sh\ntouch " + after + "\n", true);
  auto r = run_cli({"run", "-n1", "--task-prolog", mine, "--task-epilog", epi, "sh", "-c",
                    "echo value=$FROM_TASK_PROLOG"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_MESSAGE(contains(r.out, "value=mine-after-rank0"), r.out);
  BOOST_CHECK(wait_until([&] { return ::access(after.c_str(), F_OK) == 0; }, 10s));
}

BOOST_AUTO_TEST_SUITE_END()
