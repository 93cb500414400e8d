// scontrol show records and the JSON form of each record.

#include <algorithm>
#include <cstdio>
#include <initializer_list>
#include <map>
#include <type_traits>
#include <vector>

#include "config/duration.hpp"
#include "tools/format/listing.hpp"
#include "tools/format/node_state_text.hpp"
#include "tools/format/slurm_format.hpp"
#include "tools/format/table.hpp"
#include "topology/hostlist.hpp"

namespace shoal::cli {

namespace {

using line = std::vector<std::string>;

/// Joins each line's "Key=Value" pairs with blanks; lines after the first are indented by three
/// blanks, and a blank line ends the record.
std::string record(const std::vector<line>& lines) {
  std::string out;
  bool first = true;
  for (auto& l : lines) {
    if (l.size() == 0) continue;
    out += first ? "" : "   ";
    first = false;
    bool first_pair = true;
    for (auto& pair : l) {
      if (!first_pair) out.push_back(' ');
      first_pair = false;
      out += pair;
    }
    out.push_back('\n');
  }
  out.push_back('\n');
  return out;
}

std::string kv(const char* key, const std::string& value) {
  return std::string(key) + "=" + detail::or_null(value);
}

template <class T>
std::string kv_num(const char* key, T value) {
  return std::string(key) + "=" + std::to_string(value);
}

std::string kv_time(const char* key, int64_t t) {
  return std::string(key) + "=" + detail::iso_time(t, "Unknown");
}

std::string yes_no(bool b) {
  return b ? "YES" : "NO";
}

std::string mhz(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

int64_t run_time(const msg::job_info& j, int64_t now) {
  if (j.start_time == 0) return 0;
  bool ended = msg::is_finished(j.state) || j.state == msg::job_state::completing;
  auto until = (ended && j.end_time != 0) ? j.end_time : now;
  return std::max<int64_t>(0, until - j.start_time);
}

/// scontrol's EndTime: when the job ended, or while it runs when its time limit ends it
/// (Unknown without a limit, or before it starts).
int64_t end_time(const msg::job_info& j) {
  if (j.end_time != 0 || j.start_time == 0) return j.end_time;
  bool running = j.state == msg::job_state::running || j.state == msg::job_state::configuring ||
                 j.state == msg::job_state::completing;
  return running && j.time_limit_s >= 0 ? j.start_time + j.time_limit_s : 0;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (auto& s : items) out += (out.empty() ? "" : ",") + s;
  return out;
}

std::string join_ids(const std::vector<uint64_t>& ids) {
  std::string out;
  for (auto id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return out;
}

}  // namespace

// -- scontrol show ------------------------------------------------------------

std::string show_job(const msg::job_info& j, int64_t now, const msg::pending_detail* pending) {
  std::vector<std::string> id_line = {kv_num("JobId", j.job_id)};
  if (j.array_job_id != 0) {
    id_line.push_back(kv_num("ArrayJobId", j.array_job_id));
    id_line.push_back(
        kv("ArrayTaskId", j.array_task_id >= 0 ? std::to_string(j.array_task_id) : j.array_tasks));
  }
  id_line.push_back(kv("JobName", j.name));
  auto priority = pending != nullptr ? pending->priority : j.priority;
  std::vector<std::vector<std::string>> lines = {
      id_line,
      {kv("UserId", j.user + "(" + std::to_string(j.uid) + ")"), kv_num("Priority", priority),
       kv("Account", j.account), kv("QOS", j.qos)},
      {kv("JobState", msg::to_string(j.state)), kv("Reason", j.reason.empty() ? "None" : j.reason),
       kv("ExitCode", std::to_string(j.exit_code) + ":0")},
      {kv_num("Requeue", j.requeue ? 1 : 0), kv_num("Restarts", j.requeue_count),
       kv_num("BatchFlag", j.batch ? 1 : 0), kv_num("Steps", j.step_count)},
      {kv("RunTime", slurm_time_string(run_time(j, now))),
       kv("TimeLimit", j.time_limit_s < 0 ? "UNLIMITED" : slurm_time_string(j.time_limit_s))},
      {kv_time("SubmitTime", j.submit_time), kv_time("StartTime", j.start_time),
       kv_time("EndTime", end_time(j))},
      {kv("Partition", j.partition), kv("NodeList", j.nodelist)},
      {kv("ReqNodeList", j.required_nodes), kv("ExcNodeList", j.exclude_nodes)},
      {kv_num("NumNodes", j.node_count), kv_num("NumTasks", j.ntasks),
       kv_num("CPUs/Task", j.cpus_per_task),
       kv("NtasksPerN:B:S:C",
          (j.ntasks_per_node > 0 ? std::to_string(j.ntasks_per_node) : "*") + ":*:*:*")},
      {kv("OverSubscribe", j.over_subscribe)},
      {kv("Command", j.command)},
      {kv("WorkDir", j.work_dir)},
      {kv("StdOut", j.stdout_path)},
      {kv("StdErr", j.stderr_path.empty() ? j.stdout_path : j.stderr_path)},
      {kv("Dependency", detail::or_null(j.dependency)), kv_time("EligibleTime", j.begin_time),
       kv_num("MinCPUsNode", std::max<uint32_t>(1, j.min_cpus)),
       kv_num("MinMemoryNode", j.mem_per_node_mb)},
      {kv("Features", detail::or_null(j.features)), kv("DelayBoot", "00:00:00")},
  };
  // Optional lines, as scontrol prints them only when set; a mail type without a user mails the
  // job's owner, so that is who is shown.
  if (!j.tres_per_node.empty()) lines.push_back({kv("TresPerNode", j.tres_per_node)});
  if (!j.comment.empty()) lines.push_back({kv("Comment", j.comment)});
  if (!j.mail_type.empty())
    lines.push_back(
        {kv("MailUser", j.mail_user.empty() ? j.user : j.mail_user), kv("MailType", j.mail_type)});
  if (pending != nullptr) {
    lines.push_back({kv_num("PriorityAge", pending->age_factor),
                     kv_num("PriorityJobSize", pending->size_factor),
                     kv_num("PriorityPartition", pending->partition_factor),
                     kv("Nice", std::to_string(pending->nice))});
    lines.push_back({kv_time("ExpectedStart", pending->expected_start)});
  }
  return record(lines);
}

std::string show_node(const msg::node_info& n, int64_t now) {
  static_cast<void>(now);
  const auto& r = n.reported;
  std::string reason = detail::or_null(n.reason);
  if (!n.reason.empty() && (!n.reason_user.empty() || n.reason_time != 0))
    reason += " [" + detail::or_null(n.reason_user) + "@" +
              detail::iso_time(n.reason_time, "Unknown") + "]";
  line cpus{kv_num("CPUTot", n.cpus ? n.cpus : r.cpus), kv_num("Sockets", r.sockets),
            kv_num("CoresPerSocket", r.cores_per_socket),
            kv_num("ThreadsPerCore", r.threads_per_core), kv("CPUMHz", mhz(r.cpu_mhz))};
  // The seed's Speed= and OS= are what the node must have; shown beside what it reports, and
  // only when configured (Slurm has neither key).
  if (n.speed > 0) {
    char speed[32];
    std::snprintf(speed, sizeof speed, "%.15g", n.speed);
    cpus.push_back(kv("Speed", speed));
  }
  line os{kv("OS", r.os)};
  if (!n.os.empty()) os.push_back(kv("ConfiguredOS", n.os));
  std::vector<std::vector<std::string>> lines = {
      {kv("NodeName", n.name), kv("NodeAddr", n.address),
       kv("NodeHostName", n.hostname.empty() ? r.hostname : n.hostname)},
      cpus,
      {kv_num("RealMemory", n.real_memory_mb ? n.real_memory_mb : r.real_memory_mb),
       kv_num("VirtualMemory", r.virtual_memory_mb),
       kv_num("TmpDisk", n.tmp_disk_mb ? n.tmp_disk_mb : r.tmp_disk_mb),
       kv_num("Weight", n.weight)},
      {kv_num("ReportedCPUs", r.cpus), kv_num("ReportedRealMemory", r.real_memory_mb),
       kv_num("ReportedTmpDisk", r.tmp_disk_mb), kv("ReportedName", r.node_name)},
      {kv("State", msg::to_string(n.state) + power_flags(n)), kv_time("StateSince", n.state_since),
       kv_time("LastResponse", n.last_response)},
      os,
      {kv_time("BootTime", r.boot_time), kv_time("SlurmdStartTime", r.daemon_start_time),
       kv_num("SlurmdPid", r.daemon_pid)},
      {kv_time("LastBusyTime", n.last_busy), kv("ResumeAfterTime", "None")},
      {kv("Partitions", join(n.partitions)), kv("Jobs", join_ids(n.job_ids))},
      {kv("AvailableFeatures", n.features), kv("ActiveFeatures", n.features)},
  };
  // Generic resources, as `scontrol -d show node` prints them, only on nodes that have some.
  if (!n.gres.empty()) lines.push_back({kv("Gres", n.gres), kv("GresUsed", n.gres_used)});
  lines.push_back({std::string("Reason=") + reason});
  return record(lines);
}

std::string show_partition(const msg::partition_info& p, const std::vector<msg::node_info>& nodes) {
  std::map<std::string, const msg::node_info*> by_name;
  for (auto& n : nodes) by_name.emplace(n.name, &n);
  uint64_t cpus = 0;
  std::vector<std::pair<std::string, size_t>> states;  // first-appearance order
  for (auto& name : p.nodes) {
    auto it = by_name.find(name);
    auto state = msg::node_state::unknown;
    if (it != by_name.end()) {
      cpus += it->second->cpus ? it->second->cpus : it->second->reported.cpus;
      state = it->second->state;
    }
    std::string s = msg::to_string(state);
    auto e = std::find_if(states.begin(), states.end(), [&](auto& x) { return x.first == s; });
    if (e == states.end())
      states.emplace_back(s, 1);
    else
      ++e->second;
  }
  std::string state_counts;
  for (auto& [s, count] : states)
    state_counts += (state_counts.empty() ? "" : ",") + s + ":" + std::to_string(count);
  auto limit = [](int64_t s, const char* none) {
    return s < 0 ? std::string(none) : config::format_duration(s);
  };
  return record({
      {kv("PartitionName", p.name)},
      // shoal restricts partitions by none of these: Slurm's words for no restriction, which
      // portals read to offer a partition (ood_core's str_to_queue_info).
      {kv("AllowGroups", "ALL"), kv("AllowAccounts", "ALL"), kv("AllowQos", "ALL")},
      {kv("Default", yes_no(p.is_default)), kv("State", p.state), kv_num("Priority", p.priority)},
      {kv("MaxNodes", p.max_nodes == 0 ? "UNLIMITED" : std::to_string(p.max_nodes)),
       kv("MaxTime", limit(p.max_time_s, "UNLIMITED")),
       kv("DefaultTime", limit(p.default_time_s, "NONE"))},
      {kv("OverSubscribe", p.over_subscribe)},
      {kv("Nodes", topology::compress_hostlist_sorted(p.nodes))},
      {kv_num("TotalNodes", p.nodes.size()), kv_num("TotalCPUs", cpus),
       kv("NodeStates", state_counts)},
  });
}

// -- JSON ---------------------------------------------------------------------

namespace {

template <class T>
nlohmann::json fields_json(const T& x);

template <class T>
struct is_struct_list : std::false_type {};

template <class T>
struct is_struct_list<std::vector<T>> : std::bool_constant<msg::is_wire_struct_v<T>> {};

template <class V>
nlohmann::json field_json(const V& v) {
  if constexpr (msg::is_wire_struct_v<V>) {
    return fields_json(v);
  } else if constexpr (is_struct_list<V>::value) {
    auto list = nlohmann::json::array();
    for (auto& x : v) list.push_back(fields_json(x));
    return list;
  } else if constexpr (std::is_same_v<V, msg::node_state> || std::is_same_v<V, msg::job_state> ||
                       std::is_same_v<V, msg::power_state>) {
    return msg::to_string(v);
  } else {
    return v;
  }
}

/// Every field of a message struct (messages/shoal.capnp) under its C++ member name, from the
/// generated visitor: a field added to the schema shows here without further code.
template <class T>
nlohmann::json fields_json(const T& x) {
  auto doc = nlohmann::json::object();
  msg::for_each_field(x, [&](const char* name, const auto& v) { doc[name] = field_json(v); });
  return doc;
}

}  // namespace

nlohmann::json to_json(const msg::job_info& j) {
  return fields_json(j);
}

nlohmann::json to_json(const msg::node_info& n) {
  return fields_json(n);
}

nlohmann::json to_json(const msg::partition_info& p) {
  return fields_json(p);
}

}  // namespace shoal::cli
