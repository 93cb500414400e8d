// SIGHUP as Slurm admins send it: slurmctld and slurmd re-read slurm.conf, so a `kill -HUP` must
// never stop a shoal daemon. Each reads its file again, applies its debug level and DebugFlags,
// logs what else changed as waiting for a restart, and keeps the configuration in force when the
// file no longer parses (with its file:line in the log).

#include <signal.h>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <string>

#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

struct hup_cluster : cluster_fixture {
  hup_cluster() : cluster_fixture(2) {}

  std::string ctld_log() { return read_file(cluster.directory() + "/shoalctld.log"); }
  std::string node1_log() { return read_file(cluster.directory() + "/shoald-node1.log"); }

  /// Polls until `log()` holds `needle` `count` times.
  template <class Log>
  bool log_shows(Log log, const std::string& needle, size_t count = 1) {
    return wait_until([&] { return count_lines_with(log(), needle) >= count; }, 15s);
  }

  /// Rewrites one setting of the cluster's config file in place.
  void edit_config(const std::string& from, const std::string& to) {
    auto text = read_file(conf);
    auto at = text.find(from);
    BOOST_REQUIRE_MESSAGE(at != std::string::npos, "no '" << from << "' in " << conf);
    text.replace(at, from.size(), to);
    write_file(conf, text);
  }

  bool controller_answers() { return run_cli({"control", "ping"}).exit_code == 0; }
};

bool alive(pid_t pid) {
  return ::kill(pid, 0) == 0;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(reconfigure_on_sighup, hup_cluster)

BOOST_AUTO_TEST_CASE(sighup_stops_no_daemon_and_no_job) {
  auto running = submit_script("long.sh", "#!/bin/sh\nsleep 60\n");
  BOOST_REQUIRE(wait_job_state(running, "RUNNING"));
  cluster.signal_controller(SIGHUP);
  cluster.signal_node(1, SIGHUP);
  BOOST_REQUIRE(log_shows([&] { return ctld_log(); }, "reconfigure file="));
  BOOST_REQUIRE(log_shows([&] { return node1_log(); }, "reconfigure file="));
  for (auto pid : cluster.daemon_pids()) BOOST_TEST(alive(pid), "daemon " << pid << " stopped");
  BOOST_TEST(controller_answers());
  BOOST_TEST(job_state(running) == "RUNNING");
  // Nothing changed in the file: nothing applied, nothing waits.
  BOOST_TEST(contains(ctld_log(), "applied=none restart_needed=none"));
  auto next = submit_script("short.sh", "#!/bin/sh\ntrue\n");
  BOOST_TEST(wait_job_state(next, "COMPLETED"));
  BOOST_TEST(node_state("node1") != "DOWN");
}

BOOST_AUTO_TEST_CASE(the_debug_level_applies_and_other_changes_wait_for_a_restart) {
  edit_config("SlurmctldDebug=info", "SlurmctldDebug=debug");
  edit_config("KillWait=2", "KillWait=7");
  cluster.signal_controller(SIGHUP);
  BOOST_REQUIRE(log_shows([&] { return ctld_log(); }, "reconfigure file="));
  auto log = ctld_log();
  BOOST_TEST(contains(log, "applied=SlurmctldDebug=debug restart_needed=KillWait"), log);
  BOOST_TEST(contains(log, "KillWait changed in " + conf + "; restart shoalctld to apply"));
  BOOST_TEST(controller_answers());
  // A second SIGHUP still names KillWait: it waits for a restart, not for one more read.
  cluster.signal_controller(SIGHUP);
  BOOST_TEST(log_shows([&] { return ctld_log(); }, "applied=none restart_needed=KillWait"));
  // The node daemons' level is theirs: shoald applies it, shoalctld neither applies nor waits.
  edit_config("SlurmdDebug=info", "SlurmdDebug=debug");
  cluster.signal_controller(SIGHUP);
  cluster.signal_node(1, SIGHUP);
  BOOST_TEST(log_shows([&] { return ctld_log(); }, "applied=none restart_needed=KillWait", 2));
  BOOST_TEST(log_shows([&] { return node1_log(); }, "applied=SlurmdDebug=debug"));
}

BOOST_AUTO_TEST_CASE(a_broken_file_is_logged_with_its_line_and_the_daemon_goes_on) {
  auto text = read_file(conf);
  if (!text.empty() && text.back() != '\n') text += '\n';
  auto line = std::count(text.begin(), text.end(), '\n') + 1;  // the line appended below
  write_file(conf, text + "KillWait=soon\n");
  cluster.signal_controller(SIGHUP);
  auto where = conf + ":" + std::to_string(line) + ":";
  BOOST_REQUIRE(log_shows([&] { return ctld_log(); }, "reconfigure: " + where));
  BOOST_TEST(contains(ctld_log(), "the configuration in force stays"));
  BOOST_TEST(alive(cluster.daemon_pids().at(0)));
  // The CLI reads the same file and refuses it too: put it right for the commands below.
  write_file(conf, text);
  BOOST_TEST(controller_answers());
  auto job = submit_script("after.sh", "#!/bin/sh\ntrue\n");
  BOOST_TEST(wait_job_state(job, "COMPLETED"));
}

BOOST_AUTO_TEST_SUITE_END()

// `shoal control reconfigure` (scontrol reconfigure): shoalctld does what its SIGHUP does, and
// says so to the admin who asked; a file that does not parse is the command's error.
BOOST_FIXTURE_TEST_SUITE(reconfigure_command, hup_cluster)

BOOST_AUTO_TEST_CASE(reconfigure_applies_what_sighup_applies_and_loses_no_job) {
  auto running = submit_script("long.sh", "#!/bin/sh\nsleep 60\n");
  BOOST_REQUIRE(wait_job_state(running, "RUNNING"));
  edit_config("SlurmctldDebug=info", "SlurmctldDebug=debug");
  edit_config("KillWait=2", "KillWait=7");
  auto r = run_cli({"control", "reconfigure"});
  BOOST_TEST(r.exit_code == 0, r.describe());
  BOOST_TEST(r.out.empty(), r.describe());  // quiet, as scontrol
  BOOST_TEST(contains(ctld_log(), "applied=SlurmctldDebug=debug restart_needed=KillWait"),
             ctld_log());
  // Every node daemon reads its file too, as slurmd on slurmctld's word.
  BOOST_TEST(log_shows([&] { return node1_log(); }, "reconfigure asked by the controller"));
  BOOST_TEST(log_shows([&] { return node1_log(); }, "reconfigure file="));
  BOOST_TEST(job_state(running) == "RUNNING");
  BOOST_TEST(controller_answers());
  auto next = submit_script("short.sh", "#!/bin/sh\ntrue\n");
  BOOST_TEST(wait_job_state(next, "COMPLETED"));
}

BOOST_AUTO_TEST_CASE(a_file_that_does_not_parse_is_refused_with_its_line_and_kept_out) {
  auto text = read_file(conf);
  if (!text.empty() && text.back() != '\n') text += '\n';
  // The CLI reads a good copy: the controller's own file is the broken one.
  auto good = write_file(scratch.file("good.conf"), text);
  auto line = std::count(text.begin(), text.end(), '\n') + 1;
  write_file(conf, text + "KillWait=soon\n");
  command_options opt;
  opt.env = {{"SHOAL_CONF", good}};
  auto r = run_command({bin_path("shoal"), "control", "reconfigure"}, opt);
  BOOST_TEST(r.exit_code == 1, r.describe());
  BOOST_TEST(contains(r.err, conf + ":" + std::to_string(line) + ":"), r.describe());
  BOOST_TEST(contains(r.err, "the configuration in force stays"), r.describe());
  write_file(conf, text);
  BOOST_TEST(controller_answers());
}

BOOST_AUTO_TEST_SUITE_END()

// A reconfigure applies the file's NodeName= and PartitionName= lines while shoalctld runs:
// slurmctld needs a restart for a new node; shoal adds it, and a removed node or partition goes
// unless a job still uses it (then nothing changes and the admin hears why).
BOOST_FIXTURE_TEST_SUITE(reconfigure_layout, hup_cluster)

BOOST_AUTO_TEST_CASE(a_new_node_and_partition_appear_and_take_jobs) {
  auto running = submit_script("long.sh", "#!/bin/sh\nsleep 60\n");
  BOOST_REQUIRE(wait_job_state(running, "RUNNING"));
  auto text = read_file(conf);
  if (!text.empty() && text.back() != '\n') text += '\n';
  write_file(conf, text +
                       "NodeName=node3 NodeAddr=127.0.0.1\n"
                       "PartitionName=extra Nodes=node3 MaxTime=INFINITE State=UP\n");
  auto r = run_cli({"control", "reconfigure"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_TEST(contains(ctld_log(),
                      "reconfigure nodes_added=node3 nodes_removed=none "
                      "partitions_added=extra partitions_changed=none "
                      "partitions_removed=none"),
             ctld_log());
  // Known before its daemon comes: listed, and not yet usable.
  BOOST_TEST(node_state("node3") == "UNKNOWN");
  auto parts = run_cli({"info", "-h", "-o", "%P %D"});
  BOOST_TEST(contains(parts.out, "extra 1"), parts.describe());
  daemon_process node3{{bin_path("shoald"), "-f", conf, "--node-name", "node3"},
                       cluster.directory() + "/shoald-node3.log"};
  BOOST_REQUIRE(wait_node_state("node3", "IDLE"));
  auto on_new = submit_script("new.sh", "#!/bin/sh\nhostname >/dev/null\n", {"-p", "extra"});
  BOOST_REQUIRE(wait_job_state(on_new, "COMPLETED"));
  BOOST_TEST(job(on_new)["nodelist"] == "node3", job(on_new).dump());
  // The job that ran all along was not disturbed, and the old partition takes jobs as before.
  BOOST_TEST(job_state(running) == "RUNNING");
  auto on_old = submit_script("old.sh", "#!/bin/sh\ntrue\n", {"-p", "debug"});
  BOOST_TEST(wait_job_state(on_old, "COMPLETED"));
}

BOOST_AUTO_TEST_CASE(sighup_applies_them_too) {
  auto text = read_file(conf);
  if (!text.empty() && text.back() != '\n') text += '\n';
  write_file(conf, text + "PartitionName=more Nodes=node1 MaxTime=INFINITE State=UP\n");
  cluster.signal_controller(SIGHUP);
  BOOST_REQUIRE(log_shows([&] { return ctld_log(); }, "partitions_added=more"));
  BOOST_TEST(contains(ctld_log(), "user=SIGHUP"));
  auto job = submit_script("more.sh", "#!/bin/sh\ntrue\n", {"-p", "more"});
  BOOST_TEST(wait_job_state(job, "COMPLETED"));
}

BOOST_AUTO_TEST_CASE(a_node_in_use_stays_and_goes_once_idle) {
  auto busy = submit_script("busy.sh", "#!/bin/sh\nsleep 60\n", {"-w", "node2"});
  BOOST_REQUIRE(wait_job_state(busy, "RUNNING"));
  edit_config("NodeName=node[1-2]", "NodeName=node1");
  edit_config("Nodes=node[1-2]", "Nodes=node1");
  auto refused = run_cli({"control", "reconfigure"});
  BOOST_TEST(refused.exit_code == 1, refused.describe());
  BOOST_TEST(contains(refused.err, "node node2 is in use"), refused.describe());
  BOOST_TEST(contains(refused.err, "the nodes and partitions in force stay"), refused.describe());
  BOOST_TEST(node_state("node2") == "ALLOCATED");
  BOOST_TEST(job_state(busy) == "RUNNING");
  BOOST_REQUIRE(run_cli({"cancel", std::to_string(busy)}).exit_code == 0);
  BOOST_REQUIRE(wait_job_state(busy, "CANCELLED"));
  BOOST_REQUIRE(wait_node_state("node2", "IDLE"));
  // A reservation over both nodes keeps the one that stays.
  auto made = run_cli({"control", "create", "reservation", "reservationname=later",
                       "starttime=now+1hour", "duration=10", "nodes=node[1-2]", "users=root"});
  BOOST_REQUIRE_MESSAGE(made.exit_code == 0, made.describe());
  auto applied = run_cli({"control", "reconfigure"});
  BOOST_REQUIRE_MESSAGE(applied.exit_code == 0, applied.describe());
  BOOST_TEST(node(std::string{"node2"}).is_null(), nodes().dump());
  auto reserved = run_cli({"control", "show", "reservation", "later"});
  BOOST_TEST(contains(reserved.out, "Nodes=node1 NodeCnt=1"), reserved.describe());
  // Gone again: the unlimited jobs below would otherwise wait for it to end.
  BOOST_REQUIRE(run_cli({"control", "delete", "reservationname=later"}).exit_code == 0);
  BOOST_TEST(nodes().size() == 1u, nodes().dump());
  // Two one-node jobs on the one node left: one after the other, never on the removed node.
  auto first = submit_script("a.sh", "#!/bin/sh\nsleep 1\n", {"--exclusive"});
  auto second = submit_script("b.sh", "#!/bin/sh\nsleep 1\n", {"--exclusive"});
  BOOST_REQUIRE(wait_job_state(first, "COMPLETED"));
  BOOST_REQUIRE(wait_job_state(second, "COMPLETED"));
  BOOST_TEST(job(second)["nodelist"] == "node1", job(second).dump());
}

BOOST_AUTO_TEST_CASE(the_files_partitions_replace_edits_and_a_used_one_is_not_removed) {
  // An edit made with scontrol lasts until the next reconfigure, as in slurmctld without
  // ReconfigFlags=KeepPartInfo.
  auto r = run_cli({"control", "update", "partitionname=debug", "maxtime=10"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_REQUIRE(run_cli({"control", "reconfigure"}).exit_code == 0);
  auto shown = run_cli({"control", "show", "partition", "debug"});
  BOOST_TEST(contains(shown.out, "MaxTime=UNLIMITED"), shown.describe());
  // A partition a job still waits in is not removed.
  auto text = read_file(conf);
  if (!text.empty() && text.back() != '\n') text += '\n';
  write_file(conf, text + "PartitionName=spare Nodes=node1 MaxTime=INFINITE State=UP\n");
  BOOST_REQUIRE(run_cli({"control", "reconfigure"}).exit_code == 0);
  auto held = submit_script("held.sh", "#!/bin/sh\ntrue\n", {"-p", "spare", "-H"});
  BOOST_REQUIRE(wait_job_state(held, "PENDING"));
  write_file(conf, text);
  auto refused = run_cli({"control", "reconfigure"});
  BOOST_TEST(refused.exit_code == 1, refused.describe());
  BOOST_TEST(contains(refused.err, "partition spare is in use (job " + std::to_string(held)),
             refused.describe());
  BOOST_REQUIRE(run_cli({"cancel", std::to_string(held)}).exit_code == 0);
  BOOST_REQUIRE(wait_job_state(held, "CANCELLED"));
  BOOST_REQUIRE(run_cli({"control", "reconfigure"}).exit_code == 0);
  auto gone = run_cli({"control", "show", "partition", "spare"});
  BOOST_TEST(gone.exit_code != 0, gone.describe());
}

BOOST_AUTO_TEST_SUITE_END()
