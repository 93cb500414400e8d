#include <boost/test/unit_test.hpp>

#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "messages/errc.hpp"
#include "tools/format/listing.hpp"

using namespace shoal;
using cli::listing_options;

namespace {

constexpr int64_t now = 1'700'000'000;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

/// Column extents [begin, end) of the header words (headers contain no blanks).
std::vector<std::pair<size_t, size_t>> header_columns(const std::string& header) {
  std::vector<std::pair<size_t, size_t>> cols;
  size_t i = 0;
  while (i < header.size()) {
    while (i < header.size() && header[i] == ' ') ++i;
    auto b = i;
    while (i < header.size() && header[i] != ' ') ++i;
    if (b < i) cols.emplace_back(b, i);
  }
  return cols;
}

/// The words of a line split on blanks.
std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

std::string value_of(const shoal::expected<std::string>& r) {
  BOOST_REQUIRE_MESSAGE(r, "render failed: " << (r ? "" : describe(r.error())));
  return *r;
}

struct fixture {
  std::vector<msg::job_info> jobs;
  std::vector<msg::partition_info> parts;
  std::vector<msg::node_info> nodes;

  fixture() {
    msg::job_info a;
    a.job_id = 7;
    a.name = "alpha";
    a.user = "alice";
    a.uid = 1000;
    a.partition = "debug";
    a.state = msg::job_state::running;
    a.submit_time = now - 100;
    a.start_time = now - 65;
    a.time_limit_s = 3600;
    a.node_count = 2;
    a.nodelist = "n[1-2]";
    a.ntasks = 4;
    a.priority = 50;
    a.work_dir = "/home/alice";
    a.command = "/bin/hostname";
    jobs.push_back(a);

    msg::job_info b;
    b.job_id = 12;
    b.name = "a_much_longer_name";
    b.user = "bob";
    b.partition = "batch";
    b.state = msg::job_state::pending;
    b.reason = "Resources";
    b.node_count = 10;
    b.priority = 90;
    jobs.push_back(b);

    msg::job_info c;
    c.job_id = 1003;
    c.name = "c";
    c.user = "alice";
    c.partition = "debug";
    c.state = msg::job_state::completed;
    c.start_time = now - 4000;
    c.end_time = now - 100;  // ran 3900 s = 1:05:00
    c.node_count = 1;
    c.nodelist = "n3";
    c.priority = 50;
    jobs.push_back(c);

    msg::partition_info debug;
    debug.name = "debug";
    debug.is_default = true;
    debug.max_time_s = 1800;
    debug.nodes = {"n1", "n2", "n3", "n4"};
    parts.push_back(debug);
    msg::partition_info batch;
    batch.name = "batch";
    batch.state = "DOWN";
    batch.nodes = {"n3", "n4", "n10"};
    parts.push_back(batch);

    auto node = [&](std::string name, msg::node_state s, uint64_t mem,
                    std::vector<std::string> in) {
      msg::node_info n;
      n.name = std::move(name);
      n.state = s;
      n.address = n.name;
      n.real_memory_mb = mem;
      n.partitions = std::move(in);
      n.reported.cpus = 2;
      n.reported.os = "Linux.6.1.0";
      n.reported.cpu_mhz = 2445.4;
      n.reported.sockets = 1;
      n.reported.cores_per_socket = 2;
      n.reported.threads_per_core = 1;
      n.reported.real_memory_mb = 2048;
      n.reported.virtual_memory_mb = 4096;
      nodes.push_back(n);
    };
    node("n1", msg::node_state::allocated, 1024, {"debug"});
    node("n2", msg::node_state::allocated, 0, {"debug"});
    node("n3", msg::node_state::idle, 4096, {"debug", "batch"});
    node("n4", msg::node_state::down, 4096, {"debug", "batch"});
    node("n10", msg::node_state::drained, 1024, {"batch"});
    node("spare", msg::node_state::unknown, 512, {});
    nodes.front().job_ids = {7};
    nodes[3].reason = "not responding";
  }
};

/// Checks that every line's cells start (left-aligned) or end (right-aligned) where the header's
/// do, and that no line has trailing blanks.
void check_alignment(const std::vector<std::string>& lines, const std::vector<bool>& right) {
  auto cols = header_columns(lines.at(0));
  BOOST_REQUIRE_EQUAL(cols.size(), right.size());
  for (auto& l : lines) {
    BOOST_TEST(!l.empty());
    BOOST_TEST(l.back() != ' ', "trailing blank in '" << l << "'");
    for (size_t c = 0; c < cols.size(); ++c) {
      auto [b, e] = cols[c];
      if (right[c]) {
        BOOST_TEST(l.size() >= e, "line '" << l << "'");
        BOOST_TEST(l[e - 1] != ' ', "column " << c << " of '" << l << "'");
        BOOST_TEST((e == l.size() || l[e] == ' '), "column " << c << " of '" << l << "'");
      } else {
        BOOST_TEST(l.size() > b, "line '" << l << "'");
        BOOST_TEST(l[b] != ' ', "column " << c << " of '" << l << "'");
        BOOST_TEST((b == 0 || l[b - 1] == ' '), "column " << c << " of '" << l << "'");
      }
    }
  }
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(listing, fixture)

// -- squeue -------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(default_job_columns_line_up_under_their_headers) {
  auto lines = lines_of(value_of(cli::render_jobs(jobs, {}, now)));
  BOOST_REQUIRE_EQUAL(lines.size(), 4u);
  BOOST_TEST(
      words(lines[0]) == (std::vector<std::string>{"JOBID", "PARTITION", "NAME", "USER", "ST",
                                                   "TIME", "NODES", "NODELIST(REASON)"}),
      boost::test_tools::per_element());
  check_alignment(lines, {true, false, false, false, false, true, true, false});
}

BOOST_AUTO_TEST_CASE(numeric_columns_are_right_aligned) {
  auto lines = lines_of(value_of(cli::render_jobs(jobs, {}, now)));
  // JOBID is 5 wide and the widest id has 4 digits, so short ids are padded on the left.
  BOOST_TEST(lines[1].rfind("    7 ", 0) == 0u, lines[1]);
  BOOST_TEST(lines[2].rfind("   12 ", 0) == 0u, lines[2]);
  BOOST_TEST(lines[3].rfind(" 1003 ", 0) == 0u, lines[3]);
  // NODES: "2" under the last character of the header.
  auto cols = header_columns(lines[0]);
  auto nodes_end = cols[6].second;
  BOOST_TEST(lines[1].substr(nodes_end - 5, 5) == "    2");
  BOOST_TEST(lines[2].substr(nodes_end - 5, 5) == "   10");
}

BOOST_AUTO_TEST_CASE(job_cells_show_state_elapsed_time_and_nodes_or_reason) {
  auto lines = lines_of(value_of(cli::render_jobs(jobs, {}, now)));
  BOOST_TEST(words(lines[1]) == (std::vector<std::string>{"7", "debug", "alpha", "alice", "R",
                                                          "1:05", "2", "n[1-2]"}),
             boost::test_tools::per_element());
  BOOST_TEST(
      words(lines[2]) == (std::vector<std::string>{"12", "batch", "a_much_longer_name", "bob", "PD",
                                                   "0:00", "10", "(Resources)"}),
      boost::test_tools::per_element());
  BOOST_TEST(words(lines[3]) == (std::vector<std::string>{"1003", "debug", "c", "alice", "CD",
                                                          "1:05:00", "1", "n3"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(format_picks_fields_case_insensitively) {
  listing_options opt;
  opt.format = "jobid,STATE, timelimit,Reason,exit_code";
  auto lines = lines_of(value_of(cli::render_jobs(jobs, opt, now)));
  BOOST_REQUIRE_EQUAL(lines.size(), 4u);
  BOOST_TEST(words(lines[0]) ==
                 (std::vector<std::string>{"JOBID", "STATE", "TIME_LIMIT", "REASON", "EXIT_CODE"}),
             boost::test_tools::per_element());
  BOOST_TEST(
      words(lines[1]) == (std::vector<std::string>{"7", "RUNNING", "1:00:00", "None", "0:0"}),
      boost::test_tools::per_element());
  BOOST_TEST(words(lines[2]) ==
                 (std::vector<std::string>{"12", "PENDING", "UNLIMITED", "Resources", "0:0"}),
             boost::test_tools::per_element());
  check_alignment(lines, {true, false, true, false, true});
}

BOOST_AUTO_TEST_CASE(no_header_drops_the_header_line) {
  listing_options opt;
  opt.no_header = true;
  opt.format = "JobId";
  BOOST_TEST(value_of(cli::render_jobs(jobs, opt, now)) == "   7\n  12\n1003\n");
}

BOOST_AUTO_TEST_CASE(filter_by_state_accepts_long_names_and_short_codes) {
  listing_options opt;
  opt.format = "JobId";
  opt.no_header = true;
  opt.filters = {"State=pending"};
  BOOST_TEST(value_of(cli::render_jobs(jobs, opt, now)) == "12\n");
  opt.filters = {"st=R,cd"};
  BOOST_TEST(value_of(cli::render_jobs(jobs, opt, now)) == "   7\n1003\n");
  opt.filters = {"State=RUNNING,PD", "User=ALICE"};
  BOOST_TEST(value_of(cli::render_jobs(jobs, opt, now)) == "7\n");
  opt.filters = {"NodeList=n[2-3]"};
  BOOST_TEST(value_of(cli::render_jobs(jobs, opt, now)) == "   7\n1003\n");
}

BOOST_AUTO_TEST_CASE(sort_takes_several_keys_and_descending_ones) {
  listing_options opt;
  opt.format = "JobId";
  opt.no_header = true;
  opt.sort = "Priority,-JobId";
  BOOST_TEST(value_of(cli::render_jobs(jobs, opt, now)) == "1003\n   7\n  12\n");
  // Numeric, not textual: 12 < 1003 although "12" > "1003".
  opt.sort = "-Nodes";
  BOOST_TEST(value_of(cli::render_jobs(jobs, opt, now)) == "  12\n   7\n1003\n");
  opt.sort = "user,-time";
  BOOST_TEST(value_of(cli::render_jobs(jobs, opt, now)) == "1003\n   7\n  12\n");
}

BOOST_AUTO_TEST_CASE(unknown_fields_are_rejected_with_the_known_names) {
  listing_options opt;
  opt.format = "JobId,Colour";
  auto r = cli::render_jobs(jobs, opt, now);
  BOOST_REQUIRE(!r);
  BOOST_CHECK(r.error() == errc::invalid_request);
  auto text = describe(r.error());
  BOOST_TEST(
      text.rfind(
          "unknown field 'Colour' (known: JobId, ArrayJobId, ArrayTaskId, Dependency, Partition, "
          "Name, User, State, ST, "
          "Time, TimeLimit, Nodes, NodeList, Reason, SubmitTime,",
          0) == 0u,
      text);
  opt.format.clear();
  opt.sort = "-Shoe";
  BOOST_TEST(describe(cli::render_jobs(jobs, opt, now).error()).rfind("unknown field 'Shoe'", 0) ==
             0u);
  opt.sort.clear();
  opt.filters = {"Hat=1"};
  BOOST_TEST(describe(cli::render_jobs(jobs, opt, now).error()).rfind("unknown field 'Hat'", 0) ==
             0u);
  opt.filters = {"State"};
  auto bad = cli::render_jobs(jobs, opt, now);
  BOOST_REQUIRE(!bad);
  BOOST_TEST(describe(bad.error()).find("Field=Value") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(job_json_has_every_field_and_honours_filters) {
  listing_options opt;
  opt.json = true;
  opt.format = "JobId";  // ignored
  opt.filters = {"User=alice"};
  opt.sort = "-JobId";
  auto text = value_of(cli::render_jobs(jobs, opt, now));
  BOOST_TEST(text.back() == '\n');
  auto doc = nlohmann::json::parse(text);
  auto& list = doc.at("jobs");
  BOOST_REQUIRE_EQUAL(list.size(), 2u);
  BOOST_TEST(list[0].at("job_id").get<uint64_t>() == 1003u);
  auto& j = list[1];
  BOOST_TEST(j.at("state").get<std::string>() == "RUNNING");
  BOOST_TEST(j.at("start_time").get<int64_t>() == now - 65);
  BOOST_TEST(j.at("nodelist").get<std::string>() == "n[1-2]");
  BOOST_TEST(j.at("uid").get<uint32_t>() == 1000u);
  for (auto key :
       {"name",           "user",           "partition",       "reason",      "submit_time",
        "end_time",       "time_limit_s",   "node_count",      "ntasks",      "cpus_per_task",
        "exit_code",      "batch",          "work_dir",        "command",     "stdout_path",
        "stderr_path",    "requeue_count",  "priority",        "step_count",  "requeue",
        "exclude_nodes",  "required_nodes", "account",         "qos",         "comment",
        "mail_type",      "mail_user",      "ntasks_per_node", "min_cpus",    "exit_signal",
        "tres_per_node",  "usage",          "licenses",        "reservation", "suspend_time",
        "suspended_secs", "preempt_time",   "secs_pre_suspend"})
    BOOST_TEST(j.contains(key), key);
  BOOST_TEST(j.size() == 51u);
}

// -- sinfo --------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(sinfo_groups_partition_nodes_by_state) {
  auto lines = lines_of(value_of(cli::render_partitions(parts, nodes, {})));
  BOOST_REQUIRE_EQUAL(lines.size(), 7u);
  BOOST_TEST(words(lines[0]) == (std::vector<std::string>{"PARTITION", "AVAIL", "TIMELIMIT",
                                                          "NODES", "STATE", "NODELIST"}),
             boost::test_tools::per_element());
  BOOST_TEST(words(lines[1]) ==
                 (std::vector<std::string>{"debug*", "up", "30:00", "2", "alloc", "n[1-2]"}),
             boost::test_tools::per_element());
  BOOST_TEST(
      words(lines[2]) == (std::vector<std::string>{"debug*", "up", "30:00", "1", "idle", "n3"}),
      boost::test_tools::per_element());
  BOOST_TEST(
      words(lines[3]) == (std::vector<std::string>{"debug*", "up", "30:00", "1", "down", "n4"}),
      boost::test_tools::per_element());
  BOOST_TEST(
      words(lines[4]) == (std::vector<std::string>{"batch", "down", "infinite", "1", "idle", "n3"}),
      boost::test_tools::per_element());
  BOOST_TEST(words(lines[6]) ==
                 (std::vector<std::string>{"batch", "down", "infinite", "1", "drain", "n10"}),
             boost::test_tools::per_element());
  check_alignment(lines, {false, false, true, true, false, false});
}

BOOST_AUTO_TEST_CASE(sinfo_filters_and_reports_json_counts) {
  listing_options opt;
  opt.filters = {"State=idle,drained", "Partition=debug,batch"};
  opt.format = "Partition,NodeList";
  opt.no_header = true;
  BOOST_TEST(value_of(cli::render_partitions(parts, nodes, opt)) ==
             "debug* n3\nbatch  n3\nbatch  n10\n");
  opt = {};
  opt.json = true;
  auto doc = nlohmann::json::parse(value_of(cli::render_partitions(parts, nodes, opt)));
  auto& list = doc.at("partitions");
  BOOST_REQUIRE_EQUAL(list.size(), 2u);
  BOOST_TEST(list[0].at("name").get<std::string>() == "debug");
  BOOST_TEST(list[0].at("is_default").get<bool>());
  BOOST_TEST(list[0].at("nodes_by_state").at("alloc").get<int>() == 2);
  BOOST_TEST(list[1].at("nodes_by_state").at("drain").get<int>() == 1);
  BOOST_TEST(list[1].at("state").get<std::string>() == "DOWN");
}

// -- sinfo -N / machine status -------------------------------------------------

BOOST_AUTO_TEST_CASE(node_listing_has_one_line_per_node_and_partition) {
  auto lines = lines_of(value_of(cli::render_nodes(parts, nodes, {}, now)));
  BOOST_REQUIRE_EQUAL(lines.size(), 9u);
  BOOST_TEST(
      words(lines[0]) == (std::vector<std::string>{"NODELIST", "NODES", "PARTITION", "STATE"}),
      boost::test_tools::per_element());
  BOOST_TEST(words(lines[1]) == (std::vector<std::string>{"n1", "1", "debug*", "alloc"}),
             boost::test_tools::per_element());
  BOOST_TEST(words(lines[4]) == (std::vector<std::string>{"n3", "1", "batch", "idle"}),
             boost::test_tools::per_element());
  BOOST_TEST(words(lines[8]) == (std::vector<std::string>{"spare", "1", "-", "unk"}),
             boost::test_tools::per_element());
  check_alignment(lines, {false, true, false, false});
}

BOOST_AUTO_TEST_CASE(machine_status_fields_filter_and_sort) {
  listing_options opt;
  opt.format = "Name,State,CPUs,RealMemory,Partition,OS,Speed";
  opt.filters = {"State=down,drained,idle"};
  opt.sort = "-RealMemory,Name";
  auto lines = lines_of(value_of(cli::render_nodes(parts, nodes, opt, now)));
  BOOST_REQUIRE_EQUAL(lines.size(), 4u);
  BOOST_TEST(
      words(lines[0]) == (std::vector<std::string>{"NODENAME", "STATE", "CPUS", "REAL_MEMORY",
                                                   "PARTITION", "OS", "SPEED"}),
      boost::test_tools::per_element());
  BOOST_TEST(words(lines[1]) == (std::vector<std::string>{"n3", "IDLE", "2", "4096", "debug,batch",
                                                          "Linux.6.1.0", "2445"}),
             boost::test_tools::per_element());
  BOOST_TEST(words(lines[2])[0] == "n4");
  BOOST_TEST(words(lines[3])[0] == "n10");
  check_alignment(lines, {false, false, true, true, false, false, true});

  // Reported memory stands in for a configured 0; names sort naturally.
  opt = {};
  opt.format = "Name,RealMemory";
  opt.no_header = true;
  opt.filters = {"Name=n[1-2],spare"};
  opt.sort = "-Name";
  BOOST_TEST(value_of(cli::render_nodes(parts, nodes, opt, now)) ==
             "spare  512\nn2    2048\nn1    1024\n");
  opt.filters = {"Partition=batch"};
  opt.sort = "Name";
  BOOST_TEST(value_of(cli::render_nodes(parts, nodes, opt, now)) ==
             "n3  4096\nn4  4096\nn10 1024\n");
}

BOOST_AUTO_TEST_CASE(node_json_lists_each_node_once_with_its_report) {
  listing_options opt;
  opt.json = true;
  opt.filters = {"Partition=batch"};
  auto doc = nlohmann::json::parse(value_of(cli::render_nodes(parts, nodes, opt, now)));
  auto& list = doc.at("nodes");
  BOOST_REQUIRE_EQUAL(list.size(), 3u);
  BOOST_TEST(list[0].at("name").get<std::string>() == "n3");
  BOOST_TEST(list[0].at("state").get<std::string>() == "IDLE");
  BOOST_TEST(list[0].at("partitions").size() == 2u);
  BOOST_TEST(list[0].at("reported").at("os").get<std::string>() == "Linux.6.1.0");
  BOOST_TEST(list[0].at("reported").at("virtual_memory_mb").get<uint64_t>() == 4096u);
  BOOST_TEST(list[1].at("reason").get<std::string>() == "not responding");
}

BOOST_AUTO_TEST_CASE(unknown_node_field_lists_the_node_fields) {
  listing_options opt;
  opt.format = "Name,Colour";
  auto r = cli::render_nodes(parts, nodes, opt, now);
  BOOST_REQUIRE(!r);
  BOOST_TEST(describe(r.error()).rfind("unknown field 'Colour' (known: Name, State,", 0) == 0u);
  r = cli::render_partitions(parts, nodes, opt);
  BOOST_REQUIRE(!r);
  BOOST_TEST(describe(r.error()).rfind("unknown field 'Name' (known: Partition, Avail,", 0) == 0u);
}

// -- scontrol show ------------------------------------------------------------

BOOST_AUTO_TEST_CASE(show_job_prints_key_value_lines) {
  auto text = cli::show_job(jobs[0], now);
  BOOST_TEST(text.rfind("JobId=7 JobName=alpha\n   UserId=alice(1000) GroupId=(null)(0) ", 0) == 0u,
             text);
  // Slurm's forms: secs2time_str for the times, EndTime while running the limit's end.
  for (auto key : {"JobState=RUNNING", "RunTime=00:01:05", "TimeLimit=01:00:00", "NodeList=n[1-2]",
                   "NumNodes=2", "NumTasks=4", "Partition=debug", "WorkDir=/home/alice",
                   "Command=/bin/hostname", "Priority=50", "\n   Power=\n   \n\n"})
    BOOST_TEST(text.find(key) != std::string::npos, key << " in\n" << text);
  BOOST_TEST(text.find("EndTime=Unknown") == std::string::npos, text);
  // Only batch jobs have StdErr, StdIn and StdOut (scontrol prints them for BatchFlag=1).
  BOOST_TEST(text.find("StdOut=") == std::string::npos, text);
  auto unlimited = jobs[0];
  unlimited.time_limit_s = -1;
  unlimited.batch = true;
  unlimited.stdout_path = "/home/alice/slurm-7.out";
  text = cli::show_job(unlimited, now);
  for (auto key : {"TimeLimit=UNLIMITED", "EndTime=Unknown", "StdErr=/home/alice/slurm-7.out",
                   "StdIn=/dev/null", "BatchHost=n1"})
    BOOST_TEST(text.find(key) != std::string::npos, key << " in\n" << text);
  auto days = jobs[0];
  days.time_limit_s = 2 * 86400 + 3 * 3600 + 4 * 60 + 5;
  text = cli::show_job(days, now);
  BOOST_TEST(text.find("TimeLimit=2-03:04:05") != std::string::npos, text);
  BOOST_TEST(text.size() >= 2u);
  BOOST_TEST(text.substr(text.size() - 2) == "\n\n");
  for (auto& l : lines_of(text))
    if (!l.empty() && l.rfind("JobId=", 0) != 0) BOOST_TEST(l.rfind("   ", 0) == 0u, l);
}

BOOST_AUTO_TEST_CASE(show_job_prints_account_qos_comment_and_mail) {
  auto bare = cli::show_job(jobs[0], now);
  BOOST_TEST(bare.find("Account=(null) QOS=(null)") != std::string::npos, bare);
  BOOST_TEST(bare.find("NtasksPerN:B:S:C=0:0:*:*") != std::string::npos, bare);
  BOOST_TEST(bare.find("Comment=") == std::string::npos, bare);
  BOOST_TEST(bare.find("MailUser=") == std::string::npos, bare);
  auto j = jobs[0];
  j.account = "physics";
  j.qos = "high";
  j.comment = "sweep 7";
  j.mail_type = "BEGIN,END";
  j.ntasks_per_node = 2;
  j.min_cpus = 4;
  j.exit_signal = 9;
  cli::group_entry staff{50, "staff"};
  auto text = cli::show_job(j, now, nullptr, &staff);
  for (auto key : {"Priority=50 Nice=0 Account=physics QOS=high", "NtasksPerN:B:S:C=2:0:*:*",
                   "MinCPUsNode=4", "\n   Comment=sweep 7 \n", "MailUser=alice MailType=BEGIN,END",
                   "GroupId=staff(50) MCS_label=N/A", "ExitCode=0:9"})
    BOOST_TEST(text.find(key) != std::string::npos, key << " in\n" << text);
  j.mail_user = "bob@example.org";
  text = cli::show_job(j, now);
  BOOST_TEST(text.find("MailUser=bob@example.org MailType=BEGIN,END") != std::string::npos, text);
}

BOOST_AUTO_TEST_CASE(show_job_fills_output_patterns_and_memory_units_as_slurm) {
  auto j = jobs[0];
  j.batch = true;
  j.work_dir = "/w";
  j.stdout_path = "o-%x-%u-%j.txt";
  j.mem_per_node_mb = 2048;
  j.tres_per_node = "gres:gpu:2";
  auto text = cli::show_job(j, now);
  for (auto key : {"StdOut=/w/o-alpha-alice-7.txt", "StdErr=/w/o-alpha-alice-7.txt",
                   "MinMemoryNode=2G", "TRES=cpu=4,mem=4G,node=2,billing=4,gres/gpu=4"})
    BOOST_TEST(text.find(key) != std::string::npos, key << " in\n" << text);
  j.stdout_path.clear();
  j.array_job_id = 5;
  j.array_task_id = 3;
  text = cli::show_job(j, now);
  BOOST_TEST(text.find("StdOut=/w/slurm-5_3.out") != std::string::npos, text);
  BOOST_TEST(text.find("ArrayJobId=5 ArrayTaskId=3 JobName=") != std::string::npos, text);
}

BOOST_AUTO_TEST_CASE(show_job_prints_what_a_job_awaits_as_slurm) {
  auto j = jobs[0];
  j.state = msg::job_state::pending;
  j.dependency = "afterok:10:11,afterany:10";
  auto text = cli::show_job(j, now);
  BOOST_TEST(text.find(" Dependency=afterok:10(unfulfilled),afterok:11(unfulfilled),"
                       "afterany:10(unfulfilled)\n") != std::string::npos,
             text);
  j.dependency = "afterok:10?afterany:11:12";
  text = cli::show_job(j, now);
  BOOST_TEST(text.find(" Dependency=afterok:10(unfulfilled)?afterany:11(unfulfilled)?"
                       "afterany:12(unfulfilled)\n") != std::string::npos,
             text);
  j.dependency = "singleton";
  text = cli::show_job(j, now);
  BOOST_TEST(text.find(" Dependency=singleton(unfulfilled)\n") != std::string::npos, text);
  // Slurm shows no eligible time while a dependency is awaited.
  BOOST_TEST(text.find(" EligibleTime=Unknown\n") != std::string::npos, text);
}

BOOST_AUTO_TEST_CASE(account_qos_and_comment_are_queue_fields) {
  listing_options opt;
  opt.format = "JobId,Account,QOS,Comment";
  auto js = jobs;
  js[0].account = "physics";
  js[0].qos = "high";
  js[0].comment = "sweep";
  auto lines = lines_of(value_of(cli::render_jobs(js, opt, now)));
  BOOST_REQUIRE_GE(lines.size(), 3u);
  BOOST_TEST(words(lines[0]) == (std::vector<std::string>{"JOBID", "ACCOUNT", "QOS", "COMMENT"}),
             boost::test_tools::per_element());
  BOOST_TEST(words(lines[1]) == (std::vector<std::string>{"7", "physics", "high", "sweep"}),
             boost::test_tools::per_element());
  BOOST_TEST(words(lines[2]) == (std::vector<std::string>{"12", "(null)", "(null)", "(null)"}),
             boost::test_tools::per_element());
  opt.format = "JobId";
  opt.filters = {"Account=physics"};
  BOOST_TEST(value_of(cli::render_jobs(js, opt, now)) == "JOBID\n    7\n");
}

BOOST_AUTO_TEST_CASE(show_licenses_prints_slurms_record_and_counts_jobs_holding_nodes) {
  BOOST_TEST(cli::show_license("fluent", 30, 2) ==
             "LicenseName=fluent\n    Total=30 Used=2 Free=28 Reserved=0 Remote=no\n");
  BOOST_TEST(cli::show_license("a", 1, 3) ==
             "LicenseName=a\n    Total=1 Used=3 Free=0 Reserved=0 Remote=no\n");
  auto js = jobs;
  for (auto& j : js) j.licenses = "fluent:2,ansys:1";
  js[0].state = msg::job_state::running;
  js[1].state = msg::job_state::pending;  // holds nothing yet
  js[2].state = msg::job_state::completed;
  auto used = cli::licenses_in_use(js);
  BOOST_TEST(used.size() == 2u);
  BOOST_TEST(used["fluent"] == 2u);
  BOOST_TEST(used["ansys"] == 1u);
}

BOOST_AUTO_TEST_CASE(show_node_and_partition_print_key_fields) {
  auto node = cli::show_node(nodes[3], now);
  BOOST_TEST(node.rfind("NodeName=n4 ", 0) == 0u, node);
  for (auto key : {"State=DOWN", "CPUTot=2", "RealMemory=4096", "OS=Linux.6.1.0",
                   "Partitions=debug,batch", "Reason=not responding", "ThreadsPerCore=1"})
    BOOST_TEST(node.find(key) != std::string::npos, key << " in\n" << node);
  BOOST_TEST(node.substr(node.size() - 2) == "\n\n");

  auto part = cli::show_partition(parts[0], nodes);
  BOOST_TEST(part.rfind("PartitionName=debug\n", 0) == 0u, part);
  for (auto key :
       {"Default=YES", "State=UP", "MaxTime=00:30:00", "Nodes=n[1-4]", "TotalNodes=4",
        "TotalCPUs=8", "DefaultTime=NONE", "\n   AllowGroups=ALL AllowAccounts=ALL AllowQos=ALL\n"})
    BOOST_TEST(part.find(key) != std::string::npos, key << " in\n" << part);
}

BOOST_AUTO_TEST_SUITE_END()
