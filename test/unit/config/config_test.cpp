#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "messages/errc.hpp"

using namespace shoal;
using namespace shoal::config;

namespace {

const std::string data_dir = SHOAL_TEST_DATA;

using strings = std::vector<std::string>;

cluster_config parse_ok(const std::string& text, const std::string& base_dir = "") {
  auto cfg = parse_config(text, "test.conf", base_dir);
  if (!cfg) BOOST_FAIL("unexpected error: " << describe(cfg.error()));
  return std::move(*cfg);
}

/// The error text of a parse that must fail with errc::invalid_config.
std::string parse_error(const std::string& text, const std::string& base_dir = "") {
  auto cfg = parse_config(text, "test.conf", base_dir);
  if (cfg) BOOST_FAIL("expected an error for:\n" << text);
  BOOST_CHECK(cfg.error() == errc::invalid_config);
  return describe(cfg.error());
}

/// The error text of a failed result ("" when it succeeded: Boost evaluates messages eagerly).
std::string why(const shoal::expected<cluster_config>& result) {
  return result ? std::string{} : describe(result.error());
}

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const node_config& node(const cluster_config& cfg, const std::string& name) {
  auto it = std::find_if(cfg.nodes.begin(), cfg.nodes.end(),
                         [&](const auto& n) { return n.name == name; });
  if (it == cfg.nodes.end()) BOOST_FAIL("no node " << name);
  return *it;
}

const partition_config& partition(const cluster_config& cfg, const std::string& name) {
  auto it = std::find_if(cfg.partitions.begin(), cfg.partitions.end(),
                         [&](const auto& p) { return p.name == name; });
  if (it == cfg.partitions.end()) BOOST_FAIL("no partition " << name);
  return *it;
}

strings node_names(const cluster_config& cfg) {
  strings out;
  for (const auto& n : cfg.nodes) out.push_back(n.name);
  return out;
}

strings host_names(const cluster_config& cfg) {
  strings out;
  for (const auto& h : cfg.controller_hosts) out.push_back(h.name);
  return out;
}

strings host_addresses(const cluster_config& cfg) {
  strings out;
  for (const auto& h : cfg.controller_hosts) out.push_back(h.address);
  return out;
}

strings partition_names(const cluster_config& cfg) {
  strings out;
  for (const auto& p : cfg.partitions) out.push_back(p.name);
  return out;
}

/// The rendered text without its "Configuration data as of" line.
std::string render_body(const cluster_config& cfg) {
  auto text = render_config(cfg);
  return text.substr(text.find('\n') + 1);
}

void check_same_cluster(const cluster_config& a, const cluster_config& b) {
  BOOST_CHECK_EQUAL(a.cluster_name, b.cluster_name);
  BOOST_CHECK(a.controller_hosts == b.controller_hosts);
  BOOST_CHECK_EQUAL(a.controller_port, b.controller_port);
  BOOST_CHECK_EQUAL(a.slurmctld_timeout_s, b.slurmctld_timeout_s);
  BOOST_CHECK_EQUAL(a.message_timeout_s, b.message_timeout_s);
  BOOST_CHECK(a.collector_nodes == b.collector_nodes);
  BOOST_CHECK_EQUAL(a.heartbeat_interval_ms, b.heartbeat_interval_ms);
  BOOST_CHECK_EQUAL(a.heartbeat_timeout_ms, b.heartbeat_timeout_ms);
  BOOST_CHECK_EQUAL(a.kill_wait_s, b.kill_wait_s);
  BOOST_CHECK_EQUAL(a.state_save_location, b.state_save_location);
  BOOST_CHECK_EQUAL(a.tmp_fs, b.tmp_fs);
  BOOST_CHECK_EQUAL(a.ctld_log_file, b.ctld_log_file);
  BOOST_CHECK_EQUAL(a.node_log_file, b.node_log_file);
  BOOST_CHECK_EQUAL(a.ctld_debug, b.ctld_debug);
  BOOST_CHECK_EQUAL(a.node_debug, b.node_debug);
  BOOST_CHECK(a.debug_flags == b.debug_flags);
  BOOST_CHECK(a.select_type == b.select_type);
  BOOST_CHECK_EQUAL(a.switch_type, b.switch_type);
  BOOST_CHECK_EQUAL(a.metrics_port, b.metrics_port);
  BOOST_REQUIRE_EQUAL(a.nodes.size(), b.nodes.size());
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const auto& x = a.nodes[i];
    const auto& y = b.nodes[i];
    BOOST_TEST_CONTEXT("node " << x.name) {
      BOOST_CHECK_EQUAL(x.name, y.name);
      BOOST_CHECK_EQUAL(x.address, y.address);
      BOOST_CHECK_EQUAL(x.cpus, y.cpus);
      BOOST_CHECK_EQUAL(x.sockets, y.sockets);
      BOOST_CHECK_EQUAL(x.cores_per_socket, y.cores_per_socket);
      BOOST_CHECK_EQUAL(x.threads_per_core, y.threads_per_core);
      BOOST_CHECK_EQUAL(x.speed, y.speed);
      BOOST_CHECK_EQUAL(x.real_memory_mb, y.real_memory_mb);
      BOOST_CHECK_EQUAL(x.virtual_memory_mb, y.virtual_memory_mb);
      BOOST_CHECK_EQUAL(x.tmp_disk_mb, y.tmp_disk_mb);
      BOOST_CHECK_EQUAL(x.os, y.os);
      BOOST_CHECK_EQUAL(x.weight, y.weight);
      BOOST_CHECK_EQUAL(x.features, y.features);
      BOOST_CHECK_EQUAL(x.simulate, y.simulate);
      BOOST_CHECK_EQUAL(x.initial_state, y.initial_state);
      BOOST_CHECK(x.partitions == y.partitions);
    }
  }
  BOOST_REQUIRE_EQUAL(a.partitions.size(), b.partitions.size());
  for (size_t i = 0; i < a.partitions.size(); ++i) {
    const auto& x = a.partitions[i];
    const auto& y = b.partitions[i];
    BOOST_TEST_CONTEXT("partition " << x.name) {
      BOOST_CHECK_EQUAL(x.name, y.name);
      BOOST_CHECK(x.nodes == y.nodes);
      BOOST_CHECK_EQUAL(x.is_default, y.is_default);
      BOOST_CHECK_EQUAL(x.state, y.state);
      BOOST_CHECK_EQUAL(x.max_time_s, y.max_time_s);
      BOOST_CHECK_EQUAL(x.default_time_s, y.default_time_s);
      BOOST_CHECK_EQUAL(x.max_nodes, y.max_nodes);
      BOOST_CHECK_EQUAL(x.priority, y.priority);
    }
  }
}

}  // namespace

// -- the seed's samples ---------------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(seed_samples)

BOOST_AUTO_TEST_CASE(seed_sample_slurmconf_and_nodespecconf_load_unchanged) {
  auto cfg = load_config(data_dir + "/seed/SlurmConf");
  BOOST_REQUIRE_MESSAGE(cfg, why(cfg));
  BOOST_CHECK_EQUAL(cfg->path, data_dir + "/seed/SlurmConf");
  BOOST_CHECK(host_names(*cfg) == strings{"lx_control"});
  BOOST_CHECK_EQUAL(cfg->controller_port, 612);
  BOOST_CHECK(cfg->collector_nodes == (strings{"lx01", "lx02"}));
  BOOST_CHECK_EQUAL(cfg->heartbeat_interval_ms, 300'000);
  BOOST_CHECK_EQUAL(cfg->heartbeat_timeout_ms, 600'000);
  BOOST_CHECK_EQUAL(cfg->debug_flags, bit_of(debug_flag::init) | bit_of(debug_flag::msg));
  BOOST_CHECK_EQUAL(cfg->node_spec_conf, data_dir + "/seed/NodeSpecConf");
  BOOST_CHECK_EQUAL(cfg->partition_conf, "");

  BOOST_CHECK(node_names(*cfg) == (strings{"lx01", "lx02", "lx03", "lx04", "lx05", "lx06"}));
  const auto& lx01 = node(*cfg, "lx01");
  BOOST_CHECK_EQUAL(lx01.address, "lx01");
  BOOST_CHECK_EQUAL(lx01.os, "Linux.2.4.7-10");
  BOOST_CHECK_EQUAL(lx01.cpus, 2u);
  BOOST_CHECK_EQUAL(lx01.speed, 1.0);
  BOOST_CHECK_EQUAL(lx01.real_memory_mb, 2048u);
  BOOST_CHECK_EQUAL(lx01.virtual_memory_mb, 4096u);
  BOOST_CHECK_EQUAL(lx01.tmp_disk_mb, 16384u);
  BOOST_CHECK(lx01.partitions == strings{"1"});
  BOOST_CHECK(lx01.partitions_given);
  BOOST_CHECK_EQUAL(lx01.file, data_dir + "/seed/NodeSpecConf");
  BOOST_CHECK_EQUAL(lx01.line, 8);
  const auto& lx03 = node(*cfg, "lx03");
  BOOST_CHECK_EQUAL(lx03.speed, 1.5);
  BOOST_CHECK_EQUAL(lx03.real_memory_mb, 3072u);
  BOOST_CHECK_EQUAL(lx03.cpus, 2u);
  BOOST_CHECK(lx03.partitions == (strings{"1", "2"}));
  const auto& lx04 = node(*cfg, "lx04");
  BOOST_CHECK_EQUAL(lx04.cpus, 1u);
  BOOST_CHECK_EQUAL(lx04.speed, 1.3);
  BOOST_CHECK_EQUAL(lx04.real_memory_mb, 2048u);
  BOOST_CHECK(lx04.partitions == (strings{"1", "3"}));

  BOOST_CHECK(partition_names(*cfg) == (strings{"1", "2", "3"}));
  BOOST_CHECK(partition(*cfg, "1").nodes ==
              (strings{"lx01", "lx02", "lx03", "lx04", "lx05", "lx06"}));
  BOOST_CHECK(partition(*cfg, "2").nodes == strings{"lx03"});
  BOOST_CHECK(partition(*cfg, "3").nodes == strings{"lx04"});
  for (const auto& p : cfg->partitions) BOOST_CHECK(!p.is_default);
}

BOOST_AUTO_TEST_CASE(seed_absolute_paths_fall_back_to_the_main_files_directory_with_a_warning) {
  auto cfg = load_config(data_dir + "/seed/SlurmConf");
  BOOST_REQUIRE(cfg);
  BOOST_REQUIRE_EQUAL(cfg->warnings.size(), 2u);
  BOOST_CHECK_EQUAL(cfg->warnings[0], data_dir +
                                          "/seed/SlurmConf:8: NodeSpecConf "
                                          "/usr/local/SLURM/NodeSpecConf not found; using " +
                                          data_dir + "/seed/NodeSpecConf");
  // The seed never describes PartitionConf's format, and the sample has none: not an error.
  BOOST_CHECK(starts_with(cfg->warnings[1], data_dir + "/seed/SlurmConf:9: PartitionConf "
                                                       "/usr/local/SLURM/PartitionConf not found"));
}

BOOST_AUTO_TEST_CASE(seed_sample_round_trips_through_render_config) {
  auto cfg = load_config(data_dir + "/seed/SlurmConf");
  BOOST_REQUIRE(cfg);
  auto again = parse_ok(render_body(*cfg));
  BOOST_CHECK_MESSAGE(again.warnings.empty(), (again.warnings.empty() ? "" : again.warnings[0]));
  check_same_cluster(*cfg, again);
}

BOOST_AUTO_TEST_SUITE_END()

// -- syntax ---------------------------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(syntax)

BOOST_AUTO_TEST_CASE(blanks_around_equals_are_allowed) {
  auto cfg = parse_ok(
      "ControlMachine    = lx_control\n"
      "\tSlurmctldPort\t=\t7000  \n"
      "NodeName = n1 CPUs = 4   RealMemory= 100\n");
  BOOST_CHECK(host_names(cfg) == strings{"lx_control"});
  BOOST_CHECK_EQUAL(cfg.controller_port, 7000);
  BOOST_CHECK_EQUAL(node(cfg, "n1").cpus, 4u);
  BOOST_CHECK_EQUAL(node(cfg, "n1").real_memory_mb, 100u);
  BOOST_CHECK(cfg.warnings.empty());
}

BOOST_AUTO_TEST_CASE(keys_are_case_insensitive) {
  auto cfg = parse_ok("clustername=x\nSLURMCTLDPORT=7001\nnodename=n1 cpus=3\n");
  BOOST_CHECK_EQUAL(cfg.cluster_name, "x");
  BOOST_CHECK_EQUAL(cfg.controller_port, 7001);
  BOOST_CHECK_EQUAL(node(cfg, "n1").cpus, 3u);
}

BOOST_AUTO_TEST_CASE(comments_and_blank_lines_are_ignored) {
  auto cfg = parse_ok(
      "# a comment\n"
      "\n"
      "   \t\n"
      "   # an indented comment\n"
      "ClusterName=c1 # a trailing comment\n"
      "NodeName=n1 Features=\"a#b c\" # the quoted # is kept\n");
  BOOST_CHECK_EQUAL(cfg.cluster_name, "c1");
  BOOST_CHECK_EQUAL(node(cfg, "n1").features, "a#b c");
  BOOST_CHECK(cfg.warnings.empty());
}

BOOST_AUTO_TEST_CASE(simulate_is_a_yes_or_no_per_node_line) {
  auto cfg = parse_ok("NodeName=n[1-2] Simulate=YES\nNodeName=n3 Simulate=no\nNodeName=n4\n");
  BOOST_CHECK(node(cfg, "n1").simulate);
  BOOST_CHECK(node(cfg, "n2").simulate);
  BOOST_CHECK(!node(cfg, "n3").simulate);
  BOOST_CHECK(!node(cfg, "n4").simulate);
  BOOST_CHECK(render_body(cfg).find("NodeName=n[1-2] Simulate=YES") != std::string::npos);
  auto text = parse_error("NodeName=n1\nNodeName=n2 Simulate=maybe\n");
  BOOST_CHECK(starts_with(text, "test.conf:2:"));
  BOOST_CHECK(text.find("YES or NO") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(crlf_line_ends_are_accepted) {
  auto cfg = parse_ok("ClusterName=c2\r\nNodeName=n1 CPUs=2\r\n");
  BOOST_CHECK_EQUAL(cfg.cluster_name, "c2");
  BOOST_CHECK_EQUAL(node(cfg, "n1").cpus, 2u);
}

BOOST_AUTO_TEST_CASE(an_empty_value_before_the_next_key_is_empty_not_an_error) {
  auto cfg = parse_ok(
      "NodeName=n1 Features= CPUs=2\n"
      "NodeName=n2 Features= \n"
      "SlurmctldLogFile=\n");
  BOOST_CHECK_EQUAL(node(cfg, "n1").features, "");
  BOOST_CHECK_EQUAL(node(cfg, "n1").cpus, 2u);
  BOOST_CHECK_EQUAL(node(cfg, "n2").features, "");
  BOOST_CHECK_EQUAL(cfg.ctld_log_file, "");
}

BOOST_AUTO_TEST_CASE(an_unknown_key_stops_the_read_with_file_line_and_the_nearest_key) {
  BOOST_CHECK_EQUAL(parse_error("ClusterName=c\n\nSlurmctldPrt=27917\n"),
                    "test.conf:3: unknown key 'SlurmctldPrt' (did you mean SlurmctldPort?)");
  // Case does not matter, as in Slurm; the suggestion is spelt as Slurm spells the key.
  BOOST_CHECK_EQUAL(parse_error("slurmdtimout=30\n"),
                    "test.conf:1: unknown key 'slurmdtimout' (did you mean SlurmdTimeout?)");
  BOOST_CHECK_EQUAL(parse_error("ClusterName=c\nFooBar=1\n"), "test.conf:2: unknown key 'FooBar'");
  // Node, partition and seed lines check their own keys.
  BOOST_CHECK_EQUAL(parse_error("NodeName=n1 RealMemroy=1024\n"),
                    "test.conf:1: unknown key 'RealMemroy' (did you mean RealMemory?)");
  BOOST_CHECK_EQUAL(parse_error("NodeName=n1\nPartitionName=p Nodes=n1 MaxTme=10\n"),
                    "test.conf:2: unknown key 'MaxTme' (did you mean MaxTime?)");
  BOOST_CHECK_EQUAL(parse_error("Name=n1 Bogus=gpu:1\n"), "test.conf:1: unknown key 'Bogus'");
}

BOOST_AUTO_TEST_CASE(common_slurm_keys_are_accepted_with_a_no_effect_warning) {
  auto cfg = parse_ok("TaskPlugin=task/affinity\nSlurmdPort=6818\nProctrackType=proctrack/pgid\n");
  BOOST_REQUIRE_EQUAL(cfg.warnings.size(), 3u);
  BOOST_CHECK_EQUAL(cfg.warnings[0],
                    "test.conf:1: key 'TaskPlugin' is accepted for Slurm "
                    "compatibility and has no effect");
  BOOST_CHECK(starts_with(cfg.warnings[2], "test.conf:3: key 'ProctrackType'"));
}

BOOST_AUTO_TEST_CASE(return_to_service_takes_slurms_values_and_default) {
  BOOST_CHECK_EQUAL(parse_ok("NodeName=n1\n").return_to_service, 0);
  for (int v : {0, 1, 2}) {
    auto cfg = parse_ok("NodeName=n1\nReturnToService=" + std::to_string(v) + "\n");
    BOOST_CHECK(cfg.warnings.empty());
    BOOST_CHECK_EQUAL(cfg.return_to_service, v);
    // Every node carries it, even from a key after the node lines.
    BOOST_CHECK_EQUAL(node(cfg, "n1").return_to_service, v);
  }
  BOOST_CHECK_EQUAL(parse_error("ReturnToService=3\n"),
                    "test.conf:1: invalid value '3' for ReturnToService (expected 0, 1 or 2)");
  // Written back by `show config`, and read again.
  auto text = render_config(parse_ok("ReturnToService=2\n"));
  BOOST_CHECK_EQUAL(parse_ok(text.substr(text.find('\n') + 1)).return_to_service, 2);
}

BOOST_AUTO_TEST_CASE(licenses_are_read_summed_and_written_back) {
  auto cfg = parse_ok("Licenses=fluent:30,ansys,matlab*2,fluent:2\n");
  BOOST_REQUIRE_EQUAL(cfg.licenses.size(), 3u);
  BOOST_CHECK_EQUAL(cfg.licenses[0].name, "fluent");
  BOOST_CHECK_EQUAL(cfg.licenses[0].count, 32u);
  BOOST_CHECK_EQUAL(cfg.licenses[1].name, "ansys");
  BOOST_CHECK_EQUAL(cfg.licenses[1].count, 1u);
  BOOST_CHECK_EQUAL(cfg.licenses[2].count, 2u);
  auto text = render_config(cfg);
  BOOST_CHECK(contains(text, "Licenses") && contains(text, "fluent:32,ansys:1,matlab:2"));
  BOOST_CHECK(starts_with(parse_error("Licenses=fluent:x\n"),
                          "test.conf:1: invalid value 'fluent:x' for Licenses"));
  BOOST_CHECK(parse_ok("NodeName=n1\n").licenses.empty());
}

BOOST_AUTO_TEST_CASE(mpi_default_takes_slurms_types_and_warns_of_the_servers_shoal_lacks) {
  auto none = parse_ok("MpiDefault=none\n");
  BOOST_CHECK(none.warnings.empty());
  BOOST_CHECK_EQUAL(none.mpi_default, "none");
  BOOST_CHECK_EQUAL(parse_ok("ClusterName=c\n").mpi_default, "none");
  // shoal-stepd serves PMI-2 and PMIx 4: pmi2, pmix and pmix_v4 run, with no warning.
  for (const char* served : {"MpiDefault=pmi2\n", "MpiDefault=pmix\n", "MpiDefault=pmix_v4\n"})
    BOOST_CHECK(parse_ok(served).warnings.empty());
  auto pmix = parse_ok("MpiDefault=pmix_v3\n");
  BOOST_CHECK_EQUAL(pmix.mpi_default, "pmix_v3");
  BOOST_REQUIRE_EQUAL(pmix.warnings.size(), 1u);
  BOOST_CHECK(starts_with(pmix.warnings[0], "test.conf:1: MpiDefault=pmix_v3: shoal runs no PMI"));
  auto bad = parse_error("ClusterName=c\nMpiDefault=mvapich\n");
  BOOST_CHECK_MESSAGE(
      bad.find("test.conf:2") != std::string::npos && bad.find("'mvapich'") != std::string::npos,
      bad);
}

BOOST_AUTO_TEST_CASE(slurmd_parameters_config_overrides_trusts_every_nodes_line) {
  auto plain = parse_ok("NodeName=n[1-2] CPUs=16\n");
  for (auto& n : plain.nodes) BOOST_TEST(!n.trust_config);
  // After the node lines too: the key applies to the whole file.
  auto trusted =
      parse_ok("NodeName=n[1-2] CPUs=16\nSlurmdParameters=shutdown_on_reboot,config_overrides\n");
  BOOST_TEST(trusted.config_overrides);
  for (auto& n : trusted.nodes) BOOST_TEST(n.trust_config);
  auto bad = parse_error("ClusterName=c\nSlurmdParameters=trust_me\n");
  BOOST_CHECK_MESSAGE(bad.find("test.conf:2") != std::string::npos, bad);
}

BOOST_AUTO_TEST_CASE(authentication_is_munge_unless_the_config_says_none) {
  auto plain = parse_ok("ClusterName=c\n");
  BOOST_CHECK(plain.auth.munge);
  BOOST_CHECK_EQUAL(plain.auth.munge_socket, "/run/munge/munge.socket.2");
  auto none = parse_ok("AuthType=auth/none\n");
  BOOST_CHECK(!none.auth.munge);
  auto munge = parse_ok("AuthType=auth/munge\nAuthInfo=socket=/tmp/m.sock,ttl=60\n");
  BOOST_CHECK(munge.auth.munge);
  BOOST_CHECK_EQUAL(munge.auth.munge_socket, "/tmp/m.sock");
  BOOST_REQUIRE_EQUAL(munge.warnings.size(), 1u);
  BOOST_CHECK(starts_with(munge.warnings[0], "test.conf:2: AuthInfo option 'ttl=60'"));
  BOOST_CHECK(starts_with(parse_error("AuthType=auth/jwt\n"), "test.conf:1:"));
  BOOST_CHECK(parse_error("AuthType=auth/jwt\n").find("auth/munge or auth/none") !=
              std::string::npos);
  BOOST_CHECK(starts_with(parse_error("\nAuthInfo=socket=\n"), "test.conf:2:"));
}

BOOST_AUTO_TEST_CASE(private_data_jobs_and_slurm_user_are_read) {
  auto cfg = parse_ok("PrivateData=accounts,jobs\nSlurmUser=slurm\n");
  BOOST_CHECK(cfg.private_jobs);
  BOOST_CHECK_EQUAL(cfg.slurm_user, "slurm");
  BOOST_REQUIRE_EQUAL(cfg.warnings.size(), 1u);
  BOOST_CHECK(starts_with(cfg.warnings[0], "test.conf:1: PrivateData=accounts has no effect"));
  BOOST_CHECK(!parse_ok("ClusterName=c\n").private_jobs);
}

// Found by the config fuzz target: `%g` wrote 0.00001 as 1e-05, which the parser refuses.
BOOST_AUTO_TEST_CASE(tiny_and_huge_speeds_render_as_plain_decimals_that_parse_back) {
  for (const char* speed : {"0.00001", "123456789012345678901234567890", "863.8", "2"}) {
    auto cfg = parse_ok(std::string{"NodeName=n1 Speed="} + speed + "\n");
    auto again = parse_ok(render_body(cfg));
    BOOST_REQUIRE_EQUAL(again.nodes.size(), 1u);
    BOOST_CHECK_EQUAL(render_body(again), render_body(cfg));
  }
  auto tiny = parse_ok("NodeName=n1 Speed=0.00001\n");
  BOOST_CHECK(render_body(tiny).find("Speed=0.00001") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_controller_listens_on_its_line_unless_told_all) {
  BOOST_CHECK(!parse_ok("ClusterName=c\n").listen_all);
  BOOST_CHECK(parse_ok("ControllerListen=all\n").listen_all);
  BOOST_CHECK(!parse_ok("ControllerListen=line\n").listen_all);
  BOOST_CHECK(starts_with(parse_error("ControllerListen=everywhere\n"), "test.conf:1:"));
}

BOOST_AUTO_TEST_CASE(mail_prog_is_unset_unless_given_and_shown_when_set) {
  BOOST_CHECK_EQUAL(parse_ok("ClusterName=c\n").mail_prog, "");
  auto cfg = parse_ok("MailProg=/usr/bin/mail\n");
  BOOST_CHECK_EQUAL(cfg.mail_prog, "/usr/bin/mail");
  BOOST_CHECK(render_body(cfg).find("\nMailProg ") != std::string::npos);
  BOOST_CHECK(render_body(parse_ok("ClusterName=c\n")).find("MailProg") == std::string::npos);
  BOOST_CHECK(starts_with(parse_error("ClusterName=c\nMailProg=\n"), "test.conf:2:"));
}

BOOST_AUTO_TEST_CASE(slurm_env_is_on_unless_set_to_no_and_a_bad_value_names_its_line) {
  BOOST_CHECK(parse_ok("ClusterName=c\n").slurm_env);
  BOOST_CHECK(!parse_ok("SlurmEnv=NO\n").slurm_env);
  BOOST_CHECK(!parse_ok("slurmenv = false\n").slurm_env);
  BOOST_CHECK(parse_ok("SlurmEnv=yes\n").slurm_env);
  auto err = parse_error("ClusterName=c\nSlurmEnv=maybe\n");
  BOOST_CHECK_MESSAGE(starts_with(err, "test.conf:2: invalid value 'maybe' for SlurmEnv"), err);
  auto off = parse_ok("SlurmEnv=NO\n");
  auto body = render_body(off);
  auto at = body.find("\nSlurmEnv ");
  BOOST_REQUIRE(at != std::string::npos);
  auto line = body.substr(at + 1, body.find('\n', at + 1) - at - 1);
  BOOST_CHECK_MESSAGE(line.size() > 4 && line.substr(line.size() - 4) == "= NO", line);
  BOOST_CHECK(!parse_ok(render_body(off)).slurm_env);
}

BOOST_AUTO_TEST_CASE(seed_daemon_binary_paths_are_accepted_silently) {
  auto cfg = parse_ok(
      "MachStatusManager = /usr/local/SLURM/MachStatusManager\n"
      "MachStatusDaemon  = /usr/local/SLURM/MachStatusDaemon\n");
  BOOST_CHECK(cfg.warnings.empty());
}

BOOST_AUTO_TEST_CASE(a_line_without_equals_is_an_error_naming_file_and_line) {
  auto text = parse_error("ClusterName=c\nNodeName=n1 CPUs 2\n");
  BOOST_CHECK(starts_with(text, "test.conf:2: expected Key=Value"));
  BOOST_CHECK(starts_with(parse_error("just words\n"), "test.conf:1: expected Key=Value"));
  BOOST_CHECK(starts_with(parse_error("\n\n=5\n"), "test.conf:3: expected Key=Value"));
}

BOOST_AUTO_TEST_CASE(every_error_names_file_and_line) {
  struct error_case {
    std::string text;
    std::string prefix;  // "test.conf:N: ..."
    std::string part;    // also in the message
  };
  std::vector<error_case> cases{
      {"NodeName=n1 RealMemory=lots\n", "test.conf:1: ", "invalid value 'lots' for RealMemory"},
      {"\nNodeName=n1 CPUs=-2\n", "test.conf:2: ", "invalid value '-2' for CPUs"},
      {"NodeName=n1 Procs=2x\n", "test.conf:1: ", "invalid value '2x' for CPUs"},
      {"NodeName=n1 Speed=fast\n", "test.conf:1: ", "invalid value 'fast' for Speed"},
      {"NodeName=n1 TmpDisk=1.5\n", "test.conf:1: ", "invalid value '1.5' for TmpDisk"},
      {"NodeName=n1 CPUs=99999999999\n", "test.conf:1: ", "for CPUs"},
      {"NodeName=n1 State=SLEEPY\n", "test.conf:1: ", "invalid value 'SLEEPY' for State"},
      {"Name=n1 Partition=1,32\n", "test.conf:1: ", "invalid value '1,32' for Partition"},
      {"Name=n1 Partition=a\n", "test.conf:1: ", "for Partition"},
      {"NodeName=n[1-\n", "test.conf:1: ", "n[1-"},
      {"NodeName=\n", "test.conf:1: ", "NodeName"},
      {"NodeName=n1\nNodeName=n[0-2]\n",
       "test.conf:2: ", "node 'n1' is already defined at test.conf:1"},
      {"NodeName=n[1-2] NodeAddr=10.0.0.[1-3]\n", "test.conf:1: ", "NodeAddr"},
      {"NodeName=n1 NodeName=n2\n", "test.conf:1: ", "'NodeName' must be the first key"},
      {"ClusterName=c NodeName=n2\n", "test.conf:1: ", "'NodeName' must be the first key"},
      {"NodeName=n1\nPartitionName=p Nodes=n[1-2]\n",
       "test.conf:2: ", "partition 'p' names unknown node 'n2'"},
      {"PartitionName=p\nPartitionName=p\n",
       "test.conf:2: ", "partition 'p' is already defined at test.conf:1"},
      {"PartitionName=a Default=YES\nPartitionName=b Default=YES\n",
       "test.conf:2: ", "partition 'a' at test.conf:1"},
      {"PartitionName=a Default=maybe\n", "test.conf:1: ", "invalid value 'maybe' for Default"},
      {"PartitionName=a MaxTime=soon\n", "test.conf:1: ", "invalid value 'soon' for MaxTime"},
      {"PartitionName=a DefaultTime=1:2:3:4\n", "test.conf:1: ", "for DefaultTime"},
      {"PartitionName=a State=OPEN\n", "test.conf:1: ", "invalid value 'OPEN' for State"},
      {"PartitionName=a MaxNodes=many\n", "test.conf:1: ", "invalid value 'many' for MaxNodes"},
      {"PartitionName=a PriorityTier=high\n", "test.conf:1: ", "for PriorityTier"},
      {"PartitionName=\n", "test.conf:1: ", "PartitionName"},
      {"PartitionName=a\nDefaultPartition=b\n",
       "test.conf:2: ", "DefaultPartition 'b' is not a defined partition"},
      {"DefaultPartition=b\nPartitionName=a Default=YES\nPartitionName=b\n",
       "test.conf:1: ", "conflicts with Default=YES on partition 'a'"},
      {"SlurmctldPort=0\n", "test.conf:1: ", "invalid value '0' for SlurmctldPort"},
      {"SlurmctldPort=70000\n", "test.conf:1: ", "invalid value '70000' for SlurmctldPort"},
      {"SlurmctldPort=65535\n", "test.conf:1: ", "the CLI's front door takes the one after it"},
      {"AdminUsers=alice,,bob\n", "test.conf:1: ", "for AdminUsers"},
      {"MachStatusPort=abc\n", "test.conf:1: ", "invalid value 'abc' for MachStatusPort"},
      {"SlurmctldPort=6818-6817\n", "test.conf:1: ", "for SlurmctldPort"},
      {"MetricsPort=-1\n", "test.conf:1: ", "for MetricsPort"},
      {"HeartBeatInterval=0\n", "test.conf:1: ", "HeartBeatInterval must be greater than 0"},
      {"HeartBeatInterval=often\n", "test.conf:1: ", "invalid value 'often' for HeartBeatInterval"},
      {"SlurmdTimeout=-5\n", "test.conf:1: ", "invalid value '-5' for SlurmdTimeout"},
      {"KillWait=1.5\n", "test.conf:1: ", "invalid value '1.5' for KillWait"},
      {"ClusterName=c\nMinJobAge=0\n", "test.conf:2: ", "invalid value '0' for MinJobAge"},
      {"MinJobAge=5m\n", "test.conf:1: ", "invalid value '5m' for MinJobAge"},
      {"SlurmctldDebug=loud\n", "test.conf:1: ", "invalid value 'loud' for SlurmctldDebug"},
      {"SlurmdDebug=10\n", "test.conf:1: ", "invalid value '10' for SlurmdDebug"},
      {"DebugFlags=init;msg\n", "test.conf:1: ", "DebugFlags: unknown debug flag 'init;msg'"},
      {"SelectType=select/other\n", "test.conf:1: ",
       "'select/other' is not supported (supported: select/linear, select/consecutive, "
       "select/cons_tres, select/torus3d)"},
      {"SchedulerType=sched/gang\n", "test.conf:1: ", "use sched/backfill or sched/builtin"},
      {"SchedulerParameters=bf_max_job_test=lots\n",
       "test.conf:1: ", "bf_max_job_test needs a whole number"},
      {"PriorityWeightAge=-1\n", "test.conf:1: ", "expected a non-negative integer"},
      {"MaxArraySize=0\n", "test.conf:1: ", "expected a number from 1 to 4000001"},
      {"NodeName=n1\nPartitionName=p Nodes=n1 OverSubscribe=SOMETIMES\n",
       "test.conf:2: ", "OverSubscribe"},
      {"NodeName=n1\nPartitionName=p Nodes=n1 OverSubscribe=YES:0\n",
       "test.conf:2: ", "YES:N with N from 1 to 1024"},
      {"NodeName=n1\nPartitionName=p Nodes=n1 OverSubscribe=NO:2\n",
       "test.conf:2: ", "EXCLUSIVE, NO, YES[:N] or FORCE[:N]"},
      {"SlurmctldHost=\n", "test.conf:1: ", "SlurmctldHost needs a host name"},
      {"SlurmctldHost=ctl(10.0.0.1\n", "test.conf:1: ", "for SlurmctldHost"},
      {"ClusterName=\n", "test.conf:1: ", "ClusterName needs a name"},
      {"StateSaveLocation=\n", "test.conf:1: ", "StateSaveLocation needs a directory"},
      {"SwitchType=\n", "test.conf:1: ", "SwitchType"},
      {"CollectorNodes=lx[01-02]\nNodeName=lx01\n",
       "test.conf:1: ", "CollectorNodes names unknown node 'lx02'"},
      {"NodeName=n1 Features=\"open\n", "test.conf:1: ", "unterminated double quote"},
      {"NodeSpecConf=/nonexistent/shoal/NodeSpecConf\n",
       "test.conf:1: ", "NodeSpecConf /nonexistent/shoal/NodeSpecConf not found"},
      {"NodeSpecConf=\n", "test.conf:1: ", "NodeSpecConf needs a file path"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("config:\n" << c.text) {
      // The base directory holds no NodeSpecConf, so the fallback fails too.
      auto text = parse_error(c.text, data_dir + "/config");
      BOOST_TEST_CONTEXT("message: " << text) {
        BOOST_CHECK(starts_with(text, c.prefix));
        BOOST_CHECK(contains(text, c.part));
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

// -- main keys ------------------------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(main_keys)

BOOST_AUTO_TEST_CASE(defaults_apply_when_keys_are_absent) {
  auto cfg = parse_ok("");
  BOOST_CHECK_EQUAL(cfg.cluster_name, "shoal");
  BOOST_CHECK(cfg.controller_hosts.empty());
  BOOST_CHECK_EQUAL(cfg.controller_port, 6917);
  BOOST_CHECK_EQUAL(cfg.heartbeat_interval_ms, 30000);
  BOOST_CHECK_EQUAL(cfg.heartbeat_timeout_ms, 300000);
  BOOST_CHECK_EQUAL(cfg.kill_wait_s, 30);
  BOOST_CHECK_EQUAL(cfg.switch_type, "switch/none");
  BOOST_CHECK(cfg.select_type == topology::selection_policy::consecutive);
  // A config with no nodes is valid: the controller then has nothing to schedule.
  BOOST_CHECK(cfg.nodes.empty());
  BOOST_CHECK(cfg.partitions.empty());
  BOOST_CHECK(cfg.warnings.empty());
}

BOOST_AUTO_TEST_CASE(controller_hosts_keep_order_with_backups_last) {
  auto cfg = parse_ok(
      "BackupController=ctl3\n"
      "SlurmctldHost=ctl1(10.0.0.1)\n"
      "SlurmctldHost=ctl2\n");
  BOOST_CHECK(host_names(cfg) == (strings{"ctl1", "ctl2", "ctl3"}));
  BOOST_CHECK(host_addresses(cfg) == (strings{"10.0.0.1", "ctl2", "ctl3"}));
  auto seed = parse_ok("ControlMachine=lx_control\nBackupController=lx_backup\n");
  BOOST_CHECK(host_names(seed) == (strings{"lx_control", "lx_backup"}));
}

BOOST_AUTO_TEST_CASE(controller_hosts_take_slurmctld_port_unless_they_name_their_own) {
  // SlurmctldPort after the lines still applies to them; a line's own port wins.
  auto cfg = parse_ok(
      "SlurmctldHost=head1(127.0.0.1:7001)\n"
      "SlurmctldHost=head2(127.0.0.1)\n"
      "SlurmctldHost=head3\n"
      "SlurmctldPort=7100\n");
  BOOST_REQUIRE_EQUAL(cfg.controller_hosts.size(), 3u);
  BOOST_CHECK(cfg.controller_hosts[0] == (controller_host{"head1", "127.0.0.1", 7001}));
  BOOST_CHECK(cfg.controller_hosts[1] == (controller_host{"head2", "127.0.0.1", 7100}));
  BOOST_CHECK(cfg.controller_hosts[2] == (controller_host{"head3", "head3", 7100}));
  // An IPv6 address has more than one ':' and no port.
  auto v6 = parse_ok("SlurmctldHost=h6(fe80::1)\n");
  BOOST_CHECK(v6.controller_hosts.front() == (controller_host{"h6", "fe80::1", 6917}));
}

BOOST_AUTO_TEST_CASE(controller_timeouts_default_to_slurms_and_take_seconds) {
  auto defaults = parse_ok("");
  BOOST_CHECK_EQUAL(defaults.slurmctld_timeout_s, 120);
  BOOST_CHECK_EQUAL(defaults.message_timeout_s, 10);
  auto cfg = parse_ok("SlurmctldTimeout=3\nMessageTimeout=2\n");
  BOOST_CHECK_EQUAL(cfg.slurmctld_timeout_s, 3);
  BOOST_CHECK_EQUAL(cfg.message_timeout_s, 2);
  BOOST_CHECK(cfg.warnings.empty());
}

BOOST_AUTO_TEST_CASE(bad_controller_lines_and_timeouts_name_file_and_line) {
  struct bad_case {
    std::string text;
    std::string prefix;
    std::string part;
  };
  std::vector<bad_case> cases = {
      {"ClusterName=x\nSlurmctldHost=h(10.0.0.1:0)\n", "test.conf:2: ",
       "invalid value 'h(10.0.0.1:0)' for SlurmctldHost (expected NAME, NAME(ADDRESS) or "
       "NAME(ADDRESS:PORT))"},
      {"SlurmctldHost=h(10.0.0.1:70000)\n", "test.conf:1: ", "for SlurmctldHost"},
      {"SlurmctldHost=h(10.0.0.1:x)\n", "test.conf:1: ", "for SlurmctldHost"},
      {"SlurmctldHost=h(:7000)\n", "test.conf:1: ", "for SlurmctldHost"},
      {"SlurmctldHost=h)\n", "test.conf:1: ", "for SlurmctldHost"},
      {"BackupController=b(\n", "test.conf:1: ", "for BackupController"},
      {"\nSlurmctldTimeout=0\n", "test.conf:2: ",
       "invalid value '0' for SlurmctldTimeout (expected whole seconds, 1 or more)"},
      {"SlurmctldTimeout=1.5\n", "test.conf:1: ", "for SlurmctldTimeout"},
      {"MessageTimeout=ten\n", "test.conf:1: ",
       "invalid value 'ten' for MessageTimeout (expected whole seconds, 1 or more)"},
      {"MessageTimeout=\n", "test.conf:1: ", "for MessageTimeout"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("config:\n" << c.text) {
      auto text = parse_error(c.text);
      BOOST_TEST_CONTEXT("message: " << text) {
        BOOST_CHECK(starts_with(text, c.prefix));
        BOOST_CHECK(contains(text, c.part));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(render_config_writes_controller_lines_and_timeouts_back) {
  auto cfg = parse_ok(
      "SlurmctldPort=7000\nSlurmctldHost=a\nSlurmctldHost=b(10.0.0.2)\n"
      "SlurmctldHost=c(127.0.0.1:7002)\nSlurmctldTimeout=3\nMessageTimeout=4\n");
  auto text = render_config(cfg);
  BOOST_CHECK(contains(text, "\nSlurmctldHost           = a\n"));
  BOOST_CHECK(contains(text, "\nSlurmctldHost           = b(10.0.0.2)\n"));
  BOOST_CHECK(contains(text, "\nSlurmctldHost           = c(127.0.0.1:7002)\n"));
  BOOST_CHECK(contains(text, "\nSlurmctldTimeout        = 3\n"));
  BOOST_CHECK(contains(text, "\nMessageTimeout          = 4\n"));
  auto again = parse_ok(render_body(cfg));
  check_same_cluster(cfg, again);
}

BOOST_AUTO_TEST_CASE(admin_users_are_a_list_of_names) {
  auto cfg = parse_ok("AdminUsers=alice,bob,carol\n");
  BOOST_REQUIRE_EQUAL(cfg.admin_users.size(), 3u);
  BOOST_CHECK_EQUAL(cfg.admin_users[1], "bob");
  BOOST_CHECK(parse_ok("").admin_users.empty());
}

BOOST_AUTO_TEST_CASE(port_ranges_take_the_first_port) {
  BOOST_CHECK_EQUAL(parse_ok("SlurmctldPort=6817-6818\n").controller_port, 6817);
  BOOST_CHECK_EQUAL(parse_ok("MachStatusPort=612\n").controller_port, 612);
  BOOST_CHECK_EQUAL(parse_ok("SlurmctldPort=65534\n").controller_port, 65534);
  BOOST_CHECK_EQUAL(parse_ok("MetricsPort=9100\n").metrics_port, 9100);
}

BOOST_AUTO_TEST_CASE(heartbeats_accept_fractional_seconds) {
  auto cfg = parse_ok("HeartBeatInterval=0.5\nSlurmdTimeout=2.25\nKillWait=0\n");
  BOOST_CHECK_EQUAL(cfg.heartbeat_interval_ms, 500);
  BOOST_CHECK_EQUAL(cfg.heartbeat_timeout_ms, 2250);
  BOOST_CHECK_EQUAL(cfg.kill_wait_s, 0);
}

BOOST_AUTO_TEST_CASE(min_job_age_is_slurms_300_s_unless_set_and_show_config_prints_it) {
  BOOST_CHECK_EQUAL(parse_ok("ClusterName=c\n").min_job_age_s, 300);
  auto cfg = parse_ok("MinJobAge=30\n");
  BOOST_CHECK_EQUAL(cfg.min_job_age_s, 30);
  BOOST_CHECK(contains(render_config(cfg), "\nMinJobAge               = 30\n"));
}

BOOST_AUTO_TEST_CASE(heartbeat_timeout_must_exceed_the_interval_and_the_error_names_both) {
  auto text = parse_error("HeartBeatTimeout=300\nHeartBeatInterval=300\n");
  BOOST_CHECK(starts_with(text, "test.conf:2: "));
  BOOST_CHECK(contains(text,
                       "HeartBeatTimeout (300 s) must be greater than "
                       "HeartBeatInterval (300 s)"));
  text = parse_error("HeartBeatInterval=10\nSlurmdTimeout=5\n");
  BOOST_CHECK(starts_with(text, "test.conf:2: SlurmdTimeout (5 s)"));
  BOOST_CHECK(contains(text, "HeartBeatInterval (10 s)"));
  // Against a default, the line written is the one to fix.
  text = parse_error("\nHeartBeatInterval=400\n");
  BOOST_CHECK(starts_with(text, "test.conf:2: SlurmdTimeout (default) (300 s)"));
}

BOOST_AUTO_TEST_CASE(debug_levels_are_lower_cased_and_numbers_accepted) {
  auto cfg = parse_ok("SlurmctldDebug=DEBUG3\nSlurmdDebug=7\n");
  BOOST_CHECK_EQUAL(cfg.ctld_debug, "debug3");
  BOOST_CHECK_EQUAL(cfg.node_debug, "7");
}

BOOST_AUTO_TEST_CASE(debug_flags_take_slurm_and_seed_names_in_any_case) {
  auto init_msg = bit_of(debug_flag::init) | bit_of(debug_flag::msg);
  BOOST_CHECK_EQUAL(parse_ok("MachStatusDebug=init,msg\n").debug_flags, init_msg);
  BOOST_CHECK_EQUAL(parse_ok("DebugFlags=Steps,PROTOCOL,,steps\n").debug_flags,
                    bit_of(debug_flag::steps) | bit_of(debug_flag::msg));
  BOOST_CHECK_EQUAL(parse_ok("DebugFlags=\n").debug_flags, 0u);
}

BOOST_AUTO_TEST_CASE(an_unknown_debug_flag_is_an_error_at_its_line) {
  auto text = parse_error("ClusterName=x\nDebugFlags=Steps,Bogus\n");
  BOOST_CHECK_MESSAGE(starts_with(text, "test.conf:2: DebugFlags: unknown debug flag 'Bogus'"),
                      text);
  BOOST_CHECK_MESSAGE(contains(text, "SelectType"), text);
}

BOOST_AUTO_TEST_CASE(bad_logging_values_are_errors_at_their_line) {
  BOOST_CHECK(
      starts_with(parse_error("SlurmctldDebug=loud\n"), "test.conf:1: invalid value 'loud'"));
  BOOST_CHECK(starts_with(parse_error("\nSlurmdSyslogDebug=10\n"), "test.conf:2: invalid value"));
  BOOST_CHECK(starts_with(parse_error("LogFileMaxSize=12X\n"), "test.conf:1: invalid value"));
  BOOST_CHECK(starts_with(parse_error("LogFileCount=0\n"), "test.conf:1: invalid value"));
  BOOST_CHECK(starts_with(parse_error("LogTimeFormat=iso8601,short\n"),
                          "test.conf:1: invalid LogTimeFormat"));
}

BOOST_AUTO_TEST_CASE(logging_keys_are_read) {
  auto cfg = parse_ok(
      "SlurmctldSyslogDebug=Error\nSlurmdSyslogDebug=2\nLogFileMaxSize=10M\nLogFileCount=3\n"
      "LogTimeFormat=rfc5424_ms,thread_id\n");
  BOOST_CHECK_EQUAL(cfg.ctld_syslog_debug, "error");
  BOOST_CHECK_EQUAL(cfg.node_syslog_debug, "2");
  BOOST_CHECK_EQUAL(cfg.log_file_max_size, 10u << 20);
  BOOST_CHECK_EQUAL(cfg.log_file_count, 3u);
  BOOST_CHECK_EQUAL(cfg.log_time_format, "rfc5424_ms,thread_id");
  BOOST_CHECK(parse_ok("").ctld_syslog_debug.empty());
}

BOOST_AUTO_TEST_CASE(select_type_names_the_selection_policy) {
  BOOST_CHECK(parse_ok("SelectType=select/linear\n").select_type ==
              topology::selection_policy::linear);
  BOOST_CHECK(parse_ok("SelectType=select/consecutive\n").select_type ==
              topology::selection_policy::consecutive);
}

BOOST_AUTO_TEST_CASE(torus3d_reads_the_grid_from_the_box_form_node_names) {
  auto cfg = parse_ok(
      "SelectType=select/torus3d\nNodeName=bgl[000x733]\n"
      "PartitionName=all Nodes=ALL Default=YES\n");
  BOOST_CHECK(cfg.torus3d);
  BOOST_CHECK_EQUAL(cfg.torus.prefix, "bgl");
  BOOST_CHECK(cfg.torus.dims == (std::array<int, 3>{8, 4, 4}));
  BOOST_CHECK_EQUAL(cfg.nodes.size(), 128u);
  BOOST_CHECK_EQUAL(cfg.nodes.front().name, "bgl000");
  BOOST_CHECK_EQUAL(cfg.nodes.back().name, "bgl733");
}

BOOST_AUTO_TEST_CASE(select_bluegene_is_an_alias_of_torus3d_and_base36_digits_count) {
  auto cfg = parse_ok("SelectType=select/bluegene\nNodeName=r[0-9][0-1][0-0],rA00,rA10\n");
  BOOST_CHECK(cfg.torus3d);
  BOOST_CHECK(cfg.torus.dims == (std::array<int, 3>{11, 2, 1}));
  BOOST_CHECK(contains(render_config(cfg), "select/torus3d"));
  BOOST_CHECK(
      !parse_ok("SelectType=select/torus3d\nSelectType=select/linear\nNodeName=n1\n").torus3d);
}

BOOST_AUTO_TEST_CASE(the_local_torus_config_declares_the_grid_in_box_form) {
  auto text = torus_config_text({8, 4, 4}, 7000);
  BOOST_CHECK(contains(text, "NodeName=bgl[000x733] NodeAddr=127.0.0.1\n"));
  auto cfg = parse_ok(text);
  BOOST_CHECK(cfg.torus3d);
  BOOST_CHECK(cfg.torus.dims == (std::array<int, 3>{8, 4, 4}));
  BOOST_REQUIRE_EQUAL(cfg.partitions.size(), 1u);
  BOOST_CHECK_EQUAL(cfg.partitions[0].nodes.size(), 128u);
  BOOST_CHECK(cfg.partitions[0].is_default);
  BOOST_CHECK_EQUAL(base_partition_name("r", 10, 0, 35), "rA0Z");
}

BOOST_AUTO_TEST_CASE(torus3d_rejects_names_that_are_not_a_complete_grid) {
  struct bad {
    std::string text;
    std::string where;
    std::string what;
  };
  const std::vector<bad> cases = {
      {"SelectType=select/torus3d\nNodeName=bgl[0-1][0-1][0-1]\nNodeName=node1\n",
       "test.conf:3: ", "node 'node1' is not named as a base partition"},
      {"SelectType=select/torus3d\nNodeName=bgl[0-1][0-1][0-1]\nNodeName=bgx[0-1][0-1][0-1]\n",
       "test.conf:3: ", "does not share the prefix 'bgl'"},
      {"SelectType=select/torus3d\nNodeName=bgl[0-1][0-1][0-1]\nNodeName=bgl2a0\n",
       "test.conf:3: ", "node 'bgl2a0' is not named"},
      {"NodeName=bgl[0-1][0-1][0-1],bgl200\nSelectType=select/torus3d\n", "test.conf:2: ",
       "select/torus3d needs a complete grid: 3x2x2 has 12 base partitions but 9 nodes are "
       "defined (missing bgl201)"},
      {"SelectType=select/torus3d\n", "test.conf:1: ", "needs nodes named PREFIXxyz"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("config:\n" << c.text) {
      auto text = parse_error(c.text);
      BOOST_CHECK_MESSAGE(starts_with(text, c.where), text);
      BOOST_CHECK_MESSAGE(contains(text, c.what), text);
    }
  }
}

BOOST_AUTO_TEST_CASE(string_keys_are_stored_as_written) {
  auto cfg = parse_ok(
      "ClusterName=Tiny\n"
      "StateSaveLocation=/var/spool/x\n"
      "TmpFS=/scratch\n"
      "SlurmctldLogFile=/var/log/ctld.log\n"
      "SlurmdLogFile=/var/log/d.log\n"
      "SwitchType=switch/elan\n"
      "SwitchParameters=elan_map=/etc/elanhosts,elan_rails=2\n");
  BOOST_CHECK_EQUAL(cfg.cluster_name, "Tiny");
  BOOST_CHECK_EQUAL(cfg.state_save_location, "/var/spool/x");
  BOOST_CHECK_EQUAL(cfg.tmp_fs, "/scratch");
  BOOST_CHECK_EQUAL(cfg.ctld_log_file, "/var/log/ctld.log");
  BOOST_CHECK_EQUAL(cfg.node_log_file, "/var/log/d.log");
  BOOST_CHECK_EQUAL(cfg.switch_type, "switch/elan");
  BOOST_CHECK_EQUAL(cfg.switch_parameters, "elan_map=/etc/elanhosts,elan_rails=2");
  BOOST_CHECK(cfg.warnings.empty());
}

BOOST_AUTO_TEST_CASE(slurmd_spool_dir_gives_each_node_a_directory_of_its_own) {
  auto plain = parse_ok("SlurmdSpoolDir=/var/spool/sd\n");
  BOOST_CHECK(plain.warnings.empty());
  BOOST_CHECK_EQUAL(plain.node_spool_dir, "/var/spool/sd");
  BOOST_CHECK_EQUAL(node_spool_dir(plain, "n7", "host1"), "/var/spool/sd/n7");
  // As in Slurm, %n is the node and %h the host; a value naming the node is used as it is.
  auto named = parse_ok("SlurmdSpoolDir=/spool/%h/%n\n");
  BOOST_CHECK_EQUAL(node_spool_dir(named, "n7", "host1"), "/spool/host1/n7");
  BOOST_CHECK_EQUAL(node_spool_dir(cluster_config{}, "n1", "h"), "/var/spool/shoald/n1");
  BOOST_CHECK(!parse_config("SlurmdSpoolDir=\n", "test.conf", ""));
}

BOOST_AUTO_TEST_SUITE_END()

// -- nodes ----------------------------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(nodes)

BOOST_AUTO_TEST_CASE(default_records_apply_only_to_later_lines) {
  auto cfg = parse_ok(
      "NodeName=a CPUs=1\n"
      "NodeName=DEFAULT CPUs=4 RealMemory=512\n"
      "NodeName=b\n"
      "NodeName=c CPUs=8\n"
      "NodeName=default RealMemory=1024 Weight=5\n"
      "NodeName=d\n");
  BOOST_CHECK(node_names(cfg) == (strings{"a", "b", "c", "d"}));
  BOOST_CHECK_EQUAL(node(cfg, "a").cpus, 1u);
  BOOST_CHECK_EQUAL(node(cfg, "a").real_memory_mb, 0u);
  BOOST_CHECK_EQUAL(node(cfg, "b").cpus, 4u);
  BOOST_CHECK_EQUAL(node(cfg, "b").real_memory_mb, 512u);
  BOOST_CHECK_EQUAL(node(cfg, "b").weight, 1u);
  BOOST_CHECK_EQUAL(node(cfg, "c").cpus, 8u);
  // A second DEFAULT merges into the first: CPUs=4 stays, RealMemory is replaced.
  BOOST_CHECK_EQUAL(node(cfg, "d").cpus, 4u);
  BOOST_CHECK_EQUAL(node(cfg, "d").real_memory_mb, 1024u);
  BOOST_CHECK_EQUAL(node(cfg, "d").weight, 5u);
}

BOOST_AUTO_TEST_CASE(hostlist_names_expand_to_one_node_each) {
  auto cfg = parse_ok("NodeName=lx[01-03],gpu[7,9] CPUs=2\n");
  BOOST_CHECK(node_names(cfg) == (strings{"lx01", "lx02", "lx03", "gpu7", "gpu9"}));
  for (const auto& n : cfg.nodes) {
    BOOST_CHECK_EQUAL(n.cpus, 2u);
    BOOST_CHECK_EQUAL(n.address, n.name);
    BOOST_CHECK_EQUAL(n.line, 1);
    BOOST_CHECK_EQUAL(n.file, "test.conf");
  }
}

BOOST_AUTO_TEST_CASE(node_addresses_are_shared_or_paired_with_the_names) {
  auto cfg = parse_ok(
      "NodeName=n[1-2] NodeAddr=127.0.0.1\n"
      "NodeName=m[1-3] NodeAddr=10.0.0.[1-3]\n"
      "NodeName=h1 NodeHostname=h1.example.org\n"
      "NodeName=h2 NodeHostname=h2.example.org NodeAddr=10.1.0.2\n");
  BOOST_CHECK_EQUAL(node(cfg, "n1").address, "127.0.0.1");
  BOOST_CHECK_EQUAL(node(cfg, "n2").address, "127.0.0.1");
  BOOST_CHECK_EQUAL(node(cfg, "m1").address, "10.0.0.1");
  BOOST_CHECK_EQUAL(node(cfg, "m3").address, "10.0.0.3");
  BOOST_CHECK_EQUAL(node(cfg, "h1").address, "h1.example.org");
  BOOST_CHECK_EQUAL(node(cfg, "h2").address, "10.1.0.2");
}

BOOST_AUTO_TEST_CASE(every_node_key_is_read) {
  auto cfg = parse_ok(
      "NodeName=n1 Procs=16 Sockets=2 CoresPerSocket=4 ThreadsPerCore=2 Speed=863.8 "
      "RealMemory=64000 VirtualMemory=128000 TmpDisk=9000 OS=Linux.6.1 Weight=3 "
      "Features=fast,ib State=drain\n");
  const auto& n = node(cfg, "n1");
  BOOST_CHECK_EQUAL(n.cpus, 16u);
  BOOST_CHECK_EQUAL(n.sockets, 2u);
  BOOST_CHECK_EQUAL(n.cores_per_socket, 4u);
  BOOST_CHECK_EQUAL(n.threads_per_core, 2u);
  BOOST_CHECK_EQUAL(n.speed, 863.8);
  BOOST_CHECK_EQUAL(n.real_memory_mb, 64000u);
  BOOST_CHECK_EQUAL(n.virtual_memory_mb, 128000u);
  BOOST_CHECK_EQUAL(n.tmp_disk_mb, 9000u);
  BOOST_CHECK_EQUAL(n.os, "Linux.6.1");
  BOOST_CHECK_EQUAL(n.weight, 3u);
  BOOST_CHECK_EQUAL(n.features, "fast,ib");
  BOOST_CHECK_EQUAL(n.initial_state, "DRAIN");
  BOOST_CHECK(cfg.warnings.empty());
}

BOOST_AUTO_TEST_CASE(seed_nodes_without_a_partition_key_are_in_partition_zero) {
  auto cfg = parse_ok("Name=a\nName=b Partition=4\nName=c\n");
  BOOST_CHECK(partition_names(cfg) == (strings{"0", "4"}));
  BOOST_CHECK(partition(cfg, "0").nodes == (strings{"a", "c"}));
  BOOST_CHECK(partition(cfg, "4").nodes == strings{"b"});
  BOOST_CHECK(node(cfg, "a").partitions == strings{"0"});
  BOOST_CHECK(!node(cfg, "a").partitions_given);
  // Seed partitions are not defaults unless one is the only partition.
  BOOST_CHECK(!partition(cfg, "0").is_default);
}

BOOST_AUTO_TEST_CASE(slurm_nodes_are_only_in_partitions_that_list_them) {
  auto cfg = parse_ok("NodeName=a\nNodeName=b\nPartitionName=p Nodes=b\n");
  BOOST_CHECK(partition_names(cfg) == strings{"p"});
  BOOST_CHECK(node(cfg, "a").partitions.empty());
  BOOST_CHECK(node(cfg, "b").partitions == strings{"p"});
}

BOOST_AUTO_TEST_CASE(seed_empty_partition_key_gives_no_partition) {
  auto cfg = parse_ok(
      "Name=DEFAULT CPUs=2 Partition=1\n"
      "Name=a\n"
      "Name=b Partition= \n"
      "Name=c Partition= CPUs=4\n"
      "Name=DEFAULT Partition=\n"
      "Name=d\n");
  BOOST_CHECK(partition_names(cfg) == strings{"1"});
  BOOST_CHECK(partition(cfg, "1").nodes == strings{"a"});
  BOOST_CHECK(node(cfg, "b").partitions.empty());
  BOOST_CHECK(node(cfg, "b").partitions_given);
  BOOST_CHECK_EQUAL(node(cfg, "c").cpus, 4u);
  BOOST_CHECK(node(cfg, "c").partitions.empty());
  BOOST_CHECK(node(cfg, "d").partitions.empty());
}

BOOST_AUTO_TEST_CASE(seed_partitions_appear_in_order_of_first_use) {
  auto cfg = parse_ok("Name=a Partition=3\nName=b Partition=1,3\nName=c Partition=0,1,1\n");
  BOOST_CHECK(partition_names(cfg) == (strings{"3", "1", "0"}));
  BOOST_CHECK(partition(cfg, "3").nodes == (strings{"a", "b"}));
  BOOST_CHECK(partition(cfg, "1").nodes == (strings{"b", "c"}));
  BOOST_CHECK(node(cfg, "c").partitions == (strings{"1", "0"}));
}

BOOST_AUTO_TEST_SUITE_END()

// -- partitions -----------------------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(partitions)

BOOST_AUTO_TEST_CASE(partition_keys_are_read) {
  auto cfg = parse_ok(
      "NodeName=node[1-4]\n"
      "PartitionName=debug Nodes=node[1-4] Default=YES MaxTime=INFINITE DefaultTime=30 "
      "State=up MaxNodes=UNLIMITED PriorityTier=5\n"
      "PartitionName=short Nodes=node[3-4,1] MaxTime=1:00:00 State=DRAIN MaxNodes=2\n");
  const auto& debug = partition(cfg, "debug");
  BOOST_CHECK(debug.nodes == (strings{"node1", "node2", "node3", "node4"}));
  BOOST_CHECK(debug.is_default);
  BOOST_CHECK_EQUAL(debug.max_time_s, -1);
  BOOST_CHECK_EQUAL(debug.default_time_s, 1800);
  BOOST_CHECK_EQUAL(debug.state, "UP");
  BOOST_CHECK_EQUAL(debug.max_nodes, 0u);
  BOOST_CHECK_EQUAL(debug.priority, 5u);
  BOOST_CHECK_EQUAL(debug.line, 2);
  const auto& short_ = partition(cfg, "short");
  // Nodes are kept in config order, whatever order Nodes= lists them in.
  BOOST_CHECK(short_.nodes == (strings{"node1", "node3", "node4"}));
  BOOST_CHECK(!short_.is_default);
  BOOST_CHECK_EQUAL(short_.max_time_s, 3600);
  BOOST_CHECK_EQUAL(short_.default_time_s, -1);
  BOOST_CHECK_EQUAL(short_.state, "DRAIN");
  BOOST_CHECK_EQUAL(short_.max_nodes, 2u);
  BOOST_CHECK(node(cfg, "node1").partitions == (strings{"debug", "short"}));
  BOOST_CHECK(node(cfg, "node2").partitions == strings{"debug"});
}

BOOST_AUTO_TEST_CASE(nodes_all_puts_every_node_in_the_partition) {
  auto cfg = parse_ok("NodeName=b[1-2]\nPartitionName=all Nodes=ALL\nNodeName=a1\n");
  BOOST_CHECK(partition(cfg, "all").nodes == (strings{"b1", "b2", "a1"}));
}

BOOST_AUTO_TEST_CASE(partition_default_records_apply_only_to_later_lines) {
  auto cfg = parse_ok(
      "PartitionName=a\n"
      "PartitionName=DEFAULT MaxTime=10 State=DOWN\n"
      "PartitionName=b\n"
      "PartitionName=c State=UP\n");
  BOOST_CHECK_EQUAL(partition(cfg, "a").max_time_s, -1);
  BOOST_CHECK_EQUAL(partition(cfg, "b").max_time_s, 600);
  BOOST_CHECK_EQUAL(partition(cfg, "b").state, "DOWN");
  BOOST_CHECK_EQUAL(partition(cfg, "c").state, "UP");
  BOOST_CHECK_EQUAL(partition(cfg, "c").max_time_s, 600);
}

BOOST_AUTO_TEST_CASE(a_partition_may_name_no_nodes) {
  auto cfg = parse_ok("PartitionName=empty\nPartitionName=other Nodes=\n");
  BOOST_CHECK(partition(cfg, "empty").nodes.empty());
  BOOST_CHECK(partition(cfg, "other").nodes.empty());
}

BOOST_AUTO_TEST_CASE(default_partition_marks_the_default) {
  auto cfg = parse_ok("PartitionName=a\nPartitionName=b\nDefaultPartition=b\n");
  BOOST_CHECK(!partition(cfg, "a").is_default);
  BOOST_CHECK(partition(cfg, "b").is_default);
  // It may come before the partition it names, and agree with Default=YES.
  cfg = parse_ok("DefaultPartition=b\nPartitionName=a\nPartitionName=b Default=YES\n");
  BOOST_CHECK(partition(cfg, "b").is_default);
}

BOOST_AUTO_TEST_CASE(a_single_partition_becomes_the_default) {
  BOOST_CHECK(parse_ok("PartitionName=only\n").partitions.front().is_default);
  auto two = parse_ok("PartitionName=a\nPartitionName=b\n");
  BOOST_CHECK(!two.partitions[0].is_default);
  BOOST_CHECK(!two.partitions[1].is_default);
}

BOOST_AUTO_TEST_CASE(a_partition_line_and_seed_partition_keys_share_a_partition) {
  auto cfg = parse_ok("Name=a Partition=1\nName=b\nPartitionName=1 Nodes=b MaxTime=5\n");
  BOOST_CHECK(partition_names(cfg) == (strings{"1", "0"}));
  BOOST_CHECK(partition(cfg, "1").nodes == (strings{"a", "b"}));
  BOOST_CHECK_EQUAL(partition(cfg, "1").max_time_s, 300);
  BOOST_CHECK_EQUAL(partition(cfg, "1").line, 3);
}

BOOST_AUTO_TEST_SUITE_END()

// -- files ----------------------------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(files)

BOOST_AUTO_TEST_CASE(an_unreadable_file_is_an_error_naming_it) {
  auto cfg = load_config(data_dir + "/does-not-exist.conf");
  BOOST_REQUIRE(!cfg);
  BOOST_CHECK_EQUAL(describe(cfg.error()),
                    data_dir + "/does-not-exist.conf: cannot read: No such file or directory");
}

BOOST_AUTO_TEST_CASE(relative_includes_resolve_against_the_main_files_directory) {
  auto dir = data_dir + "/config/includes";
  auto cfg = load_config(dir + "/slurm.conf");
  BOOST_REQUIRE_MESSAGE(cfg, why(cfg));
  BOOST_CHECK(cfg->warnings.empty());
  BOOST_CHECK_EQUAL(cfg->node_spec_conf, dir + "/nodes.conf");
  BOOST_CHECK_EQUAL(cfg->partition_conf, dir + "/partitions.conf");
  BOOST_CHECK(node_names(*cfg) == (strings{"n1", "n2", "n3", "n4", "n5", "n6"}));
  BOOST_CHECK_EQUAL(node(*cfg, "n6").cpus, 4u);
  BOOST_CHECK_EQUAL(node(*cfg, "n6").file, dir + "/nodes.conf");
  BOOST_CHECK_EQUAL(node(*cfg, "n6").line, 4);
  BOOST_CHECK(partition_names(*cfg) == (strings{"0", "2", "batch", "all"}));
  BOOST_CHECK(partition(*cfg, "0").nodes == (strings{"n1", "n2", "n3", "n4"}));
  BOOST_CHECK(partition(*cfg, "2").nodes == strings{"n6"});
  BOOST_CHECK(partition(*cfg, "batch").is_default);
  BOOST_CHECK_EQUAL(partition(*cfg, "batch").max_time_s, 3600);
  BOOST_CHECK_EQUAL(partition(*cfg, "all").nodes.size(), 6u);
  BOOST_CHECK(node(*cfg, "n5").partitions == strings{"all"});
  BOOST_CHECK(node(*cfg, "n1").partitions == (strings{"0", "batch", "all"}));
}

BOOST_AUTO_TEST_CASE(errors_inside_nodespecconf_name_that_file_and_line) {
  auto dir = data_dir + "/config/bad_nodespec";
  auto cfg = load_config(dir + "/slurm.conf");
  BOOST_REQUIRE(!cfg);
  auto text = describe(cfg.error());
  BOOST_CHECK_EQUAL(text, dir +
                              "/nodes.conf:3: invalid value 'lots' for RealMemory (expected a "
                              "non-negative integer, in megabytes)");
}

BOOST_AUTO_TEST_CASE(a_missing_partitionconf_is_only_a_warning) {
  auto cfg = parse_ok("PartitionConf=no-such-file\n", data_dir + "/config");
  BOOST_REQUIRE_EQUAL(cfg.warnings.size(), 1u);
  BOOST_CHECK(starts_with(cfg.warnings[0], "test.conf:1: PartitionConf no-such-file not found"));
  BOOST_CHECK_EQUAL(cfg.partition_conf, "");
}

BOOST_AUTO_TEST_SUITE_END()

// -- the embedded default and render_config -------------------------------------------------------

BOOST_AUTO_TEST_SUITE(client_config)

BOOST_AUTO_TEST_CASE(a_client_reads_the_controller_lines_and_skips_the_nodes) {
  auto full = load_config(data_dir + "/seed/SlurmConf");
  BOOST_REQUIRE(full);
  auto client = load_client_config(data_dir + "/seed/SlurmConf");
  BOOST_REQUIRE_MESSAGE(client, why(client));
  BOOST_CHECK(client->nodes.empty());
  BOOST_CHECK(client->partitions.empty());
  BOOST_CHECK_EQUAL(client->path, data_dir + "/seed/SlurmConf");
  BOOST_CHECK(host_addresses(*client) == host_addresses(*full));
  BOOST_CHECK_EQUAL(client->controller_port, full->controller_port);
  BOOST_CHECK_EQUAL(client->auth.munge, full->auth.munge);
  BOOST_CHECK_EQUAL(client->message_timeout_s, full->message_timeout_s);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(embedded_default)

BOOST_AUTO_TEST_CASE(a_default_of_a_hundred_thousand_nodes_splits_its_ranges_and_parses) {
  // A bracket range names at most 65,536 hosts (as in Slurm): the embedded default splits.
  auto text = default_config_text(100000, 7123);
  BOOST_CHECK(text.find("node[1-65536,65537-100000]") != std::string::npos);
  auto cfg = parse_ok(text);
  BOOST_REQUIRE_EQUAL(cfg.nodes.size(), 100000u);
  BOOST_CHECK_EQUAL(cfg.nodes.back().name, "node100000");
  BOOST_CHECK_EQUAL(cfg.partitions.front().nodes.size(), 100000u);
}

BOOST_AUTO_TEST_CASE(the_embedded_default_parses_with_no_warnings) {
  for (unsigned n : {0u, 1u, 4u, 12u}) {
    BOOST_TEST_CONTEXT("nodes " << n) {
      auto cfg = parse_ok(default_config_text(n, 7123));
      BOOST_CHECK(cfg.warnings.empty());
      BOOST_CHECK_EQUAL(cfg.cluster_name, "local");
      BOOST_CHECK(host_addresses(cfg) == strings{"127.0.0.1"});
      BOOST_CHECK_EQUAL(cfg.controller_port, 7123);
      BOOST_CHECK_EQUAL(cfg.heartbeat_interval_ms, 1000);
      BOOST_CHECK_EQUAL(cfg.heartbeat_timeout_ms, 5000);
      BOOST_CHECK_EQUAL(cfg.kill_wait_s, 2);
      BOOST_CHECK(cfg.select_type == topology::selection_policy::consecutive);
      BOOST_CHECK(starts_with(cfg.state_save_location, "/tmp/"));
      BOOST_REQUIRE_EQUAL(cfg.nodes.size(), n);
      for (unsigned i = 0; i < n; ++i) {
        BOOST_CHECK_EQUAL(cfg.nodes[i].name, "node" + std::to_string(i + 1));
        BOOST_CHECK_EQUAL(cfg.nodes[i].address, "127.0.0.1");
      }
      BOOST_REQUIRE_EQUAL(cfg.partitions.size(), 1u);
      const auto& debug = cfg.partitions.front();
      BOOST_CHECK_EQUAL(debug.name, "debug");
      BOOST_CHECK_EQUAL(debug.nodes.size(), n);
      BOOST_CHECK(debug.is_default);
      BOOST_CHECK_EQUAL(debug.max_time_s, -1);
      BOOST_CHECK_EQUAL(debug.state, "UP");
    }
  }
}

BOOST_AUTO_TEST_CASE(merged_config_text_sets_each_key_once) {
  auto text = merge_config_text(default_config_text(2, 7000),
                                "statesavelocation=/x/state\nSlurmdTimeout=3\nSlurmdTimeout=4\n"
                                "SlurmctldHost=backup(127.0.0.1:7002)\nCollectorNodes=node1\n");
  // Each key in place of the default's line (the last override wins), a new one at the end,
  // a repeatable key added beside the first.
  BOOST_CHECK(!contains(text, "StateSaveLocation="));
  BOOST_CHECK(contains(text, "\nstatesavelocation=/x/state\nSlurmctldDebug=info\n"));
  BOOST_CHECK(contains(text, "\nHeartBeatInterval=1\nSlurmdTimeout=4\n"));
  BOOST_CHECK(!contains(text, "SlurmdTimeout=3"));
  BOOST_CHECK(contains(text, "SlurmctldHost=localhost(127.0.0.1)\n"));
  BOOST_CHECK(contains(text, "\nSlurmctldHost=backup(127.0.0.1:7002)\nCollectorNodes=node1\n"));
  auto cfg = parse_ok(text);
  BOOST_CHECK_EQUAL(cfg.state_save_location, "/x/state");
  BOOST_CHECK_EQUAL(cfg.heartbeat_timeout_ms, 4000);
  BOOST_CHECK_EQUAL(cfg.controller_hosts.size(), 2u);
  BOOST_CHECK_EQUAL(merge_config_text("A=1\n", ""), "A=1\n");
}

BOOST_AUTO_TEST_CASE(render_config_prints_padded_keys_after_a_header_line) {
  auto cfg = parse_ok(default_config_text(4, 7000));
  auto text = render_config(cfg);
  BOOST_CHECK(starts_with(text, "Configuration data as of <embedded>\n"));
  BOOST_CHECK(contains(text, "\nClusterName             = local\n"));
  BOOST_CHECK(contains(text, "\nSlurmctldHost           = localhost(127.0.0.1)\n"));
  BOOST_CHECK(contains(text, "\nHeartBeatInterval       = 1\n"));
  BOOST_CHECK(contains(text, "\nNodeName=node[1-4] NodeAddr=127.0.0.1\n"));
  BOOST_CHECK(contains(text,
                       "\nPartitionName=debug Nodes=node[1-4] Default=YES "
                       "MaxTime=UNLIMITED State=UP"));
  auto loaded = load_config(data_dir + "/seed/SlurmConf");
  BOOST_REQUIRE(loaded);
  BOOST_CHECK(starts_with(render_config(*loaded),
                          "Configuration data as of " + data_dir + "/seed/SlurmConf\n"));
}

BOOST_AUTO_TEST_CASE(render_config_round_trips_the_default_config) {
  auto cfg = parse_ok(default_config_text(8, 7001));
  auto again = parse_ok(render_body(cfg));
  BOOST_CHECK_MESSAGE(again.warnings.empty(), (again.warnings.empty() ? "" : again.warnings[0]));
  check_same_cluster(cfg, again);
}

BOOST_AUTO_TEST_CASE(render_config_round_trips_a_varied_config) {
  auto cfg = parse_ok(
      "ClusterName=mixed\n"
      "SlurmctldHost=c1\nBackupController=c2\n"
      "HeartBeatInterval=1.5\nSlurmdTimeout=7.25\nSelectType=select/linear\n"
      "DebugFlags=init,msg\nSlurmctldDebug=debug2\nMetricsPort=9000\nTmpFS=\"/scratch dir\"\n"
      "NodeName=a[1-3] CPUs=2 Features=\"x y\" NodeAddr=10.0.0.[1-3]\n"
      "NodeName=b[1-2] Speed=2.5 Weight=7 State=DOWN OS=Linux\n"
      "Name=s1 Partition=1,3\n"
      "Name=s2\n"
      "CollectorNodes=a1,b2\n"
      "PartitionName=p Nodes=a[1-3],s1 MaxTime=2-00:00:00 DefaultTime=1:00 MaxNodes=3 "
      "PriorityTier=9 Default=YES\n"
      "PartitionName=q State=INACTIVE\n");
  BOOST_CHECK(cfg.warnings.empty());
  auto again = parse_ok(render_body(cfg));
  BOOST_CHECK_MESSAGE(again.warnings.empty(), (again.warnings.empty() ? "" : again.warnings[0]));
  check_same_cluster(cfg, again);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(scheduling_keys)

BOOST_AUTO_TEST_CASE(scheduler_priority_and_array_keys_are_read_and_rendered_back) {
  auto cfg = parse_ok(
      "SelectType=select/cons_tres\nSchedulerType=sched/backfill\n"
      "SchedulerParameters=bf_max_job_test=50,bf_window=60,bf_resolution=10,bf_continue,"
      "bf_conservative\nPriorityType=priority/multifactor\nPriorityWeightAge=10\n"
      "PriorityWeightJobSize=20\nPriorityWeightPartition=30\nPriorityMaxAge=1-0\n"
      "PriorityFavorSmall=YES\nMaxArraySize=100001\n"
      "NodeName=n1\nPartitionName=p Nodes=n1 PriorityJobFactor=7 OverSubscribe=EXCLUSIVE\n");
  const auto& s = cfg.scheduling;
  BOOST_TEST(s.consumable);
  BOOST_TEST(s.backfill);
  BOOST_TEST(s.conservative);
  BOOST_TEST(s.bf_max_job_test == 50u);
  BOOST_TEST(s.bf_window_s == 3600);
  BOOST_TEST(s.bf_resolution_s == 10);
  BOOST_TEST(s.weight_age == 10u);
  BOOST_TEST(s.weight_job_size == 20u);
  BOOST_TEST(s.weight_partition == 30u);
  BOOST_TEST(s.priority_max_age_s == 86400);
  BOOST_TEST(s.favor_small);
  BOOST_TEST(s.max_array_size == 100001u);
  BOOST_TEST(cfg.partitions[0].job_factor == 7u);
  BOOST_TEST(cfg.partitions[0].exclusive);
  BOOST_TEST(cfg.warnings.empty());
  auto again = parse_ok(render_body(cfg));
  BOOST_TEST(again.warnings.empty());
  BOOST_TEST(again.scheduling.bf_max_job_test == 50u);
  BOOST_TEST(again.scheduling.conservative);
  BOOST_TEST(again.scheduling.consumable);
  BOOST_TEST(again.partitions[0].job_factor == 7u);
  BOOST_TEST(again.partitions[0].exclusive);
  auto shares = parse_ok(
      "NodeName=n[1-3]\nPartitionName=a Nodes=n1 OverSubscribe=YES\n"
      "PartitionName=b Nodes=n2 Shared=force:2\nPartitionName=c Nodes=n3 OverSubscribe=NO\n");
  BOOST_TEST(shares.partitions[0].oversubscribe == 4u);  // Slurm's default count
  BOOST_TEST(!shares.partitions[0].force);
  BOOST_TEST(shares.partitions[1].oversubscribe == 2u);
  BOOST_TEST(shares.partitions[1].force);
  BOOST_TEST(shares.partitions[2].oversubscribe == 1u);
  BOOST_TEST(over_subscribe_text(shares.partitions[0]) == "YES:4");
  BOOST_TEST(over_subscribe_text(shares.partitions[1]) == "FORCE:2");
  BOOST_TEST(over_subscribe_text(shares.partitions[2]) == "NO");
  auto shares_again = parse_ok(render_body(shares));
  BOOST_TEST(shares_again.partitions[1].oversubscribe == 2u);
  BOOST_TEST(shares_again.partitions[1].force);
  BOOST_TEST(shares_again.partitions[0].oversubscribe == 4u);
  auto builtin = parse_ok("SchedulerType=sched/builtin\nPriorityType=priority/basic\n");
  BOOST_TEST(!builtin.scheduling.backfill);
  BOOST_TEST(!builtin.scheduling.multifactor);
}

BOOST_AUTO_TEST_CASE(fair_share_keys_take_slurms_defaults_values_and_words) {
  auto none = parse_ok("");
  const auto& d = none.scheduling;
  BOOST_TEST(d.weight_fairshare == 0u);
  BOOST_TEST(d.weight_qos == 0u);
  BOOST_TEST(d.decay_half_life_s == 7 * 86400);
  BOOST_TEST(d.calc_period_s == 300);
  BOOST_TEST(to_string(d.usage_reset_period) == "NONE");
  auto cfg = parse_ok(
      "PriorityWeightFairshare=10000\nPriorityWeightQOS=500\nPriorityDecayHalfLife=14-0\n"
      "PriorityCalcPeriod=1\nPriorityUsageResetPeriod=monthly\n");
  const auto& s = cfg.scheduling;
  BOOST_TEST(s.weight_fairshare == 10000u);
  BOOST_TEST(s.weight_qos == 500u);
  BOOST_TEST(s.decay_half_life_s == 14 * 86400);
  BOOST_TEST(s.calc_period_s == 60);  // minutes, as Slurm reads it
  BOOST_TEST(to_string(s.usage_reset_period) == "MONTHLY");
  BOOST_TEST(cfg.warnings.empty());
  auto again = parse_ok(render_body(cfg));
  BOOST_TEST(again.scheduling.weight_fairshare == 10000u);
  BOOST_TEST(again.scheduling.weight_qos == 500u);
  BOOST_TEST(again.scheduling.decay_half_life_s == 14 * 86400);
  BOOST_TEST(again.scheduling.calc_period_s == 60);
  BOOST_TEST(to_string(again.scheduling.usage_reset_period) == "MONTHLY");
  // 0 keeps usage whole (no decay); Slurm's time forms are read.
  BOOST_TEST(parse_ok("PriorityDecayHalfLife=0\n").scheduling.decay_half_life_s == 0);
  BOOST_TEST(parse_ok("PriorityDecayHalfLife=7-00:00:00\n").scheduling.decay_half_life_s ==
             7 * 86400);
  BOOST_TEST(contains(parse_error("PriorityUsageResetPeriod=hourly\n"),
                      "expected NONE, NOW, DAILY, WEEKLY, MONTHLY, QUARTERLY or YEARLY"));
  BOOST_TEST(
      contains(parse_error("PriorityWeightFairshare=lots\n"), "expected a non-negative integer"));
  BOOST_TEST(contains(parse_error("PriorityCalcPeriod=0\n"), "at least a minute"));
}

BOOST_AUTO_TEST_SUITE_END()
