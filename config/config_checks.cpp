#include <algorithm>
#include <string>

#include "config/config_parser.hpp"

namespace shoal::config::parsing {

namespace {

/// A base-36 digit (0-9, A-Z) as Blue Gene/L names use them, or -1.
int base36_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return -1;
}

}  // namespace

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

shoal::error parser::check_power_exclusions() {
  for (const auto& ex : cfg_.power.exc_nodes)
    for (const auto& name : ex.nodes)
      if (node_index_.count(name) == 0)
        return fail(exc_nodes_.at, exc_nodes_.key + " names unknown node '" + name + "'");
  for (const auto& name : cfg_.power.exc_parts)
    if (std::none_of(cfg_.partitions.begin(), cfg_.partitions.end(),
                     [&](const auto& p) { return p.name == name; }))
      return fail(exc_parts_.at, exc_parts_.key + " names unknown partition '" + name + "'");
  return {};
}

shoal::error parser::check_suspend_has_gang() {
  const auto& s = cfg_.scheduling;
  if (s.preempt_gang) return {};
  if (s.preempt_mode == policy::preempt_mode::suspend)
    return fail(preempt_mode_.at, suspend_needs_gang);
  for (const auto& part : cfg_.partitions)
    if (part.preempt_mode == policy::preempt_mode::suspend)
      return fail(where{part.file, part.line},
                  std::string{"partition '"} + part.name + "': " + suspend_needs_gang);
  return {};
}

shoal::expected<cluster_config> parser::finish() {
  cfg_.controller_hosts = primary_hosts_;
  cfg_.controller_hosts.insert(cfg_.controller_hosts.end(), backup_hosts_.begin(),
                               backup_hosts_.end());
  // SlurmctldPort may come after the host lines: lines without a port of their own take it now.
  for (auto& host : cfg_.controller_hosts)
    if (host.port == 0) host.port = cfg_.controller_port;
  // SlurmdParameters may come after the node lines.
  for (auto& n : cfg_.nodes) {
    n.trust_config = cfg_.config_overrides;
    n.return_to_service = cfg_.return_to_service;
    n.reboot_timeout_s = cfg_.power.resume_timeout_s;
  }
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
  if (auto err = check_power_exclusions()) return err;
  if (auto err = check_suspend_has_gang()) return err;
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

}  // namespace shoal::config::parsing
