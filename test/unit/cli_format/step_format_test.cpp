// Job steps as squeue -s and scontrol show step print them (Slurm 22.05's src/squeue/print.c step
// fields, squeue.c's default step format, sort.c's sort_step_list, src/api/job_step_info.c's
// slurm_sprint_job_step_info): each expected line follows from those printf formats.

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "messages/errc.hpp"
#include "tools/format/step_format.hpp"

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

msg::step_info step(uint64_t job, uint32_t id, const std::string& name) {
  msg::step_info s;
  s.job_id = job;
  s.step_id = id;
  s.name = name;
  s.user = "alice";
  s.uid = 1000;
  s.partition = "debug";
  s.start_time = now - 65;
  s.nodelist = "node2,node1";
  s.node_count = 2;
  s.ntasks = 4;
  s.cpus = 4;
  s.distribution = "Block";
  s.srun_host = "login1";
  s.srun_pid = 4242;
  return s;
}

msg::step_info batch_step(uint64_t job) {
  auto s = step(job, msg::batch_step_id, "batch");
  s.nodelist = "node1";
  s.node_count = 1;
  s.ntasks = 1;
  s.cpus = 2;
  s.mem_mb = 2000;
  s.distribution.clear();
  s.srun_host.clear();
  s.srun_pid = 0;
  return s;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(step_format, utc)

BOOST_AUTO_TEST_CASE(squeue_s_default_format_sorts_by_partition_then_step_id) {
  // sort P,i: job 12's steps 0, 1, then batch (numbered above them), then job 13's.
  std::vector<msg::step_info> steps{step(13, 0, "other"), batch_step(12), step(12, 1, "sleep"),
                                    step(12, 0, "a_long_step_name")};
  auto out = render_squeue_steps(steps, {}, now);
  BOOST_CHECK(out.errors.empty());
  BOOST_CHECK_EQUAL(out.text,
                    "         STEPID     NAME PARTITION     USER      TIME NODELIST\n"
                    "           12.0 a_long_s     debug    alice      1:05 node[1-2]\n"
                    "           12.1    sleep     debug    alice      1:05 node[1-2]\n"
                    "       12.batch    batch     debug    alice      1:05 node1\n"
                    "           13.0    other     debug    alice      1:05 node[1-2]\n");
}

BOOST_AUTO_TEST_CASE(squeue_s_letters_and_long_names) {
  auto s = step(12, 0, "mpi");
  s.array_job_id = 10;
  s.array_task_id = 3;
  s.time_limit_s = 600;
  squeue_format_options opt;
  opt.no_header = true;
  opt.format = "%i|%j|%P|%u|%U|%M|%l|%S|%N|%A|%b";
  auto out = render_squeue_steps({s}, opt, now);
  BOOST_CHECK_EQUAL(
      out.text, "10_3.0|mpi|debug|alice|1000|1:05|10:00|2025-12-31T23:58:55|node[1-2]|4|(null)\n");
  opt.format.clear();
  opt.no_header = false;
  opt.long_format = "StepId:8,JobId:4,ArrayJobId:4,ArrayTaskId:4,NumCPUs:3,StepState:8,Network";
  out = render_squeue_steps({step(12, 0, "x")}, opt, now);
  BOOST_CHECK(out.errors.empty());
  BOOST_CHECK_EQUAL(out.text,
                    "STEPID  JOB_ARRAARRANUM"
                    "STATE   NETWORK             \n"
                    "12.0    12  0   N/A 4  RUNNING (null)              \n");
  // A letter squeue's step parser lacks: as squeue prints it, with its error line.
  opt.long_format.clear();
  opt.format = "%i %t";
  out = render_squeue_steps({step(12, 0, "x")}, opt, now);
  BOOST_REQUIRE_EQUAL(out.errors.size(), 1u);
  BOOST_CHECK_EQUAL(out.errors[0], "Invalid job step format specification: t");
  opt.format.clear();
  opt.long_format = "stepid,bogus";
  out = render_squeue_steps({step(12, 0, "x")}, opt, now);
  BOOST_REQUIRE_EQUAL(out.errors.size(), 1u);
  BOOST_CHECK_EQUAL(out.errors[0], "Invalid job step format specification: bogus");
}

BOOST_AUTO_TEST_CASE(scontrol_show_step_in_slurm_sprint_job_step_infos_order) {
  auto s = step(12, 0, "mpi");
  s.time_limit_s = 3600;
  s.tres_per_node = "gres:gpu:1";
  BOOST_CHECK_EQUAL(show_step(s),
                    "StepId=12.0 UserId=1000 StartTime=2025-12-31T23:58:55 TimeLimit=01:00:00\n"
                    "   State=RUNNING Partition=debug NodeList=node[1-2]\n"
                    "   Nodes=2 CPUs=4 Tasks=4 Name=mpi Network=(null)\n"
                    "   TRES=cpu=4,mem=0,node=2\n"
                    "   ResvPorts=(null)\n"
                    "   CPUFreqReq=Default Dist=Block\n"
                    "   SrunHost:Pid=login1:4242\n"
                    "   TresPerNode=gres:gpu:1\n\n");
  BOOST_CHECK_EQUAL(
      show_step(batch_step(12)),
      "StepId=12.batch UserId=1000 StartTime=2025-12-31T23:58:55 TimeLimit=UNLIMITED\n"
      "   State=RUNNING Partition=debug NodeList=node1\n"
      "   Nodes=1 CPUs=2 Tasks=1 Name=batch Network=(null)\n"
      "   TRES=cpu=2,mem=2000M,node=1\n"
      "   ResvPorts=(null)\n"
      "   CPUFreqReq=Default\n"
      "   SrunHost:Pid=(null):0\n\n");
  auto task = step(14, 1, "t");
  task.array_job_id = 10;
  task.array_task_id = 3;
  BOOST_CHECK_EQUAL(show_step(task).rfind("StepId=10_3.1 UserId=1000 ", 0), 0u);
}

BOOST_AUTO_TEST_CASE(step_lists_as_squeue_reads_them) {
  auto list = parse_step_list("12.0,10_3.batch,,13.2");
  BOOST_REQUIRE(list);
  BOOST_REQUIRE_EQUAL(list->size(), 3u);
  BOOST_CHECK((*list)[0].job_id == 12 && (*list)[0].step_id == 0 && (*list)[0].array_task < 0);
  BOOST_CHECK((*list)[1].job_id == 10 && (*list)[1].array_task == 3 &&
              (*list)[1].step_id == msg::batch_step_id);
  auto bare = parse_step_list("12");
  BOOST_REQUIRE(!bare);
  BOOST_CHECK_EQUAL(describe(bare.error()), "Invalid job_step id: 12.??");
  BOOST_CHECK(!parse_step_list("0.1"));
  BOOST_CHECK(!parse_step_list("12.-1"));
  // A job id names its own steps and, for an array, every task's.
  auto s = step(14, 1, "t");
  s.array_job_id = 10;
  s.array_task_id = 3;
  BOOST_CHECK(step_selected(s, {14, -1, 1}));
  BOOST_CHECK(step_selected(s, {10, -1, msg::all_steps}));
  BOOST_CHECK(step_selected(s, {10, 3, 1}));
  BOOST_CHECK(!step_selected(s, {10, 4, 1}));
  BOOST_CHECK(!step_selected(s, {14, -1, 0}));
  BOOST_CHECK_EQUAL(step_id_text(s), "10_3.1");
}

BOOST_AUTO_TEST_SUITE_END()
