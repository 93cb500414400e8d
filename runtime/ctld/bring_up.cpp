#include "runtime/ctld/bring_up.hpp"

#include <chrono>

#include <caf/all.hpp>
#include <caf/send.hpp>

#include "accounting/job_store.hpp"
#include "actors/controller/controller.hpp"
#include "actors/daemon_gate.hpp"
#include "actors/state_keeper.hpp"
#include "config/defaults.hpp"
#include "config/log.hpp"
#include "interconnect/switch_manager.hpp"
#include "messages/caf/error.hpp"
#include "runtime/bootstrap/daemon_auth.hpp"
#include "state/load.hpp"

namespace shoal::runtime {

std::vector<std::string> state_locations(const std::string& value) {
  std::vector<std::string> out;
  if (value == "none") return out;
  size_t from = 0;
  for (;;) {
    auto comma = value.find(',', from);
    auto part = value.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
    if (!part.empty()) out.push_back(part);
    if (comma == std::string::npos) return out;
    from = comma + 1;
  }
}

namespace {

/// How the accounting writer opens the store AccountingStorageType names; null for none (or
/// SQLite's default place when nothing is saved anywhere).
std::function<shoal::expected<std::unique_ptr<accounting::job_store>>()> store_opener(
    const config::cluster_config& cfg, const std::vector<std::string>& locations) {
  const auto& acct = cfg.accounting;
  switch (acct.type) {
    case config::accounting_storage::none:
      config::log().info("accounting_storage/none: a job is forgotten MinJobAge after it ends");
      return nullptr;
    case config::accounting_storage::sqlite: {
      if (acct.location.empty() && locations.empty()) {
        config::log().warn(
            "accounting_storage/sqlite has no place: StateSaveLocation=none and no "
            "AccountingStorageLoc=; finished jobs go after MinJobAge");
        return nullptr;
      }
      auto path = config::sqlite_path(acct, locations.empty() ? "" : locations.front());
      config::log().info("accounting store sqlite path={}", path);
      return [path] { return accounting::open_sqlite_store(path); };
    }
    case config::accounting_storage::postgres: {
      accounting::postgres_settings pg;
      pg.host = acct.host;
      pg.port = acct.port;
      pg.user = acct.user;
      pg.password = acct.password;
      if (!acct.location.empty()) pg.database = acct.location;
      config::log().info("accounting store postgres host={} port={} database={}", pg.host, pg.port,
                         pg.database);
      return [pg] { return accounting::open_postgres_store(pg); };
    }
  }
  return nullptr;
}

/// The saved state to resume from (nothing on a cold start), and a keeper that goes on saving.
caf::expected<actors::controller_recovery> recover_state(caf::actor_system& sys,
                                                         const config::cluster_config& cfg,
                                                         metrics::registry* meters,
                                                         bool cold_start) {
  actors::controller_recovery recovery;
  auto locations = state_locations(cfg.state_save_location);
  if (locations.empty())
    config::log().warn(
        "StateSaveLocation=none: nothing is saved, a restart forgets every job and node state");
  if (cold_start) {
    config::log().info("cold start: saved state ignored locations={}", cfg.state_save_location);
  } else {
    auto loaded = state::load(locations);
    if (!loaded)
      return make_error(errc::system_error,
                        "cannot recover the saved state: " + describe(loaded.error()) +
                            " (shoalctld -c starts cold, forgetting it)");
    config::log().info(
        "saved state loaded locations={} generation={} snapshot_records={} journal_records={} "
        "ms={}",
        cfg.state_save_location, loaded->generation, loaded->snapshot_records,
        loaded->journal_records,
        std::chrono::duration_cast<std::chrono::milliseconds>(loaded->elapsed).count());
    for (auto& w : loaded->warnings) config::log().warn("saved state: {}", w);
    recovery.saved = std::move(loaded->records);
  }
  recovery.open_store = store_opener(cfg, locations);
  actors::state_keeper_settings keeping;
  keeping.locations = std::move(locations);
  keeping.meters = meters;
  // Starting, the keeper writes what was recovered (nothing, after -c) as a new generation.
  recovery.keeper = actors::spawn_state_keeper(sys, keeping, recovery.saved);
  return recovery;
}

/// Under auth/munge, the actor that signs launches and checks registrations (node daemons prove
/// themselves as the controller's clients do); none under auth/none.
actors::daemon_gate_actor spawn_gate(caf::actor_system& sys, const config::cluster_config& cfg) {
  if (!cfg.auth.munge) return {};
  actors::daemon_credentials creds;
  creds.sign_launch = [auth = cfg.auth](msg::launch_request& req) {
    return sign_launch(auth, req);
  };
  creds.sign_signal = [auth = cfg.auth](uint64_t job, uint32_t step, int32_t signo) {
    return sign_signal(auth, job, step, signo);
  };
  creds.check_registration = [auth = cfg.auth, trusted = daemon_uids(cfg)](
                                 msg::machine_status& status, const msg::node_report& report) {
    return verify_registration(auth, trusted, status, report);
  };
  return actors::spawn_daemon_gate(sys, std::move(creds));
}

}  // namespace

caf::expected<controller_instance> bring_up_controller(
    caf::actor_system& sys, const config::cluster_config& cfg, metrics::registry* meters,
    const std::string& metrics_address, const policy::access_rules& access, bool cold_start) {
  // A fresh plugin per stint in control: nothing of a previous controller's allocations
  // carries over.
  auto interconnect = interconnect::make_switch_manager(cfg.switch_type, cfg.switch_parameters);
  if (!interconnect)
    return make_error(errc::invalid_config, cfg.path + ": " + describe(interconnect.error()));
  auto recovery = recover_state(sys, cfg, meters, cold_start);
  if (!recovery) return std::move(recovery.error());
  controller_instance out;
  out.keeper = caf::actor_cast<caf::actor>(recovery->keeper);
  // A dynamic handle: clients (the CLI, shoald) hold it as caf::actor.
  out.controller = caf::actor_cast<caf::actor>(actors::spawn_controller(
      sys, cfg, meters, std::shared_ptr<interconnect::switch_manager>{std::move(*interconnect)},
      std::move(*recovery), spawn_gate(sys, cfg), access));
  if (meters && cfg.metrics_port != 0) {
    out.endpoint = std::make_unique<metrics_server>(*meters);
    if (auto err = out.endpoint->start(metrics_address, cfg.metrics_port)) {
      // The controller serves the cluster without its /metrics: it goes on, but says which key
      // to fix. (Its own ports, SlurmctldPort and the front door's, stop it: runtime/ctld/
      // failover.cpp.)
      config::log().error(
          "metrics endpoint not started port={}: {}; the port comes from MetricsPort= in {} ({} "
          "when not set): choose a free one, or MetricsPort=0 for none; running on without "
          "/metrics",
          cfg.metrics_port, describe(err), cfg.path, config::defaults::metrics_port);
      out.endpoint.reset();
    } else {
      config::log().info("metrics endpoint url=http://{}:{}/metrics", metrics_address,
                         cfg.metrics_port);
    }
  }
  return out;
}

void bring_down_controller(controller_instance& instance) {
  if (instance.controller) caf::anon_send_exit(instance.controller, caf::exit_reason::kill);
  instance.controller = nullptr;
  if (instance.keeper) {
    caf::scoped_actor self{instance.keeper->home_system()};
    self->monitor(instance.keeper);
    self->send_exit(instance.keeper, caf::exit_reason::kill);
    self->receive([](const caf::down_msg&) {},
                  caf::after(std::chrono::seconds{5}) >>
                      [] { config::log().warn("state keeper slow to stop"); });
  }
  instance.keeper = nullptr;
  instance.endpoint.reset();
}

}  // namespace shoal::runtime
