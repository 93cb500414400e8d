// scontrol show records and the JSON form of each record.

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <map>
#include <type_traits>
#include <vector>

#include "config/duration.hpp"
#include "policy/licenses.hpp"
#include "tools/format/job_times.hpp"
#include "tools/format/listing.hpp"
#include "tools/format/node_state_text.hpp"
#include "tools/format/sacct_format.hpp"
#include "tools/format/slurm_format.hpp"
#include "tools/format/table.hpp"
#include "topology/hostlist.hpp"

namespace shoal::cli {

namespace {

using line = std::vector<std::string>;

/// Joins each line's "Key=Value" pairs with blanks; lines after the first are indented by three
/// blanks, and a blank line ends the record.
std::string record_text(const std::vector<line>& lines) {
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

/// When the job could first run: its --begin, else its submission; Unknown while held or while a
/// dependency is still awaited.
int64_t eligible_time(const msg::job_info& j) {
  bool held = j.reason == "JobHeldUser" || j.reason == "JobHeldAdmin";
  if (j.state == msg::job_state::pending && (held || !j.dependency.empty())) return 0;
  return j.begin_time != 0 ? j.begin_time : j.submit_time;
}

/// scontrol's EndTime: when the job ended; while it runs (or once its start is expected) when its
/// time limit ends it; Unknown without a limit or a start.
int64_t end_time(const msg::job_info& j, int64_t start, int64_t now) {
  if (msg::is_finished(j.state)) return j.end_time != 0 ? j.end_time : start;
  if (j.end_time != 0 && (j.time_limit_s >= 0 || j.end_time <= now)) return j.end_time;
  return start != 0 && j.time_limit_s >= 0 ? start + j.time_limit_s + j.suspended_secs : 0;
}

/// The %N of an array's pending tasks ("3-8%2"); 0: not throttled, or not known here.
uint64_t array_throttle(const msg::job_info& j) {
  auto percent = j.array_tasks.rfind('%');
  if (percent == std::string::npos) return 0;
  return std::strtoull(j.array_tasks.c_str() + percent + 1, nullptr, 10);
}

/// What a job still awaits as scontrol prints it: each job of each condition on its own with
/// "(unfulfilled)", separated by "," (all of them) or "?" (any of them; Slurm allows no mix)
/// ("afterok:5:6,singleton" -> "afterok:5(unfulfilled),afterok:6(unfulfilled),singleton(...)").
std::string dependency_text(const std::string& dependency) {
  if (dependency.empty()) return "(null)";
  std::string sep = dependency.find('?') != std::string::npos ? "?" : ",";
  std::string out;
  size_t pos = 0;
  while (pos <= dependency.size()) {
    auto end = dependency.find_first_of(",?", pos);
    if (end == std::string::npos) end = dependency.size();
    auto item = dependency.substr(pos, end - pos);
    auto colon = item.find(':');
    if (colon == std::string::npos) {
      out += item + "(unfulfilled)";
    } else {
      auto type = item.substr(0, colon);
      size_t at = colon + 1;
      bool first = true;
      while (at <= item.size()) {
        auto next = item.find(':', at);
        if (next == std::string::npos) next = item.size();
        out += (first ? "" : sep) + type + ":" + item.substr(at, next - at) + "(unfulfilled)";
        first = false;
        at = next + 1;
      }
    }
    if (end < dependency.size()) out += sep;
    pos = end + 1;
  }
  return out;
}

/// Slurm turns blanks in a reason into underscores, for easier parsing.
std::string reason_text(const std::string& reason) {
  if (reason.empty()) return "None";
  std::string out = reason;
  for (auto& c : out)
    if (std::isspace(static_cast<unsigned char>(c))) c = '_';
  return out;
}

/// "status:signal", as WEXITSTATUS and WTERMSIG of the job's exit code.
std::string exit_code_text(const msg::job_info& j) {
  if (j.exit_signal != 0) return "0:" + std::to_string(j.exit_signal);
  return std::to_string(j.exit_code) + ":0";
}

std::string first_host(const std::string& nodelist) {
  auto names = topology::expand_hostlist(nodelist);
  return names && !names->empty() ? names->front() : nodelist;
}

/// The CPUs the job holds or asks for: its tasks' CPUs, at least --mincpus on each node.
uint64_t job_cpus(const msg::job_info& j) {
  uint64_t tasks = uint64_t{std::max(1u, j.ntasks)} * std::max(1u, j.cpus_per_task);
  return std::max<uint64_t>(tasks, uint64_t{j.min_cpus} * std::max(1u, j.node_count));
}

/// Megabytes as Slurm's convert_num_unit(..., UNIT_MEGA, NO_VAL, CONVERT_NUM_UNIT_EXACT): scaled
/// up only while the value stays whole ("1000M", "2G"), and 0 as "0".
std::string megabytes_exact(uint64_t mb) {
  if (mb == 0) return "0";
  static const char units[] = {'M', 'G', 'T', 'P'};
  size_t unit = 0;
  while (mb % 1024 == 0 && unit + 1 < sizeof units) {
    mb /= 1024;
    ++unit;
  }
  return std::to_string(mb) + units[unit];
}

/// The job's trackable resources as slurmctld lists them (cpu, mem, node, billing, then each
/// GRES): memory and GRES over all of the job's nodes.
std::string tres_text(const msg::job_info& j, uint64_t cpus) {
  auto nodes = std::max(1u, j.node_count);
  std::string out = "cpu=" + std::to_string(cpus);
  if (j.mem_per_node_mb != 0) out += ",mem=" + megabytes_exact(j.mem_per_node_mb * nodes);
  out += ",node=" + std::to_string(nodes) + ",billing=" + std::to_string(cpus);
  // tres_per_node is "gres:gpu:2" or "gres:gpu:a100:2", comma-separated.
  size_t pos = 0;
  while (pos < j.tres_per_node.size()) {
    auto end = j.tres_per_node.find(',', pos);
    if (end == std::string::npos) end = j.tres_per_node.size();
    auto item = j.tres_per_node.substr(pos, end - pos);
    pos = end + 1;
    if (item.rfind("gres:", 0) == 0) item.erase(0, 5);
    auto colon = item.find(':');
    auto last = item.rfind(':');
    if (colon == std::string::npos) continue;
    auto count = std::strtoull(item.c_str() + last + 1, nullptr, 10) * nodes;
    out += ",gres/" + item.substr(0, colon) + "=" + std::to_string(count);
    if (last != colon) out += ",gres/" + item.substr(0, last) + "=" + std::to_string(count);
  }
  return out;
}

/// An output file as Slurm's slurm_get_job_stdout shows it: %A, %a, %j, %u and %x filled in
/// (an array's own record has no task: NO_VAL, as Slurm prints), relative to the work
/// directory, and slurm-%j.out when none was given.
std::string output_path(const msg::job_info& j, const std::string& pattern) {
  // Slurm's NO_VAL where there is no task: outside an array, and an array's own record.
  std::string task = j.array_job_id != 0 && j.array_task_id >= 0 ? std::to_string(j.array_task_id)
                                                                 : std::string{"4294967294"};
  if (pattern.empty()) {
    auto name = j.array_job_id != 0
                    ? "slurm-" + std::to_string(j.array_job_id) + "_" + task + ".out"
                    : "slurm-" + std::to_string(j.job_id) + ".out";
    return j.work_dir + "/" + name;
  }
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    char c = i + 1 < pattern.size() && pattern[i] == '%' ? pattern[i + 1] : '\0';
    if (c == 'A')
      out += std::to_string(j.array_job_id != 0 ? j.array_job_id : j.job_id);
    else if (c == 'a')
      out += task;
    else if (c == 'j')
      out += std::to_string(j.job_id);
    else if (c == 'u')
      out += j.user;
    else if (c == 'x')
      out += j.name;
    else {
      out += pattern[i];
      continue;
    }
    ++i;
  }
  return out.rfind('/', 0) == 0 ? out : j.work_dir + "/" + out;
}

std::string joined(const line& pairs) {
  std::string out;
  for (auto& p : pairs) out += p;
  return out;
}

/// The base state as Slurm's node_state_string_complete prints it, then its flags in Slurm's
/// order: a node with some CPUs held is MIXED, a drained one IDLE+DRAIN, a draining one
/// ALLOCATED+DRAIN or MIXED+DRAIN.
std::string complete_state(const msg::node_info& n, uint64_t alloc_cpus, uint64_t cpus) {
  using S = msg::node_state;
  auto busy = [&] { return alloc_cpus == 0 ? "IDLE" : alloc_cpus < cpus ? "MIXED" : "ALLOCATED"; };
  std::string base;
  std::string flags;
  switch (n.state) {
    case S::idle:
      base = "IDLE";
      break;
    case S::allocated:
    case S::mixed:
      base = alloc_cpus != 0 && alloc_cpus < cpus ? "MIXED" : "ALLOCATED";
      break;
    case S::completing:
      base = busy();
      flags = "+COMPLETING";
      break;
    case S::down:
      base = "DOWN";
      break;
    case S::draining:
      base = alloc_cpus != 0 && alloc_cpus < cpus ? "MIXED" : "ALLOCATED";
      flags = "+DRAIN";
      break;
    case S::drained:
      base = "IDLE";
      flags = "+DRAIN";
      break;
    default:
      base = "UNKNOWN";
  }
  // CLOUD comes before COMPLETING and DRAIN in Slurm's flag table, the power flags after.
  auto power = power_flags(n);
  std::string cloud = n.cloud ? "+CLOUD" : "";
  if (n.cloud) power.erase(0, cloud.size());
  // MAINT comes after DRAIN and before the power flags in Slurm's table.
  return base + cloud + flags + (n.maint ? "+MAINT" : "") + power;
}

/// A node's GRES as TRES ("gpu:2,nic:1" -> ",gres/gpu=2,gres/nic=1"; typed "gpu:tesla:2" counts
/// under gpu and gpu:tesla).
std::string node_gres_tres(const std::string& gres) {
  std::string out;
  size_t pos = 0;
  while (pos < gres.size()) {
    auto end = gres.find(',', pos);
    if (end == std::string::npos) end = gres.size();
    auto item = gres.substr(pos, end - pos);
    pos = end + 1;
    auto paren = item.find('(');
    if (paren != std::string::npos) item.resize(paren);
    auto colon = item.find(':');
    auto last = item.rfind(':');
    if (colon == std::string::npos) continue;
    auto count = item.substr(last + 1);
    out += ",gres/" + item.substr(0, colon) + "=" + count;
    if (last != colon) out += ",gres/" + item.substr(0, last) + "=" + count;
  }
  return out;
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

std::string show_job(const msg::job_info& j, int64_t now, const msg::pending_detail* pending,
                     const group_entry* group) {
  const auto& names = j.nodelist;
  bool pending_now = j.state == msg::job_state::pending;
  bool started = j.start_time != 0;
  // A job that ended before it started (cancelled while pending) starts and ends at once.
  auto start = started ? j.start_time : msg::is_finished(j.state) ? j.end_time : 0;
  if (pending_now && pending != nullptr) start = pending->expected_start;
  auto eligible = eligible_time(j);
  // Priority age accrues while a job waits eligible in the queue: not for an interactive
  // allocation granted at once.
  bool accrues = started ? j.batch || j.start_time != j.submit_time
                         : pending_now && eligible != 0 && eligible <= now;

  line id_line{kv_num("JobId", j.job_id)};
  if (j.array_job_id != 0) {
    id_line.push_back(kv_num("ArrayJobId", j.array_job_id));
    id_line.push_back(
        kv("ArrayTaskId", j.array_task_id >= 0 ? std::to_string(j.array_task_id) : j.array_tasks));
    if (auto throttle = array_throttle(j); throttle != 0)
      id_line.push_back(kv_num("ArrayTaskThrottle", throttle));
  }
  id_line.push_back(kv("JobName", j.name));
  std::string group_text =
      group != nullptr ? detail::or_null(group->name) + "(" + std::to_string(group->gid) + ")"
                       : std::string{"(null)(0)"};
  std::vector<line> lines = {
      id_line,
      {kv("UserId", j.user + "(" + std::to_string(j.uid) + ")"), "GroupId=" + group_text,
       "MCS_label=N/A"},
      {kv_num("Priority", pending != nullptr ? pending->priority : j.priority),
       kv_num("Nice", pending != nullptr ? pending->nice : int64_t{0}), kv("Account", j.account),
       kv("QOS", j.qos)},
      {kv("JobState", msg::to_string(j.state)), kv("Reason", reason_text(j.reason)),
       "Dependency=" + dependency_text(j.dependency)},
      {kv_num("Requeue", j.requeue ? 1 : 0), kv_num("Restarts", j.requeue_count),
       kv_num("BatchFlag", j.batch ? 1 : 0), "Reboot=0", "ExitCode=" + exit_code_text(j)},
      {"RunTime=" + slurm_time_string(run_seconds(j, now)),
       "TimeLimit=" +
           (j.time_limit_s < 0 ? std::string{"UNLIMITED"} : slurm_time_string(j.time_limit_s)),
       "TimeMin=N/A"},
      {kv_time("SubmitTime", j.submit_time), kv_time("EligibleTime", eligible)},
      {kv_time("AccrueTime", accrues ? eligible : 0)},
      {kv_time("StartTime", start), kv_time("EndTime", end_time(j, start, now)), "Deadline=N/A"},
  };
  // Slurm prints PreemptEligibleTime= and PreemptTime= for jobs preemption may take; shoal
  // knows the second only, once it happened.
  if (j.preempt_time != 0) lines.push_back({kv_time("PreemptTime", j.preempt_time)});
  lines.push_back({"SuspendTime=" + detail::iso_time(j.suspend_time, "None"),
                   kv_num("SecsPreSuspend", j.secs_pre_suspend),
                   kv_time("LastSchedEval", j.start_time), "Scheduler=Main"});
  lines.push_back({kv("Partition", j.partition), "AllocNode:Sid=(null):0"});
  // Slurm's line for a job in a reservation, only then.
  if (!j.reservation.empty()) lines.push_back({"Reservation=" + j.reservation});
  lines.push_back({kv("ReqNodeList", j.required_nodes), kv("ExcNodeList", j.exclude_nodes)});
  lines.push_back({"NodeList=" + names});
  // slurmctld names a batch host (the first node) for every allocation, batch or not.
  if (!names.empty()) lines.push_back({"BatchHost=" + first_host(names)});
  auto cpus = job_cpus(j);
  lines.push_back({"NumNodes=" + std::to_string(std::max(1u, j.node_count)),
                   "NumCPUs=" + std::to_string(cpus), kv_num("NumTasks", std::max(1u, j.ntasks)),
                   kv_num("CPUs/Task", std::max(1u, j.cpus_per_task)), "ReqB:S:C:T=0:0:*:*"});
  lines.push_back({"TRES=" + tres_text(j, cpus)});
  lines.push_back({"Socks/Node=*",
                   "NtasksPerN:B:S:C=" + std::to_string(j.ntasks_per_node) + ":0:*:*",
                   "CoreSpec=*"});
  lines.push_back({kv_num("MinCPUsNode", std::max(j.min_cpus, std::max(1u, j.cpus_per_task) *
                                                                  std::max(1u, j.ntasks_per_node))),
                   "MinMemoryNode=" + megabytes_exact(j.mem_per_node_mb), "MinTmpDiskNode=0"});
  lines.push_back({kv("Features", j.features), "DelayBoot=00:00:00"});
  lines.push_back({kv("OverSubscribe", j.over_subscribe), "Contiguous=0",
                   kv("Licenses", j.licenses), "Network=(null)"});
  // An interactive job's command is its program, without the arguments the record keeps.
  lines.push_back({kv("Command", j.batch ? j.command : j.command.substr(0, j.command.find(' ')))});
  lines.push_back({kv("WorkDir", j.work_dir)});
  // Slurm ends the comment with a blank.
  if (!j.comment.empty()) lines.push_back({"Comment=" + j.comment + " "});
  if (j.batch) {
    auto out = output_path(j, j.stdout_path);
    lines.push_back({"StdErr=" + (j.stderr_path.empty() ? out : output_path(j, j.stderr_path))});
    lines.push_back({"StdIn=/dev/null"});
    lines.push_back({"StdOut=" + out});
  }
  lines.push_back({"Power="});
  if (!j.tres_per_node.empty()) lines.push_back({kv("TresPerNode", j.tres_per_node)});
  // A mail type without a user mails the job's owner, so that is who is shown (as slurmctld
  // fills mail_user in at submission).
  if (!j.mail_type.empty())
    lines.push_back(
        {kv("MailUser", j.mail_user.empty() ? j.user : j.mail_user), kv("MailType", j.mail_type)});
  // What the job's ended steps used together, in sacct's words (shoal's, after Slurm's keys).
  const auto& u = j.usage;
  if (u.user_cpu_us + u.system_cpu_us + u.max_rss_bytes + u.max_vsize_bytes + u.read_bytes +
          u.written_bytes !=
      0) {
    auto bytes = [](uint64_t b) { return slurm_number_unit(static_cast<double>(b), 0); };
    lines.push_back({kv("TotalCPU", sacct_cpu_text(u.user_cpu_us + u.system_cpu_us)),
                     kv("UserCPU", sacct_cpu_text(u.user_cpu_us)),
                     kv("SystemCPU", sacct_cpu_text(u.system_cpu_us))});
    lines.push_back({kv("MaxRSS", bytes(u.max_rss_bytes)), kv("MaxRSSNode", u.max_rss_node),
                     kv("MaxVMSize", bytes(u.max_vsize_bytes)), kv("DiskRead", bytes(u.read_bytes)),
                     kv("DiskWrite", bytes(u.written_bytes))});
  }
  // Slurm ends the record with a line of the indentation alone, then the blank line.
  lines.push_back({""});
  return record_text(lines);
}

namespace {

/// CPULoad= as slurm_sprint_node_table prints it: the one-minute load to two places, N/A until
/// the node's daemon sent its figures.
std::string cpu_load(const msg::node_usage& u) {
  if (u.sampled_at == 0) return "CPULoad=N/A";
  char buf[64];
  // slurmd sends the load times 100 as an integer: the same rounding here.
  std::snprintf(buf, sizeof buf, "CPULoad=%.2f",
                static_cast<double>(static_cast<uint32_t>(u.load1 * 100)) / 100.0);
  return buf;
}

}  // namespace

std::string show_node(const msg::node_info& n, int64_t now, const node_use* use) {
  static_cast<void>(now);
  const auto& r = n.reported;
  uint32_t cpus = n.cpus ? n.cpus : r.cpus;
  uint64_t memory = n.real_memory_mb ? n.real_memory_mb : r.real_memory_mb;
  uint64_t alloc_cpus = use != nullptr ? std::min<uint64_t>(use->cpus, cpus)
                        : n.state == msg::node_state::allocated ? cpus
                                                                : 0;
  uint64_t alloc_mem = use != nullptr ? use->mem_mb : 0;
  line addresses{kv("NodeAddr", n.address) + " ",
                 kv("NodeHostName", n.hostname.empty() ? r.hostname : n.hostname) + " "};
  std::vector<line> lines = {
      // Arch= and Version= are left out, as scontrol does when a node has not told them.
      {kv("NodeName", n.name), kv_num("CoresPerSocket", r.cores_per_socket) + " "},
      {kv_num("CPUAlloc", alloc_cpus), kv_num("CPUEfctv", cpus), kv_num("CPUTot", cpus),
       cpu_load(n.usage)},
      {kv("AvailableFeatures", n.features)},
      {kv("ActiveFeatures", n.features)},
      {kv("Gres", n.gres)},
  };
  if (!n.gres.empty()) lines.push_back({kv("GresUsed", n.gres_used)});
  lines.push_back({joined(addresses)});
  if (!r.os.empty()) lines.push_back({kv("OS", r.os) + " "});
  lines.push_back({kv_num("RealMemory", memory), kv_num("AllocMem", alloc_mem), "FreeMem=N/A",
                   kv_num("Sockets", r.sockets), "Boards=1"});
  lines.push_back({"State=" + complete_state(n, alloc_cpus, cpus),
                   kv_num("ThreadsPerCore", r.threads_per_core),
                   kv_num("TmpDisk", n.tmp_disk_mb ? n.tmp_disk_mb : r.tmp_disk_mb),
                   kv_num("Weight", n.weight), "Owner=N/A", "MCS_label=N/A"});
  if (!n.partitions.empty()) lines.push_back({kv("Partitions", join(n.partitions)) + " "});
  lines.push_back({"BootTime=" + detail::iso_time(r.boot_time, "None"),
                   "SlurmdStartTime=" + detail::iso_time(r.daemon_start_time, "None")});
  lines.push_back({kv_time("LastBusyTime", n.last_busy)});
  std::string gres_tres = node_gres_tres(n.gres);
  lines.push_back({"CfgTRES=cpu=" + std::to_string(cpus) +
                   (memory != 0 ? ",mem=" + megabytes_exact(memory) : "") +
                   ",billing=" + std::to_string(cpus) + gres_tres});
  std::string alloc_tres;
  if (alloc_cpus != 0) alloc_tres = "cpu=" + std::to_string(alloc_cpus);
  if (alloc_mem != 0)
    alloc_tres +=
        (alloc_tres.empty() ? "" : ",") + std::string{"mem="} + megabytes_exact(alloc_mem);
  lines.push_back({"AllocTRES=" + alloc_tres});
  lines.push_back({"CapWatts=n/a"});
  lines.push_back({"CurrentWatts=0", "AveWatts=0"});
  lines.push_back({"ExtSensorsJoules=n/s", "ExtSensorsWatts=0", "ExtSensorsTemp=n/s"});
  // What shoal knows beyond Slurm's record: the daemon's last word, what the node reported
  // against its configuration, and the jobs on it.
  lines.push_back({kv_time("LastResponse", n.last_response), kv_time("StateSince", n.state_since),
                   kv("Jobs", join_ids(n.job_ids))});
  line reported{kv_num("ReportedCPUs", r.cpus),
                kv_num("ReportedRealMemory", r.real_memory_mb),
                kv_num("ReportedTmpDisk", r.tmp_disk_mb),
                kv("ReportedName", r.node_name),
                kv("CPUMHz", mhz(r.cpu_mhz)),
                kv_num("VirtualMemory", r.virtual_memory_mb),
                kv_num("SlurmdPid", r.daemon_pid)};
  // The seed's Speed= and OS= are what the node must have; shown only when configured.
  if (n.speed > 0) {
    char speed[32];
    std::snprintf(speed, sizeof speed, "%.15g", n.speed);
    reported.push_back(kv("Speed", speed));
  }
  if (!n.os.empty()) reported.push_back(kv("ConfiguredOS", n.os));
  lines.push_back(reported);
  // The node's own figures (seed 001), as its daemon last sent them.
  const auto& u = n.usage;
  if (u.sampled_at != 0) {
    char load[96];
    std::snprintf(load, sizeof load, "%.2f,%.2f,%.2f", u.load1, u.load5, u.load15);
    auto secs = [](uint64_t ms) { return slurm_time_string(static_cast<int64_t>(ms / 1000)); };
    lines.push_back({kv("LoadAverage", load), kv("UserTime", secs(u.user_ms)),
                     kv("KernelTime", secs(u.system_ms)), kv("IdleTime", secs(u.idle_ms)),
                     kv_num("MemAvailable", u.mem_available_bytes >> 20),
                     kv_time("UsageTime", u.sampled_at)});
  }
  if (!n.reason.empty()) {
    // Each further line of a reason is indented under its first, as scontrol does.
    std::string reason = "Reason=";
    size_t pos = 0;
    bool first = true;
    while (pos <= n.reason.size()) {
      auto end = n.reason.find('\n', pos);
      if (end == std::string::npos) end = n.reason.size();
      auto piece = n.reason.substr(pos, end - pos);
      pos = end + 1;
      if (piece.empty()) continue;
      if (!first) reason += "\n          ";
      reason += piece;
      if (first && n.reason_time != 0)
        reason += " [" + detail::or_null(n.reason_user) + "@" +
                  detail::iso_time(n.reason_time, "Unknown") + "]";
      first = false;
    }
    lines.push_back({reason});
  }
  return record_text(lines);
}

std::string show_partition(const msg::partition_info& p, const std::vector<msg::node_info>& nodes) {
  std::map<std::string, const msg::node_info*> by_name;
  for (auto& n : nodes) by_name.emplace(n.name, &n);
  uint64_t cpus = 0;
  uint64_t memory = 0;
  std::vector<std::pair<std::string, size_t>> states;  // first-appearance order
  for (auto& name : p.nodes) {
    auto it = by_name.find(name);
    auto state = msg::node_state::unknown;
    if (it != by_name.end()) {
      const auto& n = *it->second;
      cpus += n.cpus ? n.cpus : n.reported.cpus;
      memory += n.real_memory_mb ? n.real_memory_mb : n.reported.real_memory_mb;
      state = n.state;
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
    return s < 0 ? std::string(none) : slurm_time_string(s);
  };
  return record_text({
      {kv("PartitionName", p.name)},
      // shoal restricts partitions by none of these: Slurm's words for no restriction, which
      // portals read to offer a partition (ood_core's str_to_queue_info).
      {"AllowGroups=ALL", "AllowAccounts=ALL", "AllowQos=ALL"},
      {"AllocNodes=ALL", "Default=" + yes_no(p.is_default), "QoS=N/A"},
      {"DefaultTime=" + limit(p.default_time_s, "NONE"), "DisableRootJobs=NO", "ExclusiveUser=NO",
       kv_num("GraceTime", p.grace_time_s), "Hidden=NO"},
      {"MaxNodes=" + (p.max_nodes == 0 ? std::string{"UNLIMITED"} : std::to_string(p.max_nodes)),
       "MaxTime=" + limit(p.max_time_s, "UNLIMITED"), "MinNodes=0", "LLN=NO",
       "MaxCPUsPerNode=UNLIMITED"},
      {"Nodes=" + topology::compress_hostlist_sorted(p.nodes)},
      {"PriorityJobFactor=1", kv_num("PriorityTier", p.priority), "RootOnly=NO", "ReqResv=NO",
       kv("OverSubscribe", p.over_subscribe)},
      {"OverTimeLimit=NONE", kv("PreemptMode", p.preempt_mode)},
      {kv("State", p.state), kv_num("TotalCPUs", cpus), kv_num("TotalNodes", p.nodes.size()),
       "SelectTypeParameters=NONE"},
      {"JobDefaults=(null)"},
      {"DefMemPerNode=UNLIMITED", "MaxMemPerNode=UNLIMITED"},
      {"TRES=cpu=" + std::to_string(cpus) + (memory != 0 ? ",mem=" + megabytes_exact(memory) : "") +
       ",node=" + std::to_string(p.nodes.size()) + ",billing=" + std::to_string(cpus)},
      // shoal's count of the partition's nodes by state (Slurm has no such key).
      {kv("NodeStates", state_counts)},
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

std::string show_license(const std::string& name, uint64_t total, uint64_t used) {
  auto free = total > used ? total - used : 0;
  return "LicenseName=" + name + "\n    Total=" + std::to_string(total) +
         " Used=" + std::to_string(used) + " Free=" + std::to_string(free) +
         " Reserved=0 Remote=no\n";
}

std::map<std::string, uint64_t> licenses_in_use(const std::vector<msg::job_info>& jobs) {
  std::map<std::string, uint64_t> used;
  for (const auto& j : jobs) {
    if (j.licenses.empty() ||
        (j.state != msg::job_state::running && j.state != msg::job_state::configuring &&
         j.state != msg::job_state::completing))
      continue;
    if (auto held = policy::parse_licenses(j.licenses)) policy::count_licenses(used, *held, 1);
  }
  return used;
}

nlohmann::json to_json(const msg::node_info& n) {
  return fields_json(n);
}

nlohmann::json to_json(const msg::partition_info& p) {
  return fields_json(p);
}

}  // namespace shoal::cli
