// shoald: the node daemon. Probes the machine, registers with the controller, heartbeats and
// runs job steps.

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <set>
#include <unordered_map>
#include <vector>

#include <CLI/CLI.hpp>
#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/collector.hpp"
#include "actors/node_daemon.hpp"
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

}  // namespace

int main(int argc, char** argv) {
  shoal::runtime::block_shutdown_signals();
  CLI::App app{"shoald: the shoal node daemon"};
  std::string conf_path;
  std::string node_name;
  std::string log_file;
  std::string debug_level;
  unsigned verbose = 0;
  app.add_option("-f,--config", conf_path,
                 "Cluster config file (default: $SHOAL_CONF, else /etc/shoal/shoal.conf)");
  app.add_option("-N,--node-name", node_name,
                 "Node this daemon speaks for (default: the short hostname); lets several "
                 "daemons share one host");
  app.add_option("-L,--logfile", log_file,
                 "Log to this file; %h is the host name, %n the node name (default: "
                 "SlurmdLogFile, else stderr)");
  app.add_option("--debug", debug_level,
                 "Log level: quiet, fatal, error, info, verbose, debug, debug2..debug5 or 0-9 "
                 "(default: SlurmdDebug, else info)");
  app.add_flag("-v,--verbose", verbose, "One level more verbose per -v (-vv: two)");
  int metrics_port = -1;
  app.add_option("--metrics-port", metrics_port,
                 "Serve /metrics on this port, 0 for none (default: NodeMetricsPort); gives each "
                 "of several daemons on one host its own")
      ->check(CLI::Range(0, 65535));
  std::string frontend_nodes;
  app.add_option("--nodes", frontend_nodes,
                 "Front-end mode: speak for every node of this hostlist (e.g. bgl[000x733]) from "
                 "one process, as Blue Gene/L's front-end node daemon; their tasks and batch "
                 "scripts run on this host")
      ->excludes("--node-name");
  bool simulate = false;
  app.add_flag("--simulate", simulate,
               "Run no processes (scale tests): a task whose command is `sleep N` ends after N "
               "seconds with 0, `false` ends at once with 1, anything else at once with 0; the "
               "node reports the CPUs and memory its NodeName line configures");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "shoald: error: %s\nTry 'shoald --help'.\n", e.what());
    return 2;
  }
  if (!debug_level.empty() && !shoal::config::parse_debug_level(debug_level)) {
    std::fprintf(stderr, "shoald: error: --debug: unknown level '%s' (use %s)\n",
                 debug_level.c_str(), shoal::config::debug_level_choices);
    return 2;
  }
  auto cfg = shoal::runtime::load_cluster_config(conf_path);
  if (!cfg) {
    std::fprintf(stderr, "shoald: error: %s\n", shoal::describe(cfg.error()).c_str());
    return 1;
  }
  for (auto& w : cfg->warnings) std::fprintf(stderr, "shoald: warning: %s\n", w.c_str());
  // shoal-stepd reads no config: it inherits these through our environment. Before any thread.
  shoal::process::export_task_env(cfg->path, cfg->slurm_env, cfg->cluster_name);
  std::vector<std::string> served;
  if (!frontend_nodes.empty()) {
    auto names = shoal::topology::expand_hostlist(frontend_nodes);
    if (!names || names->empty()) {
      std::fprintf(stderr, "shoald: error: --nodes '%s': %s\n", frontend_nodes.c_str(),
                   names ? "names no node" : shoal::describe(names.error()).c_str());
      return 2;
    }
    served = std::move(*names);
    node_name = served.front();
  } else {
    if (node_name.empty()) node_name = short_hostname();
    served.push_back(node_name);
  }
  std::unordered_map<std::string, const shoal::config::node_config*> configured;
  for (auto& n : cfg->nodes) configured.emplace(n.name, &n);
  for (auto& name : served) {
    if (configured.count(name) == 0) {
      std::fprintf(stderr, "shoald: error: node '%s' is not in %s (use --node-name NAME)\n",
                   name.c_str(), cfg->path.c_str());
      return 1;
    }
  }
  auto log_name = served.size() == 1 ? node_name : shoal::topology::compress_hostlist(served);
  auto log_opt = shoal::runtime::node_log_options(*cfg, log_name);
  if (!debug_level.empty()) log_opt.level = debug_level;
  if (!log_file.empty()) log_opt.file = log_file;
  log_opt.more_verbose = verbose;
  if (auto err = shoal::runtime::setup_logging(log_opt)) {
    std::fprintf(stderr, "shoald: error: %s\n", shoal::describe(err).c_str());
    return 1;
  }
  shoal::config::log().info("config loaded file={} nodes={} partitions={} warnings={}", cfg->path,
                            cfg->nodes.size(), cfg->partitions.size(), cfg->warnings.size());
  for (auto& w : cfg->warnings) shoal::config::log().warn("config warning: {}", w);
  auto facts = shoal::topology::probe_machine(cfg->tmp_fs);
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
  // Each node's step sockets: created (or checked) before anything runs, as slurmd refuses to
  // start without its spool directory.
  std::vector<std::string> spool_dirs;
  for (auto& name : served) {
    spool_dirs.push_back(shoal::config::node_spool_dir(*cfg, name, short_hostname()));
    if (auto err = shoal::process::prepare_spool_dir(spool_dirs.back())) {
      std::fprintf(stderr, "shoald: error: SlurmdSpoolDir: %s\n", shoal::describe(err).c_str());
      return 1;
    }
  }
  // Under auth/munge the daemons' CAF ports speak TLS with the cluster's identity, which a
  // controller hands out sealed for our uid (docs/security.md).
  std::string identity;
  if (cfg->auth.munge) {
    bool waiting = false;
    for (;;) {
      auto got = shoal::runtime::identity_from_controller(*cfg);
      if (got) {
        identity = std::move(*got);
        break;
      }
      if (got.error() != shoal::errc::unreachable && got.error() != shoal::errc::system_error) {
        shoal::config::log().error("cluster identity: {}", shoal::describe(got.error()));
        std::fprintf(stderr, "shoald: error: %s\n", shoal::describe(got.error()).c_str());
        return 1;
      }
      if (!waiting)
        shoal::config::log().warn("waiting for a controller to hand out the cluster identity: {}",
                                  shoal::describe(got.error()));
      waiting = true;
      auto signals = shoal::runtime::shutdown_signals();
      timespec second{1, 0};
      if (::sigtimedwait(&signals, nullptr, &second) > 0) {
        shoal::config::log().info("shoald stopped node={} before registering", log_name);
        return 0;
      }
    }
  }
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
  std::unique_ptr<shoal::metrics::registry> meters;
  std::unique_ptr<shoal::runtime::metrics_server> endpoint;
  if (cfg->collect_metrics) {
    meters = std::make_unique<shoal::metrics::registry>();
    shoal::runtime::record_process_start(*meters, SHOAL_VERSION);
  }
  auto port = metrics_port >= 0 ? static_cast<uint16_t>(metrics_port) : cfg->node_metrics_port;
  if (meters && port != 0) {
    endpoint = std::make_unique<shoal::runtime::metrics_server>(*meters);
    auto address = shoal::runtime::metrics_bind_address(*cfg);
    if (auto err = endpoint->start(address, port))
      shoal::config::log().error("metrics endpoint not started node={}: {}", log_name,
                                 shoal::describe(err));
    else
      shoal::config::log().info("metrics endpoint node={} url=http://{}:{}/metrics", log_name,
                                address, port);
  }
  // --simulate, or Simulate=YES on the node's line: no process runs for it.
  auto simulated = [&](const std::string& name) {
    return simulate || configured.at(name)->simulate;
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
  std::vector<caf::actor> daemons;
  for (size_t i = 0; i < served.size(); ++i) {
    const auto& name = served[i];
    shoal::actors::node_daemon_setup setup;
    setup.controllers = shoal::runtime::controller_lines(*cfg);
    setup.spool_dir = spool_dirs[i];
    setup.spares = spares;
    // Steps the previous shoald started run on in their shoal-stepd: find them before the
    // daemon registers, so it speaks for them from the start.
    if (!simulated(name))
      setup.adopted =
          shoal::actors::adopt_steps(sys, setup.spool_dir, name, facts->cores, meters.get());
    setup.heartbeat_interval_ms = cfg->heartbeat_interval_ms;
    setup.status = to_status(*facts, name);
    setup.simulate = simulated(name);
    if (setup.simulate) as_configured(setup.status, *configured.at(name));
    setup.cores = facts->cores;
    setup.meters = meters.get();
    if (cfg->auth.munge) {
      // The controller signs each launch and we sign each registration (docs/security.md).
      setup.sign_registration = [auth = cfg->auth](shoal::msg::machine_status& status,
                                                   const shoal::msg::node_report& report) {
        return shoal::runtime::sign_registration(auth, status, report);
      };
      setup.check_launch = [auth = cfg->auth, trusted = shoal::runtime::daemon_uids(*cfg)](
                               shoal::msg::launch_request& req) {
        return shoal::runtime::verify_launch(auth, trusted, req);
      };
      setup.check_signal = [auth = cfg->auth, trusted = shoal::runtime::daemon_uids(*cfg)](
                               uint64_t job, uint32_t step, int32_t signo,
                               const std::string& credential) {
        return shoal::runtime::verify_signal(auth, trusted, job, step, signo, credential);
      };
    }
    if (collector_nodes.count(name) != 0) {
      // A CollectorNode: the nodes of its list beat to its collector, on a port of the node's
      // own address that the daemon announces to the controller.
      auto collector = shoal::actors::spawn_collector(sys, name, meters.get());
      const auto& address = configured.at(name)->address;
      auto bound = shoal::runtime::publish_daemon_actor(sys, caf::actor_cast<caf::actor>(collector),
                                                        0, address);
      if (!bound) {
        std::fprintf(stderr,
                     "shoald: error: node %s is a CollectorNode but cannot listen on %s: %s\n",
                     name.c_str(), address.c_str(), caf::to_string(bound.error()).c_str());
        std::fflush(nullptr);
        std::_Exit(1);  // daemons may be running already: no actor-system teardown
      }
      shoal::config::log().info("collector listening node={} address={}:{}", name, address, *bound);
      setup.collector = caf::actor_cast<caf::actor>(collector);
      setup.collector_port = *bound;
    }
    shoal::config::log().info("shoald starting node={} cpus={} mem_mb={} controller={}", name,
                              facts->cpus, facts->real_memory_mb,
                              shoal::runtime::describe_line(setup.controllers.front()));
    daemons.push_back(
        caf::actor_cast<caf::actor>(shoal::actors::spawn_node_daemon(sys, std::move(setup))));
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
  int code = shoal::runtime::run_until_shutdown(sys, daemon);
  shoal::config::log().info("shoald stopped node={} code={}", log_name, code);
  spdlog::shutdown();
  std::fflush(nullptr);
  // Steps run on in their shoal-stepd (the next shoald adopts them) and our shepherds only
  // relay them: skip the actor-system teardown.
  std::_Exit(code);
}
