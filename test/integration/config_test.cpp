// Config files as the daemons read them: the seed's sample, errors and warnings that name
// file:line, and the running config as `shoal control show config` prints it.

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <string>

#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// A minimal valid config for one node; `line3` is its third line.
std::string config_with_line3(uint16_t port, const std::string& line3) {
  return "ClusterName=it\nSlurmctldPort=" + std::to_string(port) + "\n" + line3 +
         "\nNodeName=node1 NodeAddr=127.0.0.1\nPartitionName=debug Nodes=node1 Default=YES\n" +
         test_auth_config();
}

/// True when something accepts TCP connections on 127.0.0.1:`port`.
bool listening(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

command_options quick() {
  command_options opt;
  opt.timeout = 15s;
  return opt;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(config_files)

BOOST_AUTO_TEST_CASE(the_seed_sample_config_checks_clean) {
  auto r =
      run_command({bin_path("shoalctld"), "--check", "-f", data_path("seed/SlurmConf")}, quick());
  BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_MESSAGE(r.out.find("is valid") != std::string::npos, r.describe());
}

BOOST_AUTO_TEST_CASE(an_invalid_value_names_file_and_line_and_the_daemon_does_not_start) {
  scratch_dir dir;
  auto port = free_port();
  auto conf =
      write_file(dir.file("broken.conf"), config_with_line3(port, "HeartBeatInterval=soon"));
  auto check = run_command({bin_path("shoalctld"), "--check", "-f", conf}, quick());
  BOOST_CHECK_MESSAGE(check.exit_code != 0 && !check.timed_out, check.describe());
  BOOST_CHECK_MESSAGE(check.err.find(conf + ":3:") != std::string::npos, check.describe());
  auto daemon = run_command({bin_path("shoalctld"), "-f", conf}, quick());
  BOOST_CHECK_MESSAGE(daemon.exit_code != 0 && !daemon.timed_out, daemon.describe());
  BOOST_CHECK_MESSAGE(daemon.err.find(conf + ":3:") != std::string::npos, daemon.describe());
  BOOST_CHECK(!listening(port));
}

BOOST_AUTO_TEST_CASE(a_switch_type_this_build_lacks_stops_the_check_and_the_start) {
  scratch_dir dir;
  auto port = free_port();
  auto conf =
      write_file(dir.file("elan.conf"), config_with_line3(port, "SwitchType=switch/myrinet"));
  auto check = run_command({bin_path("shoalctld"), "--check", "-f", conf}, quick());
  BOOST_CHECK_MESSAGE(check.exit_code == 1 && !check.timed_out, check.describe());
  BOOST_CHECK_MESSAGE(check.err.find("unknown SwitchType 'switch/myrinet'") != std::string::npos,
                      check.describe());
  auto daemon = run_command({bin_path("shoalctld"), "-f", conf}, quick());
  BOOST_CHECK_MESSAGE(daemon.exit_code == 1 && !daemon.timed_out, daemon.describe());
  BOOST_CHECK(!listening(port));
}

BOOST_AUTO_TEST_CASE(a_bad_line_in_the_elan_map_stops_the_check_naming_the_map_and_line) {
  scratch_dir dir;
  auto map = write_file(dir.file("elanhosts"), "node[1-2] elanid=0\nnode3 elanid=zero\n");
  auto conf = write_file(
      dir.file("elan.conf"),
      config_with_line3(free_port(), "SwitchType=switch/elan\nSwitchParameters=elan_map=" + map));
  auto check = run_command({bin_path("shoalctld"), "--check", "-f", conf}, quick());
  BOOST_CHECK_MESSAGE(check.exit_code == 1 && !check.timed_out, check.describe());
  BOOST_CHECK_MESSAGE(check.err.find(map + ":2: elanid 'zero'") != std::string::npos,
                      check.describe());
  write_file(map, "node[1-2] elanid=0\n");
  check = run_command({bin_path("shoalctld"), "--check", "-f", conf}, quick());
  BOOST_CHECK_MESSAGE(check.exit_code == 0, check.describe());
}

BOOST_AUTO_TEST_CASE(a_misspelt_key_stops_the_start_with_its_suggestion) {
  scratch_dir dir;
  auto port = free_port();
  auto conf = write_file(dir.file("typo.conf"), config_with_line3(port, "SlurmctldPrt=27917"));
  const std::string said = conf + ":3: unknown key 'SlurmctldPrt' (did you mean SlurmctldPort?)";
  // The controller does not start (it used to start on the default port, with a warning).
  auto daemon = run_command({bin_path("shoalctld"), "-f", conf}, quick());
  BOOST_CHECK_MESSAGE(daemon.exit_code == 1 && !daemon.timed_out, daemon.describe());
  BOOST_CHECK_MESSAGE(daemon.err.find("shoalctld: error: " + said) != std::string::npos,
                      daemon.describe());
  BOOST_CHECK(!listening(port));
  BOOST_CHECK(!listening(27917));
  auto check = run_command({bin_path("shoalctld"), "--check", "-f", conf}, quick());
  BOOST_CHECK_MESSAGE(check.exit_code == 1 && !check.timed_out, check.describe());
  // Nor does a node daemon, and the CLI refuses the file too, each with the same words.
  auto node = run_command({bin_path("shoald"), "-f", conf, "--node-name", "node1"}, quick());
  BOOST_CHECK_MESSAGE(node.exit_code == 1 && !node.timed_out, node.describe());
  BOOST_CHECK_MESSAGE(node.err.find("shoald: error: " + said) != std::string::npos,
                      node.describe());
  command_options cli = quick();
  cli.env.emplace_back("SHOAL_CONF", conf);
  auto queue = run_command({bin_path("shoal"), "queue"}, cli);
  BOOST_CHECK_MESSAGE(queue.exit_code == 1 && !queue.timed_out, queue.describe());
  BOOST_CHECK_MESSAGE(queue.err.find(said) != std::string::npos, queue.describe());
}

BOOST_AUTO_TEST_CASE(a_slurm_key_shoal_does_not_act_on_keeps_its_one_line_warning) {
  scratch_dir dir;
  auto conf = write_file(dir.file("compat.conf"),
                         config_with_line3(free_port(), "TaskPlugin=task/affinity"));
  auto r = run_command({bin_path("shoalctld"), "--check", "-f", conf}, quick());
  BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_MESSAGE(count_lines_with(r.err, conf + ":3: key 'TaskPlugin' is accepted for Slurm "
                                                     "compatibility and has no effect") == 1,
                      r.describe());
}

BOOST_FIXTURE_TEST_CASE(show_config_prints_the_running_config, one_node) {
  auto r = run_cli({"control", "show", "config"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_MESSAGE(r.out.find("SlurmctldPort") != std::string::npos, r.out);
  BOOST_CHECK_MESSAGE(r.out.find(std::to_string(cluster.port())) != std::string::npos, r.out);
  BOOST_CHECK_MESSAGE(r.out.find(conf) != std::string::npos, r.out);
}

BOOST_AUTO_TEST_SUITE_END()
