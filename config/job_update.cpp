#include "config/job_update.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <cstdint>
#include <string_view>

#include "config/begin_time.hpp"
#include "config/duration.hpp"

namespace shoal::config {

namespace {

/// Each key shoal updates, as scontrol (src/scontrol/update_job.c) matches it: a word matches
/// when it is a case-insensitive prefix of the key at least `min` characters long, tried in
/// scontrol's order (so "Pr" is Priority and "Pa" Partition).
enum class key {
  job_id,
  comment,
  time_limit,
  priority,
  nice,
  num_tasks,
  num_nodes,
  partition,
  qos,
  name,
  exc_node_list,
  features,
  account,
  dependency,
  start_time,
};

struct key_form {
  const char* name;
  size_t min;
  key k;
};

// clang-format off
constexpr key_form key_forms[] = {
  {"JobId", 3, key::job_id},
  {"Comment", 3, key::comment},
  {"TimeLimit", 5, key::time_limit},
  {"Priority", 2, key::priority},
  {"Nice", 2, key::nice},
  {"NumTasks", 8, key::num_tasks},
  {"ReqProcs", 8, key::num_tasks},
  {"ReqNodes", 8, key::num_nodes},
  {"NumNodes", 8, key::num_nodes},
  {"Partition", 2, key::partition},
  {"QOS", 2, key::qos},
  {"Name", 2, key::name},
  {"JobName", 4, key::name},
  {"ExcNodeList", 3, key::exc_node_list},
  {"Features", 1, key::features},
  {"Account", 1, key::account},
  {"Dependency", 1, key::dependency},
  {"EligibleTime", 2, key::start_time},
  {"StartTime", 2, key::start_time},
};
// clang-format on

std::optional<key> key_of(std::string_view tag) {
  for (const auto& form : key_forms) {
    std::string_view name{form.name};
    if (tag.size() < form.min || tag.size() > name.size()) continue;
    bool same = true;
    for (size_t i = 0; i < tag.size() && same; ++i)
      same = std::tolower(static_cast<unsigned char>(tag[i])) ==
             std::tolower(static_cast<unsigned char>(name[i]));
    if (same) return form.k;
  }
  return std::nullopt;
}

error bad(std::string text) {
  return error(errc::invalid_request, std::move(text));
}

template <class T>
bool parse_number(std::string_view text, T& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && end == text.data() + text.size() && !text.empty();
}

/// NumNodes=N or N-M (scontrol's get_resource_arg_range, without its k/m suffixes).
error parse_node_range(std::string_view value, job_update_spec& spec) {
  auto dash = value.find('-');
  uint32_t lo = 0, hi = 0;
  if (!parse_number(value.substr(0, dash), lo) ||
      (dash != std::string_view::npos && !parse_number(value.substr(dash + 1), hi)))
    return bad("Invalid node count specification: " + std::string{value});
  spec.min_nodes = lo;
  spec.max_nodes = hi;
  return {};
}

/// TimeLimit=[+|-]TIME (add_sign: the word was TimeLimit+= or TimeLimit-=).
error parse_time_value(std::string_view value, int add_sign, job_update_spec& spec) {
  int sign = add_sign;
  if (!value.empty() && (value.front() == '+' || value.front() == '-')) {
    if (sign != 0) return bad("Invalid syntax, variations of +=- are not accepted.");
    sign = value.front() == '+' ? 1 : -1;
    value.remove_prefix(1);
  }
  auto limit = parse_time_limit(value);
  if (!limit || (sign != 0 && *limit < 0)) return bad("Invalid TimeLimit value");
  spec.time_limit_s = *limit;
  spec.time_limit_sign = sign;
  return {};
}

error parse_value(key k, std::string_view tag, std::string value, int add_sign,
                  job_update_spec& spec) {
  if (add_sign != 0 && k != key::time_limit)
    return bad("Option " + std::string{tag} + " does not accept [+|-]= syntax");
  switch (k) {
    case key::job_id: {
      size_t start = 0;
      while (start <= value.size()) {
        auto comma = value.find(',', start);
        auto item = value.substr(start, comma == std::string::npos ? comma : comma - start);
        if (!item.empty()) spec.jobs.push_back(item);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      return {};
    }
    case key::comment:
      spec.comment = std::move(value);
      return {};
    case key::time_limit:
      return parse_time_value(value, add_sign, spec);
    case key::priority: {
      uint32_t p = 0;
      if (!parse_number(std::string_view{value}, p)) return bad("Invalid Priority value: " + value);
      // Slurm's Priority=0 holds the job: shoal's hold is `shoal control hold`.
      if (p == 0) return bad("Invalid Priority value: 0 (to hold a job: shoal control hold)");
      spec.priority = p;
      return {};
    }
    case key::nice: {
      int64_t n = 0;
      if (!parse_number(std::string_view{value}, n) || n > INT32_MAX - 2 || n < -(INT32_MAX - 2))
        return bad("Nice value out of range (+/- 2147483645). Value ignored");
      spec.nice = static_cast<int32_t>(n);
      return {};
    }
    case key::num_tasks: {
      uint32_t n = 0;
      if (!parse_number(std::string_view{value}, n)) return bad("Invalid NumTasks value: " + value);
      spec.ntasks = n;
      return {};
    }
    case key::num_nodes:
      return parse_node_range(value, spec);
    case key::partition:
      spec.partition = std::move(value);
      return {};
    case key::qos:
      spec.qos = std::move(value);
      return {};
    case key::name:
      spec.name = std::move(value);
      return {};
    case key::exc_node_list:
      spec.exclude = std::move(value);
      return {};
    case key::features:
      spec.features = std::move(value);
      return {};
    case key::account:
      spec.account = std::move(value);
      return {};
    case key::dependency:
      spec.dependency = std::move(value);
      return {};
    case key::start_time:
      spec.start_text = std::move(value);
      return {};
  }
  return {};
}

bool any_change(const job_update_spec& s) {
  return s.time_limit_s || s.partition || s.min_nodes || s.ntasks || s.priority || s.nice ||
         s.dependency || s.start_text || s.begin_time || s.name || s.comment || s.features ||
         s.qos || s.account || s.exclude;
}

/// A time limit's order: -1 (UNLIMITED) above every other.
int64_t ordered(int64_t limit_s) {
  return limit_s < 0 ? INT64_MAX : limit_s;
}

}  // namespace

shoal::expected<job_update_spec> parse_job_update(const std::vector<std::string>& words,
                                                  int64_t now) {
  job_update_spec spec;
  for (size_t i = 0; i < words.size(); ++i) {
    std::string_view word{words[i]};
    auto eq = word.find('=');
    std::string_view tag = word.substr(0, eq);
    std::string value;
    int add_sign = 0;
    if (eq != std::string_view::npos) {
      if (!tag.empty() && (tag.back() == '+' || tag.back() == '-')) {
        add_sign = tag.back() == '+' ? 1 : -1;
        tag.remove_suffix(1);
      }
      value = std::string{word.substr(eq + 1)};
    } else if (key_of(tag) == key::nice) {
      spec.nice = 100;  // scontrol's "Nice" alone
      continue;
    } else if (i + 1 < words.size()) {
      value = words[++i];
    } else {
      return bad("Invalid input: " + std::string{word} + "\nRequest aborted");
    }
    auto k = key_of(tag);
    if (!k) return bad("Update of this parameter is not supported: " + words[i]);
    if (auto err = parse_value(*k, tag, std::move(value), add_sign, spec)) return err;
  }
  if (spec.start_text && now != 0) {
    auto at = parse_begin_time(*spec.start_text, now);
    if (!at) return bad("Invalid StartTime value: " + *spec.start_text);
    spec.begin_time = std::max(*at, now);
  }
  if (!any_change(spec)) return bad("No changes specified");
  return spec;
}

std::string changed_keys(const job_update_spec& s) {
  std::string out;
  auto add = [&out](bool set, const char* name) {
    if (set) out += (out.empty() ? "" : ",") + std::string{name};
  };
  add(s.time_limit_s.has_value(), "TimeLimit");
  add(s.partition.has_value(), "Partition");
  add(s.min_nodes.has_value(), "NumNodes");
  add(s.ntasks.has_value(), "NumTasks");
  add(s.priority.has_value(), "Priority");
  add(s.nice.has_value(), "Nice");
  add(s.dependency.has_value(), "Dependency");
  add(s.begin_time.has_value() || s.start_text.has_value(), "StartTime");
  add(s.name.has_value(), "Name");
  add(s.comment.has_value(), "Comment");
  add(s.features.has_value(), "Features");
  add(s.qos.has_value(), "QOS");
  add(s.account.has_value(), "Account");
  add(s.exclude.has_value(), "ExcNodeList");
  return out;
}

shoal::expected<msg::job_request> apply_job_update(const job_update_spec& spec,
                                                   msg::job_request req) {
  if (spec.time_limit_s) {
    int64_t limit = *spec.time_limit_s;
    if (spec.time_limit_sign != 0) {
      if (req.time_limit_s < 0)
        return bad("TimeLimit increment or decrement of an UNLIMITED time limit");
      if (spec.time_limit_sign < 0 && limit > req.time_limit_s)
        return bad("TimeLimit decrement larger than current time limit (" + format_duration(limit) +
                   " > " + format_duration(req.time_limit_s) + ")");
      limit = req.time_limit_s + spec.time_limit_sign * limit;
    }
    // A request's 0 means "the partition's default": a job must not leave its limit that way.
    if (limit == 0) return bad("Invalid TimeLimit value");
    req.time_limit_s = limit;
  }
  if (spec.partition) req.partition = *spec.partition;
  if (spec.min_nodes) {
    if (*spec.min_nodes < 1) return bad("Node count specification invalid");
    auto max = spec.max_nodes.value_or(0);
    if (max != 0 && max < *spec.min_nodes) return bad("Node count specification invalid");
    req.min_nodes = *spec.min_nodes;
    req.nodes_max = max;
  }
  if (spec.ntasks) {
    if (*spec.ntasks < 1) return bad("Task count specification invalid");
    req.ntasks = *spec.ntasks;
  } else if (spec.min_nodes && req.ntasks != 0 && req.ntasks < req.min_nodes) {
    req.ntasks = req.min_nodes;  // slurmctld: "adjusting num_tasks to be at least min_nodes"
  }
  if (spec.priority) req.workload.priority = *spec.priority;
  if (spec.nice) req.nice = *spec.nice;
  if (spec.dependency) req.workload.dependency = *spec.dependency;
  if (spec.begin_time) req.workload.begin_time = *spec.begin_time;
  if (spec.name) req.name = *spec.name;
  if (spec.comment) req.workload.comment = *spec.comment;
  if (spec.features) req.constraint = *spec.features;
  if (spec.qos) req.workload.qos = *spec.qos;
  if (spec.account) req.workload.account = *spec.account;
  if (spec.exclude) req.exclude = *spec.exclude;
  return req;
}

std::vector<std::string> pending_only_changes(const msg::job_request& before,
                                              const msg::job_request& after) {
  std::vector<std::string> out;
  auto add = [&out](bool changed, const char* name) {
    if (changed) out.emplace_back(name);
  };
  add(before.partition != after.partition, "Partition");
  add(before.min_nodes != after.min_nodes || before.nodes_max != after.nodes_max, "NumNodes");
  add(before.ntasks != after.ntasks, "NumTasks");
  add(before.workload.dependency != after.workload.dependency, "Dependency");
  add(before.workload.begin_time != after.workload.begin_time, "StartTime");
  add(before.constraint != after.constraint, "Features");
  add(before.workload.qos != after.workload.qos, "QOS");
  add(before.workload.account != after.workload.account, "Account");
  add(before.exclude != after.exclude, "ExcNodeList");
  return out;
}

bool needs_admin(const msg::job_request& before, const msg::job_request& after, bool queued,
                 int64_t partition_max_s, bool priority_given) {
  if (priority_given) return true;
  if (after.nice < 0 && after.nice != before.nice) return true;
  if (ordered(after.time_limit_s) <= ordered(before.time_limit_s)) return false;
  return !(queued && ordered(after.time_limit_s) <= ordered(partition_max_s));
}

}  // namespace shoal::config
