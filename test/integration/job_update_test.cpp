// scontrol update JobId=N KEY=VALUE ... (issue 37): each key changes a pending job, shows in
// `shoal control show job` and the queue, survives a controller restart and is re-evaluated by
// the scheduler; a running job takes a time limit only (its owner may only lower it), and the
// rest is refused in Slurm's words.

#include <boost/test/unit_test.hpp>

#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "test/integration/harness.hpp"
#include "test/preconditions.hpp"

using namespace shoal::test;

namespace {

const char* const test_user = "shoal-it-user";

/// A one-line answer without its line end and padding.
std::string text_of(const std::string& out) {
  auto first = out.find_first_not_of(" \t\n");
  if (first == std::string::npos) return "";
  return out.substr(first, out.find_last_not_of(" \t\n") - first + 1);
}

/// Two nodes with the feature `fast`, a second partition `batch` of node2 with MaxTime=2:00:00.
struct update_cluster : cluster_fixture {
  update_cluster()
      : cluster_fixture(2, "PartitionName=batch Nodes=node2 MaxTime=2:00:00\n", "Features=fast") {}

  std::string show(uint64_t id) {
    return run_cli({"control", "show", "job", std::to_string(id)}).out;
  }

  command_result update(uint64_t id, std::vector<std::string> words) {
    std::vector<std::string> args{"control", "update", "jobid=" + std::to_string(id)};
    args.insert(args.end(), words.begin(), words.end());
    return run_cli(args);
  }

  /// A batch job that waits for its --begin an hour from now: PENDING with reason BeginTime.
  uint64_t waiting_job(const std::string& name) {
    return submit_script(name + ".sh", "#!/bin/sh\ntrue\n",
                         {"--begin=now+1hour", "-J", name, "-t", "10"});
  }

  bool reason_is(uint64_t id, const std::string& reason) {
    return wait_until([&] { return job(id).value("reason", "") == reason; }, 15s);
  }
};

/// The same as a test user (the CLI run through setpriv), when root can make one.
struct user_cluster : update_cluster {
  const passwd* pw = nullptr;
  command_options opt;
  std::string work;

  void as_test_user() {
    pw = ensure_user(test_user);
    BOOST_REQUIRE_MESSAGE(pw != nullptr, "no test user");
    auto cluster_dir = std::filesystem::path{conf}.parent_path();
    ::chmod(cluster_dir.c_str(), 0755);
    ::chmod(conf.c_str(), 0644);
    ::chmod(scratch.path().c_str(), 0711);
    work = scratch.file("user-work");
    std::filesystem::create_directory(work);
    BOOST_REQUIRE(::chown(work.c_str(), pw->pw_uid, pw->pw_gid) == 0);
    opt.cwd = work;
    opt.env = {{"SHOAL_CONF", conf}};
  }

  command_result user_cli(std::vector<std::string> args) {
    std::vector<std::string> argv{"setpriv", "--reuid=" + std::to_string(pw->pw_uid),
                                  "--regid=" + std::to_string(pw->pw_gid), "--init-groups",
                                  bin_path("shoal")};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_command(argv, opt);
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(job_update, update_cluster)

BOOST_AUTO_TEST_CASE(each_key_changes_a_pending_job_and_shows_in_show_job_and_the_queue) {
  auto id = waiting_job("first");
  auto other = waiting_job("other");
  BOOST_REQUIRE(id != 0 && other != 0);
  BOOST_REQUIRE(reason_is(id, "BeginTime"));
  struct change {
    std::vector<std::string> words;
    std::string shows;
  };
  const change changes[] = {
      {{"TimeLimit=1:30:00"}, "TimeLimit=01:30:00"},
      {{"Partition=batch"}, "Partition=batch"},
      {{"Partition=debug", "NumNodes=2"}, "NumNodes=2"},
      {{"NumTasks=4"}, "NumTasks=4"},
      {{"Priority=5000"}, "Priority=5000"},
      {{"Nice=10"}, "Nice=10"},
      {{"Dependency=afterok:" + std::to_string(other)},
       "Dependency=afterok:" + std::to_string(other)},
      {{"Name=renamed"}, "JobName=renamed"},
      {{"Comment=a note"}, "Comment=a note"},
      {{"Features=fast"}, "Features=fast"},
      {{"QOS=high"}, "QOS=high"},
      {{"Account=physics"}, "Account=physics"},
      {{"ExcNodeList=node2", "NumNodes=1"}, "ExcNodeList=node2"},
  };
  for (const auto& c : changes) {
    BOOST_TEST_CONTEXT(c.words.front()) {
      auto r = update(id, c.words);
      BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
      // The record is changed when the command returns; Priority and Nice show once the
      // scheduler's next pass has weighed the job again.
      std::string text;
      BOOST_CHECK_MESSAGE(wait_until(
                              [&] {
                                text = show(id);
                                return contains(text, c.shows);
                              },
                              10s),
                          text);
    }
  }
  // StartTime= (case-insensitive and abbreviated keys, as scontrol takes them): tomorrow.
  auto r = run_cli({"control", "update", "JobId=" + std::to_string(id), "starttime=tomorrow"});
  BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
  auto rec = job(id);
  BOOST_TEST(rec.value("name", "") == "renamed");
  BOOST_TEST(rec.value("partition", "") == "debug");
  // Slurm's "tomorrow" is the next local midnight, which may be minutes away.
  const auto begin = static_cast<std::time_t>(rec.value("begin_time", int64_t{0}));
  const auto now = std::time(nullptr);
  BOOST_TEST(begin > now);
  BOOST_TEST(begin <= now + 86400);
  std::tm at{};
  localtime_r(&begin, &at);
  BOOST_TEST((at.tm_hour == 0 && at.tm_min == 0 && at.tm_sec == 0));
  // The other job was left alone.
  BOOST_TEST(contains(show(other), "JobName=other"));
}

BOOST_AUTO_TEST_CASE(a_new_start_time_or_dependency_holds_a_job_and_lifting_it_runs_it) {
  auto blocker = submit_script("blocker.sh", "#!/bin/sh\nsleep 60\n", {"-w", "node1"});
  BOOST_REQUIRE(wait_job_state(blocker, "RUNNING"));
  auto later = waiting_job("later");
  auto after = submit_script("after.sh", "#!/bin/sh\ntrue\n",
                             {"--dependency=afterok:" + std::to_string(blocker)});
  BOOST_REQUIRE(reason_is(after, "Dependency"));
  BOOST_REQUIRE(reason_is(later, "BeginTime"));
  // Lifted: each runs.
  BOOST_CHECK(update(later, {"StartTime=now"}).exit_code == 0);
  BOOST_CHECK(update(after, {"Dependency="}).exit_code == 0);
  BOOST_TEST(wait_job_state(later, "COMPLETED"));
  BOOST_TEST(wait_job_state(after, "COMPLETED"));
  // Set on a job that could run: it waits for them.
  auto held = waiting_job("held");
  BOOST_CHECK(update(held, {"Dependency=afterok:" + std::to_string(blocker)}).exit_code == 0);
  BOOST_CHECK(update(held, {"StartTime=now"}).exit_code == 0);
  BOOST_TEST(reason_is(held, "Dependency"));
  // A new partition and node count are scheduled again: the job moves to batch's node2.
  auto moved = waiting_job("moved");
  BOOST_CHECK(update(moved, {"Partition=batch", "StartTime=now"}).exit_code == 0);
  BOOST_TEST(wait_job_state(moved, "COMPLETED"));
  BOOST_TEST(job(moved).value("nodelist", "") == "node2");
  BOOST_TEST(job(moved).value("partition", "") == "batch");
}

BOOST_AUTO_TEST_CASE(an_update_survives_a_controller_restart) {
  auto id = waiting_job("kept");
  BOOST_REQUIRE(reason_is(id, "BeginTime"));
  auto r = update(
      id, {"TimeLimit=45", "Partition=batch", "Name=after-restart", "Comment=durable", "Nice=7"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  cluster.signal_controller(SIGKILL);
  BOOST_REQUIRE(!cluster.restart_controller());
  BOOST_REQUIRE(wait_until([&] { return run_cli({"control", "ping"}).exit_code == 0; }, 30s));
  auto text = show(id);
  for (auto part : {"TimeLimit=00:45:00", "Partition=batch", "JobName=after-restart",
                    "Comment=durable", "JobState=PENDING"})
    BOOST_TEST(contains(text, part), part << " in " << text);
  BOOST_TEST(reason_is(id, "BeginTime"));
}

BOOST_AUTO_TEST_CASE(bad_keys_exit_2_and_refusals_exit_1_in_slurms_words) {
  auto id = waiting_job("words");
  auto unknown = update(id, {"MinMemoryNode=5"});
  BOOST_TEST(unknown.exit_code == 2, unknown.describe());
  BOOST_TEST(contains(unknown.err, "Update of this parameter is not supported: MinMemoryNode=5"),
             unknown.describe());
  auto no_job = run_cli({"control", "update", "jobid=999999", "TimeLimit=5"});
  BOOST_TEST(no_job.exit_code == 1, no_job.describe());
  BOOST_TEST(contains(no_job.err, "Invalid job id specified for job 999999"), no_job.describe());
  auto no_partition = update(id, {"Partition=nosuch"});
  BOOST_TEST(no_partition.exit_code == 1, no_partition.describe());
  BOOST_TEST(contains(no_partition.err, "for job " + std::to_string(id)), no_partition.describe());
  auto feature = update(id, {"Features=slow"});
  BOOST_TEST(feature.exit_code == 1, feature.describe());
  BOOST_TEST(contains(feature.err, "Invalid feature specification"), feature.describe());
  // A refused update changes nothing.
  BOOST_TEST(contains(show(id), "Partition=debug"));
}

BOOST_AUTO_TEST_CASE(a_running_job_takes_a_time_limit_and_refuses_pending_only_keys) {
  auto id = submit_script("run.sh", "#!/bin/sh\nsleep 60\n", {"-t", "10"});
  BOOST_REQUIRE(wait_job_state(id, "RUNNING"));
  auto refused = update(id, {"Partition=batch"});
  BOOST_TEST(refused.exit_code == 1, refused.describe());
  BOOST_TEST(
      contains(refused.err, "Job is no longer pending execution for job " + std::to_string(id)),
      refused.describe());
  // Set to what it is already: no change, so no refusal (slurmctld's "identical" rule).
  BOOST_TEST(update(id, {"Partition=debug"}).exit_code == 0);
  BOOST_TEST(update(id, {"TimeLimit=20", "Name=longer"}).exit_code == 0);
  auto text = show(id);
  BOOST_TEST(contains(text, "TimeLimit=00:20:00"), text);
  BOOST_TEST(contains(text, "JobName=longer"), text);
  // Lowered past its run time, the job ends at once as timed out.
  BOOST_TEST(update(id, {"TimeLimit=0:01"}).exit_code == 0);
  BOOST_TEST(wait_job_state(id, "TIMEOUT", 30s));
  auto ended = update(id, {"TimeLimit=30"});
  BOOST_TEST(ended.exit_code == 1, ended.describe());
}

BOOST_AUTO_TEST_CASE(an_arrays_pending_tasks_change_with_it_and_keep_their_indices) {
  // One task at a time (%1): task 1 runs, 2-3 wait in the array's one record.
  auto id = submit_script("arr.sh", "#!/bin/sh\nsleep 30\n",
                          {"--array=1-3%1", "-t", "10", "-J", "before"});
  auto runs = [&](const std::string& task) {
    return wait_until(
        [&] {
          return contains(run_cli({"queue", "-h", "-j", task, "-o", "%T"}).out, "RUNNING");
        },
        30s);
  };
  auto first = std::to_string(id) + "_1";
  BOOST_REQUIRE(runs(first));
  auto r = update(id, {"TimeLimit=5", "Name=after", "Comment=every-task"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto pending = run_cli({"queue", "-h", "-t", "PD", "-o", "%i %j %l"});
  BOOST_TEST(contains(pending.out, std::to_string(id) + "_[2-3%1] after 5:00"), pending.describe());
  // The running task took the name and the lower limit too, as in Slurm.
  auto running = run_cli({"queue", "-h", "-t", "R", "-o", "%i %j %l"});
  BOOST_TEST(contains(running.out, first + " after 5:00"), running.describe());
  // The next task starts from the changed record, with its own index.
  BOOST_REQUIRE(run_cli({"cancel", first}).exit_code == 0);
  auto second = std::to_string(id) + "_2";
  BOOST_REQUIRE(runs(second));
  auto shown = run_cli({"control", "show", "job", second});
  for (auto part : {"JobName=after", "TimeLimit=00:05:00", "Comment=every-task", "ArrayTaskId=2"})
    BOOST_TEST(contains(shown.out, part), part << " in " << shown.out);
  // A task the array does not have is refused in Slurm's words.
  auto none = run_cli({"control", "update", "jobid=" + std::to_string(id) + "_9", "Name=x"});
  BOOST_TEST(none.exit_code == 1, none.describe());
  BOOST_TEST(contains(none.err, "Invalid job id specified"), none.describe());
  BOOST_REQUIRE(run_cli({"cancel", std::to_string(id)}).exit_code == 0);
}

BOOST_AUTO_TEST_CASE(
    a_pending_array_task_is_split_off_changed_alone_and_still_counts_in_its_array) {
  // Task 1 runs (%1); updating task 3 alone splits it off the array's record, as slurmctld does.
  auto id = submit_script("split.sh", "#!/bin/sh\nsleep 60\n",
                          {"--array=1-4%1", "-t", "10", "-J", "together"});
  auto task = [&](int index) { return std::to_string(id) + "_" + std::to_string(index); };
  auto state_of = [&](int index) {
    return text_of(run_cli({"queue", "-h", "-t", "all", "-j", task(index), "-o", "%T"}).out);
  };
  BOOST_REQUIRE(wait_until([&] { return state_of(1) == "RUNNING"; }, 30s));
  auto after = submit_script("after.sh", "#!/bin/sh\ntrue\n",
                             {"--dependency=afterany:" + std::to_string(id), "-t", "1"});
  auto r = run_cli({"control", "update", "jobid=" + task(3), "Name=alone", "TimeLimit=3"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto pending = run_cli({"queue", "-h", "-t", "PD", "-o", "%i %j %l"});
  BOOST_TEST(contains(pending.out, std::to_string(id) + "_[2,4%1] together 10:00"),
             pending.describe());
  BOOST_TEST(contains(pending.out, task(3) + " alone 3:00"), pending.describe());
  // Its own job, with its task's place and the array's throttle.
  auto shown = run_cli({"control", "show", "job", task(3)});
  for (std::string part : {std::string{"JobName=alone"}, std::string{"TimeLimit=00:03:00"},
                           std::string{"ArrayTaskId=3"}, "ArrayJobId=" + std::to_string(id)})
    BOOST_TEST(contains(shown.out, part), part << " in " << shown.out);
  BOOST_TEST(wait_until(
      [&] {
        return text_of(run_cli({"queue", "-h", "-j", task(3), "-o", "%r"}).out) ==
               "JobArrayTaskLimit";
      },
      15s));
  // Held and released with its array.
  auto reason_of = [&](const std::string& job) {
    return text_of(run_cli({"queue", "-h", "-j", job, "-o", "%r"}).out);
  };
  BOOST_REQUIRE(run_cli({"control", "hold", std::to_string(id)}).exit_code == 0);
  BOOST_TEST(wait_until([&] { return reason_of(task(3)) == "JobHeldAdmin"; }, 15s));
  auto array_line = std::to_string(id) + "_[2,4%1] JobHeldAdmin";
  BOOST_TEST(wait_until(
      [&] {
        return contains(run_cli({"queue", "-h", "-t", "PD", "-o", "%i %r"}).out, array_line);
      },
      15s));
  BOOST_REQUIRE(run_cli({"control", "release", std::to_string(id)}).exit_code == 0);
  BOOST_TEST(wait_until([&] { return reason_of(task(3)) == "JobArrayTaskLimit"; }, 15s));
  // Kept apart across a controller restart.
  BOOST_REQUIRE(!cluster.restart_controller());
  pending = run_cli({"queue", "-h", "-t", "PD", "-o", "%i %j"});
  BOOST_TEST(contains(pending.out, task(3) + " alone"), pending.describe());
  BOOST_TEST(contains(pending.out, std::to_string(id) + "_[2,4%1] together"), pending.describe());
  // One task at a time still, the split one among them; the dependent job waits for all four.
  std::set<int> ended{1};
  BOOST_REQUIRE(run_cli({"cancel", task(1)}).exit_code == 0);
  while (ended.size() < 4) {
    int started = 0;
    BOOST_REQUIRE(wait_until(
        [&] {
          for (int i : {2, 3, 4})
            if (ended.count(i) == 0 && state_of(i) == "RUNNING") started = i;
          return started != 0;
        },
        30s));
    int running = 0;
    for (int i : {2, 3, 4}) running += state_of(i) == "RUNNING" ? 1 : 0;
    BOOST_TEST(running == 1, "tasks running at once: " << running);
    BOOST_TEST(job(after).value("reason", "") == "Dependency");
    BOOST_REQUIRE(run_cli({"cancel", task(started)}).exit_code == 0);
    ended.insert(started);
  }
  BOOST_TEST(wait_job_state(after, "COMPLETED", 30s));
}

BOOST_AUTO_TEST_CASE(a_requeued_array_task_still_obeys_its_arrays_throttle_and_dependencies) {
  auto id = submit_script("requeue.sh", "#!/bin/sh\nsleep 60\n",
                          {"--array=1-2%1", "-t", "10", "--requeue"});
  auto task = [&](int index) { return std::to_string(id) + "_" + std::to_string(index); };
  auto line_of = [&](int index) {
    return text_of(run_cli({"queue", "-h", "-j", task(index), "-o", "%T %r"}).out);
  };
  BOOST_REQUIRE(wait_until([&] { return contains(line_of(1), "RUNNING"); }, 30s));
  auto after = submit_script("after.sh", "#!/bin/sh\ntrue\n",
                             {"--dependency=afterany:" + std::to_string(id), "-t", "1"});
  auto r = run_cli({"control", "requeue", task(1)});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  // Task 2 takes the array's one slot; the requeued task waits for it, as one of the array.
  BOOST_REQUIRE(wait_until([&] { return contains(line_of(2), "RUNNING"); }, 30s));
  BOOST_TEST(wait_until([&] { return line_of(1) == "PENDING JobArrayTaskLimit"; }, 15s),
             line_of(1));
  BOOST_REQUIRE(run_cli({"cancel", task(2)}).exit_code == 0);
  BOOST_REQUIRE(wait_until([&] { return contains(line_of(1), "RUNNING"); }, 60s));
  BOOST_TEST(job(after).value("reason", "") == "Dependency");
  BOOST_REQUIRE(run_cli({"cancel", task(1)}).exit_code == 0);
  BOOST_TEST(wait_job_state(after, "COMPLETED", 30s));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(job_update_as_user, user_cluster)

BOOST_AUTO_TEST_CASE(a_user_may_lower_a_running_jobs_limit_and_only_an_admin_raise_it,
                     *boost::unit_test::precondition(needs_root{
                         "to create a test user and run the CLI as it"})) {
  as_test_user();
  auto script = write_file(work + "/sleep.sh", "#!/bin/sh\nsleep 60\n", true);
  auto sub = user_cli({"batch", "-t", "30", "-o", work + "/out.txt", script});
  BOOST_REQUIRE_MESSAGE(sub.exit_code == 0, sub.describe());
  auto id = submitted_job_id(sub.out);
  BOOST_REQUIRE(wait_job_state(id, "RUNNING"));
  auto ids = "jobid=" + std::to_string(id);
  auto lower = user_cli({"control", "update", ids, "TimeLimit=20"});
  BOOST_TEST(lower.exit_code == 0, lower.describe());
  BOOST_TEST(contains(show(id), "TimeLimit=00:20:00"));
  auto raise = user_cli({"control", "update", ids, "TimeLimit=40"});
  BOOST_TEST(raise.exit_code == 1, raise.describe());
  BOOST_TEST(contains(raise.err, "Access/permission denied for job " + std::to_string(id)),
             raise.describe());
  BOOST_TEST(contains(show(id), "TimeLimit=00:20:00"));
  auto by_admin = run_cli({"control", "update", ids, "TimeLimit=3:00:00"});
  BOOST_TEST(by_admin.exit_code == 0, by_admin.describe());
  BOOST_TEST(contains(show(id), "TimeLimit=03:00:00"));
  // Priority= is an admin's; a user's own job is the user's to rename, another's is not.
  auto prio = user_cli({"control", "update", ids, "Priority=9"});
  BOOST_TEST(prio.exit_code == 1, prio.describe());
  BOOST_TEST(user_cli({"control", "update", ids, "Name=mine"}).exit_code == 0);
  auto root_job = submit_script("root.sh", "#!/bin/sh\nsleep 60\n");
  auto others = user_cli({"control", "update", "jobid=" + std::to_string(root_job), "Name=x"});
  BOOST_TEST(others.exit_code == 1, others.describe());
  BOOST_TEST(contains(others.err, "Access/permission denied"), others.describe());
  // scontrol reconfigure is the admins' too.
  auto reconf = user_cli({"control", "reconfigure"});
  BOOST_TEST(reconf.exit_code == 1, reconf.describe());
  BOOST_TEST(contains(reconf.err, "Access/permission denied"), reconf.describe());
}

BOOST_AUTO_TEST_SUITE_END()
