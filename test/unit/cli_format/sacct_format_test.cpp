// sacct's output, against what Slurm 22.05's sacct prints: each expected line follows from
// print_fields.c's printf formats ("%-12.12s " for JobID's -12, "%10.10s " for a 10-wide string
// field, a `+` in the last column of a string cut to its width, "%*u " for numbers), the
// header and dashes lines, and print.c's values (exit:signal, "CANCELLED by UID", "Unknown"
// for an unset time).

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "messages/errc.hpp"
#include "tools/format/sacct_format.hpp"

using namespace shoal;
using namespace shoal::cli;

namespace {

constexpr int64_t now = 1'767'225'600;  // 2026-01-01T00:00:00Z

struct utc {
  utc() {
    ::setenv("TZ", "UTC", 1);
    ::tzset();
  }
};

/// A batch job that ran 60 s on one node and exited 0.
msg::job_info done_job() {
  msg::job_info j;
  j.job_id = 12;
  j.name = "hello";
  j.user = "alice";
  j.uid = 1000;
  j.partition = "debug";
  j.state = msg::job_state::completed;
  j.submit_time = now - 100;
  j.start_time = now - 90;
  j.end_time = now - 30;
  j.time_limit_s = 3600;
  j.node_count = 1;
  j.nodelist = "node1";
  j.ntasks = 1;
  j.cpus_per_task = 1;
  j.batch = true;
  j.work_dir = "/home/alice";
  return j;
}

std::vector<sacct_column> fields(const std::string& list) {
  auto parsed = parse_sacct_fields(list);
  BOOST_REQUIRE_MESSAGE(parsed, "parse failed: " << (parsed ? "" : describe(parsed.error())));
  return *parsed;
}

sacct_print_options options() {
  sacct_print_options opt;
  opt.now = now;
  opt.cluster = "shoal";
  return opt;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(sacct_format, utc)

BOOST_AUTO_TEST_CASE(default_format_prints_header_dashes_job_and_batch_lines) {
  auto out = render_sacct({done_job()}, fields(sacct_default_fields), options());
  std::string expected =
      "JobID           JobName  Partition    Account  AllocCPUS      State ExitCode \n"
      "------------ ---------- ---------- ---------- ---------- ---------- -------- \n"
      "12                hello      debug                     1  COMPLETED      0:0 \n"
      "12.batch          batch                                1  COMPLETED      0:0 \n";
  BOOST_TEST(out == expected);
}

BOOST_AUTO_TEST_CASE(no_header_allocations_state_is_padded_to_ten) {
  auto opt = options();
  opt.no_header = true;
  opt.allocations = true;
  BOOST_TEST(render_sacct({done_job()}, fields("State"), opt) == " COMPLETED \n");
}

BOOST_AUTO_TEST_CASE(parsable2_separates_fields_and_parsable_ends_each) {
  auto opt = options();
  opt.parsable = 2;
  BOOST_TEST(render_sacct({done_job()}, fields("JobID,State,ExitCode"), opt) ==
             "JobID|State|ExitCode\n12|COMPLETED|0:0\n12.batch|COMPLETED|0:0\n");
  opt.parsable = 1;
  opt.allocations = true;
  BOOST_TEST(render_sacct({done_job()}, fields("JobID,State"), opt) ==
             "JobID|State|\n12|COMPLETED|\n");
  opt.delimiter = ",";
  opt.no_header = true;
  BOOST_TEST(render_sacct({done_job()}, fields("JobID,State"), opt) == "12,COMPLETED,\n");
}

BOOST_AUTO_TEST_CASE(failed_job_shows_exit_code_and_signalled_one_the_signal) {
  auto j = done_job();
  j.state = msg::job_state::failed;
  j.exit_code = 3;
  auto opt = options();
  opt.parsable = 2;
  opt.no_header = true;
  BOOST_TEST(render_sacct({j}, fields("JobID,State,ExitCode"), opt) ==
             "12|FAILED|3:0\n12.batch|FAILED|3:0\n");
  j.exit_code = 137;
  j.exit_signal = 9;
  BOOST_TEST(render_sacct({j}, fields("ExitCode"), opt) == "0:9\n0:9\n");
  j.exit_signal = 0;  // a shell's 128+N exit, as print.c takes 128 off
  BOOST_TEST(render_sacct({j}, fields("ExitCode"), opt) == "9:0\n9:0\n");
}

BOOST_AUTO_TEST_CASE(cancelled_job_names_the_uid_and_is_cut_with_a_plus) {
  auto j = done_job();
  j.state = msg::job_state::cancelled;
  j.exit_signal = 15;
  j.exit_code = 143;
  auto opt = options();
  opt.no_header = true;
  BOOST_TEST(render_sacct({j}, fields("JobID,State,ExitCode"), opt) ==
             "12           CANCELLED+      0:0 \n"
             "12.batch      CANCELLED     0:15 \n");
  opt.parsable = 2;
  BOOST_TEST(render_sacct({j}, fields("State"), opt) == "CANCELLED by 1000\nCANCELLED\n");
}

BOOST_AUTO_TEST_CASE(timed_out_job_has_a_cancelled_batch_step) {
  auto j = done_job();
  j.state = msg::job_state::timeout;
  j.exit_signal = 15;
  auto opt = options();
  opt.parsable = 2;
  opt.no_header = true;
  BOOST_TEST(render_sacct({j}, fields("State,ExitCode"), opt) == "TIMEOUT|0:0\nCANCELLED|0:15\n");
}

BOOST_AUTO_TEST_CASE(width_suffix_right_justifies_and_cuts_header_without_plus) {
  auto j = done_job();
  j.name = "averyverylongname";
  auto opt = options();
  BOOST_TEST(render_sacct({j}, fields("JobName%4"), opt) == "JobN \n---- \nave+ \nbat+ \n");
  opt.allocations = true;
  BOOST_TEST(render_sacct({j}, fields("JobName%20,JobID%6"), opt) ==
             "             JobName  JobID \n-------------------- ------ \n"
             "   averyverylongname     12 \n");
  BOOST_TEST(render_sacct({j}, fields("JobName"), opt) ==
             "   JobName \n---------- \naveryvery+ \n");
}

BOOST_AUTO_TEST_CASE(field_names_match_by_prefix_in_table_order_any_case) {
  auto cols = fields(" jobid, exit,STATE,,jobidraw,ncpus%3");
  BOOST_REQUIRE_EQUAL(cols.size(), 5u);
  BOOST_TEST(cols[0].name == "JobID");
  BOOST_TEST(cols[0].width == -12);
  BOOST_TEST(cols[1].name == "ExitCode");
  BOOST_TEST(cols[2].name == "State");
  BOOST_TEST(cols[3].name == "JobIDRaw");
  BOOST_TEST(cols[4].name == "NCPUS");
  BOOST_TEST(cols[4].width == 3);
  BOOST_TEST(fields("all").size() == sacct_field_names().size());
}

BOOST_AUTO_TEST_CASE(unknown_field_is_slurms_error) {
  auto r = parse_sacct_fields("JobID,Bogus%20");
  BOOST_REQUIRE(!r);
  BOOST_TEST(describe(r.error()) == "Invalid field requested: \"Bogus\"");
}

BOOST_AUTO_TEST_CASE(times_elapsed_limits_and_counts) {
  auto j = done_job();
  j.ntasks = 4;
  j.cpus_per_task = 2;
  j.node_count = 2;
  j.nodelist = "node[1-2]";
  j.priority = 4294;
  j.account = "phys";
  auto opt = options();
  opt.parsable = 2;
  opt.no_header = true;
  BOOST_TEST(render_sacct({j}, fields("Submit,Start,End,Elapsed,ElapsedRaw,Timelimit"), opt) ==
             "2025-12-31T23:58:20|2025-12-31T23:58:30|2025-12-31T23:59:30|00:01:00|60|01:00:00\n"
             "2025-12-31T23:58:30|2025-12-31T23:58:30|2025-12-31T23:59:30|00:01:00|60|\n");
  BOOST_TEST(render_sacct({j},
                          fields("AllocCPUS,NCPUS,ReqCPUS,AllocNodes,NNodes,ReqNodes,"
                                 "NodeList"),
                          opt) == "8|8|8|2|2|2|node[1-2]\n4|4|4|1|1|1|node1\n");
  BOOST_TEST(render_sacct({j},
                          fields("User,UID,Account,Partition,Priority,WorkDir,Cluster,"
                                 "JobIDRaw,Reason,MaxRSS"),
                          opt) ==
             "alice|1000|phys|debug|4294|/home/alice|shoal|12|None|\n"
             "||phys||||shoal|12.batch||\n");
  j.time_limit_s = 90000;
  BOOST_TEST(render_sacct({j}, fields("Timelimit"), opt) == "1-01:00:00\n\n");
  j.time_limit_s = -1;
  BOOST_TEST(render_sacct({j}, fields("Timelimit"), opt) == "UNLIMITED\n\n");
}

BOOST_AUTO_TEST_CASE(pending_and_running_jobs) {
  msg::job_info wait = done_job();
  wait.job_id = 13;
  wait.state = msg::job_state::pending;
  wait.start_time = 0;
  wait.end_time = 0;
  wait.nodelist.clear();
  msg::job_info run = done_job();
  run.job_id = 14;
  run.state = msg::job_state::running;
  run.end_time = 0;
  auto opt = options();
  opt.parsable = 2;
  opt.no_header = true;
  BOOST_TEST(
      render_sacct({wait, run}, fields("JobID,State,Start,End,Elapsed,AllocCPUS,NodeList"), opt) ==
      "13|PENDING|Unknown|Unknown|00:00:00|0|None assigned\n"
      "14|RUNNING|2025-12-31T23:58:30|Unknown|00:01:30|1|node1\n"
      "14.batch|RUNNING|2025-12-31T23:58:30|Unknown|00:01:30|1|node1\n");
  // Columns: an unset number pads as a string does; a date is cut without a `+`.
  opt.parsable = 0;
  BOOST_TEST(render_sacct({wait}, fields("Start%5,Priority,MaxRSSTask"), opt) ==
             "Unkno          0            \n");
}

BOOST_AUTO_TEST_CASE(array_tasks_and_pending_remainder) {
  auto task = done_job();
  task.job_id = 21;
  task.array_job_id = 20;
  task.array_task_id = 3;
  auto rest = task;
  rest.job_id = 20;
  rest.array_task_id = -1;
  rest.array_tasks = "4-9%2";
  rest.state = msg::job_state::pending;
  rest.start_time = 0;
  auto opt = options();
  opt.parsable = 2;
  opt.no_header = true;
  BOOST_TEST(render_sacct({task, rest}, fields("JobID,JobIDRaw"), opt) ==
             "20_3|21\n20_3.batch|21.batch\n20_[4-9%2]|20\n");
}

BOOST_AUTO_TEST_CASE(job_selectors_and_states_parse) {
  auto sel = parse_sacct_jobs("12,13_4,14.batch");
  BOOST_REQUIRE(sel);
  BOOST_REQUIRE_EQUAL(sel->size(), 3u);
  BOOST_TEST((*sel)[1].job_id == 13u);
  BOOST_TEST((*sel)[1].array_task == 4);
  BOOST_TEST((*sel)[2].step == "batch");
  BOOST_TEST(!parse_sacct_jobs("x1"));
  BOOST_TEST(!parse_sacct_jobs("12.bogus"));
  auto states = parse_sacct_states("cd,FAILED,ca");
  BOOST_REQUIRE(states);
  BOOST_TEST(states->size() == 3u);
  auto bad = parse_sacct_states("done");
  BOOST_REQUIRE(!bad);
  BOOST_TEST(describe(bad.error()) == "unrecognized job state value 'done'");
}

BOOST_AUTO_TEST_CASE(selection_follows_sacct_windows_users_and_ids) {
  auto today = done_job();
  auto old = done_job();
  old.job_id = 5;
  old.submit_time = now - 200000;
  old.start_time = now - 199000;
  old.end_time = now - 190000;
  auto other = done_job();
  other.job_id = 30;
  other.uid = 1001;
  std::vector<msg::job_info> all{other, today, old};
  auto ids = [](const std::vector<msg::job_info>& js) {
    std::vector<uint64_t> out;
    for (auto& j : js) out.push_back(j.job_id);
    return out;
  };
  sacct_filter f;
  f.start = sacct_default_start(now - 10, false);  // 00:00 of 2025-12-31
  BOOST_TEST(f.start == now - 86400);
  BOOST_TEST(ids(select_sacct_jobs(all, f, now)) == (std::vector<uint64_t>{12, 30}));
  f.uids = {1000};
  BOOST_TEST(ids(select_sacct_jobs(all, f, now)) == (std::vector<uint64_t>{12}));
  // -j: no window by default.
  sacct_filter byid;
  byid.jobs = *parse_sacct_jobs("5");
  BOOST_TEST(ids(select_sacct_jobs(all, byid, now)) == (std::vector<uint64_t>{5}));
  // -s CD without -S starts now: a job that already ended is not in it.
  sacct_filter bystate;
  bystate.states = *parse_sacct_states("CD");
  bystate.start = sacct_default_start(now, true);
  BOOST_TEST(select_sacct_jobs(all, bystate, now).empty());
  bystate.start = now - 1000;
  BOOST_TEST(ids(select_sacct_jobs(all, bystate, now)) == (std::vector<uint64_t>{12, 30}));
  // A job submitted this second is in the window that ends now.
  auto fresh = done_job();
  fresh.job_id = 40;
  fresh.submit_time = now;
  fresh.start_time = 0;
  fresh.end_time = 0;
  fresh.state = msg::job_state::pending;
  sacct_filter window;
  window.start = now - 86400;
  BOOST_TEST(ids(select_sacct_jobs({fresh}, window, now)) == (std::vector<uint64_t>{40}));
  sacct_filter byname;
  byname.names = {"nope"};
  BOOST_TEST(select_sacct_jobs(all, byname, now).empty());
}

BOOST_AUTO_TEST_SUITE_END()
