#include "config/power_settings.hpp"

#include <algorithm>
#include <string_view>

#include "config/config.hpp"
#include "config/config_parser.hpp"
#include "config/config_syntax.hpp"
#include "topology/hostlist.hpp"

namespace shoal::config {

namespace cs = config_syntax;

namespace {

/// A comma list in which a comma inside brackets belongs to a hostlist: `nid[1,3-5]:2,x[1-2]`.
std::vector<std::string> hostlist_items(const std::string& text) {
  std::vector<std::string> out{std::string{}};
  int depth = 0;
  for (char c : text) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0)
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

/// SuspendExcStates: the guide's list.
constexpr std::string_view exc_state_names[] = {
    "CLOUD",       "DOWN",        "DRAIN",          "DYNAMIC_FUTURE", "DYNAMIC_NORM", "FAIL",
    "INVALID_REG", "MAINTENANCE", "NOT_RESPONDING", "PERFCTRS",       "PLANNED",      "RESERVED",
};

/// ReconfigFlags: Slurm 22.05's words, in its spelling.
constexpr std::string_view reconfig_flag_names[] = {
    "KeepPartInfo",
    "KeepPartState",
    "KeepPowerSaveSettings",
};

/// CommunicationParameters: Slurm 22.05's words; only NoAddrCache means something to shoal.
constexpr std::string_view comm_parameter_names[] = {
    "block_null_hash", "CheckGhalQuiesce", "DisableIPv4",     "EnableIPv6",
    "KeepAliveTime",   "NoAddrCache",      "NoCtldInAddrAny", "NoInAddrAny",
};

template <size_t N>
const std::string_view* find_word(const std::string_view (&list)[N], const std::string& word) {
  auto lower = cs::to_lower(word);
  for (const auto& w : list)
    if (cs::to_lower(w) == lower) return &w;
  return nullptr;
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ",") + w;
  return out;
}

/// Whole seconds from 1 to 65535 (Slurm keeps these timeouts in 16 bits).
std::optional<int64_t> parse_timeout(const std::string& value) {
  auto n = cs::parse_unsigned(value, 65535);
  if (!n || *n == 0) return std::nullopt;
  return static_cast<int64_t>(*n);
}

bool apply_exc_nodes(power_settings& s, const std::string& value, std::string& error) {
  s.exc_nodes.clear();
  if (value.empty()) return true;
  for (auto& item : hostlist_items(value)) {
    suspend_exclusion ex;
    ex.text = item;
    auto colon = item.rfind(':');
    auto set = item;
    if (colon != std::string::npos && item.find(']', colon) == std::string::npos) {
      auto count = cs::parse_unsigned(std::string_view{item}.substr(colon + 1), cs::max_u32);
      if (!count || *count == 0) {
        error = "'" + item + "': the count after ':' must be a whole number, 1 or more";
        return true;
      }
      ex.count = static_cast<uint32_t>(*count);
      set = item.substr(0, colon);
    }
    auto names = topology::expand_hostlist(set);
    if (set.empty() || !names || names->empty()) {
      error = "'" + item + "' is not a hostlist with an optional :count, such as nid[10-20]:4";
      return true;
    }
    ex.nodes = std::move(*names);
    s.exc_nodes.push_back(std::move(ex));
  }
  return true;
}

bool apply_ctld_parameters(power_settings& s, const std::string& value, std::string& error,
                           std::vector<std::string>& warnings) {
  s.cloud_reg_addrs = s.idle_on_node_suspend = s.cloud_dns = false;
  s.power_save_interval_s = 10;
  s.power_save_min_interval_s = 0;
  s.ctld_parameters.clear();
  if (value.empty()) return true;
  for (auto& word : parsing::split_list(value)) {
    if (word.empty()) {
      error = "an empty item in the list";
      return true;
    }
    auto eq = word.find('=');
    auto name = cs::to_lower(word.substr(0, eq));
    auto arg = eq == std::string::npos ? std::string{} : word.substr(eq + 1);
    if (name == "cloud_reg_addrs") {
      s.cloud_reg_addrs = true;
    } else if (name == "idle_on_node_suspend") {
      s.idle_on_node_suspend = true;
    } else if (name == "cloud_dns") {
      s.cloud_dns = true;
    } else if (name == "power_save_interval" || name == "power_save_min_interval") {
      auto n = cs::parse_unsigned(arg, 86'400);
      bool interval = name == "power_save_interval";
      if (!n || (interval && *n == 0)) {
        error = name + " needs whole seconds" + (interval ? ", 1 or more" : "");
        return true;
      }
      (interval ? s.power_save_interval_s : s.power_save_min_interval_s) = static_cast<int64_t>(*n);
    } else {
      warnings.push_back("SlurmctldParameters=" + word + " has no effect");
    }
    s.ctld_parameters.push_back(word);
  }
  return true;
}

bool apply_reconfig_flags(power_settings& s, const std::string& value, std::string& error) {
  s.reconfig_flags.clear();
  s.keep_power_save_settings = false;
  if (value.empty()) return true;
  for (auto& word : parsing::split_list(value)) {
    auto* known = find_word(reconfig_flag_names, word);
    if (known == nullptr) {
      error = "unknown flag '" + word + "' (use KeepPartInfo, KeepPartState or " +
              "KeepPowerSaveSettings)";
      return true;
    }
    s.reconfig_flags.emplace_back(*known);
    if (*known == "KeepPowerSaveSettings") s.keep_power_save_settings = true;
  }
  return true;
}

bool apply_comm_parameters(power_settings& s, const std::string& value, std::string& error,
                           std::vector<std::string>& warnings) {
  s.comm_parameters.clear();
  s.no_addr_cache = false;
  if (value.empty()) return true;
  for (auto& word : parsing::split_list(value)) {
    if (word.empty()) {
      error = "an empty item in the list";
      return true;
    }
    auto name = word.substr(0, word.find('='));
    auto* known = find_word(comm_parameter_names, name);
    if (known != nullptr && *known == "NoAddrCache")
      s.no_addr_cache = true;
    else
      warnings.push_back("CommunicationParameters=" + word + " has no effect");
    s.comm_parameters.push_back(word);
  }
  return true;
}

}  // namespace

std::optional<int64_t> parse_suspend_time(const std::string& value) {
  auto upper = cs::to_upper(value);
  if (upper == "INFINITE" || upper == "NONE" || upper == "UNLIMITED") return suspend_never;
  if (!value.empty() && value[0] == '-') {
    if (!cs::parse_unsigned(std::string_view{value}.substr(1), cs::max_u32)) return std::nullopt;
    return suspend_never;
  }
  auto n = cs::parse_unsigned(value, cs::max_u32);
  if (!n) return std::nullopt;
  return static_cast<int64_t>(*n);
}

std::string suspend_time_text(int64_t seconds) {
  return seconds < 0 ? "INFINITE" : std::to_string(seconds);
}

bool apply_power_key(power_settings& s, const std::string& k, const std::string& value,
                     std::string& error, std::vector<std::string>& warnings) {
  if (k == "suspendprogram" || k == "resumeprogram" || k == "resumefailprogram") {
    (k == "suspendprogram"  ? s.suspend_program
     : k == "resumeprogram" ? s.resume_program
                            : s.resume_fail_program) = value;
    return true;
  }
  if (k == "suspendtime") {
    auto t = parse_suspend_time(value);
    if (!t)
      error = "expected seconds, or INFINITE (or -1) for off";
    else
      s.suspend_time_s = *t;
    return true;
  }
  if (k == "suspendtimeout" || k == "resumetimeout" || k == "tcptimeout") {
    auto t = parse_timeout(value);
    if (!t)
      error = "expected whole seconds from 1 to 65535";
    else
      (k == "suspendtimeout"  ? s.suspend_timeout_s
       : k == "resumetimeout" ? s.resume_timeout_s
                              : s.tcp_timeout_s) = *t;
    return true;
  }
  if (k == "suspendrate" || k == "resumerate") {
    auto n = cs::parse_unsigned(value, 65535);
    if (!n)
      error = "expected nodes per minute from 0 (no limit) to 65535";
    else
      (k == "suspendrate" ? s.suspend_rate : s.resume_rate) = static_cast<uint32_t>(*n);
    return true;
  }
  if (k == "suspendexcnodes") return apply_exc_nodes(s, value, error);
  if (k == "suspendexcparts") {
    s.exc_parts.clear();
    if (value.empty()) return true;
    for (auto& name : parsing::split_list(value)) {
      if (name.empty()) {
        error = "expected partition names separated by commas";
        return true;
      }
      s.exc_parts.push_back(std::move(name));
    }
    return true;
  }
  if (k == "suspendexcstates") {
    s.exc_states.clear();
    if (value.empty()) return true;
    for (auto& word : parsing::split_list(value)) {
      auto* known = find_word(exc_state_names, word);
      if (known == nullptr) {
        error = "'" + word +
                "' is not a state SuspendExcStates takes (CLOUD, DOWN, DRAIN, DYNAMIC_FUTURE, "
                "DYNAMIC_NORM, FAIL, INVALID_REG, MAINTENANCE, NOT_RESPONDING, PERFCTRS, PLANNED, "
                "RESERVED)";
        return true;
      }
      if (std::find(s.exc_states.begin(), s.exc_states.end(), *known) == s.exc_states.end())
        s.exc_states.emplace_back(*known);
    }
    return true;
  }
  if (k == "slurmctldparameters") return apply_ctld_parameters(s, value, error, warnings);
  if (k == "reconfigflags") return apply_reconfig_flags(s, value, error);
  if (k == "communicationparameters") return apply_comm_parameters(s, value, error, warnings);
  return false;
}

std::vector<std::pair<std::string, std::string>> render_power_keys(const power_settings& s) {
  std::vector<std::pair<std::string, std::string>> out;
  auto add_if = [&](const char* key, const std::string& value) {
    if (!value.empty()) out.emplace_back(key, value);
  };
  add_if("CommunicationParameters", joined(s.comm_parameters));
  add_if("ReconfigFlags", joined(s.reconfig_flags));
  add_if("ResumeFailProgram", s.resume_fail_program);
  add_if("ResumeProgram", s.resume_program);
  out.emplace_back("ResumeRate", std::to_string(s.resume_rate));
  out.emplace_back("ResumeTimeout", std::to_string(s.resume_timeout_s));
  add_if("SlurmctldParameters", joined(s.ctld_parameters));
  std::string exc_nodes;
  for (const auto& ex : s.exc_nodes) exc_nodes += (exc_nodes.empty() ? "" : ",") + ex.text;
  add_if("SuspendExcNodes", exc_nodes);
  add_if("SuspendExcParts", joined(s.exc_parts));
  add_if("SuspendExcStates", joined(s.exc_states));
  add_if("SuspendProgram", s.suspend_program);
  out.emplace_back("SuspendRate", std::to_string(s.suspend_rate));
  out.emplace_back("SuspendTime", suspend_time_text(s.suspend_time_s));
  out.emplace_back("SuspendTimeout", std::to_string(s.suspend_timeout_s));
  out.emplace_back("TCPTimeout", std::to_string(s.tcp_timeout_s));
  return out;
}

power_timing effective_power_timing(const power_settings& global,
                                    const std::vector<partition_power_timing>& partitions) {
  // INFINITE (off) is the highest SuspendTime of all.
  auto rank = [](int64_t t) { return t < 0 ? INT64_MAX : t; };
  std::optional<int64_t> suspend_time, suspend_timeout, resume_timeout;
  for (const auto& p : partitions) {
    if (p.suspend_time_s && (!suspend_time || rank(*p.suspend_time_s) > rank(*suspend_time)))
      suspend_time = p.suspend_time_s;
    if (p.suspend_timeout_s)
      suspend_timeout = std::max(suspend_timeout.value_or(0), *p.suspend_timeout_s);
    if (p.resume_timeout_s)
      resume_timeout = std::max(resume_timeout.value_or(0), *p.resume_timeout_s);
  }
  power_timing out;
  out.suspend_time_s = suspend_time.value_or(global.suspend_time_s);
  out.suspend_timeout_s = suspend_timeout.value_or(global.suspend_timeout_s);
  out.resume_timeout_s = resume_timeout.value_or(global.resume_timeout_s);
  return out;
}

std::vector<std::string> feature_list(const node_config& node) {
  std::vector<std::string> out;
  for (auto& item : parsing::split_list(node.features))
    if (!item.empty()) out.push_back(std::move(item));
  return out;
}

power_timing node_power_timing(const cluster_config& cfg, const node_config& node) {
  std::vector<partition_power_timing> own;
  for (const auto& p : cfg.partitions)
    if (std::find(node.partitions.begin(), node.partitions.end(), p.name) != node.partitions.end())
      own.push_back(p.power);
  return effective_power_timing(cfg.power, own);
}

}  // namespace shoal::config
