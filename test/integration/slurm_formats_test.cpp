// Slurm habits on a live cluster, through Slurm's command names: squeue's and sinfo's own
// formats (-o letters, -O names, -h), squeue -t/-u/--me, --ntasks-per-core and
// --ntasks-per-socket on nodes configured as one socket of one two-thread core, and salloc's
// --no-shell, -I, -K.

#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// Two nodes of one socket, one core, two threads (two CPUs: no more than any host has).
struct two_hyperthreads : cluster_fixture {
  two_hyperthreads()
      : cluster_fixture(2, "", "CPUs=2 Sockets=1 CoresPerSocket=1 ThreadsPerCore=2") {}

  /// Runs one of Slurm's command names (a link to shoal) with the cluster's config.
  command_result slurm(const std::string& name, const std::vector<std::string>& args,
                       millis timeout = 60s) {
    std::vector<std::string> argv{bin_path("slurm-names/" + name)};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_command(argv, {{{"SHOAL_CONF", conf}}, std::nullopt, scratch.path(), timeout});
  }

  /// Submits `sleep 300` as NAME on N nodes and returns its id (0 on failure).
  uint64_t sleeper(const std::string& name, const std::string& nodes = "1") {
    auto r = slurm("sbatch", {"--parsable", "-o", "/dev/null", "-J", name, "-N", nodes, "--wrap",
                              "sleep 300"});
    BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
    return r.exit_code == 0 ? std::stoull(r.out) : 0;
  }

  uint64_t job_named(const std::string& name) {
    uint64_t found = 0;
    for (auto& j : jobs())
      if (j.value("name", "") == name) found = j.value("job_id", uint64_t{0});
    return found;
  }
};

std::string id_text(uint64_t id) {
  return std::to_string(id);
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(slurm_formats, two_hyperthreads)

BOOST_AUTO_TEST_CASE(squeue_prints_slurms_letter_and_long_formats) {
  auto running = sleeper("runs");
  BOOST_REQUIRE(wait_job_state(running, "RUNNING"));
  auto waiting = sleeper("waits", "2");
  BOOST_REQUIRE(waiting != 0);
  BOOST_REQUIRE(wait_until([&] { return job(waiting).value("reason", "") != ""; }, 30s));

  // The one-word-a-line habit: pending first (squeue's P,t,-p sort), no header.
  auto states = slurm("squeue", {"-h", "-o", "%T"});
  BOOST_CHECK_MESSAGE(states.exit_code == 0, states.describe());
  BOOST_CHECK_EQUAL(states.out, "PENDING\nRUNNING\n");
  auto two = slurm("squeue", {"-o", "%i %T"});
  BOOST_CHECK_EQUAL(
      two.out, "JOBID STATE\n" + id_text(waiting) + " PENDING\n" + id_text(running) + " RUNNING\n");
  auto mine = slurm("squeue", {"--me", "-h", "-t", "R", "-o", "%j"});
  BOOST_CHECK_EQUAL(mine.out, "runs\n");
  auto by_uid = slurm("squeue", {"-u", std::to_string(::getuid()), "-h", "-o", "%.5j|%5D|"});
  BOOST_CHECK_EQUAL(by_uid.out, "waits|2    |\n runs|1    |\n");

  // squeue's default, spelled out: the same header Slurm prints.
  auto spelled = slurm("squeue", {"-o", "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R"});
  auto lines = lines_of(spelled.out);
  BOOST_REQUIRE_EQUAL(lines.size(), 3u);
  BOOST_CHECK_EQUAL(lines[0],
                    "             JOBID PARTITION     NAME     USER ST       TIME  NODES "
                    "NODELIST(REASON)");
  BOOST_CHECK_EQUAL(lines[1].substr(0, 18),
                    std::string(18 - id_text(waiting).size(), ' ') + id_text(waiting));
  BOOST_CHECK(lines[1].find(" (Resources)") != std::string::npos ||
              lines[1].find(" (Priority)") != std::string::npos);

  auto long_names = slurm("squeue", {"-O", "JobID,State,Name:8", "-t", "running"});
  BOOST_CHECK_EQUAL(long_names.out, "JOBID               STATE               NAME    \n" +
                                        id_text(running) +
                                        std::string(20 - id_text(running).size(), ' ') +
                                        "RUNNING             runs    \n");

  // A format without a % still names shoal's fields.
  auto ours = slurm("squeue", {"-h", "-o", "JobId,State", "-t", "running"});
  BOOST_CHECK_EQUAL(ours.out, id_text(running) + " RUNNING\n");

  // An unknown letter prints as typed, with squeue's complaint; a bad state is squeue's exit 1.
  auto odd = slurm("squeue", {"-h", "-o", "%i %-4u", "-t", "R"});
  BOOST_CHECK_EQUAL(odd.out, id_text(running) + " %-4u\n");
  BOOST_CHECK(odd.err.find("Invalid job format specification: -") != std::string::npos);
  auto bad = slurm("squeue", {"-t", "sleeping"});
  BOOST_CHECK_EQUAL(bad.exit_code, 1);
  BOOST_CHECK(bad.err.find("Invalid job state specified: sleeping") != std::string::npos);
  BOOST_CHECK(slurm("scancel", {id_text(running), id_text(waiting)}).exit_code == 0);
}

BOOST_AUTO_TEST_CASE(sinfo_prints_slurms_formats_grouped_as_sinfo_groups) {
  auto running = sleeper("runs");
  BOOST_REQUIRE(wait_job_state(running, "RUNNING"));
  BOOST_REQUIRE(wait_until(
      [&] { return node_state("node1") == "ALLOCATED" || node_state("node2") == "ALLOCATED"; },
      30s));
  auto r = slurm("sinfo", {"-o", "%P %a %l %D %t %N"});
  BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
  auto lines = lines_of(r.out);
  BOOST_REQUIRE_EQUAL(lines.size(), 3u);
  BOOST_CHECK_EQUAL(lines[0], "PARTITION AVAIL TIMELIMIT NODES STATE NODELIST");
  // alloc before idle (sinfo's -t, highest state first).
  BOOST_CHECK(lines[1].rfind("debug* up infinite 1 alloc node", 0) == 0);
  BOOST_CHECK(lines[2].rfind("debug* up infinite 1 idle node", 0) == 0);
  auto hosts = slurm("sinfo", {"-h", "-o", "%n", "-S", "N"});
  BOOST_CHECK_EQUAL(hosts.out, "node1\nnode2\n");
  auto shape = slurm("sinfo", {"-h", "-o", "%D %c %z %C"});
  BOOST_CHECK_EQUAL(shape.out, "2 2 1:1:2 2/2/0/4\n");
  auto longer = slurm("sinfo", {"-h", "-O", "partition:8,nodes:.3", "-t", "idle"});
  BOOST_CHECK_EQUAL(longer.out, "debug*    1\n");
  BOOST_CHECK(slurm("scancel", {id_text(running)}).exit_code == 0);
}

BOOST_AUTO_TEST_CASE(ntasks_per_core_bounds_the_tasks_each_node_takes) {
  // One core a node: one task a node at --ntasks-per-core=1, two (both threads) at 2.
  auto one = slurm("srun", {"--ntasks-per-core=1", "-n2", "printenv", "SLURMD_NODENAME"});
  BOOST_CHECK_MESSAGE(one.exit_code == 0, one.describe());
  BOOST_CHECK_EQUAL(count_lines_with(one.out, "node1"), 1u);
  BOOST_CHECK_EQUAL(count_lines_with(one.out, "node2"), 1u);
  auto two = slurm("srun", {"-N1", "--ntasks-per-core=2", "-n2", "printenv", "SLURMD_NODENAME"});
  BOOST_CHECK_MESSAGE(two.exit_code == 0, two.describe());
  BOOST_CHECK_EQUAL(lines_of(two.out).size(), 2u);
  // More than the nodes take: refused before anything is submitted, in Slurm's words.
  auto over = slurm("srun", {"-N2", "--ntasks-per-core=1", "-n3", "true"});
  BOOST_CHECK_EQUAL(over.exit_code, 1);
  BOOST_CHECK_MESSAGE(over.err.find("Requested node configuration is not available: 3 tasks at "
                                    "most 1 a node (--ntasks-per-core=1) need 3 nodes, -N asks "
                                    "for 2") != std::string::npos,
                      over.describe());
  auto zero = slurm("sbatch", {"--ntasks-per-core=0", "--wrap", "true"});
  BOOST_CHECK_EQUAL(zero.exit_code, 2);
  BOOST_CHECK(zero.err.find("Invalid numeric value \"0\" for --ntasks-per-core.") !=
              std::string::npos);
  // The socket bound, and the batch job's environment.
  auto socket =
      slurm("sbatch", {"--parsable", "-o", "socket.out", "--ntasks-per-socket=1", "-n2", "--wrap",
                       "echo $SLURM_NTASKS_PER_SOCKET $SLURM_NTASKS $SLURM_JOB_NUM_NODES"});
  BOOST_REQUIRE_MESSAGE(socket.exit_code == 0, socket.describe());
  auto id = std::stoull(socket.out);
  BOOST_REQUIRE(wait_job_state(id, "COMPLETED"));
  BOOST_CHECK_EQUAL(read_file(scratch.file("socket.out")), "1 2 2\n");
}

BOOST_AUTO_TEST_CASE(salloc_no_shell_holds_the_allocation_until_scancel) {
  auto r = slurm("salloc", {"--no-shell", "-N1"});
  BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
  auto id = job_named("no-shell");
  BOOST_REQUIRE(id != 0);
  BOOST_CHECK_EQUAL(r.err, "salloc: Granted job allocation " + id_text(id) + "\n");
  // It stays: nobody holds it, and steps run in it.
  ::sleep(2);
  BOOST_CHECK_EQUAL(job_state(id), "RUNNING");
  auto step = slurm("srun", {"--jobid=" + id_text(id), "printenv", "SLURM_JOB_ID"});
  BOOST_CHECK_EQUAL(step.out, id_text(id) + "\n");
  BOOST_CHECK(slurm("scancel", {id_text(id)}).exit_code == 0);
  BOOST_CHECK(wait_job_state(id, "CANCELLED"));
}

BOOST_AUTO_TEST_CASE(salloc_immediate_gives_up_when_the_nodes_are_busy) {
  auto busy = sleeper("busy", "2");
  BOOST_REQUIRE(wait_job_state(busy, "RUNNING"));
  auto now = slurm("salloc", {"-I", "-N1", "-J", "now", "true"});
  BOOST_CHECK_EQUAL(now.exit_code, 1);
  BOOST_CHECK_EQUAL(now.err,
                    "salloc: error: Unable to allocate resources: Requested nodes are "
                    "busy\n");
  auto given_up = job_named("now");
  BOOST_REQUIRE(given_up != 0);
  BOOST_CHECK(wait_job_state(given_up, "CANCELLED"));
  auto soon = slurm("salloc", {"--immediate=2", "-N1", "-J", "soon", "true"});
  BOOST_CHECK_EQUAL(soon.exit_code, 1);
  auto id = id_text(job_named("soon"));
  BOOST_CHECK_EQUAL(soon.err, "salloc: Pending job allocation " + id + "\nsalloc: job " + id +
                                  " queued and waiting for resources\nsalloc: error: Unable to "
                                  "allocate resources: Connection timed out\n");
  BOOST_CHECK(slurm("scancel", {id_text(busy)}).exit_code == 0);
  BOOST_REQUIRE(wait_job_state(busy, "CANCELLED"));
  // Free nodes: granted at once, as without -I.
  auto free = slurm("salloc", {"-I", "-N1", "true"});
  BOOST_CHECK_MESSAGE(free.exit_code == 0, free.describe());
}

BOOST_AUTO_TEST_CASE(salloc_kill_command_signals_the_command_when_the_allocation_ends) {
  auto r =
      slurm("salloc", {"-N1", "-KUSR1", "-J", "killed", "sh", "-c",
                       "trap 'echo got USR1; exit 7' USR1; " + bin_path("slurm-names/scancel") +
                           " $SLURM_JOB_ID; sleep 60 & wait"});
  BOOST_CHECK_EQUAL(r.exit_code, 7);
  BOOST_CHECK_EQUAL(r.out, "got USR1\n");
  BOOST_CHECK(r.err.find("has been revoked") != std::string::npos);
  auto bad = slurm("salloc", {"--kill-command=NOPE", "true"});
  BOOST_CHECK_EQUAL(bad.exit_code, 2);
  BOOST_CHECK(bad.err.find("Invalid --kill-command specification") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
