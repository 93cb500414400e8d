// Job steps as Slurm 22.05 lists them, on a live cluster through Slurm's command names: `squeue
// -s` (src/squeue/squeue.c's default step format "%.15i %.8j %.9P %.8u %.9M %N", print.c's step
// fields, opts.c's --steps list) and `scontrol show step` (src/api/job_step_info.c,
// slurm_sprint_job_step_info), for an srun's own job (step 0) and a batch job's steps (ID.batch
// as slurmctld's build_batch_step makes it, then the srun steps inside).

#include <pwd.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <csignal>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::string me() {
  auto* pw = ::getpwuid(::geteuid());
  return pw != nullptr ? pw->pw_name : std::to_string(::geteuid());
}

struct step_cluster : two_nodes {
  command_options in_scratch(millis timeout = 60s) const {
    return {{{"SHOAL_CONF", conf}}, std::nullopt, scratch.path(), timeout};
  }

  /// Runs one of Slurm's command names (a link to shoal) with the cluster's config.
  command_result slurm(const std::string& name, const std::vector<std::string>& args) {
    std::vector<std::string> argv{bin_path("slurm-names/" + name)};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_command(argv, in_scratch());
  }

  /// Starts one of Slurm's command names and returns at once.
  std::unique_ptr<child_process> start_slurm(const std::string& name,
                                             const std::vector<std::string>& args) {
    std::vector<std::string> argv{bin_path("slurm-names/" + name)};
    argv.insert(argv.end(), args.begin(), args.end());
    return std::make_unique<child_process>(argv, in_scratch(120s));
  }

  /// Polls `squeue -s -h -o %i` until it lists every id of `ids`.
  bool wait_steps(const std::vector<std::string>& ids) {
    return wait_until(
        [&] {
          auto r = slurm("squeue", {"-s", "-h", "-o", "%i"});
          for (auto& id : ids)
            if (!contains("\n" + r.out, "\n" + id + "\n")) return false;
          return true;
        },
        30s);
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(job_steps, step_cluster)

BOOST_AUTO_TEST_CASE(an_sruns_own_job_lists_step_0_as_squeue_and_scontrol_do) {
  auto srun = start_slurm("srun", {"-N2", "-n2", "-J", "inter", "-t", "10", "sleep", "100"});
  BOOST_REQUIRE(wait_until([&] { return jobs().size() == 1; }, 30s));
  auto id = std::to_string(jobs()[0].value("job_id", uint64_t{0}));
  BOOST_REQUIRE(wait_steps({id + ".0"}));

  auto r = slurm("squeue", {"-s"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto lines = lines_of(r.out);
  BOOST_REQUIRE_EQUAL(lines.size(), 2u);
  // "%.15i %.8j %.9P %.8u %.9M %N": right-justified to 15, 8, 9, 8 and 9 columns.
  BOOST_CHECK_EQUAL(lines[0], "         STEPID     NAME PARTITION     USER      TIME NODELIST");
  auto w = words(lines[1]);
  BOOST_REQUIRE_EQUAL(w.size(), 6u);
  BOOST_CHECK_EQUAL(w[0], id + ".0");
  BOOST_CHECK_EQUAL(w[1], "inter");
  BOOST_CHECK_EQUAL(w[2], "debug");
  BOOST_CHECK_EQUAL(w[3], me().substr(0, 8));
  BOOST_CHECK(std::regex_match(w[4], std::regex{"[0-9]+:[0-9]{2}"}));
  BOOST_CHECK_EQUAL(w[5], "node[1-2]");
  BOOST_CHECK_EQUAL(lines[1].size(), 15u + 1 + 8 + 1 + 9 + 1 + 8 + 1 + 9 + 1 + 9);

  // The step fields of -o and -O.
  r = slurm("squeue", {"-s", "-h", "-o", "%i|%j|%P|%U|%l|%N|%A|%b"});
  BOOST_CHECK_EQUAL(
      r.out, id + ".0|inter|debug|" + std::to_string(::geteuid()) + "|10:00|node[1-2]|2|(null)\n");
  r = slurm("squeue", {"-s", "-h", "-O",
                       "StepId:10,StepName:8,JobId:6,NumTasks:4,NumCPUs:4,"
                       "StepState:8,ArrayJobId:4,ArrayTaskId:4"});
  BOOST_CHECK_EQUAL(r.out, (id + ".0").append(10 - id.size() - 2, ' ') + "inter   " + id +
                               std::string(6 - id.size(), ' ') + "2   2   RUNNING 0   N/A \n");

  // scontrol show step: slurm_sprint_job_step_info's keys in its order.
  r = slurm("scontrol", {"show", "step", id + ".0"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  std::regex record{"StepId=" + id + R"(\.0 UserId=)" + std::to_string(::geteuid()) +
                    R"( StartTime=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d TimeLimit=00:10:00
   State=RUNNING Partition=debug NodeList=node\[1-2\]
   Nodes=2 CPUs=2 Tasks=2 Name=inter Network=\(null\)
   TRES=cpu=2,mem=0,node=2
   ResvPorts=\(null\)
   CPUFreqReq=Default Dist=Block
   SrunHost:Pid=[^:\s]+:)" +
                    std::to_string(srun->pid()) + "\n\n"};
  BOOST_CHECK_MESSAGE(std::regex_match(r.out, record), r.out);
  // -o: one line; `show steps` without an id lists every step.
  r = slurm("scontrol", {"-o", "show", "steps"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_REQUIRE_EQUAL(lines_of(r.out).size(), 1u);
  BOOST_CHECK(contains(r.out, " State=RUNNING Partition=debug NodeList=node[1-2] Nodes=2 "));
  BOOST_CHECK(contains(r.out, " CPUFreqReq=Default Dist=Block SrunHost:Pid="));

  // Gone once the srun ends.
  ::kill(srun->pid(), SIGKILL);
  srun->finish();
  BOOST_CHECK(wait_until([&] { return slurm("squeue", {"-s", "-h"}).out.empty(); }, 30s));
  r = slurm("scontrol", {"show", "steps"});
  BOOST_CHECK_EQUAL(r.out, "No job steps in the system\n");
}

BOOST_AUTO_TEST_CASE(a_batch_jobs_steps_list_its_batch_step_first_by_name_last_by_id) {
  write_file(scratch.file("steps.sh"),
             "#!/bin/sh\nsrun -N1 -n1 -J inner sleep 100 &\nsrun -N1 -n1 sleep 100\n", true);
  auto r = slurm("sbatch", {"--parsable", "-N1", "-J", "outer", "-o", "/dev/null", "steps.sh"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto id = lines_of(r.out).at(0);
  BOOST_REQUIRE(wait_steps({id + ".batch", id + ".0", id + ".1"}));

  // squeue's default sort (P,i): numbered steps, then batch (SLURM_BATCH_SCRIPT is above them).
  r = slurm("squeue", {"-s", "-h", "-j", id, "-o", "%i %j %A"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto lines = lines_of(r.out);
  BOOST_REQUIRE_EQUAL(lines.size(), 3u);
  BOOST_CHECK_EQUAL(lines[2], id + ".batch batch 1");
  std::set<std::string> names{words(lines[0]).at(1), words(lines[1]).at(1)};
  BOOST_CHECK((names == std::set<std::string>{"inner", "sleep"}));

  // --steps=LIST and `squeue -s LIST` choose steps.
  r = slurm("squeue", {"--steps=" + id + ".batch", "-h", "-o", "%i"});
  BOOST_CHECK_EQUAL(r.out, id + ".batch\n");
  r = slurm("squeue", {"-s", id + ".0," + id + ".1", "-h", "-o", "%i"});
  BOOST_CHECK_EQUAL(r.out, id + ".0\n" + id + ".1\n");
  r = slurm("squeue", {"-s", id});
  BOOST_CHECK_EQUAL(r.exit_code, 1);
  BOOST_CHECK_EQUAL(r.err, "squeue: error: Invalid job_step id: " + id + ".??\n");

  // The batch step: no limit, one task, no distribution and no srun.
  r = slurm("scontrol", {"show", "step", id + ".batch"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  std::regex record{"StepId=" + id + R"(\.batch UserId=\d+ StartTime=\S+ TimeLimit=UNLIMITED
   State=RUNNING Partition=debug NodeList=node\d
   Nodes=1 CPUs=\d+ Tasks=1 Name=batch Network=\(null\)
   TRES=cpu=\d+,mem=0,node=1
   ResvPorts=\(null\)
   CPUFreqReq=Default
   SrunHost:Pid=\(null\):0

)"};
  BOOST_CHECK_MESSAGE(std::regex_match(r.out, record), r.out);
  // A job's id alone: all its steps; a step it lacks and a job nobody knows, in scontrol's words.
  r = slurm("scontrol", {"show", "step", id});
  BOOST_CHECK_EQUAL(count_lines_with(r.out, "StepId=" + id + "."), 3u);
  r = slurm("scontrol", {"show", "step", id + ".7"});
  BOOST_CHECK_EQUAL(r.exit_code, 1);
  BOOST_CHECK_EQUAL(r.out, "Job step " + id + ".7 not found\n");
  r = slurm("scontrol", {"show", "step", "99999"});
  BOOST_CHECK_EQUAL(r.exit_code, 1);
  BOOST_CHECK_EQUAL(r.err, "slurm_get_job_steps error: Invalid job id specified\n");

  BOOST_REQUIRE_EQUAL(slurm("scancel", {id}).exit_code, 0);
  BOOST_CHECK(wait_until([&] { return slurm("squeue", {"-s", "-h"}).out.empty(); }, 30s));
}

BOOST_AUTO_TEST_CASE(a_restarted_controller_lists_the_steps_it_recovered) {
  auto started = scratch.file("started");
  write_file(scratch.file("inner.sh"),
             "#!/bin/sh\nsrun -N1 -n1 -J inner sh -c 'touch " + started + "; sleep 100'\n", true);
  auto r = slurm("sbatch", {"--parsable", "-N1", "-o", "/dev/null", "inner.sh"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto id = lines_of(r.out).at(0);
  // The step's task runs (a crash while its launch is on its way would lose it).
  BOOST_REQUIRE(wait_until([&] { return ::access(started.c_str(), F_OK) == 0; }, 30s));
  auto before = slurm("squeue", {"-s", "-h", "-o", "%i %j %A %N"}).out;
  cluster.signal_controller(SIGKILL);
  BOOST_REQUIRE_MESSAGE(!cluster.restart_controller({}), "restart failed");
  BOOST_REQUIRE(wait_until([&] { return slurm("squeue", {"-s", "-h"}).exit_code == 0; }, 30s));
  // The record kept each step's listing: the same lines once the daemons confirmed the steps.
  BOOST_CHECK(wait_until(
      [&] {
        return slurm("squeue", {"-s", "-h", "-o", "%i %j %A %N"}).out == before;
      },
      30s));
  BOOST_CHECK(contains(before, id + ".0 inner 1 "));
  BOOST_CHECK(contains(before, id + ".batch batch 1 "));
  BOOST_REQUIRE_EQUAL(slurm("scancel", {id}).exit_code, 0);
}

BOOST_AUTO_TEST_SUITE_END()
