// Power saving and cloud nodes on a real local cluster (issue 32; the Cloud Scheduling Guide).
// The ResumeProgram here starts a real shoald for each node it is given and the SuspendProgram
// kills it, as a cloud's API would create and destroy instances: the guide's whole sequence runs
// through real processes, programs and registrations.

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "config/config.hpp"
#include "test/integration/cloud_scripts.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// node1, an ordinary node started here, in partition "debug"; cloud[1-2], State=CLOUD nodes of
/// partition "cloud" (SuspendTime=2 there, INFINITE elsewhere) whose shoald only the
/// ResumeProgram of write_cloud_scripts starts.
struct cloud_cluster {
  scratch_dir dir;
  std::string conf;
  std::vector<std::unique_ptr<daemon_process>> daemons;

  explicit cloud_cluster(const std::string& extra = "") {
    auto text = shoal::config::default_config_text(1, free_port());
    auto d = dir.path();
    text += "StateSaveLocation=" + d + "/state\nTmpFS=" + d + "\nSlurmdSpoolDir=" + d + "/spool\n";
    text += write_cloud_scripts(dir);
    text += "SuspendTimeout=2\nResumeTimeout=8\nSlurmctldParameters=power_save_interval=1\n";
    text += "NodeName=cloud[1-2] NodeAddr=127.0.0.1 State=CLOUD Features=cloudy\n";
    text += "PartitionName=cloud Nodes=cloud[1-2] SuspendTime=2 MaxTime=INFINITE State=UP\n";
    text = shoal::config::merge_config_text(text, extra + test_auth_config());
    conf = write_file(dir.file("shoal.conf"), text);
    start_controller();
    daemons.push_back(std::make_unique<daemon_process>(
        std::vector<std::string>{bin_path("shoald"), "-f", conf, "--node-name", "node1"},
        dir.file("shoald-node1.log")));
    if (!wait_until([&] { return state_of("node1") == "idle"; }, 60s)) {
      dir.keep();
      throw std::runtime_error("the cluster did not come up; files in " + dir.path());
    }
  }

  ~cloud_cluster() {
    kill_cloud_daemons(dir, {"node1", "cloud1", "cloud2"});
    if (!current_test_passed()) {
      dir.keep();
      std::cerr << "integration: test failed; files kept in " << dir.path() << "\n";
    }
  }

  void start_controller(const std::string& log = "shoalctld.log") {
    daemons.insert(daemons.begin(),
                   std::make_unique<daemon_process>(
                       std::vector<std::string>{bin_path("shoalctld"), "-f", conf}, dir.file(log)));
  }

  command_result run(const std::vector<std::string>& args) {
    command_options opt;
    opt.cwd = dir.path();
    return run_shoal(conf, args, opt);
  }

  /// The node's state as `sinfo -N -o %t` prints it ("idle~", "alloc#"); "" when not listed.
  /// (A node in two partitions has a line in each: the first says it.)
  std::string state_of(const std::string& node) {
    auto r = run({"info", "-N", "-h", "-n", node, "-o", "%t"});
    auto out = r.out.substr(0, r.out.find('\n'));
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return r.exit_code == 0 ? out : "";
  }

  /// `shoal control show node NAME`.
  std::string show_node(const std::string& node) {
    return run({"control", "show", "node", node}).out;
  }

  std::string job_state(uint64_t id) {
    auto j = job_record(conf, id);
    return j.is_null() ? std::string{} : j.value("state", "");
  }

  nlohmann::json job(uint64_t id) { return job_record(conf, id); }

  uint64_t submit(const std::vector<std::string>& options, const std::string& command) {
    std::vector<std::string> args{"batch", "--parsable"};
    if (std::find(options.begin(), options.end(), "-o") == options.end())
      args.insert(args.end(), {"-o", "/dev/null"});
    args.insert(args.end(), options.begin(), options.end());
    args.push_back("--wrap=" + command);
    auto r = run(args);
    BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
    return std::stoull(r.out);
  }

  bool wait_state(const std::string& node, const std::string& state, millis timeout = 30s) {
    return wait_until([&] { return state_of(node) == state; }, timeout);
  }

  bool wait_job(uint64_t id, const std::string& state, millis timeout = 30s) {
    return wait_until([&] { return job_state(id) == state; }, timeout);
  }

  std::string power_log() { return read_file(dir.file("power.log")); }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(power_saving, cloud_cluster)

BOOST_AUTO_TEST_CASE(the_guides_sequence_idle_powered_down_to_running_and_back) {
  write_file(dir.file("delay"), "2\n");
  // A cloud node starts IDLE+POWERED_DOWN and out of the listings.
  BOOST_CHECK_EQUAL(state_of("cloud1"), "");
  BOOST_CHECK_MESSAGE(
      contains(run({"control", "show", "node", "cloud1"}).out, "State=IDLE+CLOUD+POWERED_DOWN"),
      show_node("cloud1"));
  auto id = submit({"-p", "cloud", "-C", "cloudy"}, "sleep 1");
  // Allocated and powering up; the job CONFIGURING until the node registers.
  BOOST_CHECK_MESSAGE(wait_state("cloud1", "alloc#"), state_of("cloud1"));
  BOOST_CHECK_EQUAL(job_state(id), "CONFIGURING");
  BOOST_CHECK_MESSAGE(contains(show_node("cloud1"), "+POWERING_UP"), show_node("cloud1"));
  BOOST_CHECK_MESSAGE(wait_job(id, "RUNNING"), job_state(id));
  BOOST_CHECK_MESSAGE(wait_job(id, "COMPLETED"), job_state(id));
  // Idle again, then POWERING_DOWN after SuspendTime, then POWERED_DOWN after SuspendTimeout.
  BOOST_CHECK_MESSAGE(wait_state("cloud1", "idle%"), state_of("cloud1"));
  BOOST_CHECK_MESSAGE(wait_until([&] { return state_of("cloud1").empty(); }, 30s),
                      state_of("cloud1"));
  BOOST_CHECK_MESSAGE(contains(show_node("cloud1"), "State=IDLE+CLOUD+POWERED_DOWN"),
                      show_node("cloud1"));
  auto log = power_log();
  BOOST_CHECK_EQUAL(count_lines_with(log, "resume cloud1"), 1u);
  BOOST_CHECK_EQUAL(count_lines_with(log, "suspend cloud1"), 1u);
  // The guide's SLURM_RESUME_FILE named the job and its nodes.
  auto file = parse_json(read_file(dir.file("resume.json")));
  BOOST_REQUIRE_MESSAGE(file.is_object(), read_file(dir.file("resume.json")));
  BOOST_CHECK_EQUAL(file.value("all_nodes_resume", ""), "cloud1");
  BOOST_REQUIRE(file["jobs"].size() == 1u);
  BOOST_CHECK_EQUAL(file["jobs"][0].value("job_id", uint64_t{0}), id);
  BOOST_CHECK_EQUAL(file["jobs"][0].value("nodes_alloc", ""), "cloud1");
  BOOST_CHECK_EQUAL(file["jobs"][0].value("partition", ""), "cloud");
  BOOST_CHECK_EQUAL(file["jobs"][0].value("features", ""), "cloudy");
  // node1 is outside power saving (SuspendTime INFINITE): it stayed up all along.
  BOOST_CHECK_EQUAL(state_of("node1"), "idle");
}

BOOST_AUTO_TEST_CASE(a_hung_resume_past_resume_timeout_downs_the_node_and_requeues_the_job) {
  write_file(dir.file("hang"), "");
  // On cloud1 only: otherwise the requeued job would try cloud2 next while the cloud hangs.
  auto id = submit({"-p", "cloud", "-w", "cloud1"}, "true");
  BOOST_CHECK_MESSAGE(wait_job(id, "CONFIGURING"), job_state(id));
  // ResumeTimeout (8 s): the node is DOWN with Slurm's reason, ResumeFailProgram runs, the
  // hung program is killed and the job waits again.
  BOOST_CHECK_MESSAGE(
      wait_until([&] { return contains(show_node("cloud1"), "Reason=ResumeTimeout reached"); },
                 30s),
      show_node("cloud1"));
  BOOST_CHECK_MESSAGE(wait_job(id, "PENDING"), job_state(id));
  BOOST_CHECK_MESSAGE(wait_until([&] { return contains(power_log(), "resume_fail cloud1"); }, 10s),
                      power_log());
  BOOST_CHECK_MESSAGE(wait_until(
                          [&] {
                            return contains(read_file(dir.file("shoalctld.log")),
                                            "ResumeProgram killed after its timeout");
                          },
                          10s),
                      "no kill logged");
  // The job is not lost: the admin returns the node, the cloud works again, the job runs.
  ::unlink(dir.file("hang").c_str());
  auto r = run({"control", "update", "nodename=cloud1", "state=idle"});
  BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_MESSAGE(wait_job(id, "COMPLETED", 60s), job_state(id));
  BOOST_CHECK_EQUAL(job(id).value("requeue_count", 0), 1);
}

BOOST_AUTO_TEST_CASE(manual_power_up_down_and_force) {
  // POWER_UP: the node comes up without a job and joins the listings.
  auto r = run({"control", "update", "nodename=cloud2", "state=power_up"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_MESSAGE(wait_state("cloud2", "idle#", 10s) || state_of("cloud2") == "idle",
                      state_of("cloud2"));
  BOOST_CHECK_MESSAGE(wait_state("cloud2", "idle"), state_of("cloud2"));
  // POWER_DOWN_FORCE while a job runs there: the job ends, the node powers down.
  auto id = submit({"-p", "cloud", "-w", "cloud2"}, "sleep 300");
  BOOST_CHECK_MESSAGE(wait_job(id, "RUNNING"), job_state(id));
  r = run({"control", "update", "nodename=cloud2", "state=power_down_force"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_MESSAGE(wait_until(
                          [&] {
                            auto s = job_state(id);
                            return s == "NODE_FAIL" || s == "PENDING";
                          },
                          30s),
                      job_state(id));
  BOOST_CHECK_MESSAGE(wait_until([&] { return contains(power_log(), "suspend cloud2"); }, 30s),
                      power_log());
  run({"cancel", std::to_string(id)});
  // node1 is no cloud node: POWER_DOWN marks it (!) and powers it down once free; POWER_UP
  // brings it back (its daemon never stopped: this suspend program only stops cloud daemons).
  r = run({"control", "update", "nodename=node1", "state=power_down"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_MESSAGE(wait_until([&] { return contains(power_log(), "suspend node1"); }, 30s),
                      power_log());
  BOOST_CHECK_MESSAGE(wait_state("node1", "idle~"), state_of("node1"));
  // A bad word is refused by name.
  r = run({"control", "update", "nodename=node1", "state=power_sideways"});
  BOOST_CHECK_NE(r.exit_code, 0);
}

BOOST_AUTO_TEST_CASE(a_node_that_reboots_unasked_is_down) {
  auto r = run({"control", "update", "nodename=cloud2", "state=power_up"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_REQUIRE_MESSAGE(wait_state("cloud2", "idle"), state_of("cloud2"));
  // Its host "reboots": the daemon dies and comes back reporting a later boot time (shoald -b
  // reports its own start, in whole seconds).
  auto pid = std::stoi(read_file(dir.file("cloud2.pid")));
  ::kill(pid, SIGKILL);
  std::this_thread::sleep_for(1100ms);
  daemons.push_back(std::make_unique<daemon_process>(
      std::vector<std::string>{bin_path("shoald"), "-f", conf, "-N", "cloud2", "-b",
                               "--metrics-port", "0"},
      dir.file("shoald-cloud2.2.log")));
  BOOST_CHECK_MESSAGE(wait_until(
                          [&] {
                            auto rec = show_node("cloud2");
                            return contains(rec, "State=DOWN") &&
                                   contains(rec, "Reason=Node unexpectedly rebooted");
                          },
                          30s),
                      show_node("cloud2"));
}

BOOST_AUTO_TEST_CASE(
    a_controller_killed_while_a_node_powers_up_neither_resumes_it_twice_nor_forgets_it) {
  write_file(dir.file("delay"), "4\n");
  auto id = submit({"-p", "cloud"}, "true");
  BOOST_CHECK_MESSAGE(wait_state("cloud1", "alloc#"), state_of("cloud1"));
  BOOST_REQUIRE(wait_until([&] { return contains(power_log(), "resume cloud1"); }, 10s));
  daemons.front()->kill_now();
  daemons.erase(daemons.begin());
  start_controller("shoalctld.2.log");
  BOOST_CHECK_MESSAGE(wait_job(id, "COMPLETED", 60s), job_state(id));
  BOOST_CHECK_EQUAL(count_lines_with(power_log(), "resume cloud1"), 1u);
  BOOST_CHECK_MESSAGE(contains(read_file(dir.file("shoalctld.2.log")),
                               "node power recovered node=cloud1 state=POWERING_UP"),
                      "no recovery logged");
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

/// As cloud_cluster, with cloud_reg_addrs (a registering cloud node gives its address),
/// cloud2 kept up by SuspendExcNodes, and a partition `burst` of cloud2 with PowerDownOnIdle.
struct cloud_reg_addrs : cloud_cluster {
  cloud_reg_addrs()
      : cloud_cluster(
            "SlurmctldParameters=power_save_interval=1,cloud_reg_addrs\nSuspendExcNodes=cloud2\n"
            "PartitionName=burst Nodes=cloud2 PowerDownOnIdle=YES MaxTime=INFINITE State=UP\n") {}
};

std::string value_of(const std::string& record, const std::string& key) {
  auto at = record.find(" " + key + "=");
  if (at == std::string::npos) return "";
  at += key.size() + 2;
  return record.substr(at, record.find_first_of(" \n", at) - at);
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(power_saving_addresses, cloud_reg_addrs)

BOOST_AUTO_TEST_CASE(addresses_from_registration_reach_jobs_and_an_admins_outlive_a_restart) {
  // A job on a cloud node sees SLURM_NODE_ALIASES naming it with the address it registered from.
  auto id = submit({"-p", "cloud", "-w", "cloud1", "-o", dir.file("aliases.out")},
                   "echo $SLURM_NODE_ALIASES; echo $SHOAL_NODE_ALIASES");
  BOOST_CHECK_MESSAGE(wait_job(id, "COMPLETED", 60s), job_state(id));
  auto lines = lines_of(read_file(dir.file("aliases.out")));
  BOOST_REQUIRE_MESSAGE(lines.size() == 2u, read_file(dir.file("aliases.out")));
  BOOST_CHECK_MESSAGE(lines[0].rfind("cloud1:127.0.0.1:", 0) == 0, lines[0]);
  BOOST_CHECK_EQUAL(lines[0], lines[1]);
  // Powered off again, it gets its name back as its address.
  BOOST_CHECK_MESSAGE(
      wait_until([&] { return value_of(show_node("cloud1"), "NodeAddr") == "cloud1"; }, 30s),
      show_node("cloud1"));
  // The guide's `scontrol update nodename=ec0 nodeaddr=... nodehostname=...`, durable.
  auto r =
      run({"control", "update", "nodename=cloud2", "nodeaddr=10.9.9.9", "nodehostname=cloudhost2"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  daemons.front()->kill_now();
  daemons.erase(daemons.begin());
  start_controller("shoalctld.2.log");
  BOOST_CHECK_MESSAGE(wait_until(
                          [&] {
                            auto rec = show_node("cloud2");
                            return value_of(rec, "NodeAddr") == "10.9.9.9" &&
                                   value_of(rec, "NodeHostName") == "cloudhost2";
                          },
                          30s),
                      show_node("cloud2"));
}

BOOST_AUTO_TEST_CASE(an_excluded_node_powered_up_stays_up) {
  auto r = run({"control", "update", "nodename=cloud2", "state=power_up"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_MESSAGE(wait_state("cloud2", "idle"), state_of("cloud2"));
  // cloud1, not excluded, goes down after its SuspendTime (2 s) once used; cloud2 stays up.
  auto id = submit({"-p", "cloud", "-w", "cloud1"}, "true");
  BOOST_CHECK_MESSAGE(wait_job(id, "COMPLETED", 60s), job_state(id));
  BOOST_CHECK_MESSAGE(wait_until([&] { return contains(power_log(), "suspend cloud1"); }, 30s),
                      power_log());
  BOOST_CHECK_EQUAL(state_of("cloud2"), "idle");
  BOOST_CHECK(!contains(power_log(), "suspend cloud2"));
  // POWER_DOWN_ASAP while a job runs on cloud1: DRAINING and asked down (drng!); the job
  // finishes, then the node powers down.
  write_file(dir.file("delay"), "0\n");
  auto long_job = submit({"-p", "cloud", "-w", "cloud1"}, "sleep 3");
  BOOST_CHECK_MESSAGE(wait_job(long_job, "RUNNING", 60s), job_state(long_job));
  r = run({"control", "update", "nodename=cloud1", "state=power_down_asap"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_MESSAGE(wait_state("cloud1", "drng!"), state_of("cloud1"));
  BOOST_CHECK_MESSAGE(wait_job(long_job, "COMPLETED", 60s), job_state(long_job));
  BOOST_CHECK_MESSAGE(
      wait_until([&] { return count_lines_with(power_log(), "suspend cloud1") == 2; }, 30s),
      power_log());
}

BOOST_AUTO_TEST_CASE(power_down_on_idle_powers_a_node_down_as_its_job_leaves_it) {
  // cloud2 is excluded from SuspendTime's power downs, but PowerDownOnIdle asks it down (!) as
  // soon as a job of `burst` leaves it, as an admin's POWER_DOWN would.
  auto id = submit({"-p", "burst"}, "true");
  BOOST_CHECK_MESSAGE(wait_job(id, "COMPLETED", 60s), job_state(id));
  BOOST_CHECK_MESSAGE(wait_until([&] { return contains(power_log(), "suspend cloud2"); }, 30s),
                      power_log());
  BOOST_CHECK_MESSAGE(wait_until([&] { return state_of("cloud2").empty(); }, 30s),
                      state_of("cloud2"));
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

/// As cloud_cluster, with power saving on for every node (SuspendTime=1; the cloud partition's
/// 2 for its nodes) and each kind of exclusion: one usable node of cloud[1-2] kept up, the
/// debug partition (node1) kept up, drained nodes kept up.
struct excluded_nodes : cloud_cluster {
  excluded_nodes()
      : cloud_cluster(
            "SuspendTime=1\nSuspendExcNodes=cloud[1-2]:1\nSuspendExcParts=debug\n"
            "SuspendExcStates=DRAIN\n") {}
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(power_saving_exclusions, excluded_nodes)

BOOST_AUTO_TEST_CASE(a_count_a_partition_and_a_state_keep_their_nodes_up) {
  auto r = run({"control", "update", "nodename=cloud[1-2]", "state=power_up"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  // Both come up; once idle for SuspendTime one goes down, the count keeps the other.
  BOOST_CHECK_MESSAGE(wait_until(
                          [&] {
                            auto log = power_log();
                            return count_lines_with(log, "suspend cloud") == 1;
                          },
                          30s),
                      power_log());
  // A few power-saving rounds later (power_save_interval=1) nothing more went down: not the kept
  // cloud node, not node1 (its partition is excluded though the global SuspendTime is 1 s).
  std::this_thread::sleep_for(3s);
  auto log = power_log();
  BOOST_CHECK_EQUAL(count_lines_with(log, "suspend"), 1u);
  BOOST_CHECK_EQUAL(state_of("node1"), "idle");
  auto kept = contains(log, "suspend cloud1") ? std::string{"cloud2"} : std::string{"cloud1"};
  BOOST_CHECK_EQUAL(state_of(kept), "idle");
  // Drained, the kept node is no longer one the count keeps, but SuspendExcStates=DRAIN is.
  r = run({"control", "update", "nodename=" + kept, "state=drain", "reason=checking"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  std::this_thread::sleep_for(3s);
  BOOST_CHECK_EQUAL(count_lines_with(power_log(), "suspend"), 1u);
  BOOST_CHECK_EQUAL(state_of(kept), "drain");
}

BOOST_AUTO_TEST_SUITE_END()
