#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include "config/config_parser.hpp"
#include "config/duration.hpp"
#include "config/log_settings.hpp"
#include "config/mpi_type.hpp"
#include "policy/gres.hpp"
#include "policy/licenses.hpp"
#include "topology/hostlist.hpp"

namespace shoal::config::parsing {

namespace {

/// Keys of Slurm's slurm.conf that shoal reads without acting on them.
constexpr std::string_view compat_keys[] = {
    "proctracktype", "taskplugin", "slurmctldpidfile", "slurmdpidfile", "jobcomptype", "slurmdport",
};

/// NAME, NAME(ADDRESS) or NAME(ADDRESS:PORT); the port stays 0 when not given. An address with
/// more than one ':' is IPv6 and has no port. Nothing (an invalid form) for anything else.
std::optional<controller_host> parse_controller_host(const std::string& text) {
  controller_host host;
  auto open = text.find('(');
  if (open == std::string::npos) {
    if (text.empty() || text.find(')') != std::string::npos) return std::nullopt;
    host.name = host.address = text;
    return host;
  }
  if (open == 0 || text.back() != ')' || text.size() - open < 3) return std::nullopt;
  host.name = text.substr(0, open);
  host.address = text.substr(open + 1, text.size() - open - 2);
  auto colon = host.address.find(':');
  if (colon != std::string::npos && colon == host.address.rfind(':')) {
    // 65534 at most: the port after it is the controller's front door for the CLI.
    auto port = cs::parse_unsigned(std::string_view{host.address}.substr(colon + 1), 65534);
    if (!port || *port == 0 || colon == 0) return std::nullopt;
    host.port = static_cast<uint16_t>(*port);
    host.address.resize(colon);
  }
  if (host.address.find_first_of("()") != std::string::npos) return std::nullopt;
  return host;
}

/// What a key group returns for one of its keys read without error (nothing: not its key).
const std::optional<shoal::error> accepted{shoal::error{}};

}  // namespace

// -- main keys ------------------------------------------------------------------------------------

shoal::error parser::on_main_key(const cs::pair& p, const where& at, int depth) {
  const auto& k = p.lower;
  const auto& v = p.value;
  if (k == "nodename" || k == "name" || k == "partitionname")
    return fail(at, "'" + p.key + "' must be the first key on its line");
  for (auto group : {&parser::controller_key, &parser::access_key, &parser::daemon_key,
                     &parser::logging_key, &parser::resource_key})
    if (auto handled = (this->*group)(p, at)) return *handled;
  if (k == "nodespecconf") return include(p, at, depth, true, cfg_.node_spec_conf);
  if (k == "partitionconf") return include(p, at, depth, false, cfg_.partition_conf);
  std::string power_error;
  std::vector<std::string> power_warnings;
  if (apply_power_key(cfg_.power, k, v, power_error, power_warnings)) {
    if (!power_error.empty())
      return fail(at, "invalid value '" + v + "' for " + p.key + ": " + power_error);
    for (const auto& w : power_warnings) warn(at, w);
    if (k == "suspendexcnodes") mark(exc_nodes_, p, at);
    if (k == "suspendexcparts") mark(exc_parts_, p, at);
    return {};
  }
  std::string accounting_error;
  if (apply_accounting_key(cfg_.accounting, k, v, accounting_error)) {
    if (!accounting_error.empty())
      return fail(at, "invalid value '" + v + "' for " + p.key + ": " + accounting_error);
    return {};
  }
  std::string prolog_error;
  if (apply_prolog_key(cfg_.prologs, k, v, prolog_error)) {
    if (!prolog_error.empty())
      return fail(at, "invalid value '" + v + "' for " + p.key + ": " + prolog_error);
    return {};
  }
  std::string health_error;
  if (apply_health_key(cfg_.health, k, v, health_error)) {
    if (!health_error.empty())
      return fail(at, "invalid value '" + v + "' for " + p.key + ": " + health_error);
    return {};
  }
  std::string scheduling_error;
  if (apply_scheduler_key(cfg_.scheduling, k, v, scheduling_error)) {
    if (!scheduling_error.empty())
      return fail(at, "invalid value '" + v + "' for " + p.key + ": " + scheduling_error);
    if (k == "preemptmode") mark(preempt_mode_, p, at);
    return {};
  }
  // The seed names the daemons' binaries here; shoal's are found by the installer.
  if (k == "machstatusmanager" || k == "machstatusdaemon") return {};
  if (contains(compat_keys, k)) {
    warn(at, "key '" + p.key + "' is accepted for Slurm compatibility and has no effect");
    return {};
  }
  return unknown_key(at, p, key_set::main);
}

std::optional<shoal::error> parser::controller_key(const cs::pair& p, const where& at) {
  const auto& k = p.lower;
  const auto& v = p.value;
  if (k == "slurmctldhost" || k == "controlmachine" || k == "backupcontroller") {
    auto host = parse_controller_host(v);
    if (!host) {
      if (v.empty()) return fail(at, p.key + " needs a host name");
      return bad_value(at, p, p.key, "NAME, NAME(ADDRESS) or NAME(ADDRESS:PORT)");
    }
    (k == "backupcontroller" ? backup_hosts_ : primary_hosts_).push_back(std::move(*host));
    return accepted;
  }
  if (k == "slurmctldtimeout" || k == "messagetimeout") {
    auto seconds = cs::parse_unsigned(v, 65535);
    if (!seconds || *seconds == 0) return bad_value(at, p, p.key, "whole seconds, 1 or more");
    (k == "slurmctldtimeout" ? cfg_.slurmctld_timeout_s : cfg_.message_timeout_s) =
        static_cast<int64_t>(*seconds);
    return accepted;
  }
  if (k == "slurmctldport" || k == "machstatusport") {
    auto dash = v.find('-');
    // 65534 at most: the port after it is the controller's front door for the CLI.
    auto first = cs::parse_unsigned(std::string_view{v}.substr(0, dash), 65534);
    bool ok = first && *first > 0;
    if (ok && dash != std::string::npos) {
      auto last = cs::parse_unsigned(std::string_view{v}.substr(dash + 1), 65535);
      ok = last && *last >= *first;
    }
    if (!ok)
      return bad_value(at, p, p.key,
                       "a port 1-65534 (the CLI's front door takes the one after it), or a range "
                       "such as 6817-6818");
    cfg_.controller_port = static_cast<uint16_t>(*first);
    return accepted;
  }
  if (k == "metricsport") {
    auto port = cs::parse_unsigned(v, 65535);
    if (!port) return bad_value(at, p, p.key, "a port 1-65535, or 0 for none");
    cfg_.metrics_port = static_cast<uint16_t>(*port);
    return accepted;
  }
  if (k == "nodemetricsport") {
    auto port = cs::parse_unsigned(v, 65535);
    if (!port) return bad_value(at, p, p.key, "a port 1-65535, or 0 for none");
    cfg_.node_metrics_port = static_cast<uint16_t>(*port);
    return accepted;
  }
  if (k == "controllerlisten") {
    auto where = cs::to_lower(v);
    if (where != "line" && where != "all")
      return bad_value(at, p, p.key,
                       "line (its SlurmctldHost address, the default) or all (every address)");
    cfg_.listen_all = where == "all";
    return accepted;
  }
  return std::nullopt;
}

std::optional<shoal::error> parser::access_key(const cs::pair& p, const where& at) {
  const auto& k = p.lower;
  const auto& v = p.value;
  if (k == "adminusers") {
    cfg_.admin_users.clear();
    for (auto& name : split_list(v)) {
      if (name.empty()) return bad_value(at, p, p.key, "a comma-separated list of user names");
      cfg_.admin_users.push_back(std::move(name));
    }
    return accepted;
  }
  if (k == "authtype") {
    auto type = cs::to_lower(v);
    if (type != "auth/munge" && type != "auth/none")
      return bad_value(at, p, p.key, "auth/munge or auth/none");
    cfg_.auth.munge = type == "auth/munge";
    return accepted;
  }
  if (k == "authinfo") return auth_info(p, at);
  if (k == "authalttypes") {
    cfg_.auth.jwt = false;
    for (const auto& word : split_list(v)) {
      if (cs::to_lower(word) != "auth/jwt")
        return bad_value(at, p, p.key, "auth/jwt (the only alternative shoal has)");
      cfg_.auth.jwt = true;
    }
    return accepted;
  }
  if (k == "authaltparameters") return auth_alt_parameters(p, at);
  if (k == "slurmuser") {
    cfg_.slurm_user = v;
    return accepted;
  }
  if (k == "privatedata") {
    // Slurm's list (accounts, events, jobs, nodes, ...): shoal hides jobs; the rest are public.
    cfg_.private_jobs = false;
    for (const auto& word : split_list(v)) {
      auto w = cs::to_lower(word);
      if (w == "jobs")
        cfg_.private_jobs = true;
      else if (w != "none")
        warn(at, "PrivateData=" + word + " has no effect (shoal hides only jobs)");
    }
    return accepted;
  }
  return std::nullopt;
}

std::optional<shoal::error> parser::daemon_key(const cs::pair& p, const where& at) {
  const auto& k = p.lower;
  const auto& v = p.value;
  if (k == "collectmetrics" || k == "slurmenv") {
    auto on = cs::parse_yes_no(v);
    if (!on) return bad_value(at, p, p.key, "YES or NO");
    (k == "slurmenv" ? cfg_.slurm_env : cfg_.collect_metrics) = *on;
    return accepted;
  }
  if (k == "heartbeatinterval" || k == "slurmdtimeout" || k == "heartbeattimeout") {
    auto ms = parse_seconds_as_ms(v);
    if (!ms) return bad_value(at, p, p.key, "seconds, such as 30 or 0.5");
    if (k == "heartbeatinterval") {
      if (*ms <= 0) return fail(at, p.key + " must be greater than 0");
      cfg_.heartbeat_interval_ms = *ms;
      mark(interval_, p, at);
    } else {
      cfg_.heartbeat_timeout_ms = *ms;
      mark(timeout_, p, at);
    }
    return accepted;
  }
  if (k == "killwait") {
    auto s = cs::parse_unsigned(v, 1'000'000'000);
    if (!s) return bad_value(at, p, p.key, "whole seconds, 0 or more");
    cfg_.kill_wait_s = static_cast<int64_t>(*s);
    return accepted;
  }
  if (k == "slurmdparameters") {
    // Slurm's words; only config_overrides changes anything here.
    std::istringstream words{v};
    for (std::string w; std::getline(words, w, ',');) {
      if (w == "config_overrides")
        cfg_.config_overrides = true;
      else if (w != "shutdown_on_reboot" && w != "l3cache_as_socket" && w != "allow_ecores" &&
               w != "numa_node_as_socket" && !w.empty())
        return bad_value(at, p, p.key, "config_overrides (Slurm's other words are accepted)");
    }
    return accepted;
  }
  if (k == "pmixtimeout") {
    // Slurm reads it from mpi.conf; shoal takes it here, beside the other timeouts.
    auto s = cs::parse_unsigned(v, 1'000'000);
    if (!s || *s == 0) return bad_value(at, p, p.key, "whole seconds, 1 or more");
    cfg_.pmi_timeout_s = static_cast<int64_t>(*s);
    return accepted;
  }
  if (k == "minjobage") {
    // Slurm's 0 (never forget a job) would grow the controller without bound: not offered.
    auto s = cs::parse_unsigned(v, 1'000'000'000);
    if (!s || *s == 0) return bad_value(at, p, p.key, "whole seconds, 1 or more");
    cfg_.min_job_age_s = static_cast<int64_t>(*s);
    return accepted;
  }
  if (k == "returntoservice") {
    auto n = cs::parse_unsigned(v, 9);
    if (!n || *n > 2) return bad_value(at, p, "ReturnToService", "0, 1 or 2");
    cfg_.return_to_service = static_cast<uint8_t>(*n);
    return accepted;
  }
  if (k == "statesavelocation" || k == "tmpfs" || k == "slurmdspooldir") {
    if (v.empty()) return fail(at, p.key + " needs a directory");
    (k == "tmpfs"            ? cfg_.tmp_fs
     : k == "slurmdspooldir" ? cfg_.node_spool_dir
                             : cfg_.state_save_location) = v;
    return accepted;
  }
  return std::nullopt;
}

std::optional<shoal::error> parser::logging_key(const cs::pair& p, const where& at) {
  const auto& k = p.lower;
  const auto& v = p.value;
  if (k == "slurmctldlogfile") {
    cfg_.ctld_log_file = v;
    return accepted;
  }
  if (k == "slurmdlogfile") {
    cfg_.node_log_file = v;
    return accepted;
  }
  if (k == "slurmctlddebug" || k == "slurmddebug" || k == "slurmctldsyslogdebug" ||
      k == "slurmdsyslogdebug") {
    bool syslog = k == "slurmctldsyslogdebug" || k == "slurmdsyslogdebug";
    if (!(syslog && v.empty()) && !parse_debug_level(v))
      return bad_value(at, p, p.key, debug_level_choices);
    auto level = cs::to_lower(v);
    if (k == "slurmctlddebug")
      cfg_.ctld_debug = level;
    else if (k == "slurmddebug")
      cfg_.node_debug = level;
    else  // empty: no syslog
      (k == "slurmctldsyslogdebug" ? cfg_.ctld_syslog_debug : cfg_.node_syslog_debug) = level;
    return accepted;
  }
  if (k == "debugflags" || k == "machstatusdebug") {
    auto flags = parse_debug_flags(v);
    if (!flags) return fail(at, p.key + ": " + describe(flags.error()));
    cfg_.debug_flags = *flags;
    return accepted;
  }
  if (k == "logtimeformat") {
    auto pattern = log_line_pattern(v);
    if (!pattern) return fail(at, describe(pattern.error()));
    cfg_.log_time_format = v;
    return accepted;
  }
  if (k == "logfilemaxsize") {
    auto size = parse_byte_size(v);
    if (!size) return bad_value(at, p, p.key, "bytes such as 1048576, 512K, 100M, or 0 for none");
    cfg_.log_file_max_size = *size;
    return accepted;
  }
  if (k == "logfilecount") {
    auto count = cs::parse_unsigned(v, 1000);
    if (!count || *count == 0) return bad_value(at, p, p.key, "a number of files from 1 to 1000");
    cfg_.log_file_count = static_cast<uint32_t>(*count);
    return accepted;
  }
  return std::nullopt;
}

std::optional<shoal::error> parser::resource_key(const cs::pair& p, const where& at) {
  const auto& k = p.lower;
  const auto& v = p.value;
  if (k == "selecttype") {
    auto type = cs::to_lower(v);
    cfg_.scheduling.consumable = false;
    cfg_.torus3d = false;
    if (type == "select/linear") {
      cfg_.select_type = topology::selection_policy::linear;
    } else if (type == "select/consecutive") {
      cfg_.select_type = topology::selection_policy::consecutive;
    } else if (type == "select/cons_tres" || type == "select/cons_res") {
      cfg_.scheduling.consumable = true;
    } else if (type == "select/torus3d" || type == "select/bluegene") {
      cfg_.torus3d = true;
    } else {
      return fail(at, p.key + " '" + v +
                          "' is not supported (supported: select/linear, select/consecutive, "
                          "select/cons_tres, select/torus3d)");
    }
    mark(select_, p, at);
    return accepted;
  }
  if (k == "switchtype") {
    if (v.empty()) return fail(at, p.key + " needs a value such as switch/none");
    cfg_.switch_type = v;
    return accepted;
  }
  if (k == "mpidefault") {
    auto kind = classify_mpi_type(v);
    if (kind == mpi_type_kind::unknown)
      return fail(at, p.key + " '" + v +
                          "' is not an MPI type of Slurm's (none, pmi2, pmix, pmix_v1 to pmix_v5, "
                          "cray_shasta, openmpi)");
    if (kind == mpi_type_kind::not_serving)
      warn(at, p.key + "=" + v +
                   ": shoal runs no PMI server of that type, so steps start as with none "
                   "(pmix and pmix_v4 serve Open MPI, pmi2 MPICH; docs/mpi.md)");
    cfg_.mpi_default = v;
    return accepted;
  }
  if (k == "switchparameters") {
    cfg_.switch_parameters = v;
    return accepted;
  }
  if (k == "mailprog") {
    // Slurm's default, /bin/mail, is left out on purpose: a test cluster sends no mail unasked.
    if (v.empty()) return fail(at, p.key + " needs a program such as /usr/bin/mail");
    cfg_.mail_prog = v;
    return accepted;
  }
  if (k == "clustername") {
    if (v.empty()) return fail(at, p.key + " needs a name");
    cfg_.cluster_name = v;
    return accepted;
  }
  if (k == "collectornodes") {
    auto names = topology::expand_hostlist(v);
    if (!names) return bad_value(at, p, p.key, "a hostlist: " + describe(names.error()));
    cfg_.collector_nodes = std::move(*names);
    mark(collectors_, p, at);
    return accepted;
  }
  if (k == "grestypes") {
    cfg_.gres_types.clear();
    if (cs::to_lower(v) == "none" || v.empty()) return accepted;
    for (auto& name : split_list(v)) {
      auto parsed = policy::parse_gres(name);
      if (!parsed || parsed->size() != 1 || name.find(':') != std::string::npos)
        return bad_value(at, p, p.key, "generic resource names separated by commas, such as gpu");
      cfg_.gres_types.push_back(std::move(name));
    }
    return accepted;
  }
  if (k == "gresconf") {
    if (v.empty()) return fail(at, p.key + " needs a file path");
    cfg_.gres_conf = v;
    mark(gres_conf_, p, at);
    return accepted;
  }
  if (k == "licenses") {
    auto list = policy::parse_licenses(v);
    if (!list)
      return bad_value(at, p, "Licenses",
                       "NAME[:COUNT] items separated by commas, such as fluent:30");
    cfg_.licenses = std::move(*list);
    return accepted;
  }
  if (k == "defaultpartition") {
    default_partition_name_ = v;
    mark(default_partition_, p, at);
    return accepted;
  }
  return std::nullopt;
}

/// AuthInfo=socket=PATH[,ttl=N,...]: Slurm's options for auth/munge; shoal reads the socket.
shoal::error parser::auth_info(const cs::pair& p, const where& at) {
  for (const auto& option : split_list(p.value)) {
    auto eq = option.find('=');
    auto name = cs::to_lower(option.substr(0, eq));
    auto value = eq == std::string::npos ? std::string{} : option.substr(eq + 1);
    if (name == "socket") {
      if (value.empty()) return bad_value(at, p, p.key, "socket=PATH (munged's socket)");
      cfg_.auth.munge_socket = value;
    } else if (!option.empty()) {
      warn(at, "AuthInfo option '" + option + "' has no effect (shoal reads socket=)");
    }
  }
  return {};
}

/// AuthAltParameters=jwt_key=PATH[,...]: where auth/jwt's HS256 key is. Slurm's other options
/// (jwks=, userclaimfield=, disable_token_creation) have no effect here.
shoal::error parser::auth_alt_parameters(const cs::pair& p, const where& at) {
  for (const auto& option : split_list(p.value)) {
    auto eq = option.find('=');
    auto name = cs::to_lower(option.substr(0, eq));
    auto value = eq == std::string::npos ? std::string{} : option.substr(eq + 1);
    if (name == "jwt_key") {
      if (value.empty() || value.front() != '/')
        return bad_value(at, p, p.key, "jwt_key=PATH (an absolute path to the HS256 key)");
      cfg_.auth.jwt_key_path = value;
    } else if (!option.empty()) {
      warn(at, "AuthAltParameters option '" + option + "' has no effect (shoal reads jwt_key=)");
    }
  }
  return {};
}

}  // namespace shoal::config::parsing
