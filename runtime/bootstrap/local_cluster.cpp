#include "runtime/bootstrap/local_cluster.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "config/config.hpp"
#include "messages/errc.hpp"
#include "messages/front_door.hpp"
#include "process/stepd_client.hpp"
#include "runtime/bootstrap/controller_client.hpp"
#include "runtime/bootstrap/front_door_client.hpp"
#include "runtime/bootstrap/request_auth.hpp"
#include "runtime/bootstrap/temp_dir.hpp"
#include "topology/hostlist.hpp"

namespace shoal::runtime {

namespace fs = std::filesystem;

namespace {

/// A socket bound to 127.0.0.1:`port` (0: any), or -1.
int bind_loopback(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

/// The first port of the kernel's ephemeral range (net.ipv4.ip_local_port_range), from which it
/// picks the local port of every outgoing connection and of every bind to port 0.
uint16_t first_ephemeral_port() {
  std::ifstream in{"/proc/sys/net/ipv4/ip_local_port_range"};
  unsigned first = 0;
  if (!(in >> first) || first == 0 || first > 65535) return 32768;
  return static_cast<uint16_t>(first);
}

/// A socket bound to a free 127.0.0.1 port below the ephemeral range, or -1. A port found free
/// is bound by its daemon only a moment later; in the ephemeral range, any connection made
/// meanwhile on the host (a test beside this one runs hundreds) may take it as its local port.
int bind_quiet_loopback_port() {
  static std::minstd_rand pick{static_cast<unsigned>(
      ::getpid() ^ std::chrono::steady_clock::now().time_since_epoch().count())};
  constexpr unsigned lowest = 10000;
  unsigned first_ephemeral = first_ephemeral_port();
  if (first_ephemeral <= lowest + 1000) return bind_loopback(0);
  std::uniform_int_distribution<unsigned> port{lowest, first_ephemeral - 2};  // and the next
  for (int attempt = 0; attempt < 200; ++attempt) {
    int fd = bind_loopback(static_cast<uint16_t>(port(pick)));
    if (fd >= 0) return fd;
  }
  return bind_loopback(0);
}

uint16_t port_of(int fd) {
  sockaddr_in addr{};
  socklen_t len = sizeof addr;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return 0;
  return ntohs(addr.sin_port);
}

}  // namespace

shoal::expected<std::vector<uint16_t>> free_loopback_ports(size_t count, size_t pairs) {
  // All sockets stay bound until every port is read, so the ports are distinct (one at a time,
  // the kernel may hand the same port out twice).
  std::vector<int> fds;
  std::vector<uint16_t> ports;
  shoal::error failed;
  for (size_t i = 0; i < count && !failed; ++i) {
    // A controller's port needs the one after it free too, for its front door.
    for (int attempt = 0;; ++attempt) {
      int fd = bind_quiet_loopback_port();
      if (fd < 0) {
        failed = shoal::error(errc::system_error, std::string{"bind: "} + strerror(errno));
        break;
      }
      auto port = port_of(fd);
      if (i >= pairs) {
        fds.push_back(fd);
        ports.push_back(port);
        break;
      }
      int next = port < 65535 ? bind_loopback(static_cast<uint16_t>(port + 1)) : -1;
      if (next >= 0) {
        fds.push_back(fd);
        fds.push_back(next);
        ports.push_back(port);
        break;
      }
      fds.push_back(fd);  // held, so the kernel offers another next time
      if (attempt == 100) {
        failed = shoal::error(errc::system_error, "no two consecutive free ports on 127.0.0.1");
        break;
      }
    }
  }
  for (auto fd : fds) ::close(fd);
  if (failed) return failed;
  return ports;
}

shoal::expected<uint16_t> free_loopback_port() {
  auto ports = free_loopback_ports(1, 1);
  if (!ports) return std::move(ports.error());
  return ports->front();
}

namespace {

/// The daemons live beside this binary (installed or in the build tree's bin/).
std::string sibling_binary(const char* name) {
  std::error_code ec;
  auto self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto candidate = self.parent_path() / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return name;  // found through PATH
}

}  // namespace

local_cluster::~local_cluster() {
  tear_down(false);
}

shoal::error local_cluster::prepare(const char* dir_prefix, unsigned daemons) {
  auto dir = make_temp_dir(dir_prefix);
  if (!dir) return std::move(dir.error());
  dir_ = std::move(*dir);
  // The controller, its /metrics and each daemon's /metrics: ports of their own, so clusters and
  // daemons can share the host.
  auto ports = free_loopback_ports(2 + daemons, 1);
  if (!ports) return std::move(ports.error());
  port_ = (*ports)[0];
  config_path_ = dir_ + "/shoal.conf";
  metrics_port_ = (*ports)[1];
  node_metrics_ports_.assign(ports->begin() + 2, ports->end());
  return {};
}

shoal::error local_cluster::start_controller(const std::string& base_config,
                                             const std::string& extra_config) {
  {
    // Merged, not appended: a key written twice leaves the reader guessing which one counts.
    auto own = "StateSaveLocation=" + dir_ + "/state\nTmpFS=" + dir_ + "\nSlurmdSpoolDir=" + dir_ +
               "/spool\nMetricsPort=" + std::to_string(metrics_port_) + "\n";
    std::ofstream out{config_path_};
    out << config::merge_config_text(config::merge_config_text(base_config, own), extra_config);
    if (!out) return shoal::error(errc::system_error, "cannot write " + config_path_);
  }
  auto ctld =
      spawn_daemon({sibling_binary("shoalctld"), "-f", config_path_}, dir_ + "/shoalctld.log");
  if (!ctld) return std::move(ctld.error());
  pids_.push_back(*ctld);
  return {};
}

shoal::error local_cluster::launch(unsigned nodes, const std::string& extra_config,
                                   const std::string& node_keys) {
  nodes_ = nodes;
  if (auto err = prepare("shoal-local", nodes)) return err;
  auto base = config::default_config_text(nodes, port_);
  if (!node_keys.empty()) {
    const std::string line_end = " NodeAddr=127.0.0.1\n";
    if (auto at = base.find(line_end); at != std::string::npos)
      base.insert(at + line_end.size() - 1, " " + node_keys);
  }
  if (auto err = start_controller(base, extra_config)) return err;
  for (unsigned i = 1; i <= nodes; ++i) {
    auto name = "node" + std::to_string(i);
    if (auto err =
            spawn_node_daemon({sibling_binary("shoald"), "-f", config_path_, "--node-name", name,
                               "--metrics-port", std::to_string(node_metrics_ports_[i - 1])},
                              dir_ + "/shoald-" + name + ".log"))
      return err;
  }
  return {};
}

shoal::error local_cluster::launch_torus(const std::array<int, 3>& dims, unsigned front_ends,
                                         const std::string& extra_config) {
  for (auto d : dims)
    if (d < 1 || d > 36)
      return shoal::error(errc::invalid_request, "each torus dimension must be 1 to 36");
  nodes_ = static_cast<unsigned>(dims[0] * dims[1] * dims[2]);
  front_ends = std::max(1u, std::min(front_ends, nodes_));
  if (auto err = prepare("shoal-torus", front_ends)) return err;
  if (auto err = start_controller(config::torus_config_text(dims, port_), extra_config)) return err;
  std::vector<std::string> names;
  for (int x = 0; x < dims[0]; ++x)
    for (int y = 0; y < dims[1]; ++y)
      for (int z = 0; z < dims[2]; ++z)
        names.push_back(config::base_partition_name("bgl", x, y, z));
  for (unsigned f = 0; f < front_ends; ++f) {
    std::vector<std::string> served(names.begin() + f * names.size() / front_ends,
                                    names.begin() + (f + 1) * names.size() / front_ends);
    auto expr = topology::compress_hostlist(served);
    if (auto err = spawn_node_daemon({sibling_binary("shoald"), "-f", config_path_, "--nodes", expr,
                                      "--metrics-port", std::to_string(node_metrics_ports_[f])},
                                     dir_ + "/shoald-fe" + std::to_string(f) + ".log"))
      return err;
  }
  return {};
}

shoal::error local_cluster::launch_simulated(unsigned nodes, unsigned front_ends,
                                             const std::string& extra_config) {
  if (nodes == 0) return shoal::error(errc::invalid_request, "a simulated cluster needs a node");
  nodes_ = nodes;
  front_ends = std::max(1u, std::min(front_ends, nodes));
  if (auto err = prepare("shoal-sim", front_ends)) return err;
  if (auto err = start_controller(config::default_config_text(nodes, port_), extra_config))
    return err;
  for (unsigned f = 0; f < front_ends; ++f) {
    auto first = 1 + static_cast<uint64_t>(f) * nodes / front_ends;
    auto last = static_cast<uint64_t>(f + 1) * nodes / front_ends;
    std::vector<std::string> served;
    for (auto i = first; i <= last; ++i) served.push_back("node" + std::to_string(i));
    auto expr = topology::compress_hostlist(served);
    if (auto err = spawn_node_daemon(
            {sibling_binary("shoald"), "-f", config_path_, "--nodes", expr, "--simulate",
             "--metrics-port", std::to_string(node_metrics_ports_[f])},
            dir_ + "/shoald-fe" + std::to_string(f) + ".log"))
      return err;
  }
  return {};
}

std::string local_cluster::spread_collectors(unsigned nodes, unsigned collectors) {
  collectors = std::min(collectors, nodes);
  if (collectors == 0) return {};
  std::vector<std::string> names;
  for (unsigned k = 0; k < collectors; ++k)
    names.push_back("node" + std::to_string(1 + static_cast<uint64_t>(k) * nodes / collectors));
  return "CollectorNodes=" + topology::compress_hostlist(names) + "\n";
}

shoal::error local_cluster::spawn_node_daemon(const std::vector<std::string>& argv,
                                              const std::string& log) {
  auto pid = spawn_daemon(argv, log);
  if (!pid) return std::move(pid.error());
  pids_.push_back(*pid);
  node_commands_.emplace_back(argv, log);
  return {};
}

shoal::expected<pid_t> local_cluster::spawn_daemon(const std::vector<std::string>& argv,
                                                   const std::string& log, bool append) {
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int fd =
      ::open(log.c_str(), O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC) | O_CLOEXEC, 0644);
  if (fd < 0)
    return shoal::error(errc::system_error, "cannot open " + log + ": " + strerror(errno));
  auto parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fd);
    return shoal::error(errc::system_error, std::string{"fork: "} + strerror(errno));
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(1);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    ::execvp(args[0], args.data());
    dprintf(2, "exec %s: %s\n", args[0], strerror(errno));
    ::_exit(127);
  }
  ::close(fd);
  return pid;
}

shoal::error local_cluster::wait_until_ready(int timeout_s) {
  // Through the front door, as the CLI asks: no actor system for a start-up wait.
  auto conf = config::load_config(config_path_);
  if (!conf) return std::move(conf.error());
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{timeout_s};
  std::string last = "controller not reachable";
  front_door_client door;
  while (std::chrono::steady_clock::now() < deadline) {
    for (auto pid : pids_) {
      int status = 0;
      if (::waitpid(pid, &status, WNOHANG) == pid)
        return shoal::error(errc::system_error, "a daemon (pid " + std::to_string(pid) +
                                                    ") exited during start-up; "
                                                    "see the logs in " +
                                                    dir_);
    }
    if (!door.connected()) {
      auto connected = front_door_client::connect(
          "127.0.0.1", front_door_port(config::controller_host{"", "127.0.0.1", port_}),
          std::chrono::seconds{1});
      if (connected)
        door = std::move(*connected);
      else
        last = describe(connected.error());
    }
    if (door.connected()) {
      auto req = msg::make_client_request(msg::client_op::nodes);
      req.uid = static_cast<uint32_t>(::getuid());
      if (auto err = sign_request(conf->auth, req)) return err;
      auto reply = door.call(req, std::chrono::seconds{5});
      if (!reply) {
        last = describe(reply.error());
      } else if (reply->error_code != 0) {
        last = reply->error_text;
      } else {
        size_t idle = 0;
        // Nodes power saving keeps off (CLOUD nodes) are IDLE too, but no daemon of ours runs them.
        for (auto& n : reply->nodes)
          idle += n.state == msg::node_state::idle && n.power == msg::power_state::on ? 1 : 0;
        last = std::to_string(idle) + " of " + std::to_string(nodes_) + " nodes up";
        if (idle == nodes_) return {};
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
  }
  return shoal::error(errc::unreachable, "cluster not ready after " + std::to_string(timeout_s) +
                                             " s (" + last + "); see the logs in " + dir_);
}

void local_cluster::signal_node(unsigned index, int signo) {
  // pids_[0] is the controller, then node1..nodeN in order.
  if (index < 1 || index >= pids_.size()) return;
  ::kill(pids_[index], signo);
  if (signo != SIGKILL) return;
  // Until it has exited (its sockets and ports closed), left unreaped for restart_node and
  // tear_down: a daemon started next on its port must not find it still bound.
  siginfo_t info{};
  while (::waitid(P_PID, static_cast<id_t>(pids_[index]), &info, WEXITED | WNOWAIT) < 0 &&
         errno == EINTR) {
  }
}

void local_cluster::signal_controller(int signo) {
  if (pids_.empty()) return;
  ::kill(pids_[0], signo);
  if (signo == SIGKILL) {
    int status = 0;
    while (::waitpid(pids_[0], &status, 0) < 0 && errno == EINTR) {
    }
  }
}

shoal::error local_cluster::restart_controller(const std::vector<std::string>& extra_args) {
  if (pids_.empty()) return shoal::error(errc::invalid_request, "the cluster was never launched");
  std::vector<std::string> argv{sibling_binary("shoalctld"), "-f", config_path_};
  argv.insert(argv.end(), extra_args.begin(), extra_args.end());
  auto log = dir_ + "/shoalctld." + std::to_string(++controller_restarts_) + ".log";
  auto pid = spawn_daemon(argv, log);
  if (!pid) return std::move(pid.error());
  pids_[0] = *pid;
  return {};
}

shoal::error local_cluster::restart_node(unsigned index,
                                         const std::vector<std::string>& extra_args) {
  if (index < 1 || index >= pids_.size() || index > node_commands_.size())
    return shoal::error(errc::invalid_request, "no node daemon " + std::to_string(index));
  int status = 0;
  while (::waitpid(pids_[index], &status, 0) < 0 && errno == EINTR) {
  }
  auto& [argv, log] = node_commands_[index - 1];
  auto with_extra = argv;
  with_extra.insert(with_extra.end(), extra_args.begin(), extra_args.end());
  auto pid = spawn_daemon(with_extra, log, true);
  if (!pid) return std::move(pid.error());
  pids_[index] = *pid;
  return {};
}

void local_cluster::tear_down(bool keep_dir) {
  for (auto pid : pids_) ::kill(pid, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{5};
  for (auto pid : pids_) {
    for (;;) {
      int status = 0;
      auto r = ::waitpid(pid, &status, WNOHANG);
      if (r == pid || (r < 0 && errno != EINTR)) break;
      if (std::chrono::steady_clock::now() > deadline) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds{10});
    }
  }
  pids_.clear();
  node_commands_.clear();
  // Steps run in shoal-stepd processes of their own, which outlive their shoald by design; a
  // throwaway cluster ends them with itself, once no shoald is left to start another.
  if (!dir_.empty()) {
    std::error_code ec;
    for (auto& entry : fs::directory_iterator(dir_ + "/spool", ec))
      process::terminate_stepds(entry.path().string());
  }
  if (!keep_dir && !dir_.empty()) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  dir_.clear();
}

}  // namespace shoal::runtime
