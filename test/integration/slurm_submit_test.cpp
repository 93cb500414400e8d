// The submission options issue 18 item 1 left: sbatch -W (the job's exit code, across a
// controller restart), --test-only (when and where, nothing submitted), --signal (before the
// time limit, to the steps or with B: to the batch shell) and salloc (`shoal alloc`: a command
// with the allocation's variables, steps inside it, released when the command ends).

#include <signal.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <ctime>
#include <regex>
#include <string>
#include <vector>

#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// What `--test-only` printed: the job id, start (Unix seconds), processors, nodes, partition.
struct estimate {
  uint64_t id = 0;
  int64_t start = 0;
  unsigned cpus = 0;
  std::string nodes;
  std::string partition;
};

/// Parses Slurm's one line `PROGRAM: Job N to start at T using C processors on nodes L in
/// partition P`; id 0 when `err` is not exactly that line.
estimate parse_estimate(const std::string& err, const std::string& program) {
  static const std::regex line{
      R"(([a-z]+): Job (\d+) to start at (\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d) using (\d+) )"
      R"(processors on nodes (\S+) in partition (\S+)\n)"};
  std::smatch m;
  estimate e;
  if (!std::regex_match(err, m, line) || m[1] != program) return e;
  std::tm t{};
  t.tm_year = std::stoi(m[3]) - 1900;
  t.tm_mon = std::stoi(m[4]) - 1;
  t.tm_mday = std::stoi(m[5]);
  t.tm_hour = std::stoi(m[6]);
  t.tm_min = std::stoi(m[7]);
  t.tm_sec = std::stoi(m[8]);
  t.tm_isdst = -1;
  e.id = std::stoull(m[2]);
  e.start = static_cast<int64_t>(std::mktime(&t));
  e.cpus = static_cast<unsigned>(std::stoul(m[9]));
  e.nodes = m[10];
  e.partition = m[11];
  return e;
}

/// The id of the one job named `name` the controller lists, or 0.
uint64_t job_named(cluster_fixture& c, const std::string& name) {
  uint64_t found = 0;
  for (auto& j : c.jobs())
    if (j.value("name", "") == name) found = j.value("job_id", uint64_t{0});
  return found;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(slurm_submit, two_nodes)

// -- sbatch -W --------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(wait_exits_with_the_jobs_exit_code) {
  auto ok = run_cli({"batch", "-W", "--wrap=exit 0"});
  BOOST_CHECK_MESSAGE(ok.exit_code == 0, ok.describe());
  auto id = submitted_job_id(ok.out);
  BOOST_REQUIRE_MESSAGE(id != 0, ok.describe());
  // sbatch -W returns once the job has ended: no polling needed here.
  BOOST_CHECK_EQUAL(job_state(id), "COMPLETED");

  auto bad = run_cli({"batch", "--wait", "--parsable", "--wrap=exit 7"});
  BOOST_CHECK_MESSAGE(bad.exit_code == 7, bad.describe());
  auto failed = std::stoull(bad.out);
  BOOST_CHECK_EQUAL(job_state(failed), "FAILED");
  BOOST_CHECK_EQUAL(job(failed).value("exit_code", 0), 7);
}

BOOST_AUTO_TEST_CASE(wait_on_a_cancelled_job_exits_as_sbatch_does) {
  // Running, then cancelled: the script dies of SIGTERM, and sbatch gives 1 for a signal.
  auto running = start_cli({"batch", "-W", "-J", "waited", "--wrap=sleep 300"});
  uint64_t id = 0;
  BOOST_REQUIRE(wait_until([&] { return (id = job_named(*this, "waited")) != 0; }, 30s));
  BOOST_REQUIRE(wait_job_state(id, "RUNNING"));
  BOOST_REQUIRE(run_cli({"cancel", std::to_string(id)}).exit_code == 0);
  auto r = running->finish();
  BOOST_CHECK_MESSAGE(r.exit_code == 1, r.describe());
  BOOST_CHECK_EQUAL(job_state(id), "CANCELLED");
  BOOST_CHECK_EQUAL(job(id).value("exit_signal", 0), SIGTERM);

  // Cancelled before it started: no task ever exited, and sbatch's exit status is 0.
  auto held = start_cli({"batch", "-W", "-H", "-J", "held", "--wrap=true"});
  uint64_t held_id = 0;
  BOOST_REQUIRE(wait_until([&] { return (held_id = job_named(*this, "held")) != 0; }, 30s));
  BOOST_REQUIRE(run_cli({"cancel", std::to_string(held_id)}).exit_code == 0);
  auto h = held->finish();
  BOOST_CHECK_MESSAGE(h.exit_code == 0, h.describe());
  BOOST_CHECK_EQUAL(job_state(held_id), "CANCELLED");
}

BOOST_AUTO_TEST_CASE(wait_follows_the_job_across_a_controller_restart) {
  auto gate = scratch.file("gate");
  auto started = scratch.file("started");
  command_options opt;
  opt.timeout = 120s;
  auto waiting = start_cli(
      {"batch", "-W",
       "--wrap=touch " + started + "; while [ ! -e " + gate + " ]; do sleep 0.2; done; exit 5"},
      opt);
  BOOST_REQUIRE(wait_until([&] { return path_exists(started); }, 30s));
  cluster.signal_controller(SIGKILL);
  BOOST_REQUIRE(!cluster.restart_controller());
  BOOST_REQUIRE(wait_until([&] { return run_cli({"queue"}).exit_code == 0; }, 30s));
  write_file(gate, "");
  auto r = waiting->finish();
  BOOST_CHECK_MESSAGE(r.exit_code == 5, r.describe());
}

// -- --test-only --------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(test_only_says_when_and_where_and_submits_nothing) {
  auto before = static_cast<int64_t>(std::time(nullptr));
  auto r = run_cli({"batch", "--test-only", "-N2", "--wrap=true"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_MESSAGE(r.out.empty(), r.describe());
  auto e = parse_estimate(r.err, "sbatch");
  BOOST_REQUIRE_MESSAGE(e.id != 0, "not Slurm's line: " << r.err);
  BOOST_CHECK_EQUAL(e.nodes, "node[1-2]");
  BOOST_CHECK_EQUAL(e.partition, "debug");
  BOOST_CHECK_GT(e.cpus, 1u);
  // An idle cluster: now (the line has whole seconds).
  BOOST_CHECK_GE(e.start, before - 1);
  BOOST_CHECK_LE(e.start, static_cast<int64_t>(std::time(nullptr)) + 1);
  BOOST_CHECK_MESSAGE(jobs().empty(), "test-only submitted " << jobs().dump());

  auto srun = run_cli({"run", "--test-only", "-N1", "hostname"});
  BOOST_REQUIRE_MESSAGE(srun.exit_code == 0, srun.describe());
  BOOST_CHECK_MESSAGE(srun.out.empty(), srun.describe());
  auto s = parse_estimate(srun.err, "srun");
  BOOST_REQUIRE_MESSAGE(s.id != 0, "not Slurm's line: " << srun.err);
  BOOST_CHECK_EQUAL(s.nodes, "node1");
  BOOST_CHECK_MESSAGE(jobs().empty(), "test-only ran " << jobs().dump());
  // The id it named is the one the next job gets.
  auto next = submit_script("next.sh", "#!/bin/sh\ntrue\n");
  BOOST_CHECK_EQUAL(next, e.id);
}

BOOST_AUTO_TEST_CASE(test_only_on_a_busy_cluster_gives_the_start_after_the_running_jobs_limit) {
  auto busy = submit_script("busy.sh", "#!/bin/sh\nsleep 300\n", {"-N2", "-t", "10"});
  BOOST_REQUIRE(busy != 0);
  BOOST_REQUIRE(wait_job_state(busy, "RUNNING"));
  auto started = job(busy).value("start_time", int64_t{0});
  auto r = run_cli({"batch", "--test-only", "-N1", "--wrap=true"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto e = parse_estimate(r.err, "sbatch");
  BOOST_REQUIRE_MESSAGE(e.id != 0, "not Slurm's line: " << r.err);
  // Not before the running job's 10 minutes are up.
  BOOST_CHECK_GE(e.start, started + 600);
  BOOST_CHECK_EQUAL(jobs().size(), 1u);
  // Too big for the partition: refused as a submission is, and still nothing submitted.
  auto big = run_cli({"batch", "--test-only", "-N3", "--wrap=true"});
  BOOST_CHECK_MESSAGE(big.exit_code == 1, big.describe());
  BOOST_CHECK_MESSAGE(big.err.find("allocation failure") != std::string::npos, big.err);
  BOOST_CHECK_EQUAL(jobs().size(), 1u);
  BOOST_CHECK(run_cli({"cancel", std::to_string(busy)}).exit_code == 0);
}

// -- --signal -----------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(signal_reaches_the_steps_but_not_the_batch_shell) {
  // Two minutes, signal 110 s before: 10 s in. The step traps it and ends; the shell, which also
  // traps it, must not hear it.
  auto script =
      "#!/bin/sh\n"
      "trap 'echo shell > shell.txt' USR1\n"
      "srun -N1 sh -c 'trap \"echo step > step.txt; exit 0\" USR1; touch step_started; "
      "while :; do sleep 0.1; done' &\n"
      "wait $!\n"
      "exit 0\n";
  auto id = submit_script("steps.sh", script, {"-N1", "-t", "2", "--signal=USR1@110"});
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_job_state(id, "COMPLETED", 90s));
  BOOST_CHECK_EQUAL(read_file(scratch.file("step.txt")), "step\n");
  BOOST_CHECK_MESSAGE(!path_exists(scratch.file("shell.txt")), "the batch shell was signalled");
}

BOOST_AUTO_TEST_CASE(signal_with_b_reaches_only_the_batch_shell) {
  auto script =
      "#!/bin/sh\n"
      "trap 'echo shell > shell.txt; exit 0' USR1\n"
      // A session of its own: srun forwards USR1 to its step, as Slurm's does, so it must not
      // be among the batch shell's processes for this test.
      "setsid srun -N1 sh -c 'trap \"echo step > step.txt\" USR1; touch step_started; "
      "while :; do sleep 0.1; done' &\n"
      "while :; do sleep 0.1; done\n";
  auto id = submit_script("batch_only.sh", script, {"-N1", "-t", "2", "--signal=B:SIGUSR1@110"});
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_job_state(id, "COMPLETED", 90s));
  BOOST_CHECK_EQUAL(read_file(scratch.file("shell.txt")), "shell\n");
  BOOST_CHECK(path_exists(scratch.file("step_started")));
  BOOST_CHECK_MESSAGE(!path_exists(scratch.file("step.txt")), "a step was signalled");
}

BOOST_AUTO_TEST_CASE(signal_reaches_a_shoal_run_jobs_tasks_and_b_is_for_batch_only) {
  auto r = run_cli({"run", "-N1", "-t", "2", "--signal=USR2@115", "sh", "-c",
                    "trap 'echo warned; exit 4' USR2; while :; do sleep 0.1; done"});
  BOOST_CHECK_MESSAGE(r.exit_code == 4, r.describe());
  BOOST_CHECK_MESSAGE(r.out == "warned\n", r.describe());
  auto refused = run_cli({"run", "--signal=B:USR1", "true"});
  BOOST_CHECK_EQUAL(refused.exit_code, 2);
  BOOST_CHECK_MESSAGE(refused.err.find("Invalid --signal specification") != std::string::npos,
                      refused.err);
  auto bad = run_cli({"batch", "--signal=NOSUCH@10", "--wrap=true"});
  BOOST_CHECK_EQUAL(bad.exit_code, 2);
  BOOST_CHECK_EQUAL(jobs().size(), 1u);  // the run's job only
}

// -- salloc -------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(alloc_runs_a_command_with_the_allocation_and_steps_start_inside) {
  auto gate = scratch.file("gate");
  auto shoal = bin_path("shoal");
  auto command = "echo \"$SLURM_JOB_ID $SHOAL_JOB_ID $SLURM_JOB_NODELIST $SLURM_JOB_NUM_NODES\"; " +
                 shoal + " run hostname; touch running; while [ ! -e " + gate +
                 " ]; do sleep 0.1; done";
  auto alloc = start_cli({"alloc", "-N2", "-J", "inside", "sh", "-c", command});
  uint64_t id = 0;
  BOOST_REQUIRE(wait_until([&] { return path_exists(scratch.file("running")); }, 30s));
  id = job_named(*this, "inside");
  BOOST_REQUIRE(id != 0);
  // The allocation is a running job while the command runs, and the step ran in it.
  BOOST_CHECK_EQUAL(job_state(id), "RUNNING");
  BOOST_CHECK_EQUAL(job(id).value("nodelist", ""), "node[1-2]");
  write_file(gate, "");
  auto r = alloc->finish();
  BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
  auto n = std::to_string(id);
  auto host = local_hostname();
  BOOST_CHECK_EQUAL(r.out, n + " " + n + " node[1-2] 2\n" + host + "\n" + host + "\n");
  auto lines = lines_of(r.err);
  BOOST_REQUIRE_MESSAGE(lines.size() == 2u, r.describe());
  BOOST_CHECK_EQUAL(lines[0], "salloc: Granted job allocation " + n);
  BOOST_CHECK_EQUAL(lines[1], "salloc: Relinquishing job allocation " + n);
  BOOST_CHECK(wait_job_state(id, "COMPLETED"));
}

BOOST_AUTO_TEST_CASE(alloc_passes_the_commands_exit_status_through) {
  auto r = run_cli({"alloc", "-N1", "-J", "three", "sh", "-c", "exit 3"});
  BOOST_CHECK_MESSAGE(r.exit_code == 3, r.describe());
  auto id = job_named(*this, "three");
  BOOST_REQUIRE(id != 0);
  // As Slurm's job_complete: a nonzero status is FAILED, with that exit code.
  BOOST_CHECK(wait_job_state(id, "FAILED"));
  BOOST_CHECK_EQUAL(job(id).value("exit_code", 0), 3);
  // The salloc name is this command.
  auto link = run_command({bin_path("slurm-names/salloc"), "-N1", "true"},
                          {{{"SHOAL_CONF", conf}}, std::nullopt, scratch.path(), 60s});
  BOOST_CHECK_MESSAGE(link.exit_code == 0, link.describe());
  BOOST_CHECK_MESSAGE(link.err.find("salloc: Granted job allocation") == 0, link.describe());
}

BOOST_AUTO_TEST_CASE(alloc_at_its_time_limit_ends_the_job_kills_steps_and_signals_the_command) {
  auto shoal = bin_path("shoal");
  auto command = "trap 'echo terminated > command.txt; exit 9' TERM; " + shoal +
                 " run sh -c 'touch step_running; sleep 120' & sleep 120 & wait";
  command_options opt;
  opt.timeout = 90s;
  auto r = run_cli({"alloc", "-N1", "-t", "0:06", "-J", "limited", "sh", "-c", command}, opt);
  BOOST_CHECK_MESSAGE(!r.timed_out, r.describe());
  BOOST_CHECK_MESSAGE(r.exit_code == 9, r.describe());
  auto id = job_named(*this, "limited");
  BOOST_REQUIRE(id != 0);
  BOOST_CHECK_MESSAGE(r.err.find("salloc: Job " + std::to_string(id) +
                                 " has exceeded its time limit and its allocation has been "
                                 "revoked.\n") != std::string::npos,
                      r.describe());
  BOOST_CHECK_MESSAGE(r.err.find("Relinquishing") == std::string::npos, r.describe());
  BOOST_CHECK_EQUAL(read_file(scratch.file("command.txt")), "terminated\n");
  BOOST_CHECK(path_exists(scratch.file("step_running")));
  BOOST_CHECK(wait_job_state(id, "TIMEOUT"));
}

BOOST_AUTO_TEST_CASE(alloc_cancelled_or_interrupted_ends_the_job_and_signals_the_command) {
  auto command = std::string{
      "trap 'echo terminated > cmd1.txt; exit 0' TERM; touch ready1; "
      "sleep 120 & wait"};
  auto alloc = start_cli({"alloc", "-N1", "-J", "cancelled", "sh", "-c", command});
  BOOST_REQUIRE(wait_until([&] { return path_exists(scratch.file("ready1")); }, 30s));
  auto id = job_named(*this, "cancelled");
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(run_cli({"cancel", std::to_string(id)}).exit_code == 0);
  auto r = alloc->finish();
  BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_MESSAGE(r.err.find("salloc: Job allocation " + std::to_string(id) +
                                 " has been revoked.\n") != std::string::npos,
                      r.describe());
  BOOST_CHECK_EQUAL(read_file(scratch.file("cmd1.txt")), "terminated\n");
  BOOST_CHECK(wait_job_state(id, "CANCELLED"));

  // SIGTERM to alloc itself: the allocation ends (CANCELLED) and the command hears SIGTERM.
  command = "trap 'echo terminated > cmd2.txt; exit 0' TERM; touch ready2; sleep 120 & wait";
  auto second = start_cli({"alloc", "-N1", "-J", "interrupted", "sh", "-c", command});
  BOOST_REQUIRE(wait_until([&] { return path_exists(scratch.file("ready2")); }, 30s));
  auto id2 = job_named(*this, "interrupted");
  BOOST_REQUIRE(id2 != 0);
  ::kill(second->pid(), SIGTERM);
  auto r2 = second->finish();
  BOOST_CHECK_MESSAGE(r2.exit_code == 0, r2.describe());
  BOOST_CHECK_EQUAL(read_file(scratch.file("cmd2.txt")), "terminated\n");
  BOOST_CHECK(wait_job_state(id2, "CANCELLED"));
}

BOOST_AUTO_TEST_SUITE_END()
