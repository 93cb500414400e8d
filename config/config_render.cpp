// render_config and default_config_text: the config written back as text.

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/config.hpp"
#include "config/config_lines.hpp"
#include "config/config_syntax.hpp"
#include "config/duration.hpp"
#include "policy/gres.hpp"
#include "topology/hostlist.hpp"

namespace shoal::config {

namespace {

namespace cs = config_syntax;

}  // namespace

bool same_node_settings(const node_config& a, const node_config& b) {
  auto addr = [](const node_config& n) { return n.address == n.name ? std::string{} : n.address; };
  return addr(a) == addr(b) && a.cpus == b.cpus && a.sockets == b.sockets &&
         a.cores_per_socket == b.cores_per_socket && a.threads_per_core == b.threads_per_core &&
         a.speed == b.speed && a.real_memory_mb == b.real_memory_mb &&
         a.virtual_memory_mb == b.virtual_memory_mb && a.tmp_disk_mb == b.tmp_disk_mb &&
         a.os == b.os && a.weight == b.weight && a.features == b.features &&
         a.simulate == b.simulate && a.initial_state == b.initial_state && a.gres == b.gres;
}

namespace {

/// One NodeName= line for `names`, all set like `n`. Fields at their defaults are left out.
/// Partition membership is written on the PartitionName= lines instead.
std::string node_line(const std::vector<std::string>& names, const node_config& n) {
  std::string out = "NodeName=" + cs::quote_if_needed(topology::compress_hostlist(names));
  auto add = [&](const char* key, const std::string& value) {
    out += ' ';
    out += key;
    out += '=';
    out += cs::quote_if_needed(value);
  };
  if (n.address != n.name) add("NodeAddr", n.address);
  if (n.cpus != 0) add("CPUs", std::to_string(n.cpus));
  if (n.sockets != 0) add("Sockets", std::to_string(n.sockets));
  if (n.cores_per_socket != 0) add("CoresPerSocket", std::to_string(n.cores_per_socket));
  if (n.threads_per_core != 0) add("ThreadsPerCore", std::to_string(n.threads_per_core));
  if (n.speed != 0) add("Speed", cs::format_decimal(n.speed));
  if (n.real_memory_mb != 0) add("RealMemory", std::to_string(n.real_memory_mb));
  if (n.virtual_memory_mb != 0) add("VirtualMemory", std::to_string(n.virtual_memory_mb));
  if (n.tmp_disk_mb != 0) add("TmpDisk", std::to_string(n.tmp_disk_mb));
  if (!n.os.empty()) add("OS", n.os);
  if (n.weight != 1) add("Weight", std::to_string(n.weight));
  if (!n.features.empty()) add("Features", n.features);
  if (!n.gres.empty()) {
    policy::gres_list items;
    for (const auto& g : n.gres) items.push_back({g.name, g.type, g.count});
    add("Gres", policy::gres_text(items));
  }
  if (!n.initial_state.empty()) add("State", n.initial_state);
  if (n.simulate) add("Simulate", "YES");
  return out;
}

}  // namespace

std::string partition_line(const partition_config& p) {
  std::string out = "PartitionName=" + cs::quote_if_needed(p.name);
  out += " Nodes=" + cs::quote_if_needed(topology::compress_hostlist(p.nodes));
  out += p.is_default ? " Default=YES" : " Default=NO";
  out += " MaxTime=" + format_duration(p.max_time_s);
  if (p.default_time_s >= 0) out += " DefaultTime=" + format_duration(p.default_time_s);
  out += " State=" + p.state;
  out += " MaxNodes=" + (p.max_nodes == 0 ? std::string{"UNLIMITED"} : std::to_string(p.max_nodes));
  out += " PriorityTier=" + std::to_string(p.priority);
  if (p.job_factor != 1) out += " PriorityJobFactor=" + std::to_string(p.job_factor);
  if (auto mode = over_subscribe_text(p); mode != "NO") out += " OverSubscribe=" + mode;
  if (p.power.suspend_time_s) out += " SuspendTime=" + suspend_time_text(*p.power.suspend_time_s);
  if (p.power.suspend_timeout_s)
    out += " SuspendTimeout=" + std::to_string(*p.power.suspend_timeout_s);
  if (p.power.resume_timeout_s)
    out += " ResumeTimeout=" + std::to_string(*p.power.resume_timeout_s);
  if (p.power_down_on_idle) out += " PowerDownOnIdle=YES";
  if (p.preempt_mode) out += std::string{" PreemptMode="} + policy::to_string(*p.preempt_mode);
  if (p.grace_time_s != 0) out += " GraceTime=" + std::to_string(p.grace_time_s);
  return out;
}

std::string controller_host_text(const controller_host& host, const cluster_config& cfg) {
  bool own_port = host.port != 0 && host.port != cfg.controller_port;
  if (host.address == host.name && !own_port) return host.name;
  auto out = host.name + "(" + host.address;
  if (own_port) out += ":" + std::to_string(host.port);
  return out + ")";
}

std::string over_subscribe_text(const partition_config& p) {
  if (p.exclusive) return "EXCLUSIVE";
  if (p.force) return "FORCE:" + std::to_string(p.oversubscribe);
  if (p.oversubscribe > 1) return "YES:" + std::to_string(p.oversubscribe);
  return "NO";
}

std::string render_config(const cluster_config& cfg) {
  std::vector<std::pair<std::string, std::string>> keys;
  auto add = [&](const char* key, const std::string& value) {
    keys.emplace_back(key, cs::quote_if_needed(value));
  };
  // Alphabetical, as `scontrol show config` prints them.
  const auto& acct = cfg.accounting;
  add("AccountingStorageEnforce", enforce_text(acct));
  if (!acct.host.empty()) add("AccountingStorageHost", acct.host);
  if (acct.type == accounting_storage::sqlite)
    add("AccountingStorageLoc", sqlite_path(acct, cfg.state_save_location));
  else if (acct.type == accounting_storage::postgres && !acct.location.empty())
    add("AccountingStorageLoc", acct.location);
  if (acct.port != 0) add("AccountingStoragePort", std::to_string(acct.port));
  add("AccountingStorageType", to_string(acct.type));
  if (!acct.user.empty()) add("AccountingStorageUser", acct.user);
  if (!cfg.admin_users.empty()) {
    std::string names;
    for (const auto& n : cfg.admin_users) names += (names.empty() ? "" : ",") + n;
    add("AdminUsers", names);
  }
  add("AuthInfo", "socket=" + cfg.auth.munge_socket);
  if (cfg.auth.jwt) {
    add("AuthAltParameters", "jwt_key=" + jwt_key_path(cfg));
    add("AuthAltTypes", "auth/jwt");
  }
  add("AuthType", cfg.auth.munge ? "auth/munge" : "auth/none");
  add("ClusterName", cfg.cluster_name);
  add("CollectMetrics", cfg.collect_metrics ? "YES" : "NO");
  add("CollectorNodes", topology::compress_hostlist(cfg.collector_nodes));
  add("ControllerListen", cfg.listen_all ? "all" : "line");
  add("DebugFlags", render_debug_flags(cfg.debug_flags));
  if (!cfg.gres_types.empty()) {
    std::string names;
    for (const auto& n : cfg.gres_types) names += (names.empty() ? "" : ",") + n;
    add("GresTypes", names);
  }
  add("HeartBeatInterval", cs::format_ms_as_seconds(cfg.heartbeat_interval_ms));
  add("KillWait", std::to_string(cfg.kill_wait_s));
  if (!cfg.licenses.empty()) add("Licenses", policy::licenses_text(cfg.licenses));
  add("LogFileCount", std::to_string(cfg.log_file_count));
  add("LogFileMaxSize", std::to_string(cfg.log_file_max_size));
  add("LogTimeFormat", cfg.log_time_format);
  if (!cfg.mail_prog.empty()) add("MailProg", cfg.mail_prog);
  add("MessageTimeout", std::to_string(cfg.message_timeout_s));
  add("MinJobAge", std::to_string(cfg.min_job_age_s));
  add("MpiDefault", cfg.mpi_default);
  add("MetricsPort", std::to_string(cfg.metrics_port));
  add("PMIxTimeout", std::to_string(cfg.pmi_timeout_s));
  if (cfg.config_overrides) add("SlurmdParameters", "config_overrides");
  add("NodeMetricsPort", std::to_string(cfg.node_metrics_port));
  add("PrivateData", cfg.private_jobs ? "jobs" : "none");
  add("ReturnToService", std::to_string(cfg.return_to_service));
  add("SlurmEnv", cfg.slurm_env ? "YES" : "NO");
  if (!cfg.slurm_user.empty()) add("SlurmUser", cfg.slurm_user);
  add("SelectType", cfg.torus3d                                             ? "select/torus3d"
                    : cfg.scheduling.consumable                             ? "select/cons_tres"
                    : cfg.select_type == topology::selection_policy::linear ? "select/linear"
                                                                            : "select/consecutive");
  // A value holding '=' is quoted, or the parser would read `Key = a=b` as an empty Key.
  auto scheduler_keys = render_scheduler_keys(cfg.scheduling);
  auto power_keys = render_power_keys(cfg.power);
  scheduler_keys.insert(scheduler_keys.end(), power_keys.begin(), power_keys.end());
  auto prolog_keys = render_prolog_keys(cfg.prologs);
  scheduler_keys.insert(scheduler_keys.end(), prolog_keys.begin(), prolog_keys.end());
  auto health_keys = render_health_keys(cfg.health);
  scheduler_keys.insert(scheduler_keys.end(), health_keys.begin(), health_keys.end());
  for (auto& [key, value] : scheduler_keys)
    keys.emplace_back(key, value.find('=') != std::string::npos ? "\"" + value + "\""
                                                                : cs::quote_if_needed(value));
  std::stable_sort(keys.begin(), keys.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  add("SlurmctldDebug", cfg.ctld_debug);
  for (const auto& host : cfg.controller_hosts)
    add("SlurmctldHost", controller_host_text(host, cfg));
  add("SlurmctldLogFile", cfg.ctld_log_file);
  add("SlurmctldPort", std::to_string(cfg.controller_port));
  add("SlurmctldSyslogDebug", cfg.ctld_syslog_debug);
  add("SlurmctldTimeout", std::to_string(cfg.slurmctld_timeout_s));
  add("SlurmdDebug", cfg.node_debug);
  add("SlurmdLogFile", cfg.node_log_file);
  add("SlurmdSpoolDir", cfg.node_spool_dir);
  add("SlurmdSyslogDebug", cfg.node_syslog_debug);
  add("SlurmdTimeout", cs::format_ms_as_seconds(cfg.heartbeat_timeout_ms));
  add("StateSaveLocation", cfg.state_save_location);
  if (!cfg.switch_parameters.empty()) add("SwitchParameters", cfg.switch_parameters);
  add("SwitchType", cfg.switch_type);
  add("TmpFS", cfg.tmp_fs);
  // scontrol's "%-23s = %s": a longer key (AccountingStorageEnforce) pushes only its own value.
  constexpr size_t width = 23;
  std::string out = "Configuration data as of " + (cfg.path.empty() ? "<embedded>" : cfg.path);
  out += '\n';
  for (const auto& [key, value] : keys)
    out +=
        key + std::string(key.size() < width ? width - key.size() : 0, ' ') + " = " + value + '\n';
  // The included files' records are written out below, so reading them again would define
  // every node twice: name them in comments only.
  if (!cfg.node_spec_conf.empty())
    out += "# NodeSpecConf " + cfg.node_spec_conf + " was read: its nodes are listed below\n";
  if (!cfg.gres_conf.empty())
    out += "# gres.conf " + cfg.gres_conf + " was read: device files are not listed here\n";
  if (!cfg.partition_conf.empty())
    out += "# PartitionConf " + cfg.partition_conf + " was read: its partitions are listed below\n";
  for (size_t i = 0; i < cfg.nodes.size();) {
    std::vector<std::string> names{cfg.nodes[i].name};
    size_t j = i + 1;
    while (j < cfg.nodes.size() && same_node_settings(cfg.nodes[i], cfg.nodes[j]))
      names.push_back(cfg.nodes[j++].name);
    out += node_line(names, cfg.nodes[i]) + '\n';
    i = j;
  }
  for (const auto& p : cfg.partitions) out += partition_line(p) + '\n';
  return out;
}

std::string default_config_text(unsigned nodes, uint16_t port) {
  auto n = std::to_string(nodes);
  // Compressed as hostlists are: no bracket range over 65,536 names (Slurm's limit too).
  std::vector<std::string> all;
  all.reserve(nodes);
  for (unsigned i = 1; i <= nodes; ++i) all.push_back("node" + std::to_string(i));
  std::string names = topology::compress_hostlist(all);
  std::string out;
  out += "#\n";
  out += "# shoal: a local test cluster of " + n + " node daemon(s) on 127.0.0.1\n";
  out += "# (the embedded default; Slurm's slurm.conf syntax, see `shoal control show config`)\n";
  out += "#\n";
  out += "ClusterName=local\n";
  out += "# The controller (shoalctld) and the port the node daemons reach it on.\n";
  out += "SlurmctldHost=localhost(127.0.0.1)\n";
  out += "SlurmctldPort=" + std::to_string(port) + "\n";
  out += "# One user's cluster: requests are believed without a MUNGE credential (a production\n";
  out += "# cluster keeps Slurm's default, AuthType=auth/munge; docs/security.md).\n";
  out += "AuthType=auth/none\n";
  out += "#\n";
  out += "# Node daemons report every second; one silent for 5 seconds is marked DOWN.\n";
  out += "HeartBeatInterval=1\n";
  out += "SlurmdTimeout=5\n";
  out += "# A node DOWN for not responding is in service again once its daemon reports\n";
  out += "# (Slurm's default, 0, keeps it DOWN until `shoal control update ... state=resume`).\n";
  out += "ReturnToService=1\n";
  out += "# Seconds between SIGTERM and SIGKILL when a job is cancelled or times out.\n";
  out += "KillWait=2\n";
  out += "#\n";
  out += "SelectType=select/consecutive\n";
  out += "SwitchType=switch/none\n";
  out += "StateSaveLocation=/tmp/shoal-" + std::to_string(port) + "/state\n";
  out += "SlurmctldDebug=info\n";
  out += "SlurmdDebug=info\n";
  out += "#\n";
  out += "# Nodes report their CPUs and memory when they register.\n";
  if (nodes > 0) out += "NodeName=" + names + " NodeAddr=127.0.0.1\n";
  out += "PartitionName=debug Nodes=" + (nodes > 0 ? names : std::string{"\"\""}) +
         " Default=YES MaxTime=INFINITE State=UP\n";
  return out;
}

namespace {

/// The one key a config line sets, lower-cased; "" for a comment, a blank or bad line, a line of
/// several pairs and a repeatable key (each of whose lines adds, so none replaces another).
std::string single_key(std::string_view line) {
  auto parsed = cs::split_line(line);
  if (!parsed.error.empty() || parsed.pairs.size() != 1) return {};
  const auto& key = parsed.pairs.front().lower;
  static const char* const repeatable[] = {
      "slurmctldhost", "controlmachine", "backupcontroller", "nodename",     "name",
      "partitionname", "nodeset",        "include",          "nodespecconf", "partitionconf"};
  for (const char* r : repeatable)
    if (key == r) return {};
  return key;
}

}  // namespace

std::string merge_config_text(std::string base, const std::string& overrides) {
  std::vector<std::string> lines;
  for (size_t at = 0; at < base.size();) {
    auto end = base.find('\n', at);
    if (end == std::string::npos) end = base.size();
    lines.push_back(base.substr(at, end - at));
    at = end + 1;
  }
  for (size_t at = 0; at < overrides.size();) {
    auto end = overrides.find('\n', at);
    if (end == std::string::npos) end = overrides.size();
    auto line = overrides.substr(at, end - at);
    at = end + 1;
    auto key = single_key(line);
    bool replaced = false;
    if (!key.empty()) {
      for (auto it = lines.begin(); it != lines.end();) {
        if (single_key(*it) != key) {
          ++it;
        } else if (!replaced) {
          *it++ = line;
          replaced = true;
        } else {
          it = lines.erase(it);
        }
      }
    }
    if (!replaced) lines.push_back(std::move(line));
  }
  std::string out;
  for (auto& line : lines) out += line + '\n';
  return out;
}

std::string base_partition_name(const std::string& prefix, int x, int y, int z) {
  const char* digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  return prefix + digits[x] + digits[y] + digits[z];
}

std::string torus_config_text(const std::array<int, 3>& dims, uint16_t port) {
  auto text = default_config_text(0, port);
  auto box = "bgl[000x" + base_partition_name("", dims[0] - 1, dims[1] - 1, dims[2] - 1) + "]";
  auto size =
      std::to_string(dims[0]) + "x" + std::to_string(dims[1]) + "x" + std::to_string(dims[2]);
  auto replace = [&](const std::string& from, const std::string& to) {
    auto at = text.find(from);
    if (at != std::string::npos) text.replace(at, from.size(), to);
  };
  replace("a local test cluster of 0 node daemon(s)",
          "a local " + size + " torus of base partitions");
  replace("SelectType=select/consecutive\n",
          "# A 3-D torus: the grid comes from the node names (prefix + X, Y, Z digits).\n"
          "SelectType=select/torus3d\n");
  replace("Nodes=\"\"", "Nodes=" + box);
  replace("PartitionName=", "NodeName=" + box + " NodeAddr=127.0.0.1\nPartitionName=");
  return text;
}

}  // namespace shoal::config
