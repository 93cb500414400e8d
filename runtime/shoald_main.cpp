// shoald: the node daemon. Probes the machine, registers with the controller, heartbeats and
// runs job steps.

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

#include <CLI/CLI.hpp>
#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/collector.hpp"
#include "actors/node_daemon.hpp"
#include "actors/peer_door.hpp"
#include "config/defaults.hpp"
#include "config/log.hpp"
#include "messages/caf/error.hpp"
#include "messages/errc.hpp"
#include "process/stepd_client.hpp"
#include "process/task_launch.hpp"
#include "runtime/bootstrap/controller_client.hpp"
#include "runtime/bootstrap/controller_link.hpp"
#include "runtime/bootstrap/daemon_auth.hpp"
#include "runtime/bootstrap/logging.hpp"
#include "runtime/bootstrap/metrics_server.hpp"
#include "runtime/bootstrap/reconfigure.hpp"
#include "runtime/bootstrap/shutdown.hpp"
#include "runtime/bootstrap/system_setup.hpp"
#include "runtime/tls/identity_from_controller.hpp"
#include "runtime/tls/tls_transport.hpp"
#include "topology/hostlist.hpp"
#include "topology/machine_probe.hpp"

namespace {

std::string short_hostname() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  std::string name{buf};
  return name.substr(0, name.find('.'));
}

shoal::msg::machine_status to_status(const shoal::topology::machine_facts& f,
                                     const std::string& node_name) {
  shoal::msg::machine_status s;
  s.node_name = node_name;
  s.hostname = f.hostname;
  s.os = f.os;
  s.cpus = f.cpus;
  s.sockets = f.sockets;
  s.cores_per_socket = f.cores_per_socket;
  s.threads_per_core = f.threads_per_core;
  s.cpu_mhz = f.cpu_mhz;
  s.real_memory_mb = f.real_memory_mb;
  s.virtual_memory_mb = f.virtual_memory_mb;
  s.tmp_disk_mb = f.tmp_disk_mb;
  s.boot_time = f.boot_time;
  s.daemon_start_time = std::time(nullptr);
  s.daemon_pid = getpid();
  return s;
}

/// A simulated node reports what its NodeName line configures, where it says, instead of this
/// host's probe: a thousand 64-CPU nodes can then be simulated on a 2-CPU host.
void as_configured(shoal::msg::machine_status& s, const shoal::config::node_config& n) {
  if (n.cpus != 0) s.cpus = n.cpus;
  if (n.sockets != 0) s.sockets = n.sockets;
  if (n.cores_per_socket != 0) s.cores_per_socket = n.cores_per_socket;
  if (n.threads_per_core != 0) s.threads_per_core = n.threads_per_core;
  if (n.real_memory_mb != 0) s.real_memory_mb = n.real_memory_mb;
  if (n.virtual_memory_mb != 0) s.virtual_memory_mb = n.virtual_memory_mb;
  if (n.tmp_disk_mb != 0) s.tmp_disk_mb = n.tmp_disk_mb;
  if (!n.os.empty()) s.os = n.os;
  // A consistent shape: the controller drains a node whose topology does not add up.
  if (n.cpus != 0 && s.sockets * s.cores_per_socket * s.threads_per_core != s.cpus) {
    s.sockets = 1;
    s.cores_per_socket = s.cpus;
    s.threads_per_core = 1;
  }
}

/// shoald's command line.
struct shoald_flags {
  std::string conf_path;
  std::string node_name;
  std::string log_file;
  std::string debug_level;
  unsigned verbose = 0;
  int metrics_port = -1;
  std::string frontend_nodes;
  bool simulate = false;
  bool boot_now = false;
};

/// Reads the command line into `f`; an exit code when shoald ends here (--help, a bad flag).
std::optional<int> parse_flags(int argc, char** argv, shoald_flags& f) {
  CLI::App app{"shoald: the shoal node daemon"};
  // As slurmctld -V and slurmd -V; help2man reads it for the man page.
  app.set_version_flag("-V,--version", "shoald " SHOAL_VERSION);
  app.add_option("-f,--config", f.conf_path,
                 "Cluster config file (default: $SHOAL_CONF, else /etc/shoal/shoal.conf)");
  app.add_option("-N,--node-name", f.node_name,
                 "Node this daemon speaks for (default: the short hostname); lets several "
                 "daemons share one host");
  app.add_option("-L,--logfile", f.log_file,
                 "Log to this file; %h is the host name, %n the node name (default: "
                 "SlurmdLogFile, else stderr)");
  app.add_option("--debug", f.debug_level,
                 "Log level: quiet, fatal, error, info, verbose, debug, debug2..debug5 or 0-9 "
                 "(default: SlurmdDebug, else info)");
  app.add_flag("-v,--verbose", f.verbose, "One level more verbose per -v (-vv: two)");
  app.add_option("--metrics-port", f.metrics_port,
                 "Serve /metrics on this port, 0 for none (default: NodeMetricsPort); gives each "
                 "of several daemons on one host its own")
      ->check(CLI::Range(0, 65535));
  app.add_option("--nodes", f.frontend_nodes,
                 "Front-end mode: speak for every node of this hostlist (e.g. bgl[000x733]) from "
                 "one process, as Blue Gene/L's front-end node daemon; their tasks and batch "
                 "scripts run on this host")
      ->excludes("--node-name");
  app.add_flag("--simulate", f.simulate,
               "Run no processes (scale tests): a task whose command is `sleep N` ends after N "
               "seconds with 0, `false` ends at once with 1, anything else at once with 0; the "
               "node reports the CPUs and memory its NodeName line configures");
  app.add_flag("-b", f.boot_now,
               "Report this daemon's start as the host's boot time (slurmd -b): a node that a "
               "ResumeProgram starts without rebooting its host then counts as rebooted");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "shoald: error: %s\nTry 'shoald --help'.\n", e.what());
    return 2;
  }
  if (!f.debug_level.empty() && !shoal::config::parse_debug_level(f.debug_level)) {
    std::fprintf(stderr, "shoald: error: --debug: unknown level '%s' (use %s)\n",
                 f.debug_level.c_str(), shoal::config::debug_level_choices);
    return 2;
  }
  return std::nullopt;
}

/// The nodes this process speaks for (--nodes, else -N, else the short hostname), each checked
/// against the config; sets f.node_name to the first. An exit code when one is not there.
std::optional<int> pick_served_nodes(const shoal::config::cluster_config& cfg, shoald_flags& f,
                                     std::vector<std::string>& served) {
  if (!f.frontend_nodes.empty()) {
    auto names = shoal::topology::expand_hostlist(f.frontend_nodes);
    if (!names || names->empty()) {
      std::fprintf(stderr, "shoald: error: --nodes '%s': %s\n", f.frontend_nodes.c_str(),
                   names ? "names no node" : shoal::describe(names.error()).c_str());
      return 2;
    }
    served = std::move(*names);
    f.node_name = served.front();
  } else {
    if (f.node_name.empty()) f.node_name = short_hostname();
    served.push_back(f.node_name);
  }
  for (auto& name : served) {
    bool known = std::any_of(cfg.nodes.begin(), cfg.nodes.end(),
                             [&](const shoal::config::node_config& n) { return n.name == name; });
    if (!known) {
      std::fprintf(stderr, "shoald: error: node '%s' is not in %s (use --node-name NAME)\n",
                   name.c_str(), cfg.path.c_str());
      return 1;
    }
  }
  return std::nullopt;
}

/// Each node's step sockets: created (or checked) before anything runs, as slurmd refuses to
/// start without its spool directory. An exit code when one cannot be made.
std::optional<int> prepare_spool_dirs(const shoal::config::cluster_config& cfg,
                                      const std::vector<std::string>& served,
                                      std::vector<std::string>& spool_dirs) {
  for (auto& name : served) {
    spool_dirs.push_back(shoal::config::node_spool_dir(cfg, name, short_hostname()));
    if (auto err = shoal::process::prepare_spool_dir(spool_dirs.back())) {
      std::fprintf(stderr, "shoald: error: SlurmdSpoolDir: %s\n", shoal::describe(err).c_str());
      return 1;
    }
  }
  return std::nullopt;
}

/// Under auth/munge the daemons' CAF ports speak TLS with the cluster's identity, which a
/// controller hands out sealed for our uid (docs/security.md): waits for a controller to give
/// it. An exit code when shoald ends instead (a refusal, or a shutdown signal while waiting).
std::optional<int> wait_for_identity(const shoal::config::cluster_config& cfg,
                                     const std::string& log_name, std::string& identity) {
  bool waiting = false;
  std::string last_error;
  for (;;) {
    auto got = shoal::runtime::identity_from_controller(cfg);
    if (got) {
      identity = std::move(*got);
      return std::nullopt;
    }
    if (got.error() != shoal::errc::unreachable && got.error() != shoal::errc::system_error) {
      shoal::config::log().error("cluster identity: {}", shoal::describe(got.error()));
      std::fprintf(stderr, "shoald: error: %s\n", shoal::describe(got.error()).c_str());
      return 1;
    }
    // No controller up yet is normal at boot; no credential from munged is this host's fault and
    // stops the daemon doing anything, so it is an error (seen at SlurmdDebug=error), though
    // munged may still come up and the wait goes on.
    if (got.error() == shoal::errc::system_error && last_error != shoal::describe(got.error())) {
      last_error = shoal::describe(got.error());
      shoal::config::log().error(
          "cannot ask a controller for the cluster identity: {}; retrying "
          "every second",
          last_error);
    } else if (!waiting && got.error() != shoal::errc::system_error) {
      shoal::config::log().warn("waiting for a controller to hand out the cluster identity: {}",
                                shoal::describe(got.error()));
    }
    waiting = true;
    auto signals = shoal::runtime::shutdown_signals();
    timespec second{1, 0};
    if (::sigtimedwait(&signals, nullptr, &second) > 0) {
      shoal::config::log().info("shoald stopped node={} before registering", log_name);
      return 0;
    }
  }
}

/// The node's meters (none without CollectMetrics=YES) and their /metrics endpoint (none on
/// port 0; `port_flag` is --metrics-port, -1 when not given).
struct node_metrics {
  std::unique_ptr<shoal::metrics::registry> meters;
  std::unique_ptr<shoal::runtime::metrics_server> endpoint;
};

node_metrics start_metrics(const shoal::config::cluster_config& cfg, int port_flag,
                           const std::string& log_name) {
  node_metrics out;
  if (cfg.collect_metrics) {
    out.meters = std::make_unique<shoal::metrics::registry>();
    shoal::runtime::record_process_start(*out.meters, SHOAL_VERSION);
  }
  auto port = port_flag >= 0 ? static_cast<uint16_t>(port_flag) : cfg.node_metrics_port;
  if (out.meters && port != 0) {
    out.endpoint = std::make_unique<shoal::runtime::metrics_server>(*out.meters);
    auto address = shoal::runtime::metrics_bind_address(cfg);
    if (auto err = out.endpoint->start(address, port)) {
      // A node daemon without /metrics still runs jobs: it goes on, but says which key to fix.
      auto source = port_flag >= 0
                        ? std::string{"--metrics-port"}
                        : "NodeMetricsPort= in " + cfg.path + " (" +
                              std::to_string(shoal::config::defaults::node_metrics_port) +
                              " when not set)";
      shoal::config::log().error(
          "metrics endpoint not started node={} port={}: {}; the port comes from {}: give each "
          "shoald on this host a port of its own with --metrics-port N (0 for none); running on "
          "without /metrics",
          log_name, port, shoal::describe(err), source);
      out.endpoint.reset();
    } else {
      shoal::config::log().info("metrics endpoint node={} url=http://{}:{}/metrics", log_name,
                                address, port);
    }
  }
  return out;
}

/// The controller signs each launch and we sign each registration (docs/security.md).
void add_munge_checks(shoal::actors::node_daemon_setup& setup,
                      const shoal::config::cluster_config& cfg) {
  setup.sign_registration = [auth = cfg.auth](shoal::msg::machine_status& status,
                                              const shoal::msg::node_report& report) {
    return shoal::runtime::sign_registration(auth, status, report);
  };
  setup.check_launch = [auth = cfg.auth, trusted = shoal::runtime::daemon_uids(cfg)](
                           shoal::msg::launch_request& req) {
    return shoal::runtime::verify_launch(auth, trusted, req);
  };
  setup.check_signal = [auth = cfg.auth, trusted = shoal::runtime::daemon_uids(cfg)](
                           uint64_t job, uint32_t step, int32_t signo,
                           const std::string& credential) {
    return shoal::runtime::verify_signal(auth, trusted, job, step, signo, credential);
  };
}

/// A CollectorNode: the nodes of its list beat to its collector, on a port of the node's own
/// address that the daemon announces to the controller. Ends the process when it cannot listen
/// (daemons may be running already: no actor-system teardown).
void add_collector(caf::actor_system& sys, const shoal::config::node_config& node,
                   shoal::metrics::registry* meters, shoal::actors::node_daemon_setup& setup) {
  const auto& name = node.name;
  auto collector = shoal::actors::spawn_collector(sys, name, meters);
  const auto& address = node.address;
  auto bound =
      shoal::runtime::publish_daemon_actor(sys, caf::actor_cast<caf::actor>(collector), 0, address);
  if (!bound) {
    shoal::config::log().error("node {} is a CollectorNode but cannot listen on {}: {}", name,
                               address, caf::to_string(bound.error()));
    std::fprintf(stderr, "shoald: error: node %s is a CollectorNode but cannot listen on %s: %s\n",
                 name.c_str(), address.c_str(), caf::to_string(bound.error()).c_str());
    std::fflush(nullptr);
    std::_Exit(1);
  }
  shoal::config::log().info("collector listening node={} address={}:{}", name, address, *bound);
  setup.collector = caf::actor_cast<caf::actor>(collector);
  setup.collector_port = *bound;
}

/// Where this process's door for its peers listens (actors/peer_door.hpp): one per process,
/// on the first served node's address. Without it (it could not listen) the steps' fences pass
/// through the controller's process: slower, still correct, so the daemon runs on.
struct peer_door {
  std::string host;
  uint16_t port = 0;
};

peer_door open_peer_door(caf::actor_system& sys, const shoal::config::node_config& node) {
  auto door = shoal::actors::spawn_peer_door(sys);
  auto bound = shoal::runtime::publish_daemon_actor(sys, door, 0, node.address);
  if (!bound) {
    shoal::config::log().warn(
        "peer door not opened node={} address={}: {}; MPI steps' fences will pass through the "
        "controller",
        node.name, node.address, caf::to_string(bound.error()));
    caf::anon_send_exit(door, caf::exit_reason::user_shutdown);
    return {};
  }
  shoal::config::log().info("peer door listening node={} address={}:{}", node.name, node.address,
                            *bound);
  return {node.address, *bound};
}

/// What every node daemon of this process shares.
struct daemon_context {
  caf::actor_system& sys;
  const shoal::config::cluster_config& cfg;
  const shoal::topology::machine_facts& facts;
  std::shared_ptr<shoal::process::stepd_spares> spares;
  shoal::metrics::registry* meters = nullptr;
  peer_door door;
};

/// `scontrol reconfigure` through the controller: the process's own SIGHUP (which the signal
/// thread turns into the reconfigure, reading the file there, not on an actor). A shoald hosting
/// many nodes hears it once a node: once a second is enough.
void reconfigure_once_a_second() {
  static std::atomic<int64_t> last{0};
  auto now = static_cast<int64_t>(std::time(nullptr));
  auto before = last.load();
  if (now - before < 1 || !last.compare_exchange_strong(before, now)) return;
  ::kill(::getpid(), SIGHUP);
}

/// Starts the daemon of `node`, its steps' sockets in `spool_dir`.
caf::actor start_daemon(const daemon_context& ctx, const shoal::config::node_config& node,
                        const std::string& spool_dir, bool simulated, bool collects) {
  const auto& name = node.name;
  shoal::actors::node_daemon_setup setup;
  setup.controllers = shoal::runtime::controller_lines(ctx.cfg);
  setup.spool_dir = spool_dir;
  setup.spares = ctx.spares;
  // Steps the previous shoald started run on in their shoal-stepd: find them before the
  // daemon registers, so it speaks for them from the start.
  if (!simulated)
    setup.adopted =
        shoal::actors::adopt_steps(ctx.sys, setup.spool_dir, name, ctx.facts.cores, ctx.meters);
  setup.heartbeat_interval_ms = ctx.cfg.heartbeat_interval_ms;
  setup.message_timeout_s = ctx.cfg.message_timeout_s;
  setup.status = to_status(ctx.facts, name);
  setup.simulate = simulated;
  if (setup.simulate) as_configured(setup.status, node);
  setup.cores = ctx.facts.cores;
  setup.meters = ctx.meters;
  setup.prologs = ctx.cfg.prologs;
  setup.health = ctx.cfg.health;
  setup.cluster_name = ctx.cfg.cluster_name;
  setup.conf_path = ctx.cfg.path;
  if (ctx.cfg.auth.munge) add_munge_checks(setup, ctx.cfg);
  if (collects) add_collector(ctx.sys, node, ctx.meters, setup);
  setup.reconfigure = reconfigure_once_a_second;
  if (!simulated) {
    setup.door_host = ctx.door.host;
    setup.door_port = ctx.door.port;
  }
  shoal::config::log().info("shoald starting node={} cpus={} mem_mb={} controller={}", name,
                            ctx.facts.cpus, ctx.facts.real_memory_mb,
                            shoal::runtime::describe_line(setup.controllers.front()));
  return caf::actor_cast<caf::actor>(shoal::actors::spawn_node_daemon(ctx.sys, std::move(setup)));
}

}  // namespace

int main(int argc, char** argv) {
  shoal::runtime::block_shutdown_signals();
  shoald_flags flags;
  if (auto code = parse_flags(argc, argv, flags)) return *code;
  auto cfg = shoal::runtime::load_cluster_config(flags.conf_path);
  if (!cfg) {
    std::fprintf(stderr, "shoald: error: %s\n", shoal::describe(cfg.error()).c_str());
    return 1;
  }
  for (auto& w : cfg->warnings) std::fprintf(stderr, "shoald: warning: %s\n", w.c_str());
  // shoal-stepd reads no config: it inherits these through our environment. Before any thread.
  shoal::process::export_task_env(cfg->path, cfg->slurm_env, cfg->cluster_name);
  std::vector<std::string> served;
  if (auto code = pick_served_nodes(*cfg, flags, served)) return *code;
  std::unordered_map<std::string, const shoal::config::node_config*> configured;
  for (auto& n : cfg->nodes) configured.emplace(n.name, &n);
  const auto& node_name = flags.node_name;
  auto log_name = served.size() == 1 ? node_name : shoal::topology::compress_hostlist(served);
  auto log_opt = shoal::runtime::node_log_options(*cfg, log_name);
  if (!flags.debug_level.empty()) log_opt.level = flags.debug_level;
  if (!flags.log_file.empty()) log_opt.file = flags.log_file;
  log_opt.more_verbose = flags.verbose;
  if (auto err = shoal::runtime::setup_logging(log_opt)) {
    std::fprintf(stderr, "shoald: error: %s\n", shoal::describe(err).c_str());
    return 1;
  }
  shoal::config::log().info("config loaded file={} nodes={} partitions={} warnings={}", cfg->path,
                            cfg->nodes.size(), cfg->partitions.size(), cfg->warnings.size());
  for (auto& w : cfg->warnings) shoal::config::log().warn("config warning: {}", w);
  auto facts = shoal::topology::probe_machine(cfg->tmp_fs);
  if (facts && flags.boot_now) facts->boot_time = std::time(nullptr);
  if (!facts) {
    std::fprintf(stderr, "shoald: error: %s\n", shoal::describe(facts.error()).c_str());
    return 1;
  }
  SHOAL_DEBUG(init,
              "machine probed node={} host={} os={} cpus={} sockets={} cores={} threads={} "
              "mem_mb={} tmp_mb={}",
              node_name, facts->hostname, facts->os, facts->cpus, facts->sockets,
              facts->cores_per_socket, facts->threads_per_core, facts->real_memory_mb,
              facts->tmp_disk_mb);
  std::vector<std::string> spool_dirs;
  if (auto code = prepare_spool_dirs(*cfg, served, spool_dirs)) return *code;
  std::string identity;
  if (cfg->auth.munge)
    if (auto code = wait_for_identity(*cfg, log_name, identity)) return *code;
  caf::actor_system_config sys_cfg;
  shoal::runtime::configure_actor_system(sys_cfg, shoal::runtime::daemon_worker_threads());
  caf::actor_system sys{sys_cfg};
  if (!identity.empty()) {
    if (auto err = shoal::runtime::start_tls_transport(sys, identity)) {
      std::fprintf(stderr, "shoald: error: %s\n", shoal::describe(err).c_str());
      std::fflush(nullptr);
      std::_Exit(1);
    }
  }
  auto metrics = start_metrics(*cfg, flags.metrics_port, log_name);
  // --simulate, or Simulate=YES on the node's line: no process runs for it.
  auto simulated = [&](const std::string& name) {
    return flags.simulate || configured.at(name)->simulate;
  };
  bool all_simulated = std::all_of(served.begin(), served.end(), simulated);
  // One shoal-stepd waits, loaded, for the next step of any node this process serves.
  auto spares =
      all_simulated
          ? nullptr
          : std::make_shared<shoal::process::stepd_spares>(shoal::process::sibling_stepd_path());
  if (all_simulated)
    shoal::config::log().warn("simulated nodes={}: no task runs here (--simulate or Simulate=YES)",
                              log_name);
  if (!cfg->auth.munge)
    shoal::config::log().warn(
        "AuthType=auth/none: this shoald runs every launch it is sent, as the user the launch "
        "names; for a single-user cluster only (docs/security.md)");
  std::set<std::string> collector_nodes(cfg->collector_nodes.begin(), cfg->collector_nodes.end());
  peer_door door;
  if (!all_simulated)
    door = open_peer_door(
        sys, *configured.at(*std::find_if_not(served.begin(), served.end(), simulated)));
  const daemon_context ctx{sys, *cfg, *facts, spares, metrics.meters.get(), door};
  std::vector<caf::actor> daemons;
  for (size_t i = 0; i < served.size(); ++i) {
    const auto& name = served[i];
    daemons.push_back(start_daemon(ctx, *configured.at(name), spool_dirs[i], simulated(name),
                                   collector_nodes.count(name) != 0));
  }
  // One node: its daemon is the main actor. A front end: a supervisor linked to every node
  // daemon, so one refused registration ends the process and a shutdown ends them all. (The
  // daemons go in as a spawn argument, not a capture: CAF 0.17 dereferences a null argument
  // tuple for actors spawned without arguments, which UBSan rightly reports.)
  auto supervise = [](caf::event_based_actor* self, const std::vector<caf::actor>& linked) {
    for (auto& d : linked) self->link_to(d);
    return caf::behavior{[](caf::ok_atom) {}};
  };
  auto daemon = daemons.size() == 1 ? daemons.front() : sys.spawn(supervise, daemons);
  auto reconfigure =
      std::make_shared<shoal::runtime::reconfigurer>(*cfg, shoal::runtime::daemon_role::node);
  int code = shoal::runtime::run_until_shutdown(sys, daemon, [reconfigure] { (*reconfigure)(); });
  shoal::config::log().info("shoald stopped node={} code={}", log_name, code);
  spdlog::shutdown();
  std::fflush(nullptr);
  // Steps run on in their shoal-stepd (the next shoald adopts them) and our shepherds only
  // relay them: skip the actor-system teardown.
  std::_Exit(code);
}
