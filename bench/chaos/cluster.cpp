#include "bench/chaos/cluster.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "messages/front_door.hpp"
#include "process/stepd_client.hpp"
#include "runtime/bootstrap/controller_client.hpp"
#include "runtime/bootstrap/front_door_client.hpp"
#include "runtime/bootstrap/local_cluster.hpp"
#include "runtime/bootstrap/request_auth.hpp"
#include "runtime/bootstrap/temp_dir.hpp"
#include "topology/hostlist.hpp"

namespace shoal::chaos {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

std::vector<std::string> node_range(unsigned first, unsigned last) {
  std::vector<std::string> out;
  for (auto i = first; i <= last; ++i) out.push_back("node" + std::to_string(i));
  return out;
}

}  // namespace

shoal::expected<std::unique_ptr<chaos_cluster>> chaos_cluster::launch(
    unsigned sim_nodes, const std::string& auth_config, const std::string& bin_dir) {
  if (sim_nodes < 4)
    return shoal::error(errc::invalid_request, "the chaos cluster needs at least 4 nodes");
  std::unique_ptr<chaos_cluster> c{new chaos_cluster};
  auto dir = runtime::make_temp_dir("shoal-chaos");
  if (!dir) return std::move(dir.error());
  c->dir_ = *dir;
  c->conf_path_ = c->dir_ + "/shoal.conf";
  c->shoal_bin_ = bin_dir + "/shoal";
  for (auto sub : {"/markers", "/scripts", "/out", "/spool"}) fs::create_directories(c->dir_ + sub);

  auto ports = runtime::free_loopback_ports(2, 2);
  if (!ports) return std::move(ports.error());
  auto half = sim_nodes / 2;
  auto fe1 = node_range(1, half);
  auto fe2 = node_range(half + 1, sim_nodes);
  auto all_sim = node_range(1, sim_nodes);
  auto sim_list = topology::compress_hostlist(all_sim);
  // Two collectors in each front end (node1, node(N/4+1), ...), as faults_together_test has.
  auto collectors_line = runtime::local_cluster::spread_collectors(sim_nodes, 4);
  // The shape of test/integration/controller_pair.hpp: takeover after 3 s of silence, beats
  // every second, a node DOWN after 5 s. Finished jobs stay listed for the whole run.
  std::string text =
      "ClusterName=chaos\nSlurmctldHost=ctl1(127.0.0.1:" + std::to_string((*ports)[0]) +
      ")\nSlurmctldHost=ctl2(127.0.0.1:" + std::to_string((*ports)[1]) +
      ")\nSlurmctldTimeout=3\nMetricsPort=0\nNodeMetricsPort=0\n"
      "HeartBeatInterval=1\nSlurmdTimeout=5\nReturnToService=1\nKillWait=2\nMinJobAge=86400\n"
      "StateSaveLocation=" +
      c->dir_ + "/state\nSlurmdSpoolDir=" + c->dir_ + "/spool\nTmpFS=" + c->dir_ +
      "\nNodeName=" + sim_list + " NodeAddr=127.0.0.1\nNodeName=" + real_node_name +
      " NodeAddr=127.0.0.1\nPartitionName=sim Nodes=" + sim_list +
      " Default=YES MaxTime=INFINITE\nPartitionName=real Nodes=" + real_node_name +
      " MaxTime=INFINITE\n" + collectors_line + auth_config;
  {
    std::ofstream out{c->conf_path_};
    out << text;
    if (!out) return shoal::error(errc::system_error, "cannot write " + c->conf_path_);
  }
  auto conf = config::load_config(c->conf_path_);
  if (!conf) return std::move(conf.error());
  c->conf_ = std::move(*conf);

  auto ctld = bin_dir + "/shoalctld";
  auto shoald = bin_dir + "/shoald";
  auto& conf_path = c->conf_path_;
  auto make = [&](victim v, const std::string& name, std::vector<std::string> argv,
                  std::vector<std::string> served) {
    c->daemons_[static_cast<size_t>(v)] =
        std::make_unique<daemon_process>(name, std::move(argv), c->dir_);
    c->served_[static_cast<size_t>(v)] = std::move(served);
  };
  make(victim::primary, "ctl1", {ctld, "-f", conf_path, "--controller", "ctl1"}, {});
  make(victim::backup, "ctl2", {ctld, "-f", conf_path, "--controller", "ctl2"}, {});
  make(victim::front_end_1, "fe1",
       {shoald, "-f", conf_path, "--nodes", topology::compress_hostlist(fe1), "--simulate"}, fe1);
  make(victim::front_end_2, "fe2",
       {shoald, "-f", conf_path, "--nodes", topology::compress_hostlist(fe2), "--simulate"}, fe2);
  make(victim::real_node, real_node_name, {shoald, "-f", conf_path, "--node-name", real_node_name},
       {real_node_name});
  c->all_nodes_ = all_sim;
  c->all_nodes_.push_back(real_node_name);
  for (auto i = 0u; i < 4; ++i)
    c->collectors_.push_back("node" + std::to_string(1 + i * sim_nodes / 4));

  for (auto& d : c->daemons_)
    if (auto err = d->start()) return err;
  return c;
}

chaos_cluster::~chaos_cluster() {
  for (auto& d : daemons_)
    if (d) d->stop();
  // Steps run in shoal-stepd processes that outlive their shoald by design; a throwaway cluster
  // ends them with itself.
  std::error_code ec;
  for (auto& entry : fs::directory_iterator(dir_ + "/spool", ec))
    process::terminate_stepds(entry.path().string());
  if (!keep_ && !dir_.empty()) fs::remove_all(dir_, ec);
}

command_result chaos_cluster::shoal(const std::vector<std::string>& args,
                                    std::chrono::milliseconds timeout) const {
  std::vector<std::string> argv{shoal_bin_};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv, {"SHOAL_CONF=" + conf_path_}, dir_, timeout);
}

chaos_cluster::look chaos_cluster::look_now() const {
  look out;
  auto lines = runtime::controller_lines(conf_);
  for (size_t i = 0; i < lines.size() && i < 2; ++i) {
    auto door = runtime::front_door_client::connect(lines[i].address,
                                                    runtime::front_door_port(lines[i]), 500ms);
    if (!door) continue;
    auto ping = msg::make_client_request(msg::client_op::ping);
    ping.uid = static_cast<uint32_t>(::getuid());
    (void)runtime::sign_request(conf_.auth, ping);
    auto reply = door->call(ping, 2s);
    if (!reply) continue;
    out.answers[i] = true;
    out.in_control[i] = reply->error_code == 0 && reply->status.in_control;
    if (!out.in_control[i] || out.nodes_listed) continue;
    auto nodes = msg::make_client_request(msg::client_op::nodes);
    nodes.uid = ping.uid;
    if (runtime::sign_request(conf_.auth, nodes)) continue;
    auto listed = door->call(nodes, 2s);
    if (!listed || listed->error_code != 0) continue;
    out.nodes_listed = true;
    out.nodes = std::move(listed->nodes);
  }
  return out;
}

}  // namespace shoal::chaos
