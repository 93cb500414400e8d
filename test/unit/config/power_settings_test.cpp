#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "config/config.hpp"
#include "config/partition_edit.hpp"
#include "config/power_settings.hpp"
#include "messages/errc.hpp"

using namespace shoal;
using namespace shoal::config;

namespace {

using strings = std::vector<std::string>;

const std::string nodes =
    "NodeName=nid[1-99] CPUs=1\n"
    "NodeName=ec[0-3] Weight=8 Feature=cloud State=CLOUD\n"
    "PartitionName=debug Nodes=nid[1-99] Default=YES\n"
    "PartitionName=cloud Nodes=ec[0-3]\n";

cluster_config parse_ok(const std::string& text) {
  auto cfg = parse_config(text, "test.conf", "");
  if (!cfg) BOOST_FAIL("unexpected error: " << describe(cfg.error()));
  return std::move(*cfg);
}

std::string parse_error(const std::string& text) {
  auto cfg = parse_config(text, "test.conf", "");
  if (cfg) BOOST_FAIL("expected an error for:\n" << text);
  BOOST_CHECK(cfg.error() == errc::invalid_config);
  return describe(cfg.error());
}

/// The error text of a failed result ("" when it succeeded: Boost evaluates messages eagerly).
template <typename T>
std::string why(const shoal::expected<T>& result) {
  return result ? std::string{} : describe(result.error());
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const partition_config& partition(const cluster_config& cfg, const std::string& name) {
  for (const auto& p : cfg.partitions)
    if (p.name == name) return p;
  BOOST_FAIL("no partition " << name);
  return cfg.partitions.front();
}

const node_config& node(const cluster_config& cfg, const std::string& name) {
  for (const auto& n : cfg.nodes)
    if (n.name == name) return n;
  BOOST_FAIL("no node " << name);
  return cfg.nodes.front();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(power_settings_suite)

BOOST_AUTO_TEST_CASE(defaults_are_the_guides) {
  auto cfg = parse_ok(nodes);
  const auto& p = cfg.power;
  BOOST_CHECK_EQUAL(p.suspend_program, "");
  BOOST_CHECK_EQUAL(p.resume_program, "");
  BOOST_CHECK_EQUAL(p.resume_fail_program, "");
  BOOST_CHECK_EQUAL(p.suspend_time_s, suspend_never);
  BOOST_CHECK_EQUAL(p.suspend_timeout_s, 30);
  BOOST_CHECK_EQUAL(p.resume_timeout_s, 60);
  BOOST_CHECK_EQUAL(p.suspend_rate, 60u);
  BOOST_CHECK_EQUAL(p.resume_rate, 300u);
  BOOST_CHECK(p.exc_nodes.empty());
  BOOST_CHECK(p.exc_parts.empty());
  BOOST_CHECK(p.exc_states.empty());
  BOOST_CHECK(!p.cloud_reg_addrs && !p.idle_on_node_suspend && !p.cloud_dns);
  BOOST_CHECK(!p.keep_power_save_settings);
  BOOST_CHECK_EQUAL(p.tcp_timeout_s, 2);
  BOOST_CHECK(!p.no_addr_cache);
  BOOST_CHECK(!partition(cfg, "debug").power.suspend_time_s);
  BOOST_CHECK(!partition(cfg, "debug").power_down_on_idle);
  BOOST_CHECK_EQUAL(node(cfg, "nid1").weight, 1u);
}

BOOST_AUTO_TEST_CASE(every_global_key_is_read) {
  auto cfg = parse_ok(nodes +
                      "SuspendProgram=/usr/sbin/slurm_suspend\n"
                      "ResumeProgram=/usr/sbin/slurm_resume\n"
                      "ResumeFailProgram=/usr/sbin/slurm_fail\n"
                      "SuspendTime=600\n"
                      "SuspendTimeout=45\n"
                      "ResumeTimeout=300\n"
                      "SuspendRate=0\n"
                      "ResumeRate=20\n"
                      "SuspendExcNodes=nid[10-20]:4,nid[80-90]:2,nid1\n"
                      "SuspendExcParts=debug\n"
                      "SuspendExcStates=down,Drain,NOT_RESPONDING\n"
                      "SlurmctldParameters=cloud_reg_addrs,idle_on_node_suspend,cloud_dns\n"
                      "ReconfigFlags=KeepPowerSaveSettings,keeppartinfo\n"
                      "TCPTimeout=10\n"
                      "CommunicationParameters=NoAddrCache\n");
  const auto& p = cfg.power;
  BOOST_CHECK_EQUAL(p.suspend_program, "/usr/sbin/slurm_suspend");
  BOOST_CHECK_EQUAL(p.resume_program, "/usr/sbin/slurm_resume");
  BOOST_CHECK_EQUAL(p.resume_fail_program, "/usr/sbin/slurm_fail");
  BOOST_CHECK_EQUAL(p.suspend_time_s, 600);
  BOOST_CHECK_EQUAL(p.suspend_timeout_s, 45);
  BOOST_CHECK_EQUAL(p.resume_timeout_s, 300);
  BOOST_CHECK_EQUAL(p.suspend_rate, 0u);
  BOOST_CHECK_EQUAL(p.resume_rate, 20u);
  BOOST_REQUIRE_EQUAL(p.exc_nodes.size(), 3u);
  BOOST_CHECK_EQUAL(p.exc_nodes[0].nodes.size(), 11u);
  BOOST_CHECK_EQUAL(p.exc_nodes[0].nodes.front(), "nid10");
  BOOST_CHECK_EQUAL(p.exc_nodes[0].count, 4u);
  BOOST_CHECK_EQUAL(p.exc_nodes[1].count, 2u);
  BOOST_CHECK_EQUAL(p.exc_nodes[1].nodes.back(), "nid90");
  BOOST_CHECK_EQUAL(p.exc_nodes[2].count, 0u);
  BOOST_CHECK(p.exc_nodes[2].nodes == strings{"nid1"});
  BOOST_CHECK(p.exc_parts == strings{"debug"});
  BOOST_CHECK(p.exc_states == (strings{"DOWN", "DRAIN", "NOT_RESPONDING"}));
  BOOST_CHECK(p.cloud_reg_addrs && p.idle_on_node_suspend && p.cloud_dns);
  BOOST_CHECK(p.keep_power_save_settings);
  BOOST_CHECK(p.reconfig_flags == (strings{"KeepPowerSaveSettings", "KeepPartInfo"}));
  BOOST_CHECK_EQUAL(p.tcp_timeout_s, 10);
  BOOST_CHECK(p.no_addr_cache);
  BOOST_CHECK(cfg.warnings.empty());
}

BOOST_AUTO_TEST_CASE(exc_nodes_count_form_keeps_commas_inside_brackets) {
  auto cfg = parse_ok(nodes + "SuspendExcNodes=nid[1,3-5]:2,ec[0-1]\n");
  const auto& ex = cfg.power.exc_nodes;
  BOOST_REQUIRE_EQUAL(ex.size(), 2u);
  BOOST_CHECK(ex[0].nodes == (strings{"nid1", "nid3", "nid4", "nid5"}));
  BOOST_CHECK_EQUAL(ex[0].count, 2u);
  BOOST_CHECK_EQUAL(ex[0].text, "nid[1,3-5]:2");
  BOOST_CHECK(ex[1].nodes == (strings{"ec0", "ec1"}));
  BOOST_CHECK_EQUAL(ex[1].count, 0u);
}

BOOST_AUTO_TEST_CASE(suspend_time_off_spellings) {
  for (const char* off : {"INFINITE", "infinite", "NONE", "-1"}) {
    auto cfg = parse_ok(nodes + "SuspendTime=" + off + "\n");
    BOOST_CHECK_EQUAL(cfg.power.suspend_time_s, suspend_never);
  }
  BOOST_CHECK_EQUAL(parse_ok(nodes + "SuspendTime=0\n").power.suspend_time_s, 0);
}

BOOST_AUTO_TEST_CASE(bad_values_name_file_and_line) {
  struct bad {
    std::string line;
    std::string says;
  };
  const std::vector<bad> cases{
      {"SuspendTime=soon", "SuspendTime"},
      {"SuspendTime=-x", "SuspendTime"},
      {"SuspendTimeout=0", "SuspendTimeout"},
      {"SuspendTimeout=70000", "SuspendTimeout"},
      {"ResumeTimeout=-5", "ResumeTimeout"},
      {"SuspendRate=fast", "SuspendRate"},
      {"ResumeRate=-1", "ResumeRate"},
      {"TCPTimeout=0", "TCPTimeout"},
      {"SuspendExcNodes=nid[10-20]:0", "SuspendExcNodes"},
      {"SuspendExcNodes=nid[10-20]:x", "SuspendExcNodes"},
      {"SuspendExcNodes=nid[20-10]:2", "SuspendExcNodes"},
      {"SuspendExcNodes=nope[1-2]", "unknown node 'nope1'"},
      {"SuspendExcParts=debug,,cloud", "SuspendExcParts"},
      {"SuspendExcParts=batch", "unknown partition 'batch'"},
      {"SuspendExcStates=IDLE", "not a state SuspendExcStates takes"},
      {"SuspendExcStates=DOWN,sleepy", "'sleepy'"},
      {"ReconfigFlags=KeepEverything", "unknown flag 'KeepEverything'"},
      {"SlurmctldParameters=power_save_interval=0", "power_save_interval"},
      {"SlurmctldParameters=cloud_dns,,x", "empty item"},
  };
  for (const auto& c : cases) {
    auto text = nodes + "ClusterName=c\n" + c.line + "\n";
    auto err = parse_error(text);
    BOOST_CHECK_MESSAGE(contains(err, "test.conf:6: "), c.line << " -> " << err);
    BOOST_CHECK_MESSAGE(contains(err, c.says), c.line << " -> " << err);
  }
}

BOOST_AUTO_TEST_CASE(unknown_words_of_parameter_lists_are_warnings) {
  auto cfg = parse_ok(nodes +
                      "SlurmctldParameters=enable_configless,cloud_dns\n"
                      "CommunicationParameters=NoInAddrAny,Whatever\n");
  BOOST_CHECK(cfg.power.cloud_dns);
  BOOST_CHECK(!cfg.power.no_addr_cache);
  BOOST_REQUIRE_EQUAL(cfg.warnings.size(), 3u);
  BOOST_CHECK(contains(cfg.warnings[0], "test.conf:5: SlurmctldParameters=enable_configless"));
  BOOST_CHECK(contains(cfg.warnings[1], "test.conf:6: CommunicationParameters=NoInAddrAny"));
  BOOST_CHECK(contains(cfg.warnings[2], "Whatever"));
}

BOOST_AUTO_TEST_CASE(partition_keys_are_read_and_checked) {
  auto cfg = parse_ok(
      "NodeName=n[1-4]\n"
      "PartitionName=a Nodes=n[1-2] SuspendTime=300 SuspendTimeout=40 ResumeTimeout=500 "
      "PowerDownOnIdle=YES\n"
      "PartitionName=b Nodes=n[3-4] SuspendTime=INFINITE\n");
  const auto& a = partition(cfg, "a");
  BOOST_CHECK_EQUAL(a.power.suspend_time_s.value_or(-9), 300);
  BOOST_CHECK_EQUAL(a.power.suspend_timeout_s.value_or(-9), 40);
  BOOST_CHECK_EQUAL(a.power.resume_timeout_s.value_or(-9), 500);
  BOOST_CHECK(a.power_down_on_idle);
  const auto& b = partition(cfg, "b");
  BOOST_CHECK_EQUAL(b.power.suspend_time_s.value_or(-9), suspend_never);
  BOOST_CHECK(!b.power.suspend_timeout_s);
  BOOST_CHECK(!b.power_down_on_idle);
  for (const char* bad :
       {"SuspendTime=later", "SuspendTimeout=0", "ResumeTimeout=x", "PowerDownOnIdle=maybe"}) {
    auto err = parse_error(std::string{"NodeName=n1\nPartitionName=a Nodes=n1 "} + bad + "\n");
    BOOST_CHECK_MESSAGE(contains(err, "test.conf:2: "), err);
  }
}

BOOST_AUTO_TEST_CASE(partition_edits_take_the_power_keys) {
  auto cfg = parse_ok("NodeName=n[1-2]\nPartitionName=a Nodes=n[1-2]\n");
  msg::partition_edit edit;
  edit.action = "update";
  edit.name = "a";
  edit.settings = {"SuspendTime=120", "ResumeTimeout=90", "PowerDownOnIdle=yes"};
  auto parts = apply_partition_edit(cfg, edit);
  BOOST_REQUIRE_MESSAGE(parts, why(parts));
  BOOST_CHECK_EQUAL((*parts)[0].power.suspend_time_s.value_or(-9), 120);
  BOOST_CHECK_EQUAL((*parts)[0].power.resume_timeout_s.value_or(-9), 90);
  BOOST_CHECK((*parts)[0].power_down_on_idle);
  edit.settings = {"SuspendTimeout=never"};
  auto bad = apply_partition_edit(cfg, edit);
  BOOST_REQUIRE(!bad);
  BOOST_CHECK(contains(describe(bad.error()), "SuspendTimeout"));
}

BOOST_AUTO_TEST_CASE(node_weight_features_and_cloud_state) {
  auto cfg = parse_ok(
      "NodeName=a Weight=0 Features=gpu,ib\n"
      "NodeName=b Weight=4294967280 Feature=cloud State=CLOUD\n"
      "NodeName=c State=FUTURE\n");
  BOOST_CHECK_EQUAL(node(cfg, "a").weight, 0u);
  BOOST_CHECK(feature_list(node(cfg, "a")) == (strings{"gpu", "ib"}));
  BOOST_CHECK_EQUAL(node(cfg, "b").weight, 4294967280u);
  BOOST_CHECK(feature_list(node(cfg, "b")) == strings{"cloud"});
  BOOST_CHECK_EQUAL(node(cfg, "b").initial_state, "CLOUD");
  BOOST_CHECK_EQUAL(node(cfg, "c").initial_state, "FUTURE");
  BOOST_CHECK(feature_list(node(cfg, "c")).empty());
  for (const char* bad : {"Weight=4294967281", "Weight=-1", "Features=a&b", "Features=a,,b",
                          "Feature=x*2", "State=ASLEEP"}) {
    auto err = parse_error(std::string{"ClusterName=c\nNodeName=n1 "} + bad + "\n");
    BOOST_CHECK_MESSAGE(contains(err, "test.conf:2: "), err);
  }
}

BOOST_AUTO_TEST_CASE(show_config_prints_the_keys_and_reads_them_back) {
  auto cfg = parse_ok(nodes +
                      "SuspendProgram=/s\nResumeProgram=/r\nResumeFailProgram=/f\n"
                      "SuspendTime=600\nSuspendExcNodes=nid[10-20]:4,nid[80-90]:2\n"
                      "SuspendExcParts=debug\nSuspendExcStates=CLOUD,DOWN\n"
                      "SlurmctldParameters=cloud_dns,power_save_interval=5\n"
                      "ReconfigFlags=KeepPowerSaveSettings\nTCPTimeout=7\n"
                      "CommunicationParameters=NoAddrCache\n"
                      "PartitionName=p Nodes=ec[0-1] SuspendTime=INFINITE ResumeTimeout=120 "
                      "PowerDownOnIdle=YES\n");
  auto text = render_config(cfg);
  for (const char* want : {"SuspendProgram ",
                           "= /s\n",
                           "ResumeProgram ",
                           "ResumeFailProgram ",
                           "= /f\n",
                           "SuspendTime ",
                           "= 600\n",
                           "SuspendTimeout ",
                           "= 30\n",
                           "ResumeTimeout ",
                           "= 60\n",
                           "SuspendRate ",
                           "ResumeRate ",
                           "= 300\n",
                           "= nid[10-20]:4,nid[80-90]:2\n",
                           "SuspendExcParts ",
                           "= CLOUD,DOWN\n",
                           "\"cloud_dns,power_save_interval=5\"",
                           "= KeepPowerSaveSettings\n",
                           "TCPTimeout ",
                           "= 7\n",
                           "= NoAddrCache\n",
                           "SuspendTime=INFINITE ResumeTimeout=120 PowerDownOnIdle=YES",
                           "Weight=8 Features=cloud",
                           "State=CLOUD"})
    BOOST_CHECK_MESSAGE(contains(text, want), "missing " << want << " in\n" << text);
  auto again = parse_config(text.substr(text.find('\n') + 1), "render", "");
  BOOST_REQUIRE_MESSAGE(again, why(again));
  const auto& p = again->power;
  BOOST_CHECK_EQUAL(p.suspend_program, "/s");
  BOOST_CHECK_EQUAL(p.suspend_time_s, 600);
  BOOST_CHECK_EQUAL(p.power_save_interval_s, 5);
  BOOST_CHECK(p.exc_nodes == cfg.power.exc_nodes);
  BOOST_CHECK(p.exc_states == cfg.power.exc_states);
  BOOST_CHECK(p.keep_power_save_settings && p.no_addr_cache && p.cloud_dns);
  BOOST_CHECK_EQUAL(p.tcp_timeout_s, 7);
  const auto& part = partition(*again, "p");
  BOOST_CHECK_EQUAL(part.power.suspend_time_s.value_or(-9), suspend_never);
  BOOST_CHECK_EQUAL(part.power.resume_timeout_s.value_or(-9), 120);
  BOOST_CHECK(part.power_down_on_idle);
  // Unset, the programs and lists are left out.
  auto plain = render_config(parse_ok(nodes));
  BOOST_CHECK(!contains(plain, "SuspendProgram"));
  BOOST_CHECK(!contains(plain, "SuspendExcNodes"));
  BOOST_CHECK(contains(plain, "SuspendTime "));
  BOOST_CHECK(contains(plain, "= INFINITE\n"));
}

// -- a node's effective timing ---------------------------------------------------------------

BOOST_AUTO_TEST_CASE(effective_timing_takes_the_highest_partition_value_else_the_global) {
  power_settings global;
  global.suspend_time_s = 600;
  global.suspend_timeout_s = 30;
  global.resume_timeout_s = 60;
  using ppt = partition_power_timing;
  struct row {
    const char* what;
    std::vector<ppt> parts;
    power_timing want;
  };
  const std::vector<row> rows{
      {"no partition sets anything", {ppt{}, ppt{}}, {600, 30, 60}},
      {"no partitions", {}, {600, 30, 60}},
      {"one sets all three", {ppt{300, 40, 90}}, {300, 40, 90}},
      {"the higher of two wins", {ppt{300, 40, 90}, ppt{900, 20, 120}}, {900, 40, 120}},
      {"one unset partition beside a set one", {ppt{}, ppt{120, {}, {}}}, {120, 30, 60}},
      {"INFINITE on a partition turns it off", {ppt{suspend_never, {}, {}}}, {-1, 30, 60}},
      {"INFINITE is higher than any time",
       {ppt{300, {}, {}}, ppt{suspend_never, {}, {}}},
       {-1, 30, 60}},
  };
  for (const auto& r : rows) {
    auto got = effective_power_timing(global, r.parts);
    BOOST_CHECK_MESSAGE(got == r.want, r.what << ": got " << got.suspend_time_s << "/"
                                              << got.suspend_timeout_s << "/"
                                              << got.resume_timeout_s);
  }
  // The global off: a partition's SuspendTime turns power saving on for its nodes.
  global.suspend_time_s = suspend_never;
  BOOST_CHECK_EQUAL(effective_power_timing(global, {}).suspend_time_s, suspend_never);
  BOOST_CHECK_EQUAL(effective_power_timing(global, {ppt{300, {}, {}}}).suspend_time_s, 300);
}

BOOST_AUTO_TEST_CASE(node_timing_reads_the_partitions_holding_the_node) {
  auto cfg = parse_ok(
      "SuspendTime=INFINITE\nResumeTimeout=100\n"
      "NodeName=tux[0-3]\nNodeName=ec[0-3] State=CLOUD\n"
      "PartitionName=debug Nodes=tux[0-3] Default=YES\n"
      "PartitionName=cloud Nodes=ec[0-3] SuspendTime=600 ResumeTimeout=300\n"
      "PartitionName=burst Nodes=ec[2-3] SuspendTime=900\n");
  auto tux = node_power_timing(cfg, node(cfg, "tux0"));
  BOOST_CHECK_EQUAL(tux.suspend_time_s, suspend_never);
  BOOST_CHECK_EQUAL(tux.resume_timeout_s, 100);
  auto ec0 = node_power_timing(cfg, node(cfg, "ec0"));
  BOOST_CHECK_EQUAL(ec0.suspend_time_s, 600);
  BOOST_CHECK_EQUAL(ec0.resume_timeout_s, 300);
  BOOST_CHECK_EQUAL(ec0.suspend_timeout_s, 30);
  auto ec3 = node_power_timing(cfg, node(cfg, "ec3"));
  BOOST_CHECK_EQUAL(ec3.suspend_time_s, 900);
  BOOST_CHECK_EQUAL(ec3.resume_timeout_s, 300);
}

BOOST_AUTO_TEST_SUITE_END()
