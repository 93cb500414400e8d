// shoalctld: the controller daemon. Loads the cluster config, spawns the controller actor and
// publishes it on SlurmctldPort for node daemons and the CLI.

#include <cstdio>
#include <cstdlib>

#include <CLI/CLI.hpp>
#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/controller.hpp"
#include "actors/state_keeper.hpp"
#include "state/load.hpp"
#include "config/log.hpp"
#include "interconnect/switch_manager.hpp"
#include "messages/errc.hpp"
#include "runtime/bootstrap/controller_client.hpp"
#include "runtime/bootstrap/logging.hpp"
#include "runtime/bootstrap/metrics_server.hpp"
#include "runtime/bootstrap/shutdown.hpp"
#include "runtime/bootstrap/system_setup.hpp"

namespace {

/// StateSaveLocation=PRIMARY[,SECONDARY]: the directories the state is saved in, both written.
std::vector<std::string> state_locations(const std::string& value) {
  std::vector<std::string> out;
  size_t from = 0;
  while (from <= value.size()) {
    auto comma = value.find(',', from);
    auto part = value.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
    if (!part.empty()) out.push_back(part);
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  return out;
}

/// Loopback controllers listen on loopback only; any other address listens everywhere.
const char* bind_address(const std::string& host) {
  return host == "127.0.0.1" || host == "localhost" ? "127.0.0.1" : nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  shoal::runtime::block_shutdown_signals();
  CLI::App app{"shoalctld: the shoal controller daemon"};
  std::string conf_path;
  bool check_only = false;
  std::string log_file;
  std::string debug_level;
  unsigned verbose = 0;
  app.add_option("-f,--config", conf_path,
                 "Cluster config file (default: $SHOAL_CONF, else /etc/shoal/shoal.conf)");
  app.add_flag("--check", check_only, "Validate the config file and exit (0 when valid)");
  bool cold_start = false;
  app.add_flag("-c,--cold", cold_start,
               "Cold start: ignore the state saved in StateSaveLocation (every job and node "
               "state it holds is forgotten), as slurmctld -c");
  app.add_option("-L,--logfile", log_file,
                 "Log to this file (default: SlurmctldLogFile, else stderr)");
  app.add_option("--debug", debug_level,
                 "Log level: quiet, fatal, error, info, verbose, debug, debug2..debug5 or 0-9 "
                 "(default: SlurmctldDebug, else info)");
  app.add_flag("-v,--verbose", verbose, "One level more verbose per -v (-vv: two)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "shoalctld: error: %s\nTry 'shoalctld --help'.\n", e.what());
    return 2;
  }
  if (!debug_level.empty() && !shoal::config::parse_debug_level(debug_level)) {
    std::fprintf(stderr, "shoalctld: error: --debug: unknown level '%s' (use %s)\n",
                 debug_level.c_str(), shoal::config::debug_level_choices);
    return 2;
  }
  auto cfg = shoal::runtime::load_cluster_config(conf_path);
  if (!cfg) {
    std::fprintf(stderr, "shoalctld: error: %s\n", shoal::describe(cfg.error()).c_str());
    return 1;
  }
  for (auto& w : cfg->warnings) std::fprintf(stderr, "shoalctld: warning: %s\n", w.c_str());
  // The interconnect plugin is built before anything starts, so that a SwitchType this build
  // lacks stops the start (and --check) instead of being ignored.
  auto interconnect = shoal::interconnect::make_switch_manager(cfg->switch_type);
  if (!interconnect) {
    std::fprintf(stderr, "shoalctld: error: %s: %s\n", cfg->path.c_str(),
                 shoal::describe(interconnect.error()).c_str());
    return 1;
  }
  if (check_only) {
    std::printf("shoalctld: configuration %s is valid: %zu nodes, %zu partitions\n",
                cfg->path.c_str(), cfg->nodes.size(), cfg->partitions.size());
    return 0;
  }
  auto log_opt = shoal::runtime::controller_log_options(*cfg);
  if (!debug_level.empty()) log_opt.level = debug_level;
  if (!log_file.empty()) log_opt.file = log_file;
  log_opt.more_verbose = verbose;
  if (auto err = shoal::runtime::setup_logging(log_opt)) {
    std::fprintf(stderr, "shoalctld: error: %s\n", shoal::describe(err).c_str());
    return 1;
  }
  shoal::config::log().info("config loaded file={} nodes={} partitions={} warnings={}", cfg->path,
                            cfg->nodes.size(), cfg->partitions.size(), cfg->warnings.size());
  for (auto& w : cfg->warnings) shoal::config::log().warn("config warning: {}", w);
  caf::actor_system_config sys_cfg;
  shoal::runtime::configure_actor_system(sys_cfg, 2);
  caf::actor_system sys{sys_cfg};
  auto [host, port] = shoal::runtime::controller_endpoint(*cfg);
  // Declared before the controller: its actors write to the registry until the process exits.
  std::unique_ptr<shoal::metrics::registry> meters;
  std::unique_ptr<shoal::runtime::metrics_server> endpoint;
  if (cfg->collect_metrics) {
    meters = std::make_unique<shoal::metrics::registry>();
    shoal::runtime::record_process_start(*meters, SHOAL_VERSION);
  }
  // The saved state is read here, before any actor runs: nothing blocks a handler on disk.
  shoal::actors::controller_recovery recovery;
  auto locations = state_locations(cfg->state_save_location);
  if (!cold_start) {
    auto loaded = shoal::state::load(locations);
    if (!loaded) {
      auto text = shoal::describe(loaded.error());
      shoal::config::log().error("cannot recover the saved state: {}", text);
      std::fprintf(stderr,
                   "shoalctld: error: cannot recover the saved state: %s\n(shoalctld -c starts "
                   "cold, forgetting it)\n",
                   text.c_str());
      std::fflush(nullptr);
      std::_Exit(1);
    }
    shoal::config::log().info(
        "saved state loaded locations={} generation={} snapshot_records={} journal_records={} "
        "ms={}",
        cfg->state_save_location, loaded->generation, loaded->snapshot_records,
        loaded->journal_records,
        std::chrono::duration_cast<std::chrono::milliseconds>(loaded->elapsed).count());
    for (auto& w : loaded->warnings) {
      shoal::config::log().warn("saved state: {}", w);
      std::fprintf(stderr, "shoalctld: warning: saved state: %s\n", w.c_str());
    }
    recovery.saved = std::move(loaded->records);
  } else {
    shoal::config::log().info("cold start: saved state ignored locations={}",
                              cfg->state_save_location);
  }
  // Starting, the keeper writes what was recovered (nothing, after -c) as a new generation.
  shoal::actors::state_keeper_settings keeping;
  keeping.locations = locations;
  keeping.meters = meters.get();
  recovery.keeper = shoal::actors::spawn_state_keeper(sys, keeping, recovery.saved);
  auto keeper = recovery.keeper;
  // Published as a dynamic handle: clients (the CLI, shoald) hold it as caf::actor.
  auto controller = caf::actor_cast<caf::actor>(shoal::actors::spawn_controller(
      sys, *cfg, meters.get(),
      std::shared_ptr<shoal::interconnect::switch_manager>{std::move(*interconnect)},
      std::move(recovery)));
  if (meters && cfg->metrics_port != 0) {
    endpoint = std::make_unique<shoal::runtime::metrics_server>(*meters);
    auto address = shoal::runtime::metrics_bind_address(*cfg);
    if (auto err = endpoint->start(address, cfg->metrics_port))
      shoal::config::log().error("metrics endpoint not started: {}", shoal::describe(err));
    else
      shoal::config::log().info("metrics endpoint url=http://{}:{}/metrics", address,
                                cfg->metrics_port);
  }
  const char* address = bind_address(host);
  auto published =
      shoal::runtime::publish_controller(sys, controller, port, address ? address : "");
  if (!published) {
    shoal::config::log().error("cannot listen port={}: {}", port, sys.render(published.error()));
    std::fprintf(stderr, "shoalctld: error: cannot listen on port %u: %s\n", port,
                 sys.render(published.error()).c_str());
    std::fflush(nullptr);
    std::_Exit(1);
  }
  shoal::config::log().info("shoalctld listening port={} config={}", *published, cfg->path);
  int code = shoal::runtime::run_until_shutdown(sys, controller);
  {
    // What the keeper holds but has not written yet goes to disk before the process ends.
    caf::scoped_actor self{sys};
    self->request(keeper, std::chrono::seconds{10}, shoal::msg::sync_atom_v)
        .receive([](caf::ok_atom) {},
                 [](caf::error& err) {
                   shoal::config::log().error("state not saved at shutdown: {}",
                                              shoal::describe(err));
                 });
  }
  shoal::config::log().info("shoalctld stopped code={}", code);
  spdlog::shutdown();
  std::fflush(nullptr);
  // The state is saved; skip the actor-system teardown, which would wait for every job actor's
  // timers.
  std::_Exit(code);
}
