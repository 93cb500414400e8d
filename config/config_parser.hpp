#pragma once

// The config parser's private parts, shared by the files that read a slurm.conf: config.cpp
// (lines, includes, the public entry points), config_main_keys.cpp, config_node_lines.cpp
// (NodeName= and PartitionName= lines), config_gres.cpp (GresTypes=, Gres=, gres.conf) and
// config_checks.cpp (what is checked once everything is read). Nothing outside config/ includes
// this header.

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "config/config.hpp"
#include "config/config_syntax.hpp"
#include "config/known_keys.hpp"
#include "messages/errc.hpp"

namespace shoal::config::parsing {

namespace cs = config_syntax;
namespace fs = std::filesystem;

/// The items of a comma-separated list, blanks around each trimmed (empty items kept, so a
/// caller can refuse them).
std::vector<std::string> split_list(const std::string& text);

template <size_t N>
bool contains(const std::string_view (&list)[N], std::string_view word) {
  return std::find(std::begin(list), std::end(list), word) != std::end(list);
}

bool iequals(std::string_view a, std::string_view b);

/// A place in a config file.
struct where {
  std::string file;
  int line = 0;

  std::string str() const { return file + ":" + std::to_string(line); }
};

shoal::error fail(const where& at, const std::string& what);

shoal::error bad_value(const where& at, const cs::pair& p, std::string_view canonical,
                       std::string_view expected);

/// Reads a whole file; the error text is strerror.
bool read_file(const std::string& path, std::string& out, std::string& error);

bool path_exists(const fs::path& path);

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

/// One gres.conf line with a Name=.
struct gres_device_line {
  where at;
  std::string name;
  std::string type;
  uint64_t count = 1;
  std::vector<std::string> files;
  bool every_node = true;     ///< no NodeName=: every node whose Gres= has the name
  std::vector<size_t> nodes;  ///< NodeName=, as node indices
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
  // -- main keys, by group: each returns nothing when the key is not of its group --
  /// SlurmctldHost= and the ports and timeouts of the controller and the daemons' metrics.
  std::optional<shoal::error> controller_key(const cs::pair& p, const where& at);
  /// Who may do what: AdminUsers=, SlurmUser=, AuthType=, AuthInfo=, PrivateData=.
  std::optional<shoal::error> access_key(const cs::pair& p, const where& at);
  /// How the node daemons run jobs and how long things are kept: heartbeats, KillWait=,
  /// MinJobAge=, the state and spool directories.
  std::optional<shoal::error> daemon_key(const cs::pair& p, const where& at);
  /// Log files, debug levels and flags, log rotation.
  std::optional<shoal::error> logging_key(const cs::pair& p, const where& at);
  /// Node selection, generic resources, the switch, partitions and the cluster's name.
  std::optional<shoal::error> resource_key(const cs::pair& p, const where& at);
  shoal::error on_node_line(const std::vector<cs::pair>& pairs, const where& at, bool seed);
  shoal::error apply_node_key(node_template& rec, const cs::pair& p, const where& at);
  shoal::error on_partition_line(const std::vector<cs::pair>& pairs, const where& at);
  shoal::error apply_partition_key(partition_template& rec, const cs::pair& p, const where& at);
  shoal::error include(const cs::pair& p, const where& at, int depth, bool required,
                       std::string& resolved);
  shoal::error resolve_partitions();
  shoal::error auth_info(const cs::pair& p, const where& at);
  shoal::error auth_alt_parameters(const cs::pair& p, const where& at);
  shoal::error resolve_gres();
  shoal::error read_gres_conf(const std::string& path, const where& named_at);
  /// Reads one gres.conf line; appends it to `lines` when it has a Name=.
  shoal::error read_device_line(const std::vector<cs::pair>& pairs, const where& at,
                                std::vector<gres_device_line>& lines);
  /// Checks node `index`'s Gres= against the gres.conf `lines` that give it devices, and takes
  /// their types and device files.
  shoal::error assign_devices(size_t index, const std::vector<gres_device_line>& lines);

  void warn(const where& at, const std::string& what) {
    cfg_.warnings.push_back(at.str() + ": " + what);
  }

  /// An unknown key stops the read, as in Slurm, naming the nearest key of `set`.
  shoal::error unknown_key(const where& at, const cs::pair& p, key_set set) {
    return fail(at, unknown_key_text(p.key, set));
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
  deferred gres_conf_;     ///< GresConf=
  deferred exc_nodes_;     ///< SuspendExcNodes=: every node must exist
  deferred exc_parts_;     ///< SuspendExcParts=: every partition must exist
  deferred preempt_mode_;  ///< PreemptMode=: SUSPEND anywhere needs GANG here
  std::string default_partition_name_;

  shoal::error resolve_torus();
  /// SuspendExcNodes= and SuspendExcParts= name configured nodes and partitions.
  shoal::error check_power_exclusions();
  /// PreemptMode=SUSPEND (main or a partition's) only with GANG in the main PreemptMode.
  shoal::error check_suspend_has_gang();
};

}  // namespace shoal::config::parsing
