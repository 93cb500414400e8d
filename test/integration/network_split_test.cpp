// Partitions of the network (issue 31, item 5): three hosts as network namespaces on one bridge.
// hostA runs the primary shoalctld, hostB the backup, hostC a front-end shoald serving c[1-4]
// (c1 and c3 collect). A cut is a pair of blackhole routes (each side's packets to the other go
// nowhere); healing deletes them. Needs root and `ip netns`: skipped with the reason otherwise.
//
// What a cut costs (docs/architecture.md, "What each fault costs"):
// - hostC cut from the primary in control: the backup still hears the primary and stays in
//   standby; hostC's daemons cannot reach a controller in control, so c[1-4] go DOWN after
//   SlurmdTimeout and their jobs end (NODE_FAIL, or requeued). Healed: they return IDLE and run
//   jobs again.
// - the two controllers cut from each other: the backup sees the primary's heartbeat file in the
//   shared StateSaveLocation and does not take over, so no job starts twice; nothing else moves.

#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/bootstrap/local_cluster.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// A shell command's exit status (0: it ran and succeeded).
int sh(const std::string& command) {
  return std::system((command + " >/dev/null 2>&1").c_str());
}

/// iproute2's `ip`, by its full path (daemons are started with execv, not through PATH).
std::string ip_path() {
  for (const char* path : {"/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"})
    if (::access(path, X_OK) == 0) return path;
  return "ip";
}

boost::test_tools::assertion_result can_make_namespaces(boost::unit_test::test_unit_id) {
  boost::test_tools::assertion_result ok{false};
  if (::geteuid() != 0) {
    ok.message() << "network namespaces need root";
    return ok;
  }
  auto probe = "shoalprobe" + std::to_string(::getpid());
  if (sh("ip netns add " + probe) != 0) {
    ok.message() << "`ip netns add` failed (no iproute2, or no namespace support here)";
    return ok;
  }
  sh("ip netns del " + probe);
  return true;
}

/// Three namespaces on one bridge: host k (0: A, 1: B, 2: C) at SUBNET.(k+1), the test's own
/// namespace at SUBNET.254. Torn down (with whatever runs in them) at the end.
struct three_hosts {
  /// Unique per fixture: a test case's namespaces and links may still be going away (the kernel
  /// removes a namespace's veth lazily) when the next case builds its own.
  int instance = next_instance();
  std::string tag = std::to_string(::getpid() % 100000) + std::to_string(instance % 10);
  std::string subnet = "10.231." + std::to_string((::getpid() + instance) % 200 + 20);
  std::string bridge = "shbr" + tag;
  std::vector<std::string> hosts{"shoalA" + tag, "shoalB" + tag, "shoalC" + tag};

  three_hosts() {
    bool ok = sh("ip link add " + bridge + " type bridge") == 0 &&
              sh("ip addr add " + subnet + ".254/24 dev " + bridge) == 0 &&
              sh("ip link set " + bridge + " up") == 0;
    for (size_t k = 0; k < hosts.size() && ok; ++k) {
      auto outside = "shv" + tag + std::string(1, static_cast<char>('a' + k));
      auto inside = "shw" + tag + std::string(1, static_cast<char>('a' + k));
      ok = sh("ip netns add " + hosts[k]) == 0 &&
           sh("ip link add " + outside + " type veth peer name " + inside) == 0 &&
           sh("ip link set " + outside + " master " + bridge + " up") == 0 &&
           sh("ip link set " + inside + " netns " + hosts[k]) == 0 &&
           sh(in(k) + "ip addr add " + address(k) + "/24 dev " + inside) == 0 &&
           sh(in(k) + "ip link set " + inside + " up") == 0 && sh(in(k) + "ip link set lo up") == 0;
    }
    if (!ok) tear_down();  // a constructor that throws gets no destructor
    BOOST_REQUIRE_MESSAGE(ok, "cannot build the three hosts' network");
  }

  static int next_instance() {
    static int count = 0;
    return count++;
  }

  ~three_hosts() { tear_down(); }

  void tear_down() {
    for (auto& h : hosts) sh("ip netns pids " + h + " | xargs -r kill -9; ip netns del " + h);
    sh("ip link del " + bridge);
  }

  std::string in(size_t k) const { return "ip netns exec " + hosts[k] + " "; }
  std::string address(size_t k) const { return subnet + "." + std::to_string(k + 1); }

  /// Packets between hosts `a` and `b` go nowhere, both ways.
  void cut(size_t a, size_t b) {
    BOOST_REQUIRE(sh(in(a) + "ip route add blackhole " + address(b) + "/32") == 0);
    BOOST_REQUIRE(sh(in(b) + "ip route add blackhole " + address(a) + "/32") == 0);
  }

  void heal(size_t a, size_t b) {
    BOOST_REQUIRE(sh(in(a) + "ip route del blackhole " + address(b) + "/32") == 0);
    BOOST_REQUIRE(sh(in(b) + "ip route del blackhole " + address(a) + "/32") == 0);
  }
};

constexpr size_t host_a = 0, host_b = 1, host_c = 2;

struct split_cluster : three_hosts {
  scratch_dir dir;
  std::string conf;
  std::unique_ptr<daemon_process> primary, backup, front_end;

  split_cluster() {
    conf = write_file(dir.file("shoal.conf"),
                      "ClusterName=split\nSlurmctldHost=ctl1(" + address(host_a) +
                          ":6817)\nSlurmctldHost=ctl2(" + address(host_b) +
                          ":6817)\nSlurmctldTimeout=3\nMessageTimeout=5\n"
                          "MetricsPort=0\nNodeMetricsPort=0\n"
                          "HeartBeatInterval=1\nSlurmdTimeout=5\nReturnToService=1\nKillWait=2\n"
                          "StateSaveLocation=" +
                          dir.file("state") + "\nNodeName=c[1-4] NodeAddr=" + address(host_c) +
                          "\nPartitionName=debug Nodes=c[1-4] Default=YES MaxTime=INFINITE\n"
                          "CollectorNodes=c[1,3]\n" +
                          test_auth_config());
    primary = start(host_a, {bin_path("shoalctld"), "-f", conf, "--controller", "ctl1"}, "ctl1");
    backup = start(host_b, {bin_path("shoalctld"), "-f", conf, "--controller", "ctl2"}, "ctl2");
    front_end =
        start(host_c, {bin_path("shoald"), "-f", conf, "--nodes", "c[1-4]", "--simulate"}, "fe");
  }

  ~split_cluster() {
    if (!current_test_passed()) {
      dir.keep();
      BOOST_TEST_MESSAGE("kept the logs in " << dir.path());
    }
  }

  std::unique_ptr<daemon_process> start(size_t host, std::vector<std::string> argv,
                                        const std::string& log) {
    std::vector<std::string> full{ip_path(), "netns", "exec", hosts[host]};
    full.insert(full.end(), argv.begin(), argv.end());
    return std::make_unique<daemon_process>(full, dir.file(log + ".log"));
  }

  command_result shoal(const std::vector<std::string>& args) {
    command_options opt;
    opt.cwd = dir.path();
    opt.timeout = 60s;
    return run_shoal(conf, args, opt);
  }

  size_t nodes_in(const std::string& state) {
    auto doc = parse_json(shoal({"info", "-N", "--json"}).out);
    size_t n = 0;
    if (doc.is_object())
      for (auto& node : doc.value("nodes", nlohmann::json::array()))
        n += node.value("state", "") == state ? 1 : 0;
    return n;
  }

  std::string state_of(uint64_t id) {
    auto doc = parse_json(shoal({"queue", "-t", "all", "--json"}).out);
    if (doc.is_object())
      for (auto& j : doc.value("jobs", nlohmann::json::array()))
        if (j.value("job_id", uint64_t{0}) == id) return j.value("state", "");
    return "";
  }

  uint64_t submit_sleep(int seconds) {
    auto r = shoal({"batch", "-N1", "--wrap", "sleep " + std::to_string(seconds)});
    BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
    return submitted_job_id(r.out);
  }

  bool log_has(const std::string& log, const std::string& text) {
    return read_file(dir.file(log + ".log")).find(text) != std::string::npos;
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(network_split, *boost::unit_test::precondition(can_make_namespaces))

BOOST_FIXTURE_TEST_CASE(a_host_cut_from_the_controller_loses_its_nodes_until_healed,
                        split_cluster) {
  BOOST_REQUIRE_MESSAGE(wait_until([&] { return nodes_in("IDLE") == 4; }, 60s),
                        "the cluster never came up");
  auto job = submit_sleep(300);
  BOOST_REQUIRE(wait_until([&] { return state_of(job) == "RUNNING"; }, 30s));
  cut(host_a, host_c);
  // The backup still hears the primary: it does not take over, and hostC's daemons find no
  // controller in control. After SlurmdTimeout the nodes are DOWN and the job leaves RUNNING.
  BOOST_CHECK(wait_until([&] { return nodes_in("DOWN") == 4; }, 30s));
  BOOST_CHECK(wait_until([&] { return state_of(job) != "RUNNING"; }, 30s));
  BOOST_CHECK(!log_has("ctl2", "controller in control"));
  heal(host_a, host_c);
  BOOST_CHECK(wait_until([&] { return nodes_in("IDLE") + nodes_in("ALLOCATED") == 4; }, 60s));
  auto after = submit_sleep(1);
  BOOST_CHECK_MESSAGE(wait_until([&] { return state_of(after) == "COMPLETED"; }, 60s),
                      "job " << after << " is " << state_of(after));
  BOOST_CHECK(front_end->running());
}

BOOST_FIXTURE_TEST_CASE(controllers_cut_from_each_other_do_not_both_take_control, split_cluster) {
  BOOST_REQUIRE_MESSAGE(wait_until([&] { return nodes_in("IDLE") == 4; }, 60s),
                        "the cluster never came up");
  auto before = submit_sleep(12);
  BOOST_REQUIRE(wait_until([&] { return state_of(before) == "RUNNING"; }, 30s));
  cut(host_a, host_b);
  // The backup loses the primary on the network but sees its heartbeat file: it stays in
  // standby, so jobs started now start once, by the primary.
  BOOST_CHECK(
      wait_until([&] { return log_has("ctl2", "not taking over: the primary ctl1"); }, 30s));
  auto during = submit_sleep(2);
  BOOST_CHECK_MESSAGE(wait_until([&] { return state_of(during) == "COMPLETED"; }, 60s),
                      "job " << during << " is " << state_of(during));
  BOOST_CHECK_MESSAGE(wait_until([&] { return state_of(before) == "COMPLETED"; }, 60s),
                      "job " << before << " is " << state_of(before));
  BOOST_CHECK(!log_has("ctl2", "controller in control"));
  BOOST_CHECK_EQUAL(nodes_in("IDLE"), 4u);
  heal(host_a, host_b);
  BOOST_CHECK(wait_until([&] { return log_has("ctl2", "controller answers again"); }, 30s));
  auto ping = shoal({"control", "ping"});
  BOOST_CHECK_EQUAL(count_lines_with(ping.out, "is UP"), 2u);
}

BOOST_AUTO_TEST_SUITE_END()
