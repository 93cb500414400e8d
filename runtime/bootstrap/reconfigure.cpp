#include "runtime/bootstrap/reconfigure.hpp"

#include <string>
#include <utility>
#include <vector>

#include "config/config_diff.hpp"
#include "config/log.hpp"
#include "config/log_settings.hpp"
#include "messages/errc.hpp"
#include "runtime/bootstrap/controller_client.hpp"

namespace shoal::runtime {

namespace {

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ",") + w;
  return out.empty() ? "none" : out;
}

/// The other daemon's own settings: this one neither applies nor waits for them.
bool belongs_to_the_other_daemon(const std::string& key, daemon_role role) {
  const bool node_key = key.rfind("Slurmd", 0) == 0;
  const bool controller_key = key.rfind("Slurmctld", 0) == 0 && key != "SlurmctldHost" &&
                              key != "SlurmctldPort" && key != "SlurmctldTimeout";
  return role == daemon_role::controller ? node_key : controller_key;
}

}  // namespace

reconfigurer::reconfigurer(config::cluster_config in_force, daemon_role role)
    : in_force_(std::move(in_force)), role_(role) {}

void reconfigurer::operator()() {
  (void)run();
}

shoal::expected<reread> reconfigurer::run() {
  std::lock_guard<std::mutex> one_at_a_time{mutex_};
  auto& log = config::log();
  const char* daemon = role_ == daemon_role::controller ? "shoalctld" : "shoald";
  if (in_force_.path.empty()) {
    log.warn(
        "reconfigure: {} runs on the embedded default configuration; there is no file to "
        "read again",
        daemon);
    return error(errc::invalid_request, std::string{daemon} +
                                            " runs on the embedded default configuration; "
                                            "there is no file to read again");
  }
  auto fresh = load_cluster_config(in_force_.path);
  if (!fresh) {
    log.error("reconfigure: {}; the configuration in force stays", describe(fresh.error()));
    return error(errc::invalid_config,
                 describe(fresh.error()) + "; the configuration in force stays");
  }
  for (const auto& w : fresh->warnings) log.warn("config warning: {}", w);
  const bool controller = role_ == daemon_role::controller;
  const std::string level_key = controller ? "SlurmctldDebug" : "SlurmdDebug";
  std::vector<std::string> applied;
  std::vector<std::string> waiting;
  for (const auto& key : config::changed_keys(in_force_, *fresh)) {
    if (key == level_key) {
      auto& in_force = controller ? in_force_.ctld_debug : in_force_.node_debug;
      in_force = controller ? fresh->ctld_debug : fresh->node_debug;
      // The file parsed, so its level is one of the names or numbers parse_debug_level takes.
      if (auto level = config::parse_debug_level(in_force)) config::set_log_level(*level);
      applied.push_back(key + "=" + in_force);
    } else if (key == "DebugFlags") {
      in_force_.debug_flags = fresh->debug_flags;
      config::set_debug_flags(fresh->debug_flags);
      applied.push_back(key + "=" + config::render_debug_flags(fresh->debug_flags));
    } else if (controller && (key == "NodeName" || key == "PartitionName")) {
      continue;  // the controller's to apply: reread::fresh
    } else if (!belongs_to_the_other_daemon(key, role_)) {
      waiting.push_back(key);
    }
  }
  log.info("reconfigure file={} applied={} restart_needed={}", in_force_.path, joined(applied),
           joined(waiting));
  if (!waiting.empty())
    log.warn(
        "reconfigure: {} changed in {}; restart {} to apply (a reconfigure applies the debug "
        "level and DebugFlags only: docs/operations.md)",
        joined(waiting), in_force_.path, daemon);
  reread out;
  out.text = "applied=" + joined(applied) + " restart_needed=" + joined(waiting);
  if (controller) out.fresh = std::make_shared<const config::cluster_config>(std::move(*fresh));
  return out;
}

}  // namespace shoal::runtime
