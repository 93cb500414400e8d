// shoalctld: the controller daemon. Loads the cluster config, finds which SlurmctldHost line it
// is, and runs that line's part (runtime/ctld/failover.hpp): the primary brings the controller up
// and publishes it on its port for node daemons and the CLI; a backup stands by and takes over.

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/in_process_types.hpp"
#include "config/log.hpp"
#include "interconnect/switch_manager.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "messages/errc.hpp"
#include "runtime/bootstrap/controller_client.hpp"
#include "runtime/bootstrap/daemon_auth.hpp"
#include "runtime/bootstrap/logging.hpp"
#include "runtime/bootstrap/metrics_server.hpp"
#include "runtime/bootstrap/reconfigure.hpp"
#include "runtime/bootstrap/shutdown.hpp"
#include "runtime/bootstrap/system_setup.hpp"
#include "runtime/ctld/failover.hpp"
#include "runtime/ctld/jwt.hpp"
#include "runtime/tls/cluster_identity.hpp"
#include "runtime/tls/tls_transport.hpp"

namespace {

/// Where shoalctld's ports listen: only on its SlurmctldHost line's address (a name is
/// resolved), or on every address ("") under ControllerListen=all.
std::string listen_address(const shoal::config::controller_host& me,
                           const shoal::config::cluster_config& cfg) {
  if (cfg.listen_all) return "";
  return me.address == "localhost" ? "127.0.0.1" : me.address;
}

std::string long_host_name() {
  char name[HOST_NAME_MAX + 1] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return {};
  return name;
}

/// The host name up to its first dot, as Slurm matches SlurmctldHost lines.
std::string short_host_name() {
  auto name = long_host_name();
  return name.substr(0, name.find('.'));
}

/// shoalctld's command line.
struct ctld_flags {
  std::string conf_path;
  bool check_only = false;
  std::string log_file;
  std::string debug_level;
  unsigned verbose = 0;
  bool cold_start = false;
  std::string controller_name;
};

/// Reads the command line into `f`; an exit code when shoalctld ends here (--help, a bad flag).
std::optional<int> parse_flags(int argc, char** argv, ctld_flags& f) {
  CLI::App app{"shoalctld: the shoal controller daemon"};
  // As slurmctld -V and slurmd -V; help2man reads it for the man page.
  app.set_version_flag("-V,--version", "shoalctld " SHOAL_VERSION);
  app.add_option("-f,--config", f.conf_path,
                 "Cluster config file (default: $SHOAL_CONF, else /etc/shoal/shoal.conf)");
  app.add_flag("--check", f.check_only, "Validate the config file and exit (0 when valid)");
  app.add_option("-L,--logfile", f.log_file,
                 "Log to this file (default: SlurmctldLogFile, else stderr)");
  app.add_option("--debug", f.debug_level,
                 "Log level: quiet, fatal, error, info, verbose, debug, debug2..debug5 or 0-9 "
                 "(default: SlurmctldDebug, else info)");
  app.add_flag("-v,--verbose", f.verbose, "One level more verbose per -v (-vv: two)");
  app.add_flag("-c,--cold", f.cold_start,
               "Cold start: ignore the state saved in StateSaveLocation (every job and node "
               "state it holds is forgotten, and the empty state is saved in its place), as "
               "slurmctld -c");
  app.add_option("--controller", f.controller_name,
                 "Which SlurmctldHost line this shoalctld is, by NAME (default: the line naming "
                 "this host, else the only line). The first line is the primary, the second the "
                 "backup: it stands by and takes over after SlurmctldTimeout without an answer "
                 "from the primary, and hands control back when the primary returns");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "shoalctld: error: %s\nTry 'shoalctld --help'.\n", e.what());
    return 2;
  }
  if (!f.debug_level.empty() && !shoal::config::parse_debug_level(f.debug_level)) {
    std::fprintf(stderr, "shoalctld: error: --debug: unknown level '%s' (use %s)\n",
                 f.debug_level.c_str(), shoal::config::debug_level_choices);
    return 2;
  }
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  shoal::runtime::block_shutdown_signals();
  ctld_flags flags;
  if (auto code = parse_flags(argc, argv, flags)) return *code;
  auto cfg = shoal::runtime::load_cluster_config(flags.conf_path);
  if (!cfg) {
    std::fprintf(stderr, "shoalctld: error: %s\n", shoal::describe(cfg.error()).c_str());
    return 1;
  }
  for (auto& w : cfg->warnings) std::fprintf(stderr, "shoalctld: warning: %s\n", w.c_str());
  // The interconnect plugin is built before anything starts, so that a SwitchType this build
  // lacks stops the start (and --check) instead of being ignored.
  auto interconnect =
      shoal::interconnect::make_switch_manager(cfg->switch_type, cfg->switch_parameters);
  if (!interconnect) {
    std::fprintf(stderr, "shoalctld: error: %s: %s\n", cfg->path.c_str(),
                 shoal::describe(interconnect.error()).c_str());
    return 1;
  }
  if (flags.check_only) {
    std::printf("shoalctld: configuration %s is valid: %zu nodes, %zu partitions\n",
                cfg->path.c_str(), cfg->nodes.size(), cfg->partitions.size());
    return 0;
  }
  shoal::runtime::failover_setup setup;
  setup.lines = cfg->controller_hosts;
  if (setup.lines.empty())
    setup.lines.push_back(
        shoal::config::controller_host{"127.0.0.1", "127.0.0.1", cfg->controller_port});
  auto line = shoal::runtime::choose_controller_line(setup.lines, flags.controller_name,
                                                     short_host_name(), long_host_name());
  if (!line) {
    std::fprintf(stderr, "shoalctld: error: %s\n", shoal::describe(line.error()).c_str());
    return 2;
  }
  setup.self_index = *line;
  auto log_opt = shoal::runtime::controller_log_options(*cfg);
  if (!flags.debug_level.empty()) log_opt.level = flags.debug_level;
  if (!flags.log_file.empty()) log_opt.file = flags.log_file;
  log_opt.more_verbose = flags.verbose;
  if (auto err = shoal::runtime::setup_logging(log_opt)) {
    std::fprintf(stderr, "shoalctld: error: %s\n", shoal::describe(err).c_str());
    return 1;
  }
  shoal::config::log().info("config loaded file={} nodes={} partitions={} warnings={}", cfg->path,
                            cfg->nodes.size(), cfg->partitions.size(), cfg->warnings.size());
  for (auto& w : cfg->warnings) shoal::config::log().warn("config warning: {}", w);
  caf::actor_system_config sys_cfg;
  shoal::runtime::configure_actor_system(sys_cfg, shoal::runtime::daemon_worker_threads());
  caf::actor_system sys{sys_cfg};
  if (cfg->auth.munge) {
    // The node daemons' port speaks TLS with the cluster's identity (docs/security.md).
    auto identity = shoal::runtime::load_or_create_cluster_identity(cfg->state_save_location);
    caf::error err;
    if (!identity)
      err = shoal::to_caf(identity.error());
    else
      err = shoal::runtime::start_tls_transport(sys, *identity);
    if (err) {
      shoal::config::log().error("StateSaveLocation: {}", shoal::describe(err));
      std::fprintf(stderr, "shoalctld: error: StateSaveLocation: %s\n",
                   shoal::describe(err).c_str());
      std::fflush(nullptr);
      std::_Exit(1);
    }
    setup.cluster_identity = std::move(*identity);
  }
  if (cfg->auth.jwt) {
    auto key = shoal::runtime::read_jwt_key(shoal::config::jwt_key_path(*cfg));
    if (!key) {
      shoal::config::log().error("AuthAltTypes=auth/jwt: {}", key.error().text());
      std::fprintf(stderr, "shoalctld: error: AuthAltTypes=auth/jwt: %s\n",
                   key.error().text().c_str());
      std::fflush(nullptr);
      std::_Exit(1);
    }
    setup.jwt_key = std::move(*key);
  }
  setup.access = shoal::runtime::access_rules_of(*cfg);
  const auto& me = setup.lines[setup.self_index];
  setup.bind_address = listen_address(me, *cfg);
  setup.metrics_address = setup.bind_address.empty() ? "0.0.0.0" : setup.bind_address;
  // Lives as long as the process: controllers come and go (a backup taking over and handing
  // back), and their actors write to it until they are gone.
  std::unique_ptr<shoal::metrics::registry> meters;
  if (cfg->collect_metrics) {
    meters = std::make_unique<shoal::metrics::registry>();
    shoal::runtime::record_process_start(*meters, SHOAL_VERSION);
  }
  setup.meters = meters.get();
  setup.cold_start = flags.cold_start;
  // SIGHUP and `scontrol reconfigure` share one, so each reads against what the other applied.
  auto reconfigure =
      std::make_shared<shoal::runtime::reconfigurer>(*cfg, shoal::runtime::daemon_role::controller);
  setup.reconfigure = [reconfigure] { return reconfigure->run(); };
  setup.cfg = std::move(*cfg);
  auto failover = shoal::runtime::spawn_failover(sys, std::move(setup));
  int code = shoal::runtime::run_until_shutdown(sys, failover, [reconfigure, failover] {
    auto done = reconfigure->run();
    if (done && done->fresh) caf::anon_send(failover, shoal::msg::reconfig_atom_v, done->fresh);
  });
  shoal::config::log().info("shoalctld stopped code={}", code);
  spdlog::shutdown();
  std::fflush(nullptr);
  // The failover made the controller's state durable on the way out; skip the actor-system
  // teardown, which would wait for every job actor's timers.
  std::_Exit(code);
}
