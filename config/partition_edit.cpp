#include "config/partition_edit.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "config/config_syntax.hpp"
#include "config/duration.hpp"
#include "messages/errc.hpp"
#include "topology/hostlist.hpp"

namespace shoal::config {

namespace {

namespace cs = config_syntax;

setting_error bad_value(const std::string& value, std::string_view canonical,
                        std::string_view expected) {
  return {"invalid value '" + value + "' for " + std::string{canonical} + " (expected " +
          std::string{expected} + ")"};
}

bool iequals(std::string_view a, std::string_view b) {
  return cs::to_lower(a) == cs::to_lower(b);
}

/// Splits "Key=Value" (the value may be empty); nullopt without '='.
std::optional<std::pair<std::string, std::string>> split_setting(const std::string& word) {
  auto eq = word.find('=');
  if (eq == std::string::npos || eq == 0) return std::nullopt;
  return std::make_pair(word.substr(0, eq), word.substr(eq + 1));
}

/// `expr` (ALL, empty or a hostlist of configured nodes) as node names in config order.
shoal::expected<std::vector<std::string>> resolve_members(
    const std::vector<std::string>& node_names, const std::string& expr,
    const std::string& partition) {
  if (iequals(expr, "ALL")) return node_names;
  auto names = topology::expand_hostlist(expr);
  if (!names)
    return shoal::error(errc::invalid_request,
                        "invalid value '" + expr + "' for Nodes: " + describe(names.error()));
  std::set<std::string> wanted(names->begin(), names->end());
  std::vector<std::string> out;
  for (auto& n : node_names)
    if (wanted.erase(n) != 0) out.push_back(n);
  if (!wanted.empty())
    return shoal::error(
        errc::invalid_request,
        "partition '" + partition + "' names unknown node '" + *wanted.begin() + "'");
  return out;
}

}  // namespace

std::optional<setting_error> apply_partition_setting(partition_config& part,
                                                     std::string& nodes_expr, std::string_view key,
                                                     const std::string& value) {
  auto k = cs::to_lower(key);
  if (k == "nodes") {
    nodes_expr = value;
  } else if (k == "default") {
    auto yes = cs::parse_yes_no(value);
    if (!yes) return bad_value(value, "Default", "YES or NO");
    part.is_default = *yes;
  } else if (k == "maxtime" || k == "defaulttime") {
    auto seconds = parse_time_limit(value);
    if (!seconds)
      return setting_error{"invalid value '" + value + "' for " +
                           (k == "maxtime" ? "MaxTime" : "DefaultTime") + ": " +
                           describe(seconds.error())};
    (k == "maxtime" ? part.max_time_s : part.default_time_s) = *seconds;
  } else if (k == "state") {
    auto state = cs::to_upper(value);
    if (state != "UP" && state != "DOWN" && state != "DRAIN" && state != "INACTIVE")
      return bad_value(value, "State", "UP, DOWN, DRAIN or INACTIVE");
    part.state = state;
  } else if (k == "maxnodes") {
    auto upper = cs::to_upper(value);
    if (upper == "UNLIMITED" || upper == "INFINITE") {
      part.max_nodes = 0;
    } else {
      auto n = cs::parse_unsigned(value, cs::max_u32);
      if (!n) return bad_value(value, "MaxNodes", "a non-negative integer or UNLIMITED");
      part.max_nodes = static_cast<uint32_t>(*n);
    }
  } else if (k == "prioritytier" || k == "priority") {
    auto n = cs::parse_unsigned(value, cs::max_u32);
    if (!n) return bad_value(value, "PriorityTier", "a non-negative integer");
    part.priority = static_cast<uint32_t>(*n);
  } else if (k == "priorityjobfactor") {
    auto n = cs::parse_unsigned(value, 65'533);
    if (!n) return bad_value(value, "PriorityJobFactor", "an integer from 0 to 65533");
    part.job_factor = static_cast<uint32_t>(*n);
  } else if (k == "oversubscribe" || k == "shared") {
    auto colon = value.find(':');
    auto mode = cs::to_upper(value.substr(0, colon));
    bool counted = mode == "YES" || mode == "FORCE";  // the modes that take ":N"
    bool known = counted || mode == "EXCLUSIVE" || mode == "NO";
    if (!known || (colon != std::string::npos && !counted))
      return bad_value(value, "OverSubscribe", "EXCLUSIVE, NO, YES[:N] or FORCE[:N]");
    part.exclusive = mode == "EXCLUSIVE";
    part.force = mode == "FORCE";
    part.oversubscribe = counted ? 4 : 1;  // Slurm's default count
    if (colon != std::string::npos) {
      auto count = cs::parse_unsigned(value.substr(colon + 1), 1024);
      if (!count || *count == 0)
        return bad_value(value, "OverSubscribe", mode + ":N with N from 1 to 1024");
      part.oversubscribe = static_cast<uint32_t>(*count);
    }
  } else if (k == "suspendtime") {
    auto t = parse_suspend_time(value);
    if (!t) return bad_value(value, "SuspendTime", "seconds, or INFINITE (or -1) for off");
    part.power.suspend_time_s = *t;
  } else if (k == "suspendtimeout" || k == "resumetimeout") {
    auto n = cs::parse_unsigned(value, 65535);
    bool suspend = k == "suspendtimeout";
    if (!n || *n == 0)
      return bad_value(value, suspend ? "SuspendTimeout" : "ResumeTimeout",
                       "whole seconds from 1 to 65535");
    (suspend ? part.power.suspend_timeout_s : part.power.resume_timeout_s) =
        static_cast<int64_t>(*n);
  } else if (k == "powerdownonidle") {
    auto yes = cs::parse_yes_no(value);
    if (!yes) return bad_value(value, "PowerDownOnIdle", "YES or NO");
    part.power_down_on_idle = *yes;
  } else if (k == "preemptmode") {
    bool gang = false;
    std::string error;
    auto mode = parse_preempt_mode_value(value, gang, error);
    if (!mode) return setting_error{"invalid value '" + value + "' for PreemptMode: " + error};
    part.preempt_mode = *mode;
  } else if (k == "gracetime") {
    auto n = cs::parse_unsigned(value, cs::max_u32);
    if (!n) return bad_value(value, "GraceTime", "whole seconds");
    part.grace_time_s = static_cast<int64_t>(*n);
  } else {
    return setting_error{"unknown partition key '" + std::string{key} +
                             "' (use Nodes, State, MaxTime, DefaultTime, MaxNodes, Default, "
                             "PriorityTier, PriorityJobFactor, OverSubscribe, SuspendTime, "
                             "SuspendTimeout, ResumeTimeout, PowerDownOnIdle, PreemptMode or "
                             "GraceTime)",
                         true};
  }
  return std::nullopt;
}

shoal::expected<partition_config> apply_partition_settings(
    partition_config part, const std::vector<std::string>& settings,
    const std::vector<std::string>& node_names) {
  std::optional<std::string> nodes_expr;
  for (auto& word : settings) {
    auto kv = split_setting(word);
    if (!kv) return shoal::error(errc::invalid_request, "expected Key=Value, got '" + word + "'");
    std::string expr;
    if (auto err = apply_partition_setting(part, expr, kv->first, kv->second))
      return shoal::error(errc::invalid_request, err->text);
    if (iequals(kv->first, "nodes")) nodes_expr = expr;
  }
  if (nodes_expr) {
    auto members = resolve_members(node_names, *nodes_expr, part.name);
    if (!members) return std::move(members.error());
    part.nodes = std::move(*members);
  }
  return part;
}

bool takes_default(const std::vector<std::string>& settings) {
  return std::any_of(settings.begin(), settings.end(), [](const std::string& w) {
    auto kv = split_setting(w);
    return kv && iequals(kv->first, "default") && cs::parse_yes_no(kv->second) == true;
  });
}

std::optional<shoal::error> check_partition_edit(const std::vector<partition_config>& parts,
                                                 const msg::partition_edit& edit) {
  bool exists = std::any_of(parts.begin(), parts.end(),
                            [&](const partition_config& p) { return p.name == edit.name; });
  bool create = edit.action == "create";
  if (!create && edit.action != "update" && edit.action != "delete")
    return shoal::error(errc::invalid_request, "unknown partition action '" + edit.action +
                                                   "' (use update, create or delete)");
  if (edit.name.empty() || iequals(edit.name, "DEFAULT") ||
      edit.name.find_first_of(" \t,=#\"") != std::string::npos)
    return shoal::error(errc::invalid_request, "invalid partition name '" + edit.name + "'");
  if (create && exists)
    return shoal::error(errc::invalid_request, "partition '" + edit.name + "' already exists");
  if (!create && !exists)
    return shoal::error(errc::unknown_partition, "invalid partition name '" + edit.name + "'");
  if (edit.action == "delete" && !edit.settings.empty())
    return shoal::error(errc::invalid_request, "delete takes only PartitionName=");
  return std::nullopt;
}

partition_config created_partition(const std::string& name) {
  partition_config part;
  part.name = name;
  part.file = "(created)";
  return part;
}

shoal::expected<std::vector<partition_config>> apply_partition_edit(
    const cluster_config& cfg, const msg::partition_edit& edit) {
  if (auto err = check_partition_edit(cfg.partitions, edit)) return std::move(*err);
  auto parts = cfg.partitions;
  auto it = std::find_if(parts.begin(), parts.end(),
                         [&](const partition_config& p) { return p.name == edit.name; });
  if (edit.action == "delete") {
    parts.erase(it);
    return parts;
  }
  std::vector<std::string> node_names;
  for (auto& n : cfg.nodes) node_names.push_back(n.name);
  bool create = edit.action == "create";
  auto part = apply_partition_settings(create ? created_partition(edit.name) : *it, edit.settings,
                                       node_names);
  if (!part) return std::move(part.error());
  if (part->preempt_mode == policy::preempt_mode::suspend && !cfg.scheduling.preempt_gang)
    return shoal::error(errc::invalid_request, suspend_needs_gang);
  if (takes_default(edit.settings))
    for (auto& p : parts) p.is_default = false;
  if (create)
    parts.push_back(std::move(*part));
  else
    *std::find_if(parts.begin(), parts.end(), [&](const partition_config& p) {
      return p.name == edit.name;
    }) = std::move(*part);
  return parts;
}

void assign_node_partitions(cluster_config& cfg) {
  std::map<std::string, std::vector<std::string>> of_node;
  for (auto& p : cfg.partitions)
    for (auto& n : p.nodes) of_node[n].push_back(p.name);
  for (auto& n : cfg.nodes) {
    auto found = of_node.find(n.name);
    n.partitions = found == of_node.end() ? std::vector<std::string>{} : std::move(found->second);
  }
}

void record_partition_edit(std::vector<msg::partition_edit>& edits,
                           const msg::partition_edit& edit) {
  auto of_name = [&](const msg::partition_edit& e) { return e.name == edit.name; };
  if (edit.action == "delete") {
    auto first = std::find_if(edits.begin(), edits.end(), of_name);
    // A partition this record created leaves no trace; one of the config file's stays deleted.
    bool from_file = first == edits.end() || first->action != "create";
    edits.erase(std::remove_if(edits.begin(), edits.end(), of_name), edits.end());
    if (from_file) edits.push_back(edit);
    return;
  }
  auto key_of = [](const std::string& word) {
    return cs::to_lower(word.substr(0, word.find('=')));
  };
  if (takes_default(edit.settings)) {
    // Only one partition is the default: an older Default= of another would win on replay
    // when that partition's record comes later.
    for (auto& e : edits)
      if (e.name != edit.name)
        e.settings.erase(std::remove_if(e.settings.begin(), e.settings.end(),
                                        [&](auto& w) { return key_of(w) == "default"; }),
                         e.settings.end());
  }
  auto last = std::find_if(edits.rbegin(), edits.rend(), of_name);
  if (edit.action == "create" || last == edits.rend() || last->action == "delete") {
    edits.push_back(edit);
    return;
  }
  for (auto& word : edit.settings) {
    auto key = key_of(word);
    auto& kept = last->settings;
    kept.erase(std::remove_if(kept.begin(), kept.end(),
                              [&](const std::string& w) { return key_of(w) == key; }),
               kept.end());
    kept.push_back(word);
  }
}

void replay_partition_edits(cluster_config& cfg, const std::vector<msg::partition_edit>& edits,
                            std::vector<std::string>& skipped) {
  for (auto& edit : edits) {
    auto parts = apply_partition_edit(cfg, edit);
    if (!parts) {
      skipped.push_back(edit.action + " partition " + edit.name + ": " + describe(parts.error()));
      continue;
    }
    cfg.partitions = std::move(*parts);
  }
  assign_node_partitions(cfg);
}

}  // namespace shoal::config
