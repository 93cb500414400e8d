// scontrol show job on a live cluster, through Slurm's command name: a pending, a running and a
// finished batch job each print the keys real Slurm 22.05 prints for a job in that state, line
// by line and in order (test/data/slurm-22.05/show_job_*.txt, taken from Debian's slurm-wlm;
// see test/unit/cli_format/slurm_show_test.cpp), with shoal's values in Slurm's forms;
// -o keeps Slurm's last blank; an array's id shows the array's record and its tasks.

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// Each line's keys: the words' text before '=' ("AllocNode:Sid", "NtasksPerN:B:S:C").
std::vector<std::string> key_lines(const std::string& record) {
  std::vector<std::string> out;
  for (auto& line : lines_of(record)) {
    std::istringstream in(line);
    std::string keys;
    for (std::string w; in >> w;) keys += (keys.empty() ? "" : " ") + w.substr(0, w.find('='));
    out.push_back(keys);
  }
  return out;
}

/// `record` has the keys of Slurm's output `reference`, in the same lines and order; shoal's own
/// lines after Slurm's keys (what the job's steps used: TotalCPU..., MaxRSS...) aside.
void check_keys(const std::string& record, const std::string& reference) {
  auto got = key_lines(record);
  for (auto own : {"TotalCPU UserCPU SystemCPU", "MaxRSS MaxRSSNode MaxVMSize DiskRead DiskWrite"})
    got.erase(std::remove(got.begin(), got.end(), own), got.end());
  auto want = key_lines(read_file(data_path("slurm-22.05/" + reference + ".txt")));
  BOOST_CHECK_EQUAL_COLLECTIONS(got.begin(), got.end(), want.begin(), want.end());
}

/// The value of `key` in a record ("" when absent).
std::string value_of(const std::string& record, const std::string& key) {
  auto at = record.find(" " + key + "=");
  if (at == std::string::npos) at = record.find("\n" + key + "=");
  if (at == std::string::npos) return "";
  auto begin = at + key.size() + 2;
  return record.substr(begin, record.find_first_of(" \n", begin) - begin);
}

bool ends_with(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() &&
         text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

/// GroupId as Slurm prints it for the user running the tests: the primary group's name(gid).
std::string own_group() {
  auto* pw = getpwuid(getuid());
  if (pw == nullptr) return "";
  auto* gr = getgrgid(pw->pw_gid);
  return std::string{gr != nullptr ? gr->gr_name : "(null)"} + "(" + std::to_string(pw->pw_gid) +
         ")";
}

/// One node of two CPUs: a job asking both holds the node, and the next one waits.
struct one_two_cpu_node : cluster_fixture {
  one_two_cpu_node() : cluster_fixture(1, "", "CPUs=2") {}

  command_result slurm(const std::string& name, const std::vector<std::string>& args) {
    std::vector<std::string> argv{bin_path("slurm-names/" + name)};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_command(argv, {{{"SHOAL_CONF", conf}}, std::nullopt, scratch.path(), 60s});
  }

  uint64_t sbatch(const std::vector<std::string>& args) {
    auto r = slurm("sbatch", args);
    BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
    return std::stoull(r.out);
  }

  std::string show(uint64_t id) {
    auto r = slurm("scontrol", {"show", "job", std::to_string(id)});
    BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
    return r.out;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(slurm_show_job, one_two_cpu_node)

BOOST_AUTO_TEST_CASE(pending_running_and_finished_jobs_print_slurms_keys_in_slurms_lines) {
  auto failed = sbatch({"--parsable", "-J", "fail", "--mem=500", "--comment", "sweep 7", "-o",
                        "out-%x-%j.txt", "-e", scratch.file("err-%j.txt"), "--wrap", "exit 3"});
  BOOST_REQUIRE(wait_job_state(failed, "FAILED"));
  auto running = sbatch({"--parsable", "-c", "2", "-t", "3", "--wrap", "sleep 300"});
  BOOST_REQUIRE(wait_job_state(running, "RUNNING"));
  auto held = sbatch({"--parsable", "-H", "-J", "held", "-t", "10", "--wrap", "true"});

  auto shown = show(failed);
  check_keys(shown, "show_job_failed");
  BOOST_CHECK_EQUAL(value_of(shown, "ExitCode"), "3:0");
  BOOST_CHECK_EQUAL(value_of(shown, "GroupId"), own_group());
  BOOST_CHECK_EQUAL(value_of(shown, "MinMemoryNode"), "500M");
  BOOST_CHECK_EQUAL(value_of(shown, "BatchHost"), "node1");
  BOOST_CHECK_EQUAL(value_of(shown, "StdOut"),
                    scratch.file("out-fail-" + std::to_string(failed) + ".txt"));
  BOOST_CHECK_EQUAL(value_of(shown, "StdErr"),
                    scratch.file("err-" + std::to_string(failed) + ".txt"));
  BOOST_CHECK_EQUAL(value_of(shown, "StdIn"), "/dev/null");
  // What its batch step used, on shoal's lines after Slurm's keys.
  BOOST_CHECK_MESSAGE(shown.find("\n   TotalCPU=") != std::string::npos, shown);

  shown = show(running);
  check_keys(shown, "show_job_running");
  BOOST_CHECK_EQUAL(value_of(shown, "TimeLimit"), "00:03:00");
  BOOST_CHECK_EQUAL(value_of(shown, "NumCPUs"), "2");
  BOOST_CHECK_EQUAL(value_of(shown, "MinCPUsNode"), "2");
  BOOST_CHECK_EQUAL(value_of(shown, "StdErr"), value_of(shown, "StdOut"));
  BOOST_CHECK_MESSAGE(ends_with(shown, "\n   Power=\n   \n\n"), shown);

  shown = show(held);
  check_keys(shown, "show_job_held");
  for (auto key : {"EligibleTime", "AccrueTime", "StartTime", "EndTime"})
    BOOST_CHECK_MESSAGE(value_of(shown, key) == "Unknown", key << " in\n" << shown);
  BOOST_CHECK_EQUAL(value_of(shown, "Reason"), "JobHeldUser");
  BOOST_CHECK_EQUAL(value_of(shown, "NodeList"), "");

  // -o: one line, ending as Slurm's does with the blank of its last (empty) line.
  auto one = slurm("scontrol", {"-o", "show", "job", std::to_string(running)});
  BOOST_REQUIRE_MESSAGE(one.exit_code == 0, one.describe());
  BOOST_CHECK_EQUAL(lines_of(one.out).size(), 1u);
  BOOST_CHECK_MESSAGE(ends_with(one.out, " Power= \n"), one.out);
}

BOOST_AUTO_TEST_CASE(an_arrays_id_shows_its_pending_record_and_each_started_task) {
  auto array = sbatch({"--parsable", "--array=1-4%1", "--wrap", "sleep 300"});
  auto a = std::to_string(array);
  std::string shown;
  BOOST_CHECK_MESSAGE(wait_until(
                          [&] {
                            shown = show(array);
                            return contains(shown, "ArrayTaskId=1 ");
                          },
                          30s),
                      shown);
  auto first = shown.substr(0, shown.find('\n'));
  BOOST_CHECK_EQUAL(first, "JobId=" + a + " ArrayJobId=" + a +
                               " ArrayTaskId=2-4%1 ArrayTaskThrottle=1 JobName=wrap");
  BOOST_CHECK_EQUAL(value_of(shown, "Reason"), "JobArrayTaskLimit");
  // The array's own record has no task: Slurm's NO_VAL in its output file name.
  BOOST_CHECK_EQUAL(value_of(shown, "StdOut"), scratch.file("slurm-" + a + "_4294967294.out"));
  BOOST_CHECK_EQUAL(count_lines_with(shown, "JobId="), 2u);
  // The started task shows its array's throttle too, also asked for alone.
  BOOST_CHECK_MESSAGE(contains(shown, " ArrayJobId=" + a + " ArrayTaskId=1 ArrayTaskThrottle=1 "),
                      shown);
  auto task = slurm("scontrol", {"show", "job", a + "_1"});
  BOOST_CHECK_MESSAGE(contains(task.out, " ArrayTaskId=1 ArrayTaskThrottle=1 JobName=wrap\n"),
                      task.describe());
  // squeue's array letters as Slurm 22.05 printed them for `--array=1-8%2` while 1-2 ran:
  // "4_[3-8%2]|4|4|3-8%2|JobArrayTaskLimit" and "4_1|5|4|1|None".
  auto q = slurm("squeue", {"-h", "-o", "%i|%A|%F|%K|%r"});
  BOOST_CHECK_MESSAGE(contains(q.out, a + "_[2-4%1]|" + a + "|" + a + "|2-4%1|JobArrayTaskLimit\n"),
                      q.out);
  BOOST_CHECK_MESSAGE(contains(q.out, a + "_1|"), q.out);
  BOOST_CHECK_MESSAGE(contains(q.out, "|" + a + "|1|None\n"), q.out);
}

BOOST_AUTO_TEST_SUITE_END()
