// scontrol show job, node and partition against real Slurm: each file in
// test/data/slurm-22.05/show_*.txt is the output of Debian's slurm-wlm 22.05.8 (one slurmctld
// and one slurmd on a host "vm" with two CPUs and RealMemory=1000, cons_tres with CR_Core,
// TZ=UTC) for the job or state named below. The records here carry what shoal's controller
// holds for the same; the rendering must give the same text byte for byte, except the values
// shoal does not record, masked on both sides, and shoal's own lines after Slurm's.

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>

#include "tools/format/listing.hpp"

using namespace shoal;

namespace {

/// 2026-11-28T01:50:46Z, when the reference slurmctld started.
constexpr int64_t t0 = 1'795'830'646;

struct utc {
  utc() {
    ::setenv("TZ", "UTC", 1);
    ::tzset();
  }
};

std::string slurm_output(const std::string& name) {
  std::ifstream in{std::string{SHOAL_TEST_DATA} + "/slurm-22.05/" + name + ".txt"};
  BOOST_REQUIRE_MESSAGE(in.good(), name << " is missing");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Each "Key=value" of `keys` becomes "Key=*": the submitting host and session (AllocNode:Sid)
/// are not in shoal's job record, and some times depend on when Slurm's scheduler ran.
std::string masked(std::string text, std::initializer_list<const char*> keys) {
  for (auto key : keys) {
    std::string k = std::string{key} + "=";
    for (auto pos = text.find(k); pos != std::string::npos; pos = text.find(k, pos + 1)) {
      if (pos != 0 && text[pos - 1] != ' ') continue;
      auto begin = pos + k.size();
      auto end = text.find_first_of(" \n", begin);
      text.replace(begin, end - begin, "*");
    }
  }
  return text;
}

void check_against_slurm(const std::string& name, const std::string& shoal_text,
                         std::initializer_list<const char*> unknown) {
  auto want = masked(slurm_output(name), unknown);
  auto got = masked(shoal_text, unknown);
  BOOST_TEST(got == want, name << ": shoal printed\n" << got << "Slurm printed\n" << want);
}

/// `sbatch --wrap=...` as root from /tmp/rs/work, as the reference jobs were submitted.
msg::job_info batch_job(uint64_t id, const std::string& name) {
  msg::job_info j;
  j.job_id = id;
  j.name = name;
  j.user = "root";
  j.uid = 0;
  j.partition = "debug";
  j.batch = true;
  j.requeue = true;
  j.work_dir = "/tmp/rs/work";
  j.stdout_path = "/tmp/rs/work/slurm-" + std::to_string(id) + ".out";
  j.node_count = 1;
  j.ntasks = 1;
  j.cpus_per_task = 1;
  return j;
}

const cli::group_entry root_group{0, "root"};

/// `text` without the whole lines that start (after the indentation) with one of `keys`, and
/// without the key=value pairs of `pairs`: what one side prints and the other has not.
std::string without(std::string text, std::initializer_list<const char*> keys,
                    std::initializer_list<const char*> pairs = {}) {
  for (auto key : keys)
    for (auto pos = text.find(std::string{"\n   "} + key + "="); pos != std::string::npos;
         pos = text.find(std::string{"\n   "} + key + "=", pos))
      text.erase(pos, text.find('\n', pos + 1) - pos);
  // scontrol prints each such pair as "key=value " (the last of its line without the blank).
  for (auto pair : pairs)
    if (auto pos = text.find(std::string{" "} + pair + "="); pos != std::string::npos) {
      auto end = text.find_first_of(" \n", pos + 1);
      if (text[end] == ' ') ++end;
      text.erase(pos + 1, end - pos - 1);
    }
  return text;
}

/// The slurmd on "vm" as shoal's controller would hold it.
msg::node_info vm_node() {
  msg::node_info n;
  n.name = "vm";
  n.address = "vm";
  n.hostname = "vm";
  n.cpus = 2;
  n.real_memory_mb = 1000;
  n.partitions = {"debug"};
  n.reported.cores_per_socket = 1;
  n.reported.sockets = 2;
  n.reported.threads_per_core = 1;
  n.reported.os = "Linux 6.18.44-fc-v657 #1 SMP PREEMPT_DYNAMIC @0";
  n.reported.boot_time = 1'795'774'690;
  n.reported.daemon_start_time = 1'795'830'646;
  return n;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(scontrol_show_as_slurm, utc)

// sbatch --time=3 --wrap "sleep 600", eight seconds after it started.
BOOST_AUTO_TEST_CASE(running_job) {
  auto j = batch_job(2, "wrap");
  j.state = msg::job_state::running;
  j.priority = 4294901758;
  j.time_limit_s = 180;
  j.submit_time = t0 + 9;
  j.start_time = t0 + 12;
  j.nodelist = "vm";
  check_against_slurm("show_job_running", cli::show_job(j, t0 + 20, nullptr, &root_group),
                      {"AllocNode:Sid"});
}

// srun -J inter sleep 8, three seconds in: no batch lines, the program alone as Command.
BOOST_AUTO_TEST_CASE(interactive_job) {
  auto j = batch_job(14, "inter");
  j.batch = false;
  j.requeue = false;
  j.stdout_path.clear();
  j.command = "sleep 8";
  j.state = msg::job_state::running;
  j.priority = 4294901749;
  j.submit_time = j.start_time = t0 + 1998;
  j.nodelist = "vm";
  // Slurm requeues interactive jobs too (JobRequeue=1); shoal requeues batch jobs only.
  check_against_slurm("show_job_srun", cli::show_job(j, t0 + 2001, nullptr, &root_group),
                      {"AllocNode:Sid", "Requeue"});
}

// sbatch --time=3 --wrap "sleep 1", after it ended.
BOOST_AUTO_TEST_CASE(completed_job) {
  auto j = batch_job(1, "wrap");
  j.state = msg::job_state::completed;
  j.priority = 4294901759;
  j.time_limit_s = 180;
  j.submit_time = t0 + 5;
  j.start_time = t0 + 6;
  j.end_time = t0 + 7;
  j.nodelist = "vm";
  check_against_slurm("show_job_completed", cli::show_job(j, t0 + 60, nullptr, &root_group),
                      {"AllocNode:Sid"});
}

// sbatch -J fail --mem=500 -c 2 -o out-%x-%j.txt -e /tmp/rs/work/err-%j.txt --comment "sweep 7"
// --wrap "exit 3": relative and absolute output patterns, memory in Slurm's units, the comment.
BOOST_AUTO_TEST_CASE(failed_job_with_output_patterns_memory_and_comment) {
  auto j = batch_job(8, "fail");
  j.state = msg::job_state::failed;
  j.reason = "NonZeroExitCode";
  j.exit_code = 3;
  j.priority = 4294901755;
  j.submit_time = j.start_time = j.end_time = t0 + 356;
  j.nodelist = "vm";
  j.cpus_per_task = 2;
  j.mem_per_node_mb = 500;
  j.comment = "sweep 7";
  j.stdout_path = "out-%x-%j.txt";
  j.stderr_path = "/tmp/rs/work/err-%j.txt";
  // Slurm's allocated TRES leave memory out under CR_Core; shoal always holds memory it was asked.
  check_against_slurm("show_job_failed", cli::show_job(j, t0 + 400, nullptr, &root_group),
                      {"AllocNode:Sid", "TRES"});
}

// sbatch -H -J held --time=10 --wrap true: held, so never eligible.
BOOST_AUTO_TEST_CASE(held_pending_job) {
  auto j = batch_job(7, "held");
  j.state = msg::job_state::pending;
  j.reason = "JobHeldUser";
  j.time_limit_s = 600;
  j.submit_time = t0 + 356;
  msg::pending_detail d;
  d.job_id = 7;
  d.priority = 0;
  // Slurm's requested TRES hold the node's whole memory by default (no DefMemPerNode).
  check_against_slurm("show_job_held", cli::show_job(j, t0 + 360, &d, &root_group),
                      {"AllocNode:Sid", "LastSchedEval", "TRES"});
}

// sbatch --array=1-8%2 --wrap "sleep 600" while tasks 1 and 2 run: the array's own record.
BOOST_AUTO_TEST_CASE(throttled_array_record) {
  auto j = batch_job(4, "wrap");
  j.state = msg::job_state::pending;
  j.reason = "JobArrayTaskLimit";
  j.priority = 4294901756;
  j.array_job_id = 4;
  j.array_task_id = -1;
  j.array_tasks = "3-8%2";
  j.submit_time = t0 + 22;
  j.stdout_path = "/tmp/rs/work/slurm-%A_%a.out";
  msg::pending_detail d;
  d.job_id = 4;
  d.priority = 4294901756;
  // Slurm's array record shows EligibleTime=Unknown and accrues from its first pass.
  check_against_slurm("show_job_array", cli::show_job(j, t0 + 30, &d, &root_group),
                      {"AllocNode:Sid", "LastSchedEval", "TRES", "EligibleTime", "AccrueTime"});
}

// One job of one CPU running on the node: MIXED, one CPU in CPUAlloc and AllocTRES.
BOOST_AUTO_TEST_CASE(node_running_a_job_on_some_of_its_cpus) {
  auto n = vm_node();
  n.state = msg::node_state::mixed;
  n.last_busy = 1'795'831'484;
  cli::node_use use{1, 0};
  // Slurm's slurmd reports its Arch and Version, and the load and free memory it measures.
  auto want = without(slurm_output("show_node_mixed"), {}, {"Arch", "Version"});
  auto got = without(cli::show_node(n, t0, &use), {"LastResponse", "ReportedCPUs"});
  BOOST_TEST(
      masked(got, {"CPULoad", "FreeMem"}) == masked(want, {"CPULoad", "FreeMem"}), "shoal:\n"
                                                                                       << got
                                                                                       << "Slurm:\n"
                                                                                       << want);
}

// The node's own figures from its daemon: CPULoad in Slurm's form on Slurm's line, the rest on a
// line of shoal's after Slurm's lines; nothing else moves.
BOOST_AUTO_TEST_CASE(node_with_its_own_figures) {
  auto plain = vm_node();
  plain.state = msg::node_state::idle;
  auto n = plain;
  n.usage.sampled_at = t0;
  n.usage.load1 = 0.527;
  n.usage.load5 = 0.4;
  n.usage.load15 = 0.31;
  n.usage.user_ms = 123'456;
  n.usage.system_ms = 3'600'000;
  n.usage.idle_ms = 90'061'000;
  n.usage.mem_total_bytes = 1000ull << 20;
  n.usage.mem_available_bytes = 512ull << 20;
  auto got = cli::show_node(n, t0);
  BOOST_CHECK_MESSAGE(got.find(" CPULoad=0.52\n") != std::string::npos, got);
  BOOST_CHECK_MESSAGE(got.find("\n   LoadAverage=0.53,0.40,0.31 UserTime=00:02:03 "
                               "KernelTime=01:00:00 IdleTime=1-01:01:01 MemAvailable=512 "
                               "UsageTime=2026-11-28T01:50:46\n") != std::string::npos,
                      got);
  BOOST_CHECK_EQUAL(masked(without(got, {"LoadAverage"}), {"CPULoad"}),
                    masked(cli::show_node(plain, t0), {"CPULoad"}));
  BOOST_CHECK(cli::show_node(plain, t0).find(" CPULoad=N/A\n") != std::string::npos);
}

// What a job's ended steps used, in sacct's words on two lines of shoal's after Slurm's keys.
BOOST_AUTO_TEST_CASE(job_with_what_its_steps_used) {
  auto plain = batch_job(5, "wrap");
  plain.state = msg::job_state::completed;
  plain.submit_time = t0;
  plain.start_time = t0 + 1;
  plain.end_time = t0 + 5;
  plain.nodelist = "vm";
  auto j = plain;
  j.usage.user_cpu_us = 2'003'000;
  j.usage.system_cpu_us = 10'000;
  j.usage.max_rss_bytes = 200u << 20;
  j.usage.max_rss_node = "vm";
  j.usage.read_bytes = 4096;
  auto got = cli::show_job(j, t0 + 10, nullptr, &root_group);
  BOOST_CHECK_MESSAGE(got.find("\n   TotalCPU=00:02.013 UserCPU=00:02.003 SystemCPU=00:00.010\n"
                               "   MaxRSS=200M MaxRSSNode=vm MaxVMSize=0 DiskRead=4K "
                               "DiskWrite=0\n   \n") != std::string::npos,
                      got);
  BOOST_CHECK_EQUAL(without(got, {"TotalCPU", "MaxRSS"}),
                    cli::show_job(plain, t0 + 10, nullptr, &root_group));
}

// scontrol update nodename=vm state=drain reason="disk swap" on an idle node.
BOOST_AUTO_TEST_CASE(drained_node_with_its_reason) {
  auto n = vm_node();
  n.state = msg::node_state::drained;
  n.last_busy = 1'795'831'491;
  n.reason = "disk swap";
  n.reason_user = "root";
  n.reason_time = 1'795'831'588;
  auto want = without(slurm_output("show_node_drained"), {}, {"Arch", "Version"});
  auto got = without(cli::show_node(n, t0), {"LastResponse", "ReportedCPUs"});
  BOOST_TEST(
      masked(got, {"CPULoad", "FreeMem"}) == masked(want, {"CPULoad", "FreeMem"}), "shoal:\n"
                                                                                       << got
                                                                                       << "Slurm:\n"
                                                                                       << want);
}

// PartitionName=debug Nodes=vm Default=YES MaxTime=INFINITE State=UP.
BOOST_AUTO_TEST_CASE(partition) {
  msg::partition_info p;
  p.name = "debug";
  p.is_default = true;
  p.nodes = {"vm"};
  auto got = without(cli::show_partition(p, {vm_node()}), {"NodeStates"});
  auto want = slurm_output("show_partition");
  BOOST_TEST(got == want, "shoal:\n" << got << "Slurm:\n" << want);
}

BOOST_AUTO_TEST_SUITE_END()
