// squeue's and sinfo's own formats (-o letters, -O long names), against what Slurm 22.05's
// print.c prints: each expected line below follows from its printf formats ("%18s" for %.18i,
// "%.8s" padded for %8j, cut to the width where _print_str cuts), its headers and its sorts.

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "messages/errc.hpp"
#include "metrics/text_parser.hpp"
#include "tools/format/operators.hpp"
#include "tools/format/sinfo_format.hpp"
#include "tools/format/slurm_format.hpp"
#include "tools/format/squeue_format.hpp"

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

bool any_letter(char) {
  return true;
}

slurm_output rendered(const shoal::expected<slurm_output>& r) {
  BOOST_REQUIRE_MESSAGE(r, "render failed: " << (r ? "" : describe(r.error())));
  return *r;
}

/// A running job, a pending one and a pending array, as the controller lists them.
std::vector<msg::job_info> jobs() {
  std::vector<msg::job_info> out;
  msg::job_info run;
  run.job_id = 12;
  run.name = "longjobname";
  run.user = "alice";
  run.uid = 1000;
  run.partition = "debug";
  run.state = msg::job_state::running;
  run.submit_time = now - 100;
  run.start_time = now - 65;
  run.time_limit_s = 3600;
  run.node_count = 2;
  run.nodelist = "n[1-2]";
  run.ntasks = 4;
  run.cpus_per_task = 2;
  run.priority = 0;
  run.work_dir = "/home/alice";
  out.push_back(run);
  msg::job_info wait;
  wait.job_id = 13;
  wait.name = "short";
  wait.user = "bob";
  wait.uid = 1001;
  wait.partition = "debug";
  wait.state = msg::job_state::pending;
  wait.reason = "Resources";
  wait.submit_time = now - 50;
  wait.time_limit_s = -1;
  wait.node_count = 4;
  wait.ntasks = 4;
  wait.cpus_per_task = 1;
  wait.priority = 2000;
  out.push_back(wait);
  msg::job_info array = wait;
  array.job_id = 20;
  array.array_job_id = 20;
  array.array_task_id = -1;
  array.array_tasks = "3-9%2";
  array.name = "arr";
  array.reason = "Priority";
  array.priority = 1500;
  array.partition = "big";
  array.account = "physics";
  out.push_back(array);
  return out;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(slurm_formats, utc)

// -- parsing and cells ----------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(letter_format_splits_into_text_fields_and_suffixes) {
  slurm_format_errors errors;
  auto items = parse_slurm_format("id=%.18i %-5u|%j%%T%", any_letter, "Invalid job", errors);
  BOOST_REQUIRE_EQUAL(items.size(), 5u);
  BOOST_TEST((items[0].what == slurm_item::kind::text && items[0].suffix == "id="));
  BOOST_TEST((items[1].name == "i" && items[1].right && items[1].width == 18));
  BOOST_TEST(items[1].suffix == " ");
  // '-' is no flag in Slurm's parser: it is read as the letter.
  BOOST_TEST((items[2].name == "-" && items[2].width == 0 && items[2].suffix == "5u|"));
  BOOST_TEST((items[3].name == "j" && !items[3].right && items[3].suffix.empty()));
  // A run of '%' separates, and a trailing one is nothing.
  BOOST_TEST(items[4].name == "T");
  BOOST_TEST(errors.empty());
}

BOOST_AUTO_TEST_CASE(an_unknown_letter_prints_its_spec_and_says_so) {
  slurm_format_errors errors;
  auto items = parse_slurm_format(
      "%i %-8u", [](char c) { return c == 'i'; }, "Invalid job", errors);
  BOOST_REQUIRE_EQUAL(items.size(), 2u);
  BOOST_TEST((items[1].what == slurm_item::kind::invalid && items[1].suffix == "%-8u"));
  BOOST_REQUIRE_EQUAL(errors.size(), 1u);
  BOOST_TEST(errors[0] == "Invalid job format specification: -");
}

BOOST_AUTO_TEST_CASE(a_format_without_a_percent_is_all_text) {
  slurm_format_errors errors;
  auto items = parse_slurm_format("JobId,State", any_letter, "Invalid job", errors);
  BOOST_REQUIRE_EQUAL(items.size(), 1u);
  BOOST_TEST(items[0].suffix == "JobId,State");
  BOOST_TEST(!is_slurm_letter_format("JobId,State"));
  BOOST_TEST(is_slurm_letter_format("%T"));
}

BOOST_AUTO_TEST_CASE(percent_all_lists_the_known_letters_joined_by_bars) {
  slurm_format_errors errors;
  auto items = parse_slurm_format(
      "%ALL", [](char c) { return c == 'a' || c == 'Z'; }, "x", errors);
  BOOST_REQUIRE_EQUAL(items.size(), 2u);
  BOOST_TEST((items[0].name == "a" && items[0].suffix == "|"));
  BOOST_TEST((items[1].name == "Z" && items[1].suffix.empty()));
  BOOST_TEST(errors.empty());
}

BOOST_AUTO_TEST_CASE(long_format_reads_width_justification_and_suffix) {
  slurm_format_errors errors;
  auto items = parse_slurm_long_format(
      "JobID,,state:.8 ,Name:20,bogus:4x", [](const std::string& n) { return n != "bogus"; }, true,
      errors);
  BOOST_REQUIRE_EQUAL(items.size(), 4u);
  BOOST_TEST((items[0].name == "jobid" && items[0].width == 20 && !items[0].right));
  BOOST_TEST((items[1].name == "state" && items[1].width == 8 && items[1].right));
  BOOST_TEST(items[1].suffix == " ");
  BOOST_TEST((items[2].width == 20 && items[2].suffix.empty()));
  BOOST_TEST((items[3].what == slurm_item::kind::invalid && items[3].suffix == "x"));
  BOOST_REQUIRE_EQUAL(errors.size(), 1u);
  BOOST_TEST(errors[0] == "Invalid job format specification: bogus");
}

BOOST_AUTO_TEST_CASE(cells_follow_print_str) {
  BOOST_TEST(slurm_cell("abc", 0, false, true) == "abc");
  BOOST_TEST(slurm_cell("abc", 5, true, true) == "  abc");
  BOOST_TEST(slurm_cell("abc", 5, false, true) == "abc  ");
  // Right-justified values are cut only where the field cuts; left-justified ones always.
  BOOST_TEST(slurm_cell("longjobname", 8, true, true) == "longjobn");
  BOOST_TEST(slurm_cell("n[1-2000]", 4, true, false) == "n[1-2000]");
  BOOST_TEST(slurm_cell("n[1-2000]", 4, false, false) == "n[1-");
  BOOST_TEST(slurm_cell("x", -3, false, true) == "x ");
}

BOOST_AUTO_TEST_CASE(times_and_units_print_as_slurm_does) {
  BOOST_TEST(slurm_seconds(0, true) == "0:00");
  BOOST_TEST(slurm_seconds(65, true) == "1:05");
  BOOST_TEST(slurm_seconds(3600, true) == "1:00:00");
  BOOST_TEST(slurm_seconds(90061, true) == "1-01:01:01");
  BOOST_TEST(slurm_seconds(-5, true) == "INVALID");
  BOOST_TEST(slurm_seconds(366LL * 86400, true) == "INVALID");
  BOOST_TEST(slurm_seconds(366LL * 86400, false) == "366-00:00:00");
  BOOST_TEST(slurm_number_unit(0, 2) == "0");
  BOOST_TEST(slurm_number_unit(4096, 2) == "4G");
  BOOST_TEST(slurm_number_unit(4000, 2) == "4000M");
  BOOST_TEST(slurm_number_unit(1536, 0) == "1.50K");
  BOOST_TEST(slurm_number_unit(48, 0) == "48");
}

// squeue --noconvert, as Open OnDemand's Slurm adapter passes it (ood_core squeue_args).
BOOST_AUTO_TEST_CASE(noconvert_prints_units_as_given) {
  no_unit_conversion() = true;
  BOOST_TEST(slurm_number_unit(4096, 2) == "4096M");
  BOOST_TEST(slurm_number_unit(2048, 0) == "2048");
  BOOST_TEST(slurm_number_unit(0, 2) == "0");
  no_unit_conversion() = false;
  BOOST_TEST(slurm_number_unit(4096, 2) == "4G");
}

// sacct --units G, as Open OnDemand's job history asks (ood_core's sacct_info args).
BOOST_AUTO_TEST_CASE(units_asked_for_convert_exactly) {
  BOOST_TEST(slurm_number_in_unit(2048, 2, 3) == "2G");
  BOOST_TEST(slurm_number_in_unit(2000, 2, 3) == "1.95G");
  BOOST_TEST(slurm_number_in_unit(2, 3, 2) == "2048M");
  BOOST_TEST(slurm_number_in_unit(512, 2, 1) == "524288K");
}

// The lines vpenso/prometheus-slurm-exporter's scheduler.go reads from sdiag: the text before
// the first ':' matched against `^Server thread`, `^Agent queue`, `^DBD Agent`, `^[\s]+Last
// cycle$`, `^[\s]+Mean cycle$`,
// `^[\s]+Cycles per`, and the number after it taken (strconv.ParseFloat of the trimmed rest).
namespace {

std::string exporter_value(const std::string& sdiag, const std::string& key_pattern) {
  std::istringstream in(sdiag);
  std::regex key(key_pattern);
  for (std::string line; std::getline(in, line);) {
    auto colon = line.find(':');
    if (colon == std::string::npos || !std::regex_search(line.substr(0, colon), key)) continue;
    auto rest = line.substr(colon + 1);
    auto end = rest.find(':');
    rest = rest.substr(0, end);
    auto first = rest.find_first_not_of(' ');
    return first == std::string::npos ? ""
                                      : rest.substr(first, rest.find_last_not_of(' ') - first + 1);
  }
  return "missing";
}

}  // namespace

BOOST_AUTO_TEST_CASE(sdiag_prints_the_lines_the_exporter_reads) {
  diag_report d;
  d.start_time = d.data_since = 1'000'000;
  d.now = d.data_since + 150;  // two whole minutes and a half
  d.cycles = 9;
  d.last_cycle_s = 0.000'250;
  d.mean_cycle_s = 0.000'100;
  auto out = render_diag(d);
  BOOST_TEST(exporter_value(out, "^Server thread") == "0", out);
  BOOST_TEST(exporter_value(out, "^Agent queue") == "0", out);
  BOOST_TEST(exporter_value(out, "^DBD Agent") == "0", out);
  BOOST_TEST(exporter_value(out, "^[\\s]+Last cycle$") == "250", out);
  BOOST_TEST(exporter_value(out, "^[\\s]+Mean cycle$") == "100", out);
  BOOST_TEST(exporter_value(out, "^[\\s]+Cycles per") == "4", out);
  d.now = d.data_since + 30;  // not a minute yet: every cycle so far
  BOOST_TEST(exporter_value(render_diag(d), "^[\\s]+Cycles per") == "9");
}

// sdiag -t, -T and -i: the RPC tables by total time, average time and id (name, in shoal).
BOOST_AUTO_TEST_CASE(sdiag_orders_its_rpc_tables_as_asked) {
  // submit: many quick calls; jobs: few slow ones; ping: one slowest on average.
  auto scrape = metrics::parse_text(
      "shoal_start_time_seconds 1000\n"
      "shoal_jobs_submitted_total 0\n"
      "# TYPE shoal_rpc_seconds histogram\n"
      "shoal_rpc_seconds_count{type=\"submit\"} 10\n"
      "shoal_rpc_seconds_sum{type=\"submit\"} 1\n"
      "shoal_rpc_seconds_count{type=\"jobs\"} 4\n"
      "shoal_rpc_seconds_sum{type=\"jobs\"} 2\n"
      "shoal_rpc_seconds_count{type=\"ping\"} 1\n"
      "shoal_rpc_seconds_sum{type=\"ping\"} 0.9\n");
  BOOST_REQUIRE(scrape.has_value());
  auto names = [&](diag_sort order) {
    auto d = make_diag(*scrape, 2000, order);
    BOOST_REQUIRE(d.has_value());
    std::string out;
    for (auto& r : d->by_type) out += r.name + " ";
    return out;
  };
  BOOST_TEST(names(diag_sort::count) == "submit jobs ping ");
  BOOST_TEST(names(diag_sort::total_time) == "jobs submit ping ");
  BOOST_TEST(names(diag_sort::average_time) == "ping jobs submit ");
  BOOST_TEST(names(diag_sort::id) == "jobs ping submit ");
}

// test/data/slurm-22.05/sdiag.txt is Debian's slurm-wlm 22.05.8 sdiag (TZ=UTC) after three jobs
// and an array of eight were submitted; the same figures in shoal's report give the same lines
// down to the main scheduler's, except the two shoal words differently: sdiag's "Mean depth
// cycle" (shoal does not count the jobs each pass looked at) and "Cycles per minute" (sdiag
// leaves it out in the first minute; shoal prints the cycles so far), and the time of the job
// counts (shoal's are live: the report's time).
BOOST_AUTO_TEST_CASE(sdiag_head_matches_slurm_line_for_line) {
  std::ifstream in{std::string{SHOAL_TEST_DATA} + "/slurm-22.05/sdiag.txt"};
  BOOST_REQUIRE(in.good());
  std::string want;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Backfilling stats", 0) == 0) break;
    if (line.find("Mean depth cycle") != std::string::npos) continue;
    if (line.rfind("Job states ts:", 0) == 0)
      line = "Job states ts:  Sat Nov 28 01:51:18 2026 (1795830678)";
    want += line + "\n";
  }
  diag_report d;
  d.now = 1'795'830'678;
  d.start_time = d.data_since = 1'795'830'646;
  d.server_backlog = 3;
  d.jobs_submitted = 11;
  d.jobs_started = 4;
  d.jobs_completed = 1;
  d.jobs_cancelled = 3;
  d.cycles = 6;
  d.last_cycle_s = 0.000'309;
  d.max_cycle_s = 0.001'173;
  d.mean_cycle_s = 0.000'308;
  d.last_queue_length = 1;
  auto out = render_diag(d);
  auto head = out.substr(0, out.find("\n\nRemote Procedure Call"));
  auto cycles_per_minute = head.find("\tCycles per minute: 6\n");
  BOOST_REQUIRE(cycles_per_minute != std::string::npos);
  head.erase(cycles_per_minute, std::string{"\tCycles per minute: 6\n"}.size());
  BOOST_TEST(head + "\n\n" == want, "shoal:\n" << head << "\nSlurm:\n" << want);
}

// -- squeue ---------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(squeue_default_format_matches_slurm_byte_for_byte) {
  squeue_format_options opt;
  opt.format = "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R";
  auto out = rendered(render_squeue(jobs(), opt, now));
  // Sorted P,t,-p: partition big before debug; in debug PD before R.
  BOOST_TEST(
      out.text ==
      "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n"
      "        20_[3-9%2]       big      arr      bob PD       0:00      4 (Priority)\n"
      "                13     debug    short      bob PD       0:00      4 (Resources)\n"
      "                12     debug longjobn    alice  R       1:05      2 n[1-2]\n");
  BOOST_TEST(out.errors.empty());
}

BOOST_AUTO_TEST_CASE(squeue_no_header_state_only_is_one_word_a_line) {
  squeue_format_options opt;
  opt.format = "%T";
  opt.no_header = true;
  auto out = rendered(render_squeue(jobs(), opt, now));
  BOOST_TEST(out.text == "PENDING\nPENDING\nRUNNING\n");
  opt.format = "%i %T";
  opt.no_header = false;
  out = rendered(render_squeue(jobs(), opt, now));
  BOOST_TEST(out.text == "JOBID STATE\n20_[3-9%2] PENDING\n13 PENDING\n12 RUNNING\n");
}

BOOST_AUTO_TEST_CASE(squeue_letters_for_ids_times_and_accounting) {
  squeue_format_options opt;
  opt.format = "%A|%F|%K|%l|%L|%C|%D|%a|%q|%e|%S|%V|%p|%Q|%Y|%b|%Z|%r|%U|%g|%G";
  opt.sort = "i";
  opt.group_of = [](uint32_t uid) -> std::optional<group_entry> {
    if (uid == 1000) return group_entry{100, "users"};
    return std::nullopt;
  };
  auto out = rendered(render_squeue(jobs(), opt, now));
  BOOST_TEST(out.text ==
             "JOBID|ARRAY_JOB_ID|ARRAY_TASK_ID|TIME_LIMIT|TIME_LEFT|CPUS|NODES|ACCOUNT|QOS|"
             "END_TIME|START_TIME|SUBMIT_TIME|PRIORITY|PRIORITY|SCHEDNODES|TRES_PER_NODE|WORK_DIR|"
             "REASON|UID|GROUP|GROUP\n"
             "12|12|N/A|1:00:00|58:55|8|2|(null)|(null)|2026-01-01T00:58:55|2025-12-31T23:58:55|"
             "2025-12-31T23:58:20|0.00000000000000|0|(null)|N/A|/home/alice|None|1000|users|100\n"
             "13|13|N/A|UNLIMITED|UNLIMITED|4|4|(null)|(null)|N/A|N/A|2025-12-31T23:59:10|"
             "0.00000046566129|2000|(null)|N/A|(null)|Resources|1001|N/A|N/A\n"
             "20|20|3-9%2|UNLIMITED|UNLIMITED|4|4|physics|(null)|N/A|N/A|2025-12-31T23:59:10|"
             "0.00000034924597|1500|(null)|N/A|(null)|Priority|1001|N/A|N/A\n");
}

BOOST_AUTO_TEST_CASE(squeue_long_names_pad_to_twenty_unless_told) {
  squeue_format_options opt;
  opt.long_format = "JobID,State,Name:10,numcpus:.4";
  opt.sort = "i";
  auto out = rendered(render_squeue(jobs(), opt, now));
  BOOST_TEST(out.text ==
             "JOBID               STATE               NAME      CPUS\n"
             "12                  RUNNING             longjobnam   8\n"
             "13                  PENDING             short        4\n"
             "20                  PENDING             arr          4\n");
}

BOOST_AUTO_TEST_CASE(squeue_unknown_letters_print_as_typed_with_an_error) {
  squeue_format_options opt;
  opt.format = "%i %-8u %W";
  opt.sort = "i";
  opt.no_header = true;
  auto out = rendered(render_squeue(jobs(), opt, now));
  BOOST_TEST(out.text == "12 %-8u (null)\n13 %-8u (null)\n20_[3-9%2] %-8u (null)\n");
  BOOST_REQUIRE_EQUAL(out.errors.size(), 1u);
  BOOST_TEST(out.errors[0] == "Invalid job format specification: -");
}

BOOST_AUTO_TEST_CASE(squeue_notes_a_field_shoal_lacks_once) {
  squeue_format_options opt;
  opt.format = "%y %y";
  opt.no_header = true;
  auto out = rendered(render_squeue(jobs(), opt, now));
  BOOST_TEST(out.text == "N/A N/A\nN/A N/A\nN/A N/A\n");
  BOOST_TEST(out.notes.size() == 1u);
}

BOOST_AUTO_TEST_CASE(squeue_reason_list_shows_the_reason_for_failed_jobs_and_nodes_otherwise) {
  auto list = jobs();
  list[0].state = msg::job_state::failed;
  list[0].reason = "NonZeroExitCode";
  list[0].end_time = now - 5;
  list[1].state = msg::job_state::cancelled;
  squeue_format_options opt;
  opt.format = "%i:%R:%M";
  opt.sort = "i";
  opt.no_header = true;
  auto out = rendered(render_squeue(list, opt, now));
  BOOST_TEST(out.text == "12:(NonZeroExitCode):1:00\n13::0:00\n20_[3-9%2]:(Priority):0:00\n");
}

BOOST_AUTO_TEST_CASE(squeue_sort_letters_reverse_and_refuse_unknown_ones) {
  auto list = jobs();
  BOOST_REQUIRE(!sort_jobs_slurm(list, "-i", now));
  BOOST_TEST(list[0].job_id == 20u);
  BOOST_TEST(list[2].job_id == 12u);
  BOOST_REQUIRE(!sort_jobs_slurm(list, "u,-D", now));
  BOOST_TEST(list[0].user == "alice");
  auto err = sort_jobs_slurm(list, "y", now);
  BOOST_REQUIRE(err);
  BOOST_TEST(describe(err).find("Invalid sort specification: y") != std::string::npos);
  BOOST_TEST(is_slurm_sort("-t,p"));
  BOOST_TEST(is_slurm_sort("i"));
  BOOST_TEST(!is_slurm_sort("-Priority"));
  BOOST_TEST(!is_slurm_sort("JobId,-t"));
}

BOOST_AUTO_TEST_CASE(squeue_state_names_are_checked_as_squeue_checks_them) {
  BOOST_TEST(check_job_states("PD,r,completing,all").empty() == false);  // 'all' is whole only
  BOOST_TEST(check_job_states("all").empty());
  BOOST_TEST(check_job_states("PD,r,Completing,SUSPENDED,oom").empty());
  auto bad = check_job_states("running,bogus");
  BOOST_TEST(bad.rfind("Invalid job state specified: bogus\nValid job states include: PENDING,"
                       "RUNNING,SUSPENDED,COMPLETED,CANCELLED,FAILED,TIMEOUT,NODE_FAIL,",
                       0) == 0u);
}

// -- sinfo ----------------------------------------------------------------------------------

namespace {

struct cluster {
  std::vector<msg::partition_info> parts;
  std::vector<msg::node_info> nodes;

  cluster() {
    msg::node_state states[] = {msg::node_state::idle, msg::node_state::allocated,
                                msg::node_state::idle, msg::node_state::down};
    for (int i = 0; i < 4; ++i) {
      msg::node_info n;
      n.name = "n" + std::to_string(i + 1);
      n.state = states[i];
      n.address = "10.0.0." + std::to_string(i + 1);
      n.cpus = i < 2 ? 4 : 8;
      n.real_memory_mb = 16000;
      n.reported.sockets = 1;
      n.reported.cores_per_socket = n.cpus;
      n.reported.threads_per_core = 1;
      nodes.push_back(n);
    }
    nodes[3].reason = "disk swap";
    msg::partition_info debug;
    debug.name = "debug";
    debug.is_default = true;
    debug.nodes = {"n1", "n2", "n3", "n4"};
    parts.push_back(debug);
    msg::partition_info big;
    big.name = "big";
    big.max_time_s = 3600;
    big.max_nodes = 2;
    big.nodes = {"n3", "n4"};
    parts.push_back(big);
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(sinfo_groups_a_partitions_nodes_by_the_fields_shown) {
  cluster c;
  sinfo_format_options opt;
  opt.format = "%P %a %l %D %t %N";
  auto out = rendered(render_sinfo(c.parts, c.nodes, {}, opt));
  // #P,-t: partitions in config order, states highest first (alloc 3, idle 2, down 1).
  BOOST_TEST(out.text ==
             "PARTITION AVAIL TIMELIMIT NODES STATE NODELIST\n"
             "debug* up infinite 1 alloc n2\n"
             "debug* up infinite 2 idle n[1,3]\n"
             "debug* up infinite 1 down n4\n"
             "big up 1:00:00 1 idle n3\n"
             "big up 1:00:00 1 down n4\n");
}

BOOST_AUTO_TEST_CASE(sinfo_counts_a_node_once_when_partitions_are_not_shown) {
  cluster c;
  sinfo_format_options opt;
  opt.format = "%.6D %t";
  opt.no_header = true;
  auto out = rendered(render_sinfo(c.parts, c.nodes, {}, opt));
  BOOST_TEST(out.text == "     1 alloc\n     2 idle\n     1 down\n");
}

BOOST_AUTO_TEST_CASE(sinfo_hostnames_make_a_line_per_node) {
  cluster c;
  sinfo_format_options opt;
  opt.format = "%n";
  opt.no_header = true;
  auto out = rendered(render_sinfo(c.parts, c.nodes, {}, opt));
  BOOST_TEST(out.text == "n2\nn1\nn3\nn4\n");
  opt.sort = "N";
  out = rendered(render_sinfo(c.parts, c.nodes, {}, opt));
  BOOST_TEST(out.text == "n1\nn2\nn3\nn4\n");
}

BOOST_AUTO_TEST_CASE(sinfo_sizes_show_ranges_unless_exact) {
  cluster c;
  sinfo_format_options opt;
  opt.format = "%R %c %m %D %C %F %s %E";
  opt.partitions = {"debug"};
  opt.no_header = true;
  std::vector<msg::job_info> none;
  auto out = rendered(render_sinfo(c.parts, c.nodes, none, opt));
  // Without a state field the nodes join one line but for n4, whose reason differs; CPUs 4 to
  // 8 show "4+"; n2 is fully allocated (4 CPUs), n4 down (8 CPUs other).
  BOOST_TEST(out.text ==
             "debug 4+ 16000 3 4/12/0/16 1/2/0/3 1-infinite none\n"
             "debug 8 16000 1 0/0/8/8 0/0/1/1 1-infinite disk swap\n");
  opt.exact = true;
  opt.format = "%c %D %N";
  out = rendered(render_sinfo(c.parts, c.nodes, none, opt));
  BOOST_TEST(out.text == "4 2 n[1-2]\n8 2 n[3-4]\n");
}

BOOST_AUTO_TEST_CASE(sinfo_mixed_nodes_count_the_cpus_running_jobs_hold) {
  cluster c;
  c.nodes[2].state = msg::node_state::mixed;
  msg::job_info j;
  j.state = msg::job_state::running;
  j.nodelist = "n3";
  j.node_count = 1;
  j.ntasks = 3;
  j.cpus_per_task = 2;
  sinfo_format_options opt;
  opt.format = "%n %C";
  opt.no_header = true;
  opt.nodes = "n3";
  auto out = rendered(render_sinfo(c.parts, c.nodes, {j}, opt));
  BOOST_TEST(out.text == "n3 6/2/0/8\n");
}

BOOST_AUTO_TEST_CASE(sinfo_node_oriented_and_long_names) {
  cluster c;
  sinfo_format_options opt;
  opt.node_oriented = true;
  opt.long_format = "nodelist:6 ,partition:.8 ,statelong";
  opt.states = {"idle"};
  auto out = rendered(render_sinfo(c.parts, c.nodes, {}, opt));
  // Headers are cut to the width too: PARTITION to PARTITIO.
  BOOST_TEST(out.text ==
             "NODELI PARTITIO STATE               \n"
             "n1       debug* idle                \n"
             "n3       debug* idle                \n"
             "n3          big idle                \n");
}

BOOST_AUTO_TEST_CASE(sinfo_drain_state_matches_draining_and_drained) {
  cluster c;
  c.nodes[0].state = msg::node_state::drained;
  c.nodes[1].state = msg::node_state::draining;
  sinfo_format_options opt;
  opt.format = "%N %T";
  opt.no_header = true;
  opt.partitions = {"debug"};
  opt.states = {"drain"};
  auto out = rendered(render_sinfo(c.parts, c.nodes, {}, opt));
  BOOST_TEST(out.text == "n2 draining\nn1 drained\n");
  // A drained node is idle underneath, as sinfo -t idle finds it.
  opt.states = {"idle"};
  out = rendered(render_sinfo(c.parts, c.nodes, {}, opt));
  BOOST_TEST(out.text == "n1 drained\nn3 idle\n");
}

BOOST_AUTO_TEST_CASE(sinfo_shows_and_filters_the_power_saving_states) {
  cluster c;
  c.nodes[0].power = msg::power_state::powering_up;  // idle#
  c.nodes[0].cloud = true;
  c.nodes[2].power_down_asked = true;  // idle!
  sinfo_format_options opt;
  opt.format = "%N %t %T";
  opt.no_header = true;
  opt.partitions = {"debug"};
  auto out = rendered(render_sinfo(c.parts, c.nodes, {}, opt));
  // Idle nodes with different power marks are different lines.
  BOOST_TEST(out.text == "n2 alloc allocated\nn1 idle# idle#\nn3 idle! idle!\nn4 down down\n");
  opt.states = {"powering_up"};
  BOOST_TEST(rendered(render_sinfo(c.parts, c.nodes, {}, opt)).text == "n1 idle# idle#\n");
  opt.states = {"POWER_DOWN", "cloud"};
  BOOST_TEST(rendered(render_sinfo(c.parts, c.nodes, {}, opt)).text ==
             "n1 idle# idle#\nn3 idle! idle!\n");
  // A CLOUD node powered down and holding no job is left out.
  c.nodes[0].power = msg::power_state::powered_down;
  opt.states.clear();
  BOOST_TEST(rendered(render_sinfo(c.parts, c.nodes, {}, opt)).text ==
             "n2 alloc allocated\nn3 idle! idle!\nn4 down down\n");
}

BOOST_AUTO_TEST_CASE(sinfo_default_partition_star_takes_the_last_place_when_narrow) {
  cluster c;
  sinfo_format_options opt;
  opt.format = "%.5P|%4P";
  opt.no_header = true;
  opt.partitions = {"debug"};
  opt.sort = "P";
  auto out = rendered(render_sinfo(c.parts, c.nodes, {}, opt));
  BOOST_TEST(out.text == "debu*|deb*\n");
}

BOOST_AUTO_TEST_CASE(sinfo_unknown_letters_print_as_typed_with_sinfos_error) {
  cluster c;
  sinfo_format_options opt;
  opt.format = "%P%Q";
  opt.no_header = true;
  opt.partitions = {"big"};
  auto out = rendered(render_sinfo(c.parts, c.nodes, {}, opt));
  BOOST_TEST(out.text == "big%Q\n");
  BOOST_REQUIRE_EQUAL(out.errors.size(), 1u);
  BOOST_TEST(out.errors[0] == "Invalid node format specification: Q");
}

BOOST_AUTO_TEST_SUITE_END()
