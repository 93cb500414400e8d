#include "config/config.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "config/config_syntax.hpp"
#include "config/duration.hpp"
#include "config/log_settings.hpp"
#include "config/partition_edit.hpp"
#include "messages/errc.hpp"
#include "policy/gres.hpp"
#include "topology/hostlist.hpp"

namespace shoal::config {

namespace {

namespace cs = config_syntax;
namespace fs = std::filesystem;

/// Seed partitions are numbered 0 to MAX_PARTITION.
constexpr uint64_t max_seed_partition = 31;

/// Keys of Slurm's slurm.conf that shoal reads without acting on them.
constexpr std::string_view compat_keys[] = {
    "proctracktype",    "taskplugin",    "mpidefault",  "returntoservice",
    "slurmctldpidfile", "slurmdpidfile", "jobcomptype", "accountingstoragetype",
    "slurmdport",
};

/// The items of a comma-separated list, blanks around each trimmed (empty items kept, so a
/// caller can refuse them).
std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  for (;;) {
    auto comma = text.find(',', start);
    auto item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    while (!item.empty() && cs::is_blank(item.back())) item.pop_back();
    while (!item.empty() && cs::is_blank(item.front())) item.erase(0, 1);
    items.push_back(std::move(item));
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

/// NodeName State= values: Slurm's, plus IDLE and the seed's DRAINING/DRAINED (stored as DRAIN).
constexpr std::string_view node_states[] = {
    "UNKNOWN", "IDLE", "DOWN", "DRAIN", "FAIL", "FAILING", "FUTURE", "CLOUD",
};

template <size_t N>
bool contains(const std::string_view (&list)[N], std::string_view word) {
  return std::find(std::begin(list), std::end(list), word) != std::end(list);
}

bool iequals(std::string_view a, std::string_view b) {
  return cs::to_lower(a) == cs::to_lower(b);
}

/// A place in a config file.
struct where {
  std::string file;
  int line = 0;

  std::string str() const { return file + ":" + std::to_string(line); }
};

shoal::error fail(const where& at, const std::string& what) {
  return shoal::error(errc::invalid_config, at.str() + ": " + what);
}

shoal::error bad_value(const where& at, const cs::pair& p, std::string_view canonical,
                       std::string_view expected) {
  return fail(at, "invalid value '" + p.value + "' for " + std::string{canonical} + " (expected " +
                      std::string{expected} + ")");
}

/// Reads a whole file; the error text is strerror.
bool read_file(const std::string& path, std::string& out, std::string& error) {
  errno = 0;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    error = std::strerror(errno != 0 ? errno : EIO);
    return false;
  }
  char buf[8192];
  size_t got = 0;
  while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, got);
  bool ok = std::ferror(f) == 0;
  if (!ok) error = std::strerror(errno != 0 ? errno : EIO);
  std::fclose(f);
  return ok;
}

bool path_exists(const fs::path& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

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

/// NodeName=DEFAULT state: settings for the node lines after it.
struct node_template {
  node_config cfg;
  std::string address_expr;   ///< NodeAddr=, a hostlist (one address, or one per node)
  std::string hostname_expr;  ///< NodeHostname=, used when NodeAddr= is absent
};

/// A partition while the config is being read.
struct partition_draft {
  partition_config cfg;
  std::string nodes_expr;       ///< Nodes= as written; "ALL" for every node
  size_t seq = 0;               ///< position in reading order
  bool from_line = false;       ///< defined by a PartitionName= line (not only by Partition= keys)
  std::vector<size_t> members;  ///< node indices
};

/// PartitionName=DEFAULT state.
struct partition_template {
  partition_config cfg;
  std::string nodes_expr;
};

/// A setting that is checked once everything is read.
struct deferred {
  std::string key;  ///< as the user wrote it
  where at;
  size_t seq = 0;
  bool set = false;
};

class parser {
 public:
  explicit parser(std::string base_dir, bool client_only = false)
      : base_dir_(std::move(base_dir)), client_only_(client_only) {}

  shoal::error parse_text(const std::string& text, const std::string& file, int depth) {
    size_t pos = 0;
    int line = 0;
    while (pos <= text.size()) {
      auto end = text.find('\n', pos);
      if (end == std::string::npos) end = text.size();
      ++line;
      auto view = std::string_view{text}.substr(pos, end - pos);
      if (auto err = on_line(view, where{file, line}, depth)) return err;
      pos = end + 1;
    }
    return {};
  }

  shoal::expected<cluster_config> finish();

 private:
  shoal::error on_line(std::string_view line, const where& at, int depth);
  shoal::error on_main_key(const cs::pair& p, const where& at, int depth);
  shoal::error on_node_line(const std::vector<cs::pair>& pairs, const where& at, bool seed);
  shoal::error apply_node_key(node_template& rec, const cs::pair& p, const where& at);
  shoal::error on_partition_line(const std::vector<cs::pair>& pairs, const where& at);
  shoal::error apply_partition_key(partition_template& rec, const cs::pair& p, const where& at);
  shoal::error include(const cs::pair& p, const where& at, int depth, bool required,
                       std::string& resolved);
  shoal::error resolve_partitions();
  shoal::error auth_info(const cs::pair& p, const where& at);
  shoal::error resolve_gres();
  shoal::error read_gres_conf(const std::string& path, const where& named_at);

  void warn(const where& at, const std::string& what) {
    cfg_.warnings.push_back(at.str() + ": " + what);
  }

  void unknown_key(const where& at, const cs::pair& p) {
    warn(at, "unknown key '" + p.key + "' (ignored)");
  }

  void mark(deferred& d, const cs::pair& p, const where& at) {
    d.key = p.key;
    d.at = at;
    d.seq = seq_;
    d.set = true;
  }

  cluster_config cfg_;
  std::string base_dir_;
  bool client_only_ = false;  ///< skip node and partition lines (load_client_config)
  size_t seq_ = 0;
  node_template node_defaults_;
  partition_template partition_defaults_;
  std::vector<size_t> node_seq_;  ///< per node: the seq of its line
  std::vector<bool> node_seed_;   ///< per node: defined by a seed Name= line
  std::unordered_map<std::string, size_t> node_index_;
  std::vector<partition_draft> drafts_;
  std::unordered_map<std::string, size_t> draft_index_;
  std::string default_yes_;  ///< the partition with Default=YES, if any
  std::vector<controller_host> primary_hosts_;
  std::vector<controller_host> backup_hosts_;
  deferred interval_;
  deferred timeout_;
  deferred collectors_;
  deferred default_partition_;
  deferred select_;
  deferred gres_conf_;  ///< GresConf=
  std::string default_partition_name_;

  shoal::error resolve_torus();
};

/// A base-36 digit (0-9, A-Z) as Blue Gene/L names use them, or -1.
int base36_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return -1;
}

shoal::error parser::resolve_torus() {
  auto& grid = cfg_.torus;
  grid = torus_grid{};
  if (cfg_.nodes.empty())
    return fail(select_.at, select_.key +
                                "=select/torus3d needs nodes named PREFIXxyz, such as "
                                "NodeName=bgl[000x733]");
  for (const auto& n : cfg_.nodes) {
    where at{n.file, n.line};
    const auto& name = n.name;
    bool digits = name.size() > 3;
    for (size_t i = name.size() >= 3 ? name.size() - 3 : 0; digits && i < name.size(); ++i)
      digits = base36_digit(name[i]) >= 0;
    if (!digits)
      return fail(at, "node '" + name + "' is not named as a base partition of a 3-D torus " +
                          "(SelectType=select/torus3d needs a prefix plus one digit 0-9/A-Z per " +
                          "dimension, such as bgl012)");
    auto prefix = name.substr(0, name.size() - 3);
    if (grid.prefix.empty()) grid.prefix = prefix;
    if (prefix != grid.prefix)
      return fail(at, "node '" + name + "' does not share the prefix '" + grid.prefix +
                          "' of the other base partitions (SelectType=select/torus3d)");
    for (int d = 0; d < 3; ++d)
      grid.dims[d] = std::max(grid.dims[d], base36_digit(name[name.size() - 3 + d]) + 1);
  }
  auto volume = static_cast<size_t>(grid.dims[0]) * grid.dims[1] * grid.dims[2];
  if (volume != cfg_.nodes.size()) {
    // Names are unique, so some base partition of the bounding grid is missing: name one.
    std::string missing;
    const char* digit = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    for (int x = 0; x < grid.dims[0] && missing.empty(); ++x)
      for (int y = 0; y < grid.dims[1] && missing.empty(); ++y)
        for (int z = 0; z < grid.dims[2] && missing.empty(); ++z) {
          auto name = grid.prefix + digit[x] + digit[y] + digit[z];
          if (node_index_.count(name) == 0) missing = name;
        }
    return fail(select_.at,
                "select/torus3d needs a complete grid: " + std::to_string(grid.dims[0]) + "x" +
                    std::to_string(grid.dims[1]) + "x" + std::to_string(grid.dims[2]) + " has " +
                    std::to_string(volume) + " base partitions but " +
                    std::to_string(cfg_.nodes.size()) + " nodes are defined (missing " + missing +
                    ")");
  }
  return {};
}

shoal::error parser::on_line(std::string_view line, const where& at, int depth) {
  auto res = cs::split_line(line);
  if (!res.error.empty()) return fail(at, res.error);
  if (res.pairs.empty()) return {};
  ++seq_;
  const auto& first = res.pairs.front().lower;
  if (client_only_ && (first == "nodename" || first == "name" || first == "partitionname"))
    return {};
  if (first == "nodename") return on_node_line(res.pairs, at, false);
  if (first == "name") return on_node_line(res.pairs, at, true);
  if (first == "partitionname") return on_partition_line(res.pairs, at);
  for (const auto& p : res.pairs)
    if (auto err = on_main_key(p, at, depth)) return err;
  return {};
}

// -- main keys ------------------------------------------------------------------------------------

shoal::error parser::on_main_key(const cs::pair& p, const where& at, int depth) {
  const auto& k = p.lower;
  const auto& v = p.value;
  if (k == "nodename" || k == "name" || k == "partitionname")
    return fail(at, "'" + p.key + "' must be the first key on its line");
  if (k == "slurmctldhost" || k == "controlmachine" || k == "backupcontroller") {
    auto host = parse_controller_host(v);
    if (!host) {
      if (v.empty()) return fail(at, p.key + " needs a host name");
      return bad_value(at, p, p.key, "NAME, NAME(ADDRESS) or NAME(ADDRESS:PORT)");
    }
    (k == "backupcontroller" ? backup_hosts_ : primary_hosts_).push_back(std::move(*host));
    return {};
  }
  if (k == "slurmctldtimeout" || k == "messagetimeout") {
    auto seconds = cs::parse_unsigned(v, 65535);
    if (!seconds || *seconds == 0) return bad_value(at, p, p.key, "whole seconds, 1 or more");
    (k == "slurmctldtimeout" ? cfg_.slurmctld_timeout_s : cfg_.message_timeout_s) =
        static_cast<int64_t>(*seconds);
    return {};
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
    return {};
  }
  if (k == "metricsport") {
    auto port = cs::parse_unsigned(v, 65535);
    if (!port) return bad_value(at, p, p.key, "a port 1-65535, or 0 for none");
    cfg_.metrics_port = static_cast<uint16_t>(*port);
    return {};
  }
  if (k == "nodemetricsport") {
    auto port = cs::parse_unsigned(v, 65535);
    if (!port) return bad_value(at, p, p.key, "a port 1-65535, or 0 for none");
    cfg_.node_metrics_port = static_cast<uint16_t>(*port);
    return {};
  }
  if (k == "adminusers") {
    cfg_.admin_users.clear();
    for (auto& name : split_list(v)) {
      if (name.empty()) return bad_value(at, p, p.key, "a comma-separated list of user names");
      cfg_.admin_users.push_back(std::move(name));
    }
    return {};
  }
  if (k == "authtype") {
    auto type = cs::to_lower(v);
    if (type != "auth/munge" && type != "auth/none")
      return bad_value(at, p, p.key, "auth/munge or auth/none");
    cfg_.auth.munge = type == "auth/munge";
    return {};
  }
  if (k == "authinfo") return auth_info(p, at);
  if (k == "controllerlisten") {
    auto where = cs::to_lower(v);
    if (where != "line" && where != "all")
      return bad_value(at, p, p.key,
                       "line (its SlurmctldHost address, the default) or all (every address)");
    cfg_.listen_all = where == "all";
    return {};
  }
  if (k == "slurmuser") {
    cfg_.slurm_user = v;
    return {};
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
    return {};
  }
  if (k == "collectmetrics" || k == "slurmenv") {
    auto on = cs::parse_yes_no(v);
    if (!on) return bad_value(at, p, p.key, "YES or NO");
    (k == "slurmenv" ? cfg_.slurm_env : cfg_.collect_metrics) = *on;
    return {};
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
    return {};
  }
  if (k == "killwait") {
    auto s = cs::parse_unsigned(v, 1'000'000'000);
    if (!s) return bad_value(at, p, p.key, "whole seconds, 0 or more");
    cfg_.kill_wait_s = static_cast<int64_t>(*s);
    return {};
  }
  if (k == "minjobage") {
    // Slurm's 0 (never forget a job) would grow the controller without bound: not offered.
    auto s = cs::parse_unsigned(v, 1'000'000'000);
    if (!s || *s == 0) return bad_value(at, p, p.key, "whole seconds, 1 or more");
    cfg_.min_job_age_s = static_cast<int64_t>(*s);
    return {};
  }
  if (k == "statesavelocation" || k == "tmpfs" || k == "slurmdspooldir") {
    if (v.empty()) return fail(at, p.key + " needs a directory");
    (k == "tmpfs"            ? cfg_.tmp_fs
     : k == "slurmdspooldir" ? cfg_.node_spool_dir
                             : cfg_.state_save_location) = v;
    return {};
  }
  if (k == "slurmctldlogfile") {
    cfg_.ctld_log_file = v;
    return {};
  }
  if (k == "slurmdlogfile") {
    cfg_.node_log_file = v;
    return {};
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
    return {};
  }
  if (k == "debugflags" || k == "machstatusdebug") {
    auto flags = parse_debug_flags(v);
    if (!flags) return fail(at, p.key + ": " + describe(flags.error()));
    cfg_.debug_flags = *flags;
    return {};
  }
  if (k == "logtimeformat") {
    auto pattern = log_line_pattern(v);
    if (!pattern) return fail(at, describe(pattern.error()));
    cfg_.log_time_format = v;
    return {};
  }
  if (k == "logfilemaxsize") {
    auto size = parse_byte_size(v);
    if (!size) return bad_value(at, p, p.key, "bytes such as 1048576, 512K, 100M, or 0 for none");
    cfg_.log_file_max_size = *size;
    return {};
  }
  if (k == "logfilecount") {
    auto count = cs::parse_unsigned(v, 1000);
    if (!count || *count == 0) return bad_value(at, p, p.key, "a number of files from 1 to 1000");
    cfg_.log_file_count = static_cast<uint32_t>(*count);
    return {};
  }
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
    return {};
  }
  if (k == "switchtype") {
    if (v.empty()) return fail(at, p.key + " needs a value such as switch/none");
    cfg_.switch_type = v;
    return {};
  }
  if (k == "mailprog") {
    // Slurm's default, /bin/mail, is left out on purpose: a test cluster sends no mail unasked.
    if (v.empty()) return fail(at, p.key + " needs a program such as /usr/bin/mail");
    cfg_.mail_prog = v;
    return {};
  }
  if (k == "clustername") {
    if (v.empty()) return fail(at, p.key + " needs a name");
    cfg_.cluster_name = v;
    return {};
  }
  if (k == "collectornodes") {
    auto names = topology::expand_hostlist(v);
    if (!names) return bad_value(at, p, p.key, "a hostlist: " + describe(names.error()));
    cfg_.collector_nodes = std::move(*names);
    mark(collectors_, p, at);
    return {};
  }
  if (k == "grestypes") {
    cfg_.gres_types.clear();
    if (cs::to_lower(v) == "none" || v.empty()) return {};
    for (auto& name : split_list(v)) {
      auto parsed = policy::parse_gres(name);
      if (!parsed || parsed->size() != 1 || name.find(':') != std::string::npos)
        return bad_value(at, p, p.key, "generic resource names separated by commas, such as gpu");
      cfg_.gres_types.push_back(std::move(name));
    }
    return {};
  }
  if (k == "gresconf") {
    if (v.empty()) return fail(at, p.key + " needs a file path");
    cfg_.gres_conf = v;
    mark(gres_conf_, p, at);
    return {};
  }
  if (k == "nodespecconf") return include(p, at, depth, true, cfg_.node_spec_conf);
  if (k == "partitionconf") return include(p, at, depth, false, cfg_.partition_conf);
  if (k == "defaultpartition") {
    default_partition_name_ = v;
    mark(default_partition_, p, at);
    return {};
  }
  std::string scheduling_error;
  if (apply_scheduler_key(cfg_.scheduling, k, v, scheduling_error)) {
    if (!scheduling_error.empty())
      return fail(at, "invalid value '" + v + "' for " + p.key + ": " + scheduling_error);
    return {};
  }
  // The seed names the daemons' binaries here; shoal's are found by the installer.
  if (k == "machstatusmanager" || k == "machstatusdaemon") return {};
  if (contains(compat_keys, k)) {
    warn(at, "key '" + p.key + "' is accepted for Slurm compatibility and has no effect");
    return {};
  }
  unknown_key(at, p);
  return {};
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

shoal::error parser::include(const cs::pair& p, const where& at, int depth, bool required,
                             std::string& resolved) {
  if (depth > 0) {
    warn(at, p.key + " inside an included file is ignored");
    return {};
  }
  if (p.value.empty()) {
    if (required) return fail(at, p.key + " needs a file path");
    resolved.clear();
    return {};
  }
  fs::path given{p.value};
  fs::path path = given.is_absolute() ? given : fs::path{base_dir_} / given;
  if (!path_exists(path)) {
    // The seed's sample names /usr/local/SLURM/...; the same file beside the main file will do.
    auto beside = fs::path{base_dir_} / given.filename();
    if (given.is_absolute() && path_exists(beside)) {
      warn(at, p.key + " " + p.value + " not found; using " + beside.string());
      path = beside;
    } else {
      auto what = p.key + " " + p.value + " not found";
      what += given.is_absolute() ? " (also looked for " + beside.string() + ")"
                                  : " (looked for " + path.string() + ")";
      if (required) return fail(at, what);
      warn(at, what + "; nothing read from it");
      resolved.clear();
      return {};
    }
  }
  std::string text;
  std::string error;
  if (!read_file(path.string(), text, error)) {
    auto what = p.key + " " + path.string() + ": cannot read: " + error;
    if (required) return fail(at, what);
    warn(at, what + "; nothing read from it");
    resolved.clear();
    return {};
  }
  resolved = path.string();
  return parse_text(text, resolved, depth + 1);
}

// -- nodes ----------------------------------------------------------------------------------------

shoal::error parser::apply_node_key(node_template& rec, const cs::pair& p, const where& at) {
  const auto& k = p.lower;
  auto& n = rec.cfg;
  auto u32 = [&](uint32_t& field, std::string_view canonical) -> shoal::error {
    auto value = cs::parse_unsigned(p.value, cs::max_u32);
    if (!value) return bad_value(at, p, canonical, "a non-negative integer");
    field = static_cast<uint32_t>(*value);
    return {};
  };
  auto u64 = [&](uint64_t& field, std::string_view canonical) -> shoal::error {
    auto value = cs::parse_unsigned(p.value, cs::max_u64);
    if (!value) return bad_value(at, p, canonical, "a non-negative integer, in megabytes");
    field = *value;
    return {};
  };
  if (k == "nodeaddr") {
    rec.address_expr = p.value;
  } else if (k == "nodehostname") {
    rec.hostname_expr = p.value;
  } else if (k == "cpus" || k == "procs") {
    return u32(n.cpus, "CPUs");
  } else if (k == "sockets") {
    return u32(n.sockets, "Sockets");
  } else if (k == "corespersocket") {
    return u32(n.cores_per_socket, "CoresPerSocket");
  } else if (k == "threadspercore") {
    return u32(n.threads_per_core, "ThreadsPerCore");
  } else if (k == "weight") {
    return u32(n.weight, "Weight");
  } else if (k == "speed") {
    auto value = cs::parse_decimal(p.value);
    if (!value) return bad_value(at, p, "Speed", "a non-negative decimal number such as 1.5");
    n.speed = *value;
  } else if (k == "realmemory") {
    return u64(n.real_memory_mb, "RealMemory");
  } else if (k == "virtualmemory") {
    return u64(n.virtual_memory_mb, "VirtualMemory");
  } else if (k == "tmpdisk") {
    return u64(n.tmp_disk_mb, "TmpDisk");
  } else if (k == "os") {
    n.os = p.value;
  } else if (k == "features" || k == "feature") {
    n.features = p.value;
  } else if (k == "gres") {
    auto list = policy::parse_gres(p.value);
    if (!list)
      return bad_value(at, p, "Gres",
                       "NAME[:TYPE]:COUNT items separated by commas, such as gpu:4 or gpu:tesla:2");
    n.gres.clear();
    for (auto& item : *list)
      if (item.count > 0) n.gres.push_back({item.name, item.type, item.count, {}});
  } else if (k == "simulate") {
    auto yes = cs::parse_yes_no(p.value);
    if (!yes) return bad_value(at, p, "Simulate", "YES or NO");
    n.simulate = *yes;
  } else if (k == "state") {
    auto state = cs::to_upper(p.value);
    if (state == "DRAINING" || state == "DRAINED") state = "DRAIN";
    if (!contains(node_states, state))
      return bad_value(at, p, "State",
                       "UNKNOWN, IDLE, DOWN, DRAIN, FAIL, FAILING, FUTURE or CLOUD");
    n.initial_state = state;
  } else if (k == "partition") {
    std::vector<std::string> names;
    const auto& v = p.value;
    size_t pos = 0;
    while (!v.empty() && pos <= v.size()) {
      auto comma = std::min(v.find(',', pos), v.size());
      auto number =
          cs::parse_unsigned(std::string_view{v}.substr(pos, comma - pos), max_seed_partition);
      if (!number)
        return bad_value(at, p, "Partition", "partition numbers 0-31 separated by commas");
      auto name = std::to_string(*number);
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
      pos = comma + 1;
    }
    n.partitions = std::move(names);
    n.partitions_given = true;
  } else if (k == "nodename" || k == "name" || k == "partitionname") {
    return fail(at, "'" + p.key + "' must be the first key on its line");
  } else {
    unknown_key(at, p);
  }
  return {};
}

shoal::error parser::on_node_line(const std::vector<cs::pair>& pairs, const where& at, bool seed) {
  const auto& head = pairs.front();
  if (head.value.empty()) return fail(at, head.key + " needs a node name, hostlist or DEFAULT");
  bool is_default = iequals(head.value, "DEFAULT");
  node_template rec = node_defaults_;
  for (size_t i = 1; i < pairs.size(); ++i)
    if (auto err = apply_node_key(rec, pairs[i], at)) return err;
  if (is_default) {
    node_defaults_ = std::move(rec);
    return {};
  }
  auto names = topology::expand_hostlist(head.value);
  if (!names) return bad_value(at, head, head.key, "a hostlist: " + describe(names.error()));
  if (names->empty()) return fail(at, head.key + " '" + head.value + "' names no node");
  std::vector<std::string> addresses;
  const auto& addr_expr = rec.address_expr.empty() ? rec.hostname_expr : rec.address_expr;
  if (!addr_expr.empty()) {
    auto key = rec.address_expr.empty() ? "NodeHostname" : "NodeAddr";
    auto expanded = topology::expand_hostlist(addr_expr);
    if (!expanded)
      return fail(
          at, "invalid value '" + addr_expr + "' for " + key + ": " + describe(expanded.error()));
    addresses = std::move(*expanded);
    if (addresses.size() != 1 && addresses.size() != names->size())
      return fail(at, std::string{key} + " '" + addr_expr + "' gives " +
                          std::to_string(addresses.size()) + " addresses for " +
                          std::to_string(names->size()) + " nodes (give one, or one per node)");
  }
  // The seed: "If not otherwise specified, all nodes will be in partition zero."
  if (seed && !rec.cfg.partitions_given) rec.cfg.partitions = {"0"};
  for (size_t i = 0; i < names->size(); ++i) {
    const auto& name = (*names)[i];
    // Written back as its own line, such a node would become the DEFAULT record.
    if (iequals(name, "DEFAULT"))
      return fail(at,
                  "node name '" + name + "' is reserved (" + head.key + "=DEFAULT sets defaults)");
    if (auto it = node_index_.find(name); it != node_index_.end()) {
      const auto& prev = cfg_.nodes[it->second];
      return fail(at, "node '" + name + "' is already defined at " + prev.file + ":" +
                          std::to_string(prev.line));
    }
    node_config n = rec.cfg;
    n.name = name;
    n.address = addresses.empty() ? name : addresses[addresses.size() == 1 ? 0 : i];
    n.file = at.file;
    n.line = at.line;
    node_index_.emplace(name, cfg_.nodes.size());
    node_seq_.push_back(seq_);
    node_seed_.push_back(seed);
    cfg_.nodes.push_back(std::move(n));
  }
  return {};
}

// -- partitions -----------------------------------------------------------------------------------

shoal::error parser::apply_partition_key(partition_template& rec, const cs::pair& p,
                                         const where& at) {
  const auto& k = p.lower;
  if (k == "nodename" || k == "name" || k == "partitionname")
    return fail(at, "'" + p.key + "' must be the first key on its line");
  if (auto err = apply_partition_setting(rec.cfg, rec.nodes_expr, p.key, p.value)) {
    if (!err->unknown) return fail(at, err->text);
    unknown_key(at, p);
  }
  return {};
}

shoal::error parser::on_partition_line(const std::vector<cs::pair>& pairs, const where& at) {
  const auto& head = pairs.front();
  if (head.value.empty()) return fail(at, head.key + " needs a partition name or DEFAULT");
  partition_template rec = partition_defaults_;
  for (size_t i = 1; i < pairs.size(); ++i)
    if (auto err = apply_partition_key(rec, pairs[i], at)) return err;
  if (iequals(head.value, "DEFAULT")) {
    partition_defaults_ = std::move(rec);
    return {};
  }
  const auto& name = head.value;
  if (auto it = draft_index_.find(name); it != draft_index_.end()) {
    const auto& prev = drafts_[it->second].cfg;
    return fail(at, "partition '" + name + "' is already defined at " + prev.file + ":" +
                        std::to_string(prev.line));
  }
  if (rec.cfg.is_default) {
    if (!default_yes_.empty()) {
      const auto& prev = drafts_[draft_index_.at(default_yes_)].cfg;
      return fail(at, "partition '" + name + "' has Default=YES, but so has partition '" +
                          prev.name + "' at " + prev.file + ":" + std::to_string(prev.line) +
                          " (only one may be the default)");
    }
    default_yes_ = name;
  }
  partition_draft draft;
  draft.cfg = std::move(rec.cfg);
  draft.cfg.name = name;
  draft.cfg.nodes.clear();
  draft.cfg.file = at.file;
  draft.cfg.line = at.line;
  draft.nodes_expr = std::move(rec.nodes_expr);
  draft.seq = seq_;
  draft.from_line = true;
  draft_index_.emplace(name, drafts_.size());
  drafts_.push_back(std::move(draft));
  return {};
}

shoal::error parser::resolve_partitions() {
  for (auto& d : drafts_) {
    where at{d.cfg.file, d.cfg.line};
    if (iequals(d.nodes_expr, "ALL")) {
      for (size_t i = 0; i < cfg_.nodes.size(); ++i) d.members.push_back(i);
      continue;
    }
    auto names = topology::expand_hostlist(d.nodes_expr);
    if (!names)
      return fail(at, "invalid value '" + d.nodes_expr + "' for Nodes: " + describe(names.error()));
    for (const auto& name : *names) {
      auto it = node_index_.find(name);
      if (it == node_index_.end())
        return fail(at, "partition '" + d.cfg.name + "' names unknown node '" + name + "'");
      d.members.push_back(it->second);
    }
  }
  // Seed Partition= keys (and the implied partition "0") add members, creating the numbered
  // partitions in order of first appearance.
  for (size_t i = 0; i < cfg_.nodes.size(); ++i) {
    const auto& node = cfg_.nodes[i];
    for (const auto& name : node.partitions) {
      auto it = draft_index_.find(name);
      if (it == draft_index_.end()) {
        partition_draft draft;
        draft.cfg.name = name;
        draft.cfg.file = node.file;
        draft.cfg.line = node.line;
        draft.seq = node_seq_[i];
        it = draft_index_.emplace(name, drafts_.size()).first;
        drafts_.push_back(std::move(draft));
      }
      auto& d = drafts_[it->second];
      d.seq = std::min(d.seq, node_seq_[i]);
      d.members.push_back(i);
    }
  }
  std::stable_sort(drafts_.begin(), drafts_.end(),
                   [](const auto& a, const auto& b) { return a.seq < b.seq; });
  for (auto& node : cfg_.nodes) node.partitions.clear();
  for (auto& d : drafts_) {
    // Nodes in config order, as Slurm's partition bitmaps keep them.
    std::sort(d.members.begin(), d.members.end());
    d.members.erase(std::unique(d.members.begin(), d.members.end()), d.members.end());
    for (auto i : d.members) {
      d.cfg.nodes.push_back(cfg_.nodes[i].name);
      cfg_.nodes[i].partitions.push_back(d.cfg.name);
    }
    cfg_.partitions.push_back(std::move(d.cfg));
  }
  return {};
}

// -- generic resources (GresTypes=, Gres=, gres.conf) ---------------------------------------------

std::string gres_item_text(const node_gres& g) {
  return policy::gres_text({{g.name, g.type, g.count}});
}

shoal::error parser::resolve_gres() {
  const auto& types = cfg_.gres_types;
  for (const auto& n : cfg_.nodes)
    for (const auto& g : n.gres)
      if (std::find(types.begin(), types.end(), g.name) == types.end())
        return fail(where{n.file, n.line}, "Invalid GRES configured on node " + n.name + ": " +
                                               gres_item_text(g) + " (GresTypes= does not list " +
                                               g.name + ")");
  fs::path path;
  if (gres_conf_.set) {
    fs::path given{cfg_.gres_conf};
    path = given.is_absolute() ? given : fs::path{base_dir_} / given;
    if (!path_exists(path))
      return fail(gres_conf_.at, gres_conf_.key + " " + cfg_.gres_conf + " not found (looked for " +
                                     path.string() + ")");
  } else if (!base_dir_.empty() && path_exists(fs::path{base_dir_} / "gres.conf")) {
    path = fs::path{base_dir_} / "gres.conf";
  } else {
    cfg_.gres_conf.clear();
    return {};
  }
  cfg_.gres_conf = path.string();
  return read_gres_conf(cfg_.gres_conf, gres_conf_.at);
}

shoal::error parser::read_gres_conf(const std::string& path, const where& named_at) {
  std::string text;
  std::string error;
  if (!read_file(path, text, error)) {
    auto what = "gres.conf " + path + ": cannot read: " + error;
    return named_at.line > 0 ? fail(named_at, what) : shoal::error(errc::invalid_config, what);
  }
  /// One gres.conf line with a Name=.
  struct device_line {
    where at;
    std::string name;
    std::string type;
    uint64_t count = 1;
    std::vector<std::string> files;
    bool every_node = true;     ///< no NodeName=: every node whose Gres= has the name
    std::vector<size_t> nodes;  ///< NodeName=, as node indices
  };
  std::vector<device_line> lines;
  const auto& types = cfg_.gres_types;
  size_t pos = 0;
  int number = 0;
  while (pos <= text.size()) {
    auto end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    ++number;
    where at{path, number};
    auto res = cs::split_line(std::string_view{text}.substr(pos, end - pos));
    pos = end + 1;
    if (!res.error.empty()) return fail(at, res.error);
    if (res.pairs.empty()) continue;
    device_line d;
    d.at = at;
    std::string files_expr;
    bool has_count = false;
    uint64_t count = 0;
    for (const auto& p : res.pairs) {
      const auto& k = p.lower;
      if (k == "name") {
        d.name = p.value;
      } else if (k == "type") {
        d.type = p.value;
      } else if (k == "file" || k == "files") {
        files_expr = p.value;
      } else if (k == "count") {
        auto parsed = policy::parse_gres("x:" + p.value);
        if (!parsed || parsed->size() != 1 || !parsed->front().type.empty())
          return bad_value(at, p, "Count", "a number such as 4, optionally with a K/M/G suffix");
        count = parsed->front().count;
        has_count = true;
      } else if (k == "nodename") {
        auto names = topology::expand_hostlist(p.value);
        if (!names) return bad_value(at, p, "NodeName", "a hostlist: " + describe(names.error()));
        d.every_node = false;
        for (const auto& name : *names) {
          auto it = node_index_.find(name);
          if (it == node_index_.end())
            warn(at,
                 "NodeName names '" + name + "', which is not a node of this cluster (ignored)");
          else
            d.nodes.push_back(it->second);
        }
      } else if (k == "autodetect") {
        warn(at,
             "AutoDetect=" + p.value + " is not supported: list each device with File= (ignored)");
      } else if (k == "cores" || k == "cpus" || k == "links" || k == "flags") {
        warn(at, "key '" + p.key + "' has no effect (shoal does not tie devices to CPUs)");
      } else {
        warn(at, "unknown key '" + p.key + "' (ignored)");
      }
    }
    if (d.name.empty()) {
      if (!files_expr.empty() || has_count || !d.type.empty())
        return fail(at, "a gres.conf line with File=, Count= or Type= needs Name=");
      continue;  // AutoDetect= or NodeName= alone
    }
    if (std::find(types.begin(), types.end(), d.name) == types.end())
      return fail(at, "Invalid GRES record for " + d.name + ": GresTypes= does not list it");
    if (!files_expr.empty()) {
      auto files = topology::expand_hostlist(files_expr);
      if (!files || files->empty())
        return fail(at, "invalid value '" + files_expr +
                            "' for File (expected device paths such as " + "/dev/nvidia[0-3])");
      d.files = std::move(*files);
      if (has_count && count != d.files.size())
        return fail(at, "Invalid GRES record for " + d.name +
                            ", count does not match File value (" +
                            "Count=" + std::to_string(count) + ", " +
                            std::to_string(d.files.size()) + " files)");
      d.count = d.files.size();
    } else if (has_count) {
      d.count = count;
    }
    lines.push_back(std::move(d));
  }
  // Per node and name: the lines that give it devices, checked against its Gres=.
  for (size_t i = 0; i < cfg_.nodes.size(); ++i) {
    auto& node = cfg_.nodes[i];
    std::vector<std::string> names;
    for (const auto& g : node.gres)
      if (std::find(names.begin(), names.end(), g.name) == names.end()) names.push_back(g.name);
    for (const auto& d : lines) {
      bool listed = std::find(d.nodes.begin(), d.nodes.end(), i) != d.nodes.end();
      if (listed && std::find(names.begin(), names.end(), d.name) == names.end())
        return fail(d.at, "node " + node.name + " gets " + d.name + " devices here, but its " +
                              "NodeName line (" + node.file + ":" + std::to_string(node.line) +
                              ") has no Gres=" + d.name);
    }
    std::vector<node_gres> refined;
    for (const auto& name : names) {
      std::vector<const device_line*> mine;
      for (const auto& d : lines)
        if (d.name == name &&
            (d.every_node || std::find(d.nodes.begin(), d.nodes.end(), i) != d.nodes.end()))
          mine.push_back(&d);
      std::vector<node_gres> configured;
      uint64_t total = 0;
      for (const auto& g : node.gres)
        if (g.name == name) {
          configured.push_back(g);
          total += g.count;
        }
      if (mine.empty()) {
        refined.insert(refined.end(), configured.begin(), configured.end());
        continue;
      }
      uint64_t listed = 0;
      bool typed = false;
      bool all_files = true;
      for (const auto* d : mine) {
        listed += d->count;
        typed = typed || !d->type.empty();
        all_files = all_files && !d->files.empty();
      }
      std::string gres_written;
      for (const auto& g : configured)
        gres_written += (gres_written.empty() ? "" : ",") + gres_item_text(g);
      auto mismatch = [&](uint64_t found, const std::string& what) {
        return fail(mine.back()->at, "node " + node.name + " has " + std::to_string(found) + " " +
                                         what + " device(s) in gres.conf but Gres=" + gres_written +
                                         " at " + node.file + ":" + std::to_string(node.line));
      };
      if (listed != total) return mismatch(listed, name);
      if (!typed) {
        // The devices in order, split over the Gres= items (types as Gres= gives them).
        std::vector<std::string> files;
        if (all_files)
          for (const auto* d : mine) files.insert(files.end(), d->files.begin(), d->files.end());
        size_t next = 0;
        for (auto g : configured) {
          if (all_files) {
            g.files.assign(files.begin() + static_cast<std::ptrdiff_t>(next),
                           files.begin() + static_cast<std::ptrdiff_t>(next + g.count));
            next += g.count;
          }
          refined.push_back(std::move(g));
        }
        continue;
      }
      for (const auto& g : configured) {
        if (g.type.empty()) continue;
        uint64_t of_type = 0;
        for (const auto* d : mine)
          if (d->type == g.type) of_type += d->count;
        if (of_type != g.count) return mismatch(of_type, name + ":" + g.type);
      }
      for (const auto* d : mine) refined.push_back({d->name, d->type, d->count, d->files});
    }
    node.gres = std::move(refined);
  }
  return {};
}

shoal::expected<cluster_config> parser::finish() {
  cfg_.controller_hosts = primary_hosts_;
  cfg_.controller_hosts.insert(cfg_.controller_hosts.end(), backup_hosts_.begin(),
                               backup_hosts_.end());
  // SlurmctldPort may come after the host lines: lines without a port of their own take it now.
  for (auto& host : cfg_.controller_hosts)
    if (host.port == 0) host.port = cfg_.controller_port;
  if (cfg_.heartbeat_timeout_ms <= cfg_.heartbeat_interval_ms) {
    // Point at whichever of the two was written last: that is the line to fix.
    const auto& at = (timeout_.set && (!interval_.set || timeout_.seq >= interval_.seq))
                         ? timeout_.at
                         : interval_.at;
    auto name = [](const deferred& d, const char* fallback) {
      return d.set ? d.key : std::string{fallback} + " (default)";
    };
    return fail(at, name(timeout_, "SlurmdTimeout") + " (" +
                        cs::format_ms_as_seconds(cfg_.heartbeat_timeout_ms) +
                        " s) must be greater than " + name(interval_, "HeartBeatInterval") + " (" +
                        cs::format_ms_as_seconds(cfg_.heartbeat_interval_ms) + " s)");
  }
  if (client_only_) return std::move(cfg_);
  for (const auto& name : cfg_.collector_nodes)
    if (node_index_.count(name) == 0)
      return fail(collectors_.at, collectors_.key + " names unknown node '" + name + "'");
  if (auto err = resolve_partitions()) return err;
  if (auto err = resolve_gres()) return err;
  if (cfg_.torus3d)
    if (auto err = resolve_torus()) return err;
  if (default_partition_.set && !default_partition_name_.empty()) {
    auto it = std::find_if(cfg_.partitions.begin(), cfg_.partitions.end(),
                           [&](const auto& p) { return p.name == default_partition_name_; });
    if (it == cfg_.partitions.end())
      return fail(default_partition_.at, default_partition_.key + " '" + default_partition_name_ +
                                             "' is not a defined partition");
    if (!default_yes_.empty() && default_yes_ != it->name)
      return fail(default_partition_.at, default_partition_.key + " '" + it->name +
                                             "' conflicts with Default=YES on partition '" +
                                             default_yes_ + "'");
    it->is_default = true;
  }
  bool any_default = std::any_of(cfg_.partitions.begin(), cfg_.partitions.end(),
                                 [](const auto& p) { return p.is_default; });
  if (!any_default && cfg_.partitions.size() == 1) cfg_.partitions.front().is_default = true;
  return std::move(cfg_);
}

}  // namespace

shoal::expected<cluster_config> parse_config(const std::string& text, const std::string& source,
                                             const std::string& base_dir) {
  parser p{base_dir};
  if (auto err = p.parse_text(text, source, 0)) return err;
  return p.finish();
}

namespace {

shoal::expected<cluster_config> load(const std::string& path, bool client_only) {
  std::string text;
  std::string error;
  if (!read_file(path, text, error))
    return shoal::error(errc::invalid_config, path + ": cannot read: " + error);
  parser p{fs::path{path}.parent_path().string(), client_only};
  if (auto err = p.parse_text(text, path, 0)) return err;
  auto cfg = p.finish();
  if (cfg) cfg->path = path;
  return cfg;
}

}  // namespace

shoal::expected<cluster_config> load_config(const std::string& path) {
  return load(path, false);
}

shoal::expected<cluster_config> load_client_config(const std::string& path) {
  return load(path, true);
}

std::string node_spool_dir(const cluster_config& cfg, const std::string& node,
                           const std::string& host) {
  auto dir = expand_log_file_name(cfg.node_spool_dir, host, node);
  if (cfg.node_spool_dir.find("%n") != std::string::npos) return dir;
  return dir + "/" + node;
}

int64_t takeover_patience_s(const cluster_config& cfg) {
  return std::max(cfg.message_timeout_s, cfg.slurmctld_timeout_s + cfg.slurmctld_timeout_s / 2);
}

}  // namespace shoal::config
