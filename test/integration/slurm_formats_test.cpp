// Slurm habits on a live cluster, through Slurm's command names: squeue's and sinfo's own
// formats (-o letters, -O names, -h), squeue -t/-u/--me, --ntasks-per-core and
// --ntasks-per-socket on nodes configured as one socket of one two-thread core, and salloc's
// --no-shell, -I, -K.

#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <ctime>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// Splits as Go's strings.Split and Python's str.split(sep) do: every piece, empty ones too.
std::vector<std::string> split(const std::string& text, const std::string& sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (auto at = text.find(sep); at != std::string::npos; at = text.find(sep, start)) {
    out.push_back(text.substr(start, at - start));
    start = at + sep.size();
  }
  out.push_back(text.substr(start));
  return out;
}

/// Ruby's String#strip and Python's str.strip().
std::string strip(const std::string& text) {
  auto first = text.find_first_not_of(" \t\n\r\f\v");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\n\r\f\v") - first + 1);
}

/// Ruby's split with no argument and Go's strings.Fields: words between runs of blanks.
std::vector<std::string> fields(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

/// Only shoal's notes about fields it does not keep ("NICE (%y, nice) is not in shoal's job
/// listing; shown as N/A"): the tools read stderr only for errors (ood_core's
/// interpret_and_raise looks for a timeout; the exporter and Snakemake ignore it).
bool only_missing_field_notes(const std::string& err) {
  for (auto& line : split(err, "\n"))
    if (!line.empty() && line.find("is not in shoal's") == std::string::npos) return false;
  return true;
}

/// The lines of `text` that are not empty (the tools skip the empty last one).
std::vector<std::string> nonempty_lines(const std::string& text) {
  std::vector<std::string> out;
  for (auto& l : split(text, "\n"))
    if (!l.empty()) out.push_back(l);
  return out;
}

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

  /// Runs one of Slurm's command names with `input` on its standard input.
  command_result slurm_in(const std::string& name, const std::vector<std::string>& args,
                          const std::string& input) {
    std::vector<std::string> argv{bin_path("slurm-names/" + name)};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_command(argv, {{{"SHOAL_CONF", conf}}, input, scratch.path(), 60s});
  }

  /// ClusterName= as `scontrol show config` prints it.
  std::string cluster_name() {
    auto r = slurm("scontrol", {"show", "config"});
    for (auto& line : split(r.out, "\n"))
      if (line.rfind("ClusterName", 0) == 0) return strip(line.substr(line.find('=') + 1));
    return "";
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
  BOOST_CHECK_MESSAGE(over.err.find("srun: error: 3 tasks at most 1 a node (--ntasks-per-core=1) "
                                    "need 3 nodes, -N asks for 2\n"
                                    "srun: error: Unable to allocate resources: Requested node "
                                    "configuration is not available\n") != std::string::npos,
                      over.describe());
  auto zero = slurm("sbatch", {"--ntasks-per-core=0", "--wrap", "true"});
  BOOST_CHECK_EQUAL(zero.exit_code, 1);
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

// Open OnDemand's Slurm adapter: OSC/ood_core lib/ood_core/job/adapters/slurm.rb (86656b3).
// Batch#call appends ["-M", cluster] to every command but sacctmgr; the argument vectors below
// are its own, and each answer is parsed as the adapter parses it.
BOOST_AUTO_TEST_CASE(open_ondemand_slurm_adapter_command_lines) {
  const std::string us = "\x1F";  // UNIT_SEPARATOR
  const std::string rs = "\x1E";  // RECORD_SEPARATOR
  auto cluster = cluster_name();
  BOOST_REQUIRE(!cluster.empty());
  auto with_m = [&](std::vector<std::string> args) {
    args.insert(args.end(), {"-M", cluster});
    return args;
  };

  // submit_string: call("sbatch", *args, "--parsable", stdin: script).strip.split(";").first
  auto sub = slurm_in("sbatch", with_m({"-J", "ood", "-o", "/dev/null", "--parsable"}),
                      "#!/bin/sh\nsleep 300\n");
  BOOST_REQUIRE_MESSAGE(sub.exit_code == 0 && sub.err.empty(), sub.describe());
  auto id = split(strip(sub.out), ";").front();
  BOOST_REQUIRE(wait_job_state(std::stoull(id), "RUNNING"));
  // submit with script.submit_as_hold: "-H"
  auto held = slurm_in("sbatch", with_m({"-H", "-J", "held", "-o", "/dev/null", "--parsable"}),
                       "#!/bin/sh\nsleep 300\n");
  BOOST_REQUIRE_MESSAGE(held.exit_code == 0, held.describe());
  auto held_id = split(strip(held.out), ";").front();

  // get_cluster_info: call("sinfo", "-aho %F/%C").strip.split('/').map(&:to_i), zipped with
  // nodes_allocated, nodes_idle, nodes_other, nodes_total, cpus_allocated, ... cpus_total.
  auto counts = slurm("sinfo", with_m({"-aho %F/%C"}));
  BOOST_REQUIRE_MESSAGE(counts.exit_code == 0 && counts.err.empty(), counts.describe());
  auto numbers = split(strip(counts.out), "/");
  BOOST_REQUIRE_EQUAL(numbers.size(), 8u);
  BOOST_CHECK_EQUAL(numbers[0], "1");  // nodes_allocated
  BOOST_CHECK_EQUAL(numbers[3], "2");  // nodes_total
  BOOST_CHECK_EQUAL(numbers[4], "2");  // cpus_allocated
  BOOST_CHECK_EQUAL(numbers[7], "4");  // cpus_total
  // call("sinfo", "-ahNO", "nodehost:100,gres:512,gresused:512,statelong").lines.uniq
  //   .reject { /maint|drain|down/i }.map(&:split); line[1] gres, line[2] gresused.
  auto gres = slurm("sinfo", with_m({"-ahNO", "nodehost:100,gres:512,gresused:512,statelong"}));
  BOOST_REQUIRE_MESSAGE(gres.exit_code == 0 && gres.err.empty(), gres.describe());
  std::set<std::string> hosts;
  for (auto& line : nonempty_lines(gres.out)) {
    auto words = fields(line);
    BOOST_REQUIRE_EQUAL(words.size(), 4u);
    hosts.insert(words[0]);
    BOOST_CHECK(words[3] == "idle" || words[3] == "allocated");
  }
  BOOST_CHECK((hosts == std::set<std::string>{"node1", "node2"}));

  // get_jobs: squeue_args: ["--all", "--states=all", "--noconvert", "-O",
  //   fields.push(nil).join(":\x1F,"), "-j", id]; advance_past_squeue_header! reads to the
  //   first "\x1F\n", then each line.chomp.split("\x1F") zipped with the fields.
  const std::vector<std::string> ood_fields = {
      "Account",    "JobID",         "BatchHost",   "MinCpus",    "NumCPUs",      "MinTmpDisk",
      "NumNodes",   "EndTime",       "Dependency",  "Feature",    "ArrayJobID",   "GroupName",
      "GroupID",    "OverSubscribe", "Sockets",     "JobArrayID", "Cores",        "Name",
      "Threads",    "Comment",       "ArrayTaskID", "TimeLimit",  "TimeLeft",     "MinMemory",
      "TimeUsed",   "ReqNodes",      "NodeList",    "Command",    "Contiguous",   "QOS",
      "Partition",  "PriorityLong",  "Reason",      "StartTime",  "StateCompact", "State",
      "UserName",   "UserID",        "Reservation", "SubmitTime", "WCKey",        "Licenses",
      "ExcNodes",   "CoreSpec",      "Nice",        "SchedNodes", "SCT",          "WorkDir",
      "tres-alloc", "tres-per-node"};
  std::string long_format;
  for (auto& f : ood_fields) long_format += f + ":" + us + ",";
  auto q = slurm("squeue",
                 with_m({"--all", "--states=all", "--noconvert", "-O", long_format, "-j", id}));
  BOOST_REQUIRE_MESSAGE(q.exit_code == 0 && only_missing_field_notes(q.err), q.describe());
  auto header_end = q.out.find(us + "\n");
  BOOST_REQUIRE(header_end != std::string::npos);
  auto rows = nonempty_lines(q.out.substr(header_end + 2));
  BOOST_REQUIRE_EQUAL(rows.size(), 1u);
  auto values = split(rows[0], us);
  BOOST_REQUIRE_EQUAL(values.size(), ood_fields.size() + 1);  // a separator after the last
  auto value = [&](const std::string& name) {
    auto at = std::find(ood_fields.begin(), ood_fields.end(), name) - ood_fields.begin();
    return values[static_cast<size_t>(at)];
  };
  BOOST_CHECK_EQUAL(value("JobID"), id);
  BOOST_CHECK_EQUAL(value("Name"), "ood");
  BOOST_CHECK_EQUAL(value("State"), "RUNNING");
  BOOST_CHECK_EQUAL(value("StateCompact"), "R");
  BOOST_CHECK_EQUAL(value("NumNodes"), "1");
  BOOST_CHECK_EQUAL(value("Partition"), "debug");
  BOOST_CHECK_EQUAL(value("tres-alloc"), "(null)");

  // queues: call('scontrol', 'show', 'part', '-o'), each line split(' ') into tokens matching
  // /^(?<key>\w+)=(?<value>.+)$/ (a token that does not match raises), AllowAccounts and
  // AllowQos 'ALL' for no restriction.
  auto parts = slurm("scontrol", with_m({"show", "part", "-o"}));
  BOOST_REQUIRE_MESSAGE(parts.exit_code == 0 && parts.err.empty(), parts.describe());
  std::regex token(R"(^(\w+)=(.+)$)");
  auto part_lines = nonempty_lines(parts.out);
  BOOST_REQUIRE_EQUAL(part_lines.size(), 1u);
  for (auto& t : fields(part_lines[0])) BOOST_CHECK_MESSAGE(std::regex_match(t, token), t);
  for (auto key : {"PartitionName=debug", "AllowAccounts=ALL", "AllowQos=ALL"})
    BOOST_CHECK_MESSAGE(part_lines[0].find(key) != std::string::npos, part_lines[0]);

  // nodes: call('sinfo', '-ho', "\x1E%c\x1F%n\x1F%f"), each_line("\x1E"), chomp, strip,
  // split("\x1F") into procs, name, features.
  auto nodes = slurm("sinfo", with_m({"-ho", rs + "%c" + us + "%n" + us + "%f"}));
  BOOST_REQUIRE_MESSAGE(nodes.exit_code == 0 && nodes.err.empty(), nodes.describe());
  size_t records = 0;
  for (auto& record : split(nodes.out, rs)) {
    auto parsed = split(strip(record), us);
    if (strip(record).empty()) continue;
    ++records;
    BOOST_REQUIRE_EQUAL(parsed.size(), 3u);
    BOOST_CHECK_EQUAL(parsed[0], "2");
    BOOST_CHECK(parsed[1].rfind("node", 0) == 0);
  }
  BOOST_CHECK(records >= 1u);

  // sacct_info: ['-P', '--delimiter', "\x1F", '-n', '--units', 'G', '--allocations', '-o',
  // fields.join(','), '-j', ids], each line.strip.split("\x1F"), an empty value nil.
  const std::vector<std::string> sacct_fields = {
      "User",      "Group",   "JobId",     "JobName", "Elapsed",  "ReqMem",
      "AllocCPUS", "ReqCPUS", "Timelimit", "State",   "TotalCPU", "MaxRSS",
      "Partition", "Submit",  "Start",     "End",     "ReqTRES"};
  std::string sacct_format;
  for (auto& f : sacct_fields) sacct_format += (sacct_format.empty() ? "" : ",") + f;
  auto history = slurm("sacct", with_m({"-P", "--delimiter", us, "-n", "--units", "G",
                                        "--allocations", "-o", sacct_format, "-j", id}));
  BOOST_REQUIRE_MESSAGE(history.exit_code == 0 && history.err.empty(), history.describe());
  auto history_lines = nonempty_lines(history.out);
  BOOST_REQUIRE_EQUAL(history_lines.size(), 1u);
  auto record = split(strip(history_lines[0]), us);
  BOOST_REQUIRE(record.size() <= sacct_fields.size());
  BOOST_CHECK_EQUAL(record[2], id);
  BOOST_CHECK_EQUAL(record[3], "ood");
  BOOST_CHECK_EQUAL(record[9], "RUNNING");

  // hold, release, delete: call("scontrol", "hold"|"release", id), call("scancel", id).
  for (auto verb : {"hold", "release"}) {
    auto r = slurm("scontrol", with_m({verb, held_id}));
    BOOST_CHECK_MESSAGE(r.exit_code == 0 && r.err.empty(), verb << ": " << r.describe());
  }
  for (auto& job : {id, held_id}) {
    auto r = slurm("scancel", with_m({job}));
    BOOST_CHECK_MESSAGE(r.exit_code == 0 && r.err.empty(), r.describe());
  }
}

// vpenso/prometheus-slurm-exporter (895c7c6): exec.Command argument vectors from accounts.go,
// cpus.go, gpus.go, node.go, nodes.go, partitions.go, queue.go, users.go and scheduler.go, each
// parsed as its Parse*Metrics function does. Note the vectors' "-o %A|..." words: getopt gives
// -o the rest of the word, a blank first.
BOOST_AUTO_TEST_CASE(prometheus_slurm_exporter_command_lines) {
  auto running = sleeper("exported");
  BOOST_REQUIRE(wait_job_state(running, "RUNNING"));
  auto waiting = sleeper("waits", "2");
  BOOST_REQUIRE(waiting != 0);

  // accounts.go, users.go: squeue -a -r -h "-o %A|%a|%T|%C", split("|"): [1] account or user,
  // [2] state, [3] cpus.
  for (auto format : {"-o %A|%a|%T|%C", "-o %A|%u|%T|%C"}) {
    auto r = slurm("squeue", {"-a", "-r", "-h", format});
    BOOST_REQUIRE_MESSAGE(r.exit_code == 0 && r.err.empty(), r.describe());
    auto lines = nonempty_lines(r.out);
    BOOST_REQUIRE_EQUAL(lines.size(), 2u);
    for (auto& line : lines) {
      auto parts = split(line, "|");
      BOOST_REQUIRE_EQUAL(parts.size(), 4u);
      BOOST_CHECK(parts[2] == "RUNNING" || parts[2] == "PENDING");
      BOOST_CHECK(std::stoi(parts[3]) >= 1);
    }
  }
  // queue.go: squeue -a -r -h "-o %A,%T,%r" --states=all, split(","): [1] state, [2] reason.
  auto queue = slurm("squeue", {"-a", "-r", "-h", "-o %A,%T,%r", "--states=all"});
  BOOST_REQUIRE_MESSAGE(queue.exit_code == 0 && queue.err.empty(), queue.describe());
  std::multiset<std::string> states;
  for (auto& line : nonempty_lines(queue.out)) states.insert(split(line, ",").at(1));
  BOOST_CHECK_EQUAL(states.count("RUNNING"), 1u);
  BOOST_CHECK_EQUAL(states.count("PENDING"), 1u);
  // partitions.go: squeue -a -r -h -o%P --states=PENDING (a line per pending job) and
  // sinfo -h -o%R,%C (partition, then A/I/O/T split on "/").
  auto pending = slurm("squeue", {"-a", "-r", "-h", "-o%P", "--states=PENDING"});
  BOOST_CHECK_EQUAL(pending.out, "debug\n");
  auto by_part = slurm("sinfo", {"-h", "-o%R,%C"});
  BOOST_REQUIRE_MESSAGE(by_part.exit_code == 0 && by_part.err.empty(), by_part.describe());
  auto part_line = split(strip(by_part.out), ",");
  BOOST_REQUIRE_EQUAL(part_line.size(), 2u);
  BOOST_CHECK_EQUAL(part_line[0], "debug");
  BOOST_CHECK_EQUAL(part_line[1], "2/2/0/4");
  // cpus.go: sinfo -h "-o %C", TrimSpace, split("/") into four.
  auto cpus = slurm("sinfo", {"-h", "-o %C"});
  BOOST_CHECK_EQUAL(split(strip(cpus.out), "/").size(), 4u);
  // nodes.go: sinfo -h "-o %D,%T", split(","): a count and a long state.
  auto by_state = slurm("sinfo", {"-h", "-o %D,%T"});
  std::set<std::string> node_states;
  for (auto& line : nonempty_lines(by_state.out)) node_states.insert(split(line, ",").at(1));
  BOOST_CHECK((node_states == std::set<std::string>{"allocated", "idle"}));
  // node.go: sinfo -h -N -O NodeList,AllocMem,Memory,CPUsState,StateLong, strings.Fields:
  // [0] name, [1] alloc mem, [2] memory, [3] A/I/O/T, [4] state.
  auto per_node =
      slurm("sinfo", {"-h", "-N", "-O", "NodeList,AllocMem,Memory,CPUsState,StateLong"});
  BOOST_REQUIRE_MESSAGE(per_node.exit_code == 0 && only_missing_field_notes(per_node.err),
                        per_node.describe());
  for (auto& line : nonempty_lines(per_node.out)) {
    auto words = fields(line);
    BOOST_REQUIRE_EQUAL(words.size(), 5u);
    BOOST_CHECK_EQUAL(split(words[3], "/").size(), 4u);
  }
  // gpus.go: sinfo -h "-o \"%n %G\"" (the quotes are part of the word): Trim('"'), Fields[1],
  // TrimPrefix("gpu:"), Split("(")[0].
  auto gpus = slurm("sinfo", {"-h", "-o \"%n %G\""});
  BOOST_REQUIRE_MESSAGE(gpus.exit_code == 0 && gpus.err.empty(), gpus.describe());
  for (auto& line : nonempty_lines(gpus.out)) {
    auto trimmed = line;
    trimmed.erase(0, trimmed.find_first_not_of('"'));
    trimmed.erase(trimmed.find_last_not_of('"') + 1);
    BOOST_CHECK_EQUAL(fields(trimmed).size(), 2u);
  }
  // scheduler.go: sdiag, each line with a ':' split there; the key matched by these patterns.
  auto diag = slurm("sdiag", {});
  BOOST_REQUIRE_MESSAGE(diag.exit_code == 0 && diag.err.empty(), diag.describe());
  for (auto pattern : {R"(^Server thread)", R"(^Agent queue)", R"(^DBD Agent)",
                       R"(^[\s]+Last cycle$)", R"(^[\s]+Mean cycle$)", R"(^[\s]+Cycles per)"}) {
    std::regex key(pattern);
    bool found = false;
    for (auto& line : split(diag.out, "\n")) {
      if (line.find(':') == std::string::npos) continue;
      auto parts = split(line, ":");
      if (!std::regex_search(parts[0], key)) continue;
      found = true;
      auto number = strip(parts[1]);
      BOOST_CHECK_MESSAGE(
          !number.empty() && number.find_first_not_of("0123456789") == std::string::npos, line);
    }
    BOOST_CHECK_MESSAGE(found, pattern << " in\n" << diag.out);
  }
  BOOST_CHECK(slurm("scancel", {id_text(running), id_text(waiting)}).exit_code == 0);
}

// snakemake/snakemake-executor-plugin-slurm (cdc05f9): job_status_query.py's MinJobAge probe,
// sacct and squeue status queries, partitions.py's sinfo and scontrol, job_cancellation.py's
// scancel; the script goes to sbatch on standard input, its id read as out.strip().split(";")[0].
BOOST_AUTO_TEST_CASE(snakemake_slurm_executor_command_lines) {
  const std::string run_id = "c0ffee00-snakemake";
  // get_min_job_age: "scontrol show config", the line starting with MinJobAge, split("="),
  // then ^(\d+)\s*([a-zA-Z]*) on the stripped value.
  auto config = slurm("scontrol", {"show", "config"});
  BOOST_REQUIRE_MESSAGE(config.exit_code == 0, config.describe());
  std::string min_job_age;
  for (auto& line : split(config.out, "\n"))
    if (strip(line).rfind("MinJobAge", 0) == 0) min_job_age = strip(split(line, "=").at(1));
  std::smatch m;
  BOOST_CHECK_MESSAGE(std::regex_search(min_job_age, m, std::regex(R"(^(\d+)\s*([a-zA-Z]*))")),
                      min_job_age);

  auto sub = slurm_in("sbatch",
                      {"--parsable", "--job-name", run_id, "-o", "/dev/null", "--export=ALL",
                       "--comment", "rule_a"},
                      "#!/bin/sh\nsleep 300\n");
  BOOST_REQUIRE_MESSAGE(sub.exit_code == 0, sub.describe());
  auto id = split(strip(sub.out), ";").front();
  BOOST_REQUIRE(wait_job_state(std::stoull(id), "RUNNING"));

  // query_job_status_sacct: sacct -X --parsable2 --clusters all --noheader
  //   --format=JobIdRaw,State --starttime NOW-2DAYS(%Y-%m-%dT%H:00) --endtime now --name RUNID
  char since[32];
  auto two_days_ago = std::time(nullptr) - 2 * 86400;
  std::strftime(since, sizeof since, "%Y-%m-%dT%H:00", std::localtime(&two_days_ago));
  auto acct = slurm(
      "sacct", {"-X", "--parsable2", "--clusters", "all", "--noheader", "--format=JobIdRaw,State",
                "--starttime", since, "--endtime", "now", "--name", run_id});
  BOOST_REQUIRE_MESSAGE(acct.exit_code == 0, acct.describe());
  BOOST_CHECK_EQUAL(acct.out, id + "|RUNNING\n");
  // query_job_status_squeue: squeue --format='%i|%T' --states=all --noheader --name RUNID
  auto queue = slurm("squeue", {"--format=%i|%T", "--states=all", "--noheader", "--name", run_id});
  BOOST_REQUIRE_MESSAGE(queue.exit_code == 0 && queue.err.empty(), queue.describe());
  BOOST_CHECK_EQUAL(queue.out, id + "|RUNNING\n");
  // partitions.py: "sinfo -o %P" and "scontrol show partition -M CLUSTER".
  auto names = slurm("sinfo", {"-o", "%P"});
  BOOST_CHECK_EQUAL(names.out, "PARTITION\ndebug*\n");
  auto shown = slurm("scontrol", {"show", "partition", "-M", cluster_name()});
  BOOST_CHECK_MESSAGE(shown.exit_code == 0 && shown.out.find("PartitionName=debug") == 0,
                      shown.describe());
  // cancel_slurm_jobs: "scancel ID --clusters=all".
  auto cancel = slurm("scancel", {id, "--clusters=all"});
  BOOST_CHECK_MESSAGE(cancel.exit_code == 0 && cancel.err.empty(), cancel.describe());
}

// Lines of the same tools not replayed above. Slurm-web (rackslab/Slurm-web, 69c8c03a, v6) has
// no CLI fallbacks: its agent asks slurmrestd only (slurmweb/slurmrestd/), and the one Slurm
// command in its tree is a developer script's JWT (dev/setup-dev-environment: `scontrol token
// lifespan=infinite username=slurm`), so there is nothing of it to replay.
// - ood_core's get_jobs with an owner and no id (lib/ood_core/job/adapters/slurm.rb, 86656b3,
//   squeue_args): `-u OWNER` instead of `-j ID`.
// - Snakemake's executor (cdc05f9): utils.py get_max_array_size's `scontrol show config`
//   (MaxArraySize\s*=?\s*(\d+)); __init__.py's array submission `sbatch ... --array=1-2
//   /dev/stdin` with the script on standard input; the status queries over an array's tasks
//   (`ID_1|RUNNING`, and sacct's JobIdRaw); efficiency_report.py's get_sacct_data, each line
//   split on "|" into its nine columns.
BOOST_AUTO_TEST_CASE(tool_command_lines_beyond_the_replays_above) {
  const std::string us = "\x1F";
  auto config = slurm("scontrol", {"show", "config"});
  std::smatch m;
  BOOST_REQUIRE_MESSAGE(
      std::regex_search(config.out, m,
                        std::regex(R"(MaxArraySize\s*=?\s*(\d+))", std::regex::icase)),
      config.out);
  BOOST_CHECK(std::stoul(m[1]) >= 2);

  const std::string run_id = "feed0000-snakemake";
  auto sub = slurm_in("sbatch",
                      {"--parsable", "--job-name", run_id, "--output", "/dev/null", "--export=ALL",
                       "--comment", "rule_a", "--ntasks=1", "--array=1-2", "/dev/stdin"},
                      "#!/bin/sh\nsleep 300\n");
  BOOST_REQUIRE_MESSAGE(sub.exit_code == 0, sub.describe());
  auto id = split(strip(sub.out), ";").front();
  BOOST_REQUIRE(!id.empty() && id.find_first_not_of("0123456789") == std::string::npos);
  BOOST_REQUIRE(wait_until(
      [&] {
        auto r =
            slurm("squeue", {"--format=%i|%T", "--states=all", "--noheader", "--name", run_id});
        return r.out == id + "_1|RUNNING\n" + id + "_2|RUNNING\n" ||
               r.out == id + "_2|RUNNING\n" + id + "_1|RUNNING\n";
      },
      30s));
  auto acct = slurm("sacct", {"-X", "--parsable2", "--clusters", "all", "--noheader",
                              "--format=JobIdRaw,State", "--name", run_id});
  BOOST_REQUIRE_MESSAGE(acct.exit_code == 0, acct.describe());
  auto acct_lines = nonempty_lines(acct.out);
  BOOST_CHECK_EQUAL(acct_lines.size(), 2u);
  for (auto& line : acct_lines)
    BOOST_CHECK_MESSAGE(std::regex_match(line, std::regex(R"(\d+\|RUNNING)")), line);
  auto report = slurm("sacct", {"--name=" + run_id, "--parsable2", "--noheader",
                                "--format=JobID,JobName,Comment,Elapsed,TotalCPU,NNodes,NCPUS,"
                                "MaxRSS,ReqMem"});
  BOOST_REQUIRE_MESSAGE(report.exit_code == 0, report.describe());
  auto report_lines = nonempty_lines(report.out);
  BOOST_CHECK(report_lines.size() >= 2u);
  for (auto& line : report_lines) {
    auto cols = split(line, "|");
    BOOST_REQUIRE_EQUAL(cols.size(), 9u);
    BOOST_CHECK_MESSAGE(std::regex_search(cols[0], std::regex(R"(^\d+)")), line);
  }

  // ood_core: every job of one owner, no -j; the header ends at the first "\x1F\n".
  auto user = slurm("squeue", {"-h", "-o", "%u", "-j", id + "_1"});
  auto owner = strip(user.out);
  BOOST_REQUIRE(!owner.empty());
  auto q = slurm("squeue", {"--all", "--states=all", "--noconvert", "-O",
                            "JobID:" + us + ",Name:" + us + ",State:" + us + ",", "-u", owner, "-M",
                            cluster_name()});
  BOOST_REQUIRE_MESSAGE(q.exit_code == 0 && q.err.empty(), q.describe());
  auto header_end = q.out.find(us + "\n");
  BOOST_REQUIRE(header_end != std::string::npos);
  std::set<std::string> names;
  for (auto& row : nonempty_lines(q.out.substr(header_end + 2))) {
    auto values = split(row, us);
    BOOST_REQUIRE_EQUAL(values.size(), 4u);
    names.insert(values[1]);
    BOOST_CHECK_EQUAL(values[2], "RUNNING");
  }
  BOOST_CHECK((names == std::set<std::string>{run_id}));
  BOOST_CHECK(slurm("scancel", {id}).exit_code == 0);
}

// -M/--clusters names this cluster or `all`; any other name is refused as Slurm refuses a
// cluster its database does not know (print_db_notok), exit 1.
BOOST_AUTO_TEST_CASE(clusters_option_takes_only_this_cluster) {
  auto ours = slurm("squeue", {"-h", "-M", cluster_name()});
  BOOST_CHECK_MESSAGE(ours.exit_code == 0 && ours.out.empty(), ours.describe());
  for (auto cmd : {"squeue", "sinfo", "sacct", "scontrol", "sdiag"}) {
    std::vector<std::string> args{"-M", "elsewhere"};
    if (std::string{cmd} == "scontrol") args = {"-M", "elsewhere", "show", "part"};
    auto r = slurm(cmd, args);
    BOOST_CHECK_MESSAGE(r.exit_code == 1, cmd << ": " << r.describe());
    BOOST_CHECK_MESSAGE(
        r.err.find(std::string{cmd} + ": error: 'elsewhere' can't be reached now, or it is an "
                                      "invalid entry for --cluster.") == 0,
        r.err);
  }
  auto sb = slurm_in("sbatch", {"--clusters=elsewhere", "-o", "/dev/null"}, "#!/bin/sh\ntrue\n");
  BOOST_CHECK_EQUAL(sb.exit_code, 1);
}

BOOST_AUTO_TEST_SUITE_END()
