#pragma once

#include <sys/types.h>

#include <array>
#include <string>
#include <utility>
#include <vector>
#include "messages/errc.hpp"

namespace shoal::runtime {

/// A TCP port on 127.0.0.1 that was free a moment ago, with the port after it (bound, then
/// released): for a controller, whose front door listens on the next port. Picked at random below
/// the kernel's ephemeral range, so that no connection made before the caller binds it can take
/// it as its local port.
/// Error: errc::system_error when no socket can be bound.
shoal::expected<uint16_t> free_loopback_port();

/// `count` such ports, all different (held bound together until all are known), for one
/// cluster's controllers and /metrics endpoints; the first `pairs` of them have the port after
/// them free too (and different from every other port returned), for controllers.
/// Error: errc::system_error.
shoal::expected<std::vector<uint16_t>> free_loopback_ports(size_t count, size_t pairs = 0);

/// A controller and N node daemons on 127.0.0.1, started from the embedded default config in a
/// private directory (config and logs), in their own process group so a Ctrl-C meant for the
/// user's command does not reach them. Used by `shoal start`, the integration tests and the
/// benchmarks. The daemons are looked up beside the running binary, then in PATH. Its shoald
/// keep their step sockets under the directory (SlurmdSpoolDir=DIR/spool); tear_down ends the
/// steps still running there too, since a step outlives its shoald by design.
class local_cluster {
 public:
  ~local_cluster();

  /// Writes the config and starts the daemons. `extra_config` is written over the embedded
  /// default (config::merge_config_text: "SlurmdTimeout=3\n" replaces the default's line, so
  /// the file sets each key once); `node_keys` is added to its NodeName line (keys every node
  /// gets, e.g. "Gres=gpu:2"). Forks: call before creating threads when possible (the children
  /// only exec).
  shoal::error launch(unsigned nodes, const std::string& extra_config = "",
                      const std::string& node_keys = "");

  /// As launch, for a 3-D torus of dims[0] x dims[1] x dims[2] base partitions
  /// (config::torus_config_text) served by `front_ends` shoald processes in front-end mode
  /// (`shoald --nodes=...`), each speaking for an equal run of the grid in x-major order.
  shoal::error launch_torus(const std::array<int, 3>& dims, unsigned front_ends = 1,
                            const std::string& extra_config = "");

  /// As launch, for `nodes` simulated nodes (node1...nodeN) served by `front_ends` shoald
  /// processes with `--nodes=... --simulate` (no task runs; see shoald --help), each speaking
  /// for an equal run of the nodes.
  shoal::error launch_simulated(unsigned nodes, unsigned front_ends,
                                const std::string& extra_config = "");

  /// "CollectorNodes=..." naming `collectors` of node1..nodeN spread evenly (node1 first), so
  /// front ends that split the nodes in runs each hold some; "" when `collectors` is 0.
  static std::string spread_collectors(unsigned nodes, unsigned collectors);

  /// Polls the controller until every node is IDLE or `timeout_s` passes.
  shoal::error wait_until_ready(int timeout_s);

  /// Stops the daemons (SIGTERM, then SIGKILL after 5 s) and removes the directory unless
  /// `keep_dir`. Safe to call twice.
  void tear_down(bool keep_dir);

  /// Sends `signo` to the shoald of node `index` (1-based), e.g. SIGKILL in a failure test; on a
  /// torus, to front end `index`. After SIGKILL it returns once the process has exited (its
  /// ports free).
  void signal_node(unsigned index, int signo);

  /// Sends `signo` to shoalctld and, when it is fatal, waits until the process is gone (e.g.
  /// SIGKILL in a crash test).
  void signal_controller(int signo);

  /// Starts shoalctld again on the same config and port, with `extra_args` (e.g. "-c"); its
  /// log goes to shoalctld.N.log for the N-th restart.
  shoal::error restart_controller(const std::vector<std::string>& extra_args = {});

  /// Starts the shoald of node `index` (1-based; on a torus, front end `index`) again, with the
  /// same arguments and, this time only, `extra_args` (e.g. "-b": a later boot time, as a host
  /// that rebooted), its log appended to; waits for the previous one to exit first (signal it
  /// beforehand). Error: errc::invalid_request for an unknown index, errc::system_error when the
  /// fork fails.
  shoal::error restart_node(unsigned index, const std::vector<std::string>& extra_args = {});

  /// Process ids: the controller first, then node1..nodeN.
  const std::vector<pid_t>& daemon_pids() const { return pids_; }

  const std::string& config_path() const { return config_path_; }
  const std::string& directory() const { return dir_; }
  uint16_t port() const { return port_; }
  /// shoalctld's /metrics port (MetricsPort in the written config; extra_config may override).
  uint16_t metrics_port() const { return metrics_port_; }
  /// Each shoald's /metrics port (--metrics-port), node1 first.
  const std::vector<uint16_t>& node_metrics_ports() const { return node_metrics_ports_; }

 private:
  /// A private directory, the controller's port, the config path and a /metrics port for the
  /// controller and each of `daemons` shoald processes.
  shoal::error prepare(const char* dir_prefix, unsigned daemons);
  /// Writes the config (`base_config`, this cluster's paths and ports, `extra_config`) and starts
  /// shoalctld on it.
  shoal::error start_controller(const std::string& base_config, const std::string& extra_config);
  shoal::expected<pid_t> spawn_daemon(const std::vector<std::string>& argv, const std::string& log,
                                      bool append = false);
  /// Starts a shoald and remembers how, for restart_node.
  shoal::error spawn_node_daemon(const std::vector<std::string>& argv, const std::string& log);

  std::string dir_;
  std::string config_path_;
  uint16_t port_ = 0;
  uint16_t metrics_port_ = 0;
  std::vector<uint16_t> node_metrics_ports_;
  unsigned nodes_ = 0;
  std::vector<pid_t> pids_;
  unsigned controller_restarts_ = 0;

  /// How each shoald was started (node1 first): its command line and log file.
  std::vector<std::pair<std::vector<std::string>, std::string>> node_commands_;
};

}  // namespace shoal::runtime
