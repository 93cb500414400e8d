// Issue 5's workload features on a real cluster: job arrays, dependencies, holds, top, requeue,
// --begin, priorities and backfill. Jobs are real batch scripts; tasks record what they saw.

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// The job-list records of array `array_id`'s tasks (not its pending line).
std::vector<nlohmann::json> tasks_of(cluster_fixture& c, uint64_t array_id) {
  std::vector<nlohmann::json> out;
  for (auto& j : c.jobs())
    if (j.value("array_job_id", uint64_t{0}) == array_id && j.value("array_task_id", -1) >= 0)
      out.push_back(j);
  return out;
}

bool all_finished_ok(cluster_fixture& c, uint64_t array_id, size_t count) {
  auto tasks = tasks_of(c, array_id);
  if (tasks.size() != count) return false;
  return std::all_of(tasks.begin(), tasks.end(),
                     [](const nlohmann::json& t) { return t.value("state", "") == "COMPLETED"; });
}

/// The first queue line whose JOBID column starts with `prefix`, or "".
std::string queue_line(cluster_fixture& c, const std::string& prefix) {
  auto r = c.run_cli({"queue", "-h", "-o", "JobId,State,Reason"});
  for (auto& line : lines_of(r.out)) {
    auto start = line.find_first_not_of(' ');
    if (start != std::string::npos && line.compare(start, prefix.size(), prefix) == 0) return line;
  }
  return "";
}

std::string reason_of(cluster_fixture& c, uint64_t id) {
  auto j = c.job(id);
  return j.is_object() ? j.value("reason", "") : "";
}

/// Intervals [start, end] a task script appended to `file` as "start N" / "end N" lines.
std::vector<std::pair<long long, long long>> intervals(const std::string& text) {
  std::vector<std::pair<long long, long long>> out;
  std::istringstream in{text};
  std::string word;
  long long value = 0;
  std::map<int, long long> open;
  int key = 0;
  while (in >> word >> key >> value) {
    if (word == "start") open[key] = value;
    if (word == "end") out.emplace_back(open[key], value);
  }
  return out;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(job_arrays, two_nodes)

BOOST_AUTO_TEST_CASE(every_task_runs_once_with_its_array_variables_and_output_file) {
  auto id = submit_script(
      "array.sh",
      "#!/bin/sh\necho \"$SHOAL_ARRAY_JOB_ID $SHOAL_ARRAY_TASK_ID $SHOAL_ARRAY_TASK_COUNT "
      "$SHOAL_ARRAY_TASK_MIN $SHOAL_ARRAY_TASK_MAX\"\n",
      {"--array=1-5,9"});
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_until([&] { return all_finished_ok(*this, id, 6); }, 60s));
  auto a = std::to_string(id);
  for (int task : {1, 2, 3, 4, 5, 9}) {
    auto text = read_file(scratch.file("shoal-" + a + "_" + std::to_string(task) + ".out"));
    BOOST_CHECK_EQUAL(text, a + " " + std::to_string(task) + " 6 1 9\n");
  }
}

BOOST_AUTO_TEST_CASE(a_percent_cap_keeps_tasks_from_overlapping) {
  // Two free nodes, but %1: each task logs when it starts and ends; no two intervals overlap.
  auto log = scratch.file("spans.txt");
  auto id = submit_script("capped.sh",
                          "#!/bin/sh\necho \"start $SHOAL_ARRAY_TASK_ID $(date +%s%N)\" >> " + log +
                              "\nsleep 0.3\necho \"end $SHOAL_ARRAY_TASK_ID $(date +%s%N)\" >> " +
                              log + "\n",
                          {"--array=0-3%1"});
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_until([&] { return all_finished_ok(*this, id, 4); }, 60s));
  auto spans = intervals(read_file(log));
  BOOST_REQUIRE_EQUAL(spans.size(), 4u);
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); ++i)
    BOOST_CHECK_MESSAGE(spans[i].first >= spans[i - 1].second, "task spans overlap");
}

BOOST_AUTO_TEST_CASE(pending_tasks_fold_into_one_line_and_cancel_by_task_range_or_whole) {
  auto id = submit_script("held.sh", "#!/bin/sh\ntrue\n", {"--array=1-20", "-H"});
  BOOST_REQUIRE(id != 0);
  auto a = std::to_string(id);
  BOOST_CHECK(wait_until([&] { return !queue_line(*this, a + "_[1-20]").empty(); }, 10s));
  BOOST_CHECK(queue_line(*this, a + "_[1-20]").find("JobHeldUser") != std::string::npos);
  auto r = run_cli({"cancel", a + "_5", a + "_[10-12]"});
  BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK(wait_until([&] { return !queue_line(*this, a + "_[1-4,6-9,13-20]").empty(); }, 10s));
  r = run_cli({"cancel", a});
  BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK(wait_until([&] { return queue_line(*this, a + "_").empty(); }, 10s));
  BOOST_CHECK(tasks_of(*this, id).empty());
}

BOOST_AUTO_TEST_CASE(a_bad_array_spec_is_refused_with_the_reason) {
  write_file(scratch.file("t.sh"), "#!/bin/sh\ntrue\n", true);
  // Bad syntax is a usage error, said by the CLI.
  auto r = run_cli({"batch", "--array=5-1", "t.sh"});
  BOOST_CHECK_EQUAL(r.exit_code, 2);
  BOOST_CHECK_MESSAGE(r.err.find("--array: column") != std::string::npos, r.err);
  // Past MaxArraySize (1001 by default) is the controller's refusal.
  r = run_cli({"batch", "--array=1-2000", "t.sh"});
  BOOST_CHECK_EQUAL(r.exit_code, 1);
  BOOST_CHECK_MESSAGE(r.err.find("Invalid job array specification") != std::string::npos, r.err);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(job_dependencies, two_nodes)

BOOST_AUTO_TEST_CASE(afterok_waits_for_success_and_starts_after_the_first_ends) {
  auto first = submit_script("first.sh", "#!/bin/sh\nsleep 1\n");
  BOOST_REQUIRE(first != 0);
  auto second =
      submit_script("second.sh", "#!/bin/sh\ntrue\n", {"-d", "afterok:" + std::to_string(first)});
  BOOST_REQUIRE(second != 0);
  BOOST_CHECK(wait_until([&] { return reason_of(*this, second) == "Dependency"; }, 10s));
  BOOST_REQUIRE(wait_job_state(second, "COMPLETED"));
  BOOST_CHECK_GE(job(second).value("start_time", 0), job(first).value("end_time", 0));
}

BOOST_AUTO_TEST_CASE(a_failed_target_makes_afterok_never_satisfiable_and_afternotok_run) {
  auto bad = submit_script("bad.sh", "#!/bin/sh\nexit 3\n");
  BOOST_REQUIRE(bad != 0);
  auto b = std::to_string(bad);
  auto ok_dep = submit_script("okdep.sh", "#!/bin/sh\ntrue\n", {"-d", "afterok:" + b});
  auto notok_dep = submit_script("notok.sh", "#!/bin/sh\ntrue\n", {"--dependency=afternotok:" + b});
  auto killed = submit_script("killed.sh", "#!/bin/sh\ntrue\n",
                              {"-d", "afterok:" + b, "--kill-on-invalid-dep=yes"});
  BOOST_REQUIRE(ok_dep != 0 && notok_dep != 0 && killed != 0);
  BOOST_CHECK(wait_job_state(notok_dep, "COMPLETED"));
  BOOST_CHECK(
      wait_until([&] { return reason_of(*this, ok_dep) == "DependencyNeverSatisfied"; }, 20s));
  BOOST_CHECK(wait_job_state(killed, "CANCELLED"));
  BOOST_CHECK_EQUAL(job_state(ok_dep), "PENDING");
}

BOOST_AUTO_TEST_CASE(any_of_starts_when_one_target_is_done) {
  auto quick = submit_script("quick.sh", "#!/bin/sh\ntrue\n");
  auto slow = submit_script("slow.sh", "#!/bin/sh\nsleep 60\n");
  BOOST_REQUIRE(quick != 0 && slow != 0);
  auto either = submit_script(
      "either.sh", "#!/bin/sh\ntrue\n",
      {"-d", "afterany:" + std::to_string(slow) + "?afterok:" + std::to_string(quick)});
  BOOST_REQUIRE(either != 0);
  BOOST_CHECK(wait_job_state(either, "COMPLETED"));
  BOOST_CHECK_EQUAL(job_state(slow), "RUNNING");
  run_cli({"cancel", std::to_string(slow)});
}

BOOST_AUTO_TEST_CASE(singleton_jobs_of_one_name_never_overlap) {
  auto log = scratch.file("singleton.txt");
  std::string body = "#!/bin/sh\necho \"start 1 $(date +%s%N)\" >> " + log +
                     "\nsleep 0.3\necho \"end 1 $(date +%s%N)\" >> " + log + "\n";
  auto a = submit_script("one.sh", body, {"-J", "single", "-d", "singleton"});
  auto b = submit_script("two.sh", body, {"-J", "single", "-d", "singleton"});
  BOOST_REQUIRE(a != 0 && b != 0);
  BOOST_REQUIRE(wait_job_state(a, "COMPLETED") && wait_job_state(b, "COMPLETED"));
  BOOST_CHECK_GE(job(b).value("start_time", 0), job(a).value("end_time", 0));
  auto spans = intervals(read_file(log));
  BOOST_REQUIRE_EQUAL(spans.size(), 2u);
  std::sort(spans.begin(), spans.end());
  BOOST_CHECK(spans[1].first >= spans[0].second);
}

BOOST_AUTO_TEST_CASE(malformed_or_unknown_dependencies_are_refused) {
  write_file(scratch.file("t.sh"), "#!/bin/sh\ntrue\n", true);
  auto r = run_cli({"batch", "-d", "afterok:1,afterany:2?afterok:3", "t.sh"});
  BOOST_CHECK_EQUAL(r.exit_code, 2);
  BOOST_CHECK_MESSAGE(r.err.find("mixed") != std::string::npos, r.err);
  r = run_cli({"batch", "-d", "afterok:987654", "t.sh"});
  BOOST_CHECK_NE(r.exit_code, 0);
  BOOST_CHECK_MESSAGE(r.err.find("Job dependency problem") != std::string::npos, r.err);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(job_control_commands, one_node)

BOOST_AUTO_TEST_CASE(a_held_job_waits_until_released) {
  auto id = submit_script("held.sh", "#!/bin/sh\ntrue\n", {"-H"});
  BOOST_REQUIRE(id != 0);
  BOOST_CHECK(wait_until([&] { return reason_of(*this, id) == "JobHeldUser"; }, 10s));
  BOOST_CHECK_EQUAL(job_state(id), "PENDING");
  auto r = run_cli({"control", "release", std::to_string(id)});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK(wait_job_state(id, "COMPLETED"));
  // Holding a finished job is an error, said once.
  r = run_cli({"control", "hold", std::to_string(id)});
  BOOST_CHECK_NE(r.exit_code, 0);
  BOOST_CHECK_MESSAGE(r.err.find("no longer pending") != std::string::npos, r.err);
  r = run_cli({"control", "hold"});
  BOOST_CHECK_EQUAL(r.exit_code, 2);
}

BOOST_AUTO_TEST_CASE(top_moves_a_job_ahead_of_its_owners_other_jobs) {
  // The blocker holds the node until the test opens its gate (a fixed sleep can run out first
  // on a slow machine, and the queued jobs start before `top`).
  auto gate = scratch.file("top-gate");
  auto blocker =
      submit_script("blocker.sh", "#!/bin/sh\nwhile [ ! -e " + gate + " ]; do sleep 0.05; done\n");
  BOOST_REQUIRE(blocker != 0);
  BOOST_REQUIRE(wait_job_state(blocker, "RUNNING"));
  auto first = submit_script("a.sh", "#!/bin/sh\ntrue\n");
  auto second = submit_script("b.sh", "#!/bin/sh\ntrue\n");
  auto third = submit_script("c.sh", "#!/bin/sh\ntrue\n");
  BOOST_REQUIRE(first != 0 && second != 0 && third != 0);
  auto r = run_cli({"control", "top", std::to_string(third)});
  write_file(gate, "");
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  for (auto id : {first, second, third}) BOOST_REQUIRE(wait_job_state(id, "COMPLETED"));
  BOOST_CHECK_LE(job(third).value("start_time", 0), job(first).value("start_time", 0));
  BOOST_CHECK_LE(job(first).value("start_time", 0), job(second).value("start_time", 0));
}

BOOST_AUTO_TEST_CASE(requeue_puts_a_running_batch_job_back_in_the_queue) {
  auto marker = scratch.file("ran-once");
  auto id = submit_script("again.sh", "#!/bin/sh\nif [ -e " + marker +
                                          " ]; then exit 0; fi\ntouch " + marker + "\nsleep 60\n");
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_until(
      [&] { return job_state(id) == "RUNNING" && std::filesystem::exists(marker); }, 20s));
  auto r = run_cli({"control", "requeue", std::to_string(id)});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_REQUIRE(wait_job_state(id, "COMPLETED", 40s));
  BOOST_CHECK_EQUAL(job(id).value("requeue_count", 0), 1);
}

BOOST_AUTO_TEST_CASE(begin_keeps_a_job_pending_until_its_time) {
  auto id = submit_script("later.sh", "#!/bin/sh\ntrue\n", {"--begin=now+3"});
  BOOST_REQUIRE(id != 0);
  BOOST_CHECK(wait_until([&] { return reason_of(*this, id) == "BeginTime"; }, 10s));
  BOOST_REQUIRE(wait_job_state(id, "COMPLETED", 30s));
  auto j = job(id);
  BOOST_CHECK_GE(j.value("start_time", 0), j.value("begin_time", 0));
  auto r = run_cli({"batch", "--begin=someday", "later.sh"});
  BOOST_CHECK_EQUAL(r.exit_code, 2);
  BOOST_CHECK_MESSAGE(r.err.find("invalid begin time") != std::string::npos, r.err);
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

struct two_nodes_backfill : cluster_fixture {
  two_nodes_backfill() : cluster_fixture(2) {}
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(backfill_scheduling, two_nodes_backfill)

BOOST_AUTO_TEST_CASE(a_short_job_backfills_but_a_long_one_waits_behind_the_reservation) {
  // node1 busy for up to 10 minutes; the 2-node job must wait for it and gets a reservation.
  auto running = submit_script("long.sh", "#!/bin/sh\nsleep 120\n", {"-N1", "-t", "10"});
  BOOST_REQUIRE(running != 0);
  BOOST_REQUIRE(wait_job_state(running, "RUNNING"));
  auto wide = submit_script("wide.sh", "#!/bin/sh\ntrue\n", {"-N2", "-t", "5"});
  BOOST_REQUIRE(wide != 0);
  // Fits before the reservation: starts now on the free node.
  auto quick = submit_script("quick.sh", "#!/bin/sh\nsleep 30\n", {"-N1", "-t", "2"});
  // Would still hold the free node when the wide job is due: must not start.
  auto slow = submit_script("slow.sh", "#!/bin/sh\ntrue\n", {"-N1", "-t", "30"});
  BOOST_REQUIRE(quick != 0 && slow != 0);
  BOOST_CHECK(wait_job_state(quick, "RUNNING"));
  BOOST_CHECK_EQUAL(job_state(wide), "PENDING");
  BOOST_CHECK_EQUAL(job_state(slow), "PENDING");
  auto r = run_cli({"queue", "--start", "-h", "-o", "JobId,StartTime"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  bool wide_planned = false;
  for (auto& line : lines_of(r.out))
    if (line.find(std::to_string(wide)) != std::string::npos)
      wide_planned = line.find("N/A") == std::string::npos;
  BOOST_CHECK_MESSAGE(wide_planned, "the wide job has an expected start: " + r.out);
  r = run_cli({"queue", "--priority"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK(r.out.find("PRIORITY") != std::string::npos);
  BOOST_CHECK(r.out.find(std::to_string(slow)) != std::string::npos);
  run_cli({"cancel", std::to_string(running), std::to_string(quick), std::to_string(wide),
           std::to_string(slow)});
}

BOOST_AUTO_TEST_SUITE_END()
