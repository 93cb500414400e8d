#include "tools/format/sacct_format.hpp"

#include <strings.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <tuple>

#include "accounting/rows.hpp"
#include "tools/format/cell_value.hpp"
#include "tools/format/job_times.hpp"
#include "tools/format/slurm_format.hpp"
#include "tools/format/table.hpp"
#include "topology/hostlist.hpp"

namespace shoal::cli {

const char* const sacct_default_fields = "jobid,jobname,partition,account,alloccpus,state,exitcode";
const char* const sacct_brief_fields = "jobid,state,exitcode";
const char* const sacct_long_fields =
    "jobid,jobidraw,jobname,partition,maxvmsize,maxvmsizenode,maxvmsizetask,avevmsize,maxrss,"
    "maxrssnode,maxrsstask,averss,maxpages,maxpagesnode,maxpagestask,avepages,mincpu,mincpunode,"
    "mincputask,avecpu,ntasks,alloccpus,elapsed,state,exitcode,avecpufreq,reqcpufreqmin,"
    "reqcpufreqmax,reqcpufreqgov,reqmem,consumedenergy,maxdiskread,maxdiskreadnode,"
    "maxdiskreadtask,avediskread,maxdiskwrite,maxdiskwritenode,maxdiskwritetask,avediskwrite,"
    "reqtres,alloctres,tresusageinave,tresusageinmax,tresusageinmaxn,tresusageinmaxt,"
    "tresusageinmin,tresusageinminn,tresusageinmint,tresusageintot,tresusageoutmax,"
    "tresusageoutmaxn,tresusageoutmaxt,tresusageoutave,tresusageouttot";

namespace {

/// How print_fields.c prints a field's value.
enum class cell_kind : uint8_t {
  str,   ///< print_fields_str: cut with a `+` in the last column
  num,   ///< print_fields_uint*: never cut
  date,  ///< print_fields_date: cut to the width, no `+`
  secs,  ///< print_fields_time_from_secs: never cut
};

struct table_entry {
  int width;
  const char* name;
  cell_kind kind;
};

// sacct.c's fields[], in its order (prefix matching depends on it). Fields shoal has no data
// for stay in the table so that formats naming them work; they print empty.
// clang-format off
const table_entry table[] = {
  {10, "Account", cell_kind::str}, {15, "AdminComment", cell_kind::str},
  {10, "AllocCPUS", cell_kind::num}, {10, "AllocNodes", cell_kind::str},
  {10, "AllocTRES", cell_kind::str}, {7, "AssocID", cell_kind::num},
  {10, "AveCPU", cell_kind::str}, {10, "AveCPUFreq", cell_kind::str},
  {14, "AveDiskRead", cell_kind::str}, {14, "AveDiskWrite", cell_kind::str},
  {10, "AvePages", cell_kind::str}, {10, "AveRSS", cell_kind::str},
  {10, "AveVMSize", cell_kind::str}, {16, "BlockID", cell_kind::str},
  {10, "Cluster", cell_kind::str}, {14, "Comment", cell_kind::str},
  {19, "Constraints", cell_kind::str}, {14, "ConsumedEnergy", cell_kind::str},
  {17, "ConsumedEnergyRaw", cell_kind::num}, {19, "Container", cell_kind::str},
  {10, "CPUTime", cell_kind::secs}, {10, "CPUTimeRAW", cell_kind::num},
  {-21, "DBIndex", cell_kind::num}, {15, "DerivedExitCode", cell_kind::str},
  {10, "Elapsed", cell_kind::secs}, {10, "ElapsedRaw", cell_kind::num},
  {19, "Eligible", cell_kind::date}, {19, "End", cell_kind::date},
  {8, "ExitCode", cell_kind::str}, {19, "Flags", cell_kind::str},
  {6, "GID", cell_kind::num}, {9, "Group", cell_kind::str},
  {-12, "JobID", cell_kind::str}, {-12, "JobIDRaw", cell_kind::str},
  {10, "JobName", cell_kind::str}, {9, "Layout", cell_kind::str},
  {12, "MaxDiskRead", cell_kind::str}, {15, "MaxDiskReadNode", cell_kind::str},
  {15, "MaxDiskReadTask", cell_kind::num}, {12, "MaxDiskWrite", cell_kind::str},
  {16, "MaxDiskWriteNode", cell_kind::str}, {16, "MaxDiskWriteTask", cell_kind::num},
  {8, "MaxPages", cell_kind::str}, {12, "MaxPagesNode", cell_kind::str},
  {14, "MaxPagesTask", cell_kind::num}, {10, "MaxRSS", cell_kind::str},
  {10, "MaxRSSNode", cell_kind::str}, {10, "MaxRSSTask", cell_kind::num},
  {10, "MaxVMSize", cell_kind::str}, {14, "MaxVMSizeNode", cell_kind::str},
  {14, "MaxVMSizeTask", cell_kind::num}, {12, "McsLabel", cell_kind::str},
  {10, "MinCPU", cell_kind::str}, {10, "MinCPUNode", cell_kind::str},
  {10, "MinCPUTask", cell_kind::num}, {10, "NCPUS", cell_kind::num},
  {8, "NNodes", cell_kind::num}, {15, "NodeList", cell_kind::str},
  {8, "NTasks", cell_kind::num}, {10, "Partition", cell_kind::str},
  {10, "Priority", cell_kind::num}, {10, "QOS", cell_kind::str},
  {6, "QOSRAW", cell_kind::num}, {22, "Reason", cell_kind::str},
  {10, "ReqCPUFreq", cell_kind::str}, {13, "ReqCPUFreqGov", cell_kind::str},
  {13, "ReqCPUFreqMax", cell_kind::str}, {13, "ReqCPUFreqMin", cell_kind::str},
  {8, "ReqCPUS", cell_kind::num}, {10, "ReqMem", cell_kind::str},
  {8, "ReqNodes", cell_kind::str}, {10, "ReqTRES", cell_kind::str},
  {20, "Reservation", cell_kind::str}, {8, "ReservationId", cell_kind::num},
  {10, "Reserved", cell_kind::secs}, {10, "ResvCPU", cell_kind::secs},
  {9, "ResvCPURAW", cell_kind::num}, {8, "Restarts", cell_kind::num},
  {19, "Start", cell_kind::date}, {10, "State", cell_kind::str},
  {20, "StdErr", cell_kind::str}, {20, "StdIn", cell_kind::str},
  {20, "StdOut", cell_kind::str}, {19, "Submit", cell_kind::date},
  {20, "SubmitLine", cell_kind::str}, {10, "Suspended", cell_kind::secs},
  {15, "SystemComment", cell_kind::str}, {10, "SystemCPU", cell_kind::str},
  {10, "Timelimit", cell_kind::str}, {10, "TimelimitRaw", cell_kind::str},
  {10, "TotalCPU", cell_kind::str}, {14, "TRESUsageInAve", cell_kind::str},
  {14, "TRESUsageInMax", cell_kind::str}, {18, "TRESUsageInMaxNode", cell_kind::str},
  {18, "TRESUsageInMaxTask", cell_kind::str}, {14, "TRESUsageInMin", cell_kind::str},
  {18, "TRESUsageInMinNode", cell_kind::str}, {18, "TRESUsageInMinTask", cell_kind::str},
  {14, "TRESUsageInTot", cell_kind::str}, {15, "TRESUsageOutAve", cell_kind::str},
  {15, "TRESUsageOutMax", cell_kind::str}, {19, "TRESUsageOutMaxNode", cell_kind::str},
  {19, "TRESUsageOutMaxTask", cell_kind::str}, {15, "TRESUsageOutMin", cell_kind::str},
  {19, "TRESUsageOutMinNode", cell_kind::str}, {19, "TRESUsageOutMinTask", cell_kind::str},
  {15, "TRESUsageOutTot", cell_kind::str}, {6, "UID", cell_kind::num},
  {9, "User", cell_kind::str}, {10, "UserCPU", cell_kind::str},
  {10, "WCKey", cell_kind::str}, {10, "WCKeyID", cell_kind::num},
  {20, "WorkDir", cell_kind::str},
};
// clang-format on

const table_entry* find_entry(std::string_view name) {
  for (auto& e : table)
    if (strcasecmp(e.name, std::string{name}.c_str()) == 0) return &e;
  return nullptr;
}

std::string trim_left(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return std::string{s.substr(i)};
}

using cell::num;
using cell::opt_str;
using cell::str;
using cell::value;

/// slurm_make_time_str: 0 is "Unknown"; otherwise local time in `format` (default %FT%T).
std::string date_text(int64_t t, const std::string& format) {
  if (t == 0) return "Unknown";
  time_t tt = static_cast<time_t>(t);
  tm parts{};
  localtime_r(&tt, &parts);
  char buf[256];
  auto n = std::strftime(buf, sizeof buf, format.empty() ? "%FT%T" : format.c_str(), &parts);
  return std::string{buf, n};
}

/// secs2time_str: "HH:MM:SS" or "D-HH:MM:SS".
std::string secs_text(int64_t secs) {
  return slurm_time_string(secs);
}

/// mins2time_str: "HH:MM:00" or "D-HH:MM:00".
std::string mins_text(int64_t mins) {
  char buf[64];
  auto days = mins / 1440;
  if (days != 0)
    std::snprintf(buf, sizeof buf, "%ld-%2.2ld:%2.2ld:00", static_cast<long>(days),
                  static_cast<long>((mins / 60) % 24), static_cast<long>(mins % 60));
  else
    std::snprintf(buf, sizeof buf, "%2.2ld:%2.2ld:00", static_cast<long>((mins / 60) % 24),
                  static_cast<long>(mins % 60));
  return buf;
}

/// print.c's PRINT_EXITCODE from a wait status: "exit:signal", an exit over 127 less 128.
std::string exit_text(int32_t code, int32_t signal) {
  if (signal != 0) return "0:" + std::to_string(signal);
  if (code >= 128) code -= 128;
  return std::to_string(code) + ":0";
}

bool started(const msg::job_info& j) {
  return j.start_time != 0;
}

uint64_t job_cpus(const msg::job_info& j) {
  return uint64_t{j.ntasks} * std::max(1u, j.cpus_per_task);
}

/// The state as slurmdbd holds it: configuring and completing jobs are RUNNING there.
msg::job_state db_state(msg::job_state s) {
  using S = msg::job_state;
  return s == S::configuring || s == S::completing ? S::running : s;
}

std::string first_node(const std::string& nodelist) {
  auto names = topology::expand_hostlist(nodelist);
  if (!names || names->empty()) return nodelist;
  return names->front();
}

/// The value of `field` for the job line (`step` false) or its batch line.
value field_value(const std::string& field, const msg::job_info& j, bool step,
                  const sacct_print_options& opt) {
  using S = msg::job_state;
  auto state = db_state(j.state);
  // The batch step runs on the job's first node, with that node's share of the CPUs.
  auto step_cpus = [&] {
    auto nodes = std::max(1u, j.node_count);
    return (job_cpus(j) + nodes - 1) / nodes;
  };
  int64_t elapsed = started(j) ? run_seconds(j, opt.now) : 0;
  const auto& f = field;
  if (f == "Account") return opt_str(j.account);
  if (f == "AllocCPUS" || f == "NCPUS") {
    if (step) return num(step_cpus());
    return num(started(j) ? job_cpus(j) : 0);
  }
  if (f == "AllocNodes") {
    if (step) return str("1");
    return str(std::to_string(started(j) ? j.node_count : 0));
  }
  if (f == "Cluster") return opt_str(opt.cluster);
  if (f == "Comment") return step ? value{} : opt_str(j.comment);
  if (f == "CPUTime" || f == "CPUTimeRAW") {
    auto cpus = step ? step_cpus() : (started(j) ? job_cpus(j) : 0);
    auto total = static_cast<uint64_t>(elapsed) * cpus;
    return f == "CPUTime" ? str(secs_text(static_cast<int64_t>(total))) : num(total);
  }
  if (f == "DerivedExitCode") {
    if (step) return str("");
    return str(exit_text(j.exit_code, j.exit_signal));
  }
  if (f == "Elapsed") return str(secs_text(elapsed));
  if (f == "ElapsedRaw") return num(static_cast<uint64_t>(elapsed));
  if (f == "Eligible")
    return str(
        date_text(step ? j.start_time : std::max(j.submit_time, j.begin_time), opt.time_format));
  if (f == "End") return str(date_text(j.end_time, opt.time_format));
  if (f == "ExitCode") {
    if (step) return str(exit_text(j.exit_code, j.exit_signal));
    // A job cancelled or timed out ends by the signal its batch step shows; the job's own
    // code stays 0:0 in slurmdbd.
    if (state == S::cancelled || state == S::timeout) return str("0:0");
    if (state == S::pending || state == S::running) return str("0:0");
    return str(exit_text(j.exit_code, j.exit_signal));
  }
  if (f == "JobID") return str(job_id_text(j) + (step ? ".batch" : ""));
  if (f == "JobIDRaw") return str(std::to_string(j.job_id) + (step ? ".batch" : ""));
  if (f == "JobName") return step ? str("batch") : opt_str(j.name);
  if (f == "NNodes") return num(step ? 1 : j.node_count);
  if (f == "NodeList") {
    if (step) return str(first_node(j.nodelist));
    return str(started(j) && !j.nodelist.empty() ? j.nodelist : "None assigned");
  }
  if (f == "NTasks") return step ? num(1) : value{};
  if (f == "Partition") return step ? value{} : opt_str(j.partition);
  if (f == "Priority") return step ? value{} : num(j.priority);
  if (f == "QOS") return step ? value{} : opt_str(j.qos);
  if (f == "Reason") return step ? value{} : str(j.reason.empty() ? "None" : j.reason);
  if (f == "ReqCPUS") return num(step ? step_cpus() : job_cpus(j));
  if (f == "ReqMem") {
    if (step || j.mem_per_node_mb == 0) return value{};
    if (opt.units >= 0)
      return str(slurm_number_in_unit(static_cast<double>(j.mem_per_node_mb), 2, opt.units));
    return str(slurm_number_unit(static_cast<double>(j.mem_per_node_mb), 2));
  }
  if (f == "ReqNodes") return str(std::to_string(step ? 1 : j.node_count));
  if (f == "Restarts") return step ? value{} : num(j.requeue_count);
  if (f == "Start") return str(date_text(j.start_time, opt.time_format));
  if (f == "State") {
    if (step) {
      // The batch step of a job that timed out was cancelled by slurmctld.
      if (state == S::timeout) return str("CANCELLED");
      return str(msg::to_string(state));
    }
    // shoal does not record who cancelled a job; only its owner, root or an admin may, and
    // the record names the owner.
    if (state == S::cancelled) return str("CANCELLED by " + std::to_string(j.uid));
    return str(msg::to_string(state));
  }
  if (f == "StdErr")
    return step ? value{} : opt_str(j.stderr_path.empty() ? j.stdout_path : j.stderr_path);
  if (f == "StdOut") return step ? value{} : opt_str(j.stdout_path);
  if (f == "Submit") return str(date_text(step ? j.start_time : j.submit_time, opt.time_format));
  if (f == "Suspended") return str(secs_text(0));
  if (f == "Timelimit" || f == "TimelimitRaw") {
    if (step) return value{};
    if (j.time_limit_s < 0) return str("UNLIMITED");
    if (j.time_limit_s == 0) return value{};
    auto mins = (j.time_limit_s + 59) / 60;
    return str(f == "Timelimit" ? mins_text(mins) : std::to_string(mins));
  }
  if (f == "UID") return step ? value{} : num(j.uid);
  if (f == "User") return step ? value{} : opt_str(j.user);
  if (f == "WorkDir") return step ? value{} : opt_str(j.work_dir);
  return value{};
}

}  // namespace

std::string sacct_cpu_text(uint64_t us) {
  auto secs = us / 1'000'000;
  auto msecs = (us % 1'000'000) / 1000;
  char buf[64];
  auto days = secs / 86400, hours = (secs / 3600) % 24, mins = (secs / 60) % 60, s = secs % 60;
  if (days != 0)
    std::snprintf(buf, sizeof buf, "%llu-%2.2llu:%2.2llu:%2.2llu",
                  static_cast<unsigned long long>(days), static_cast<unsigned long long>(hours),
                  static_cast<unsigned long long>(mins), static_cast<unsigned long long>(s));
  else if (hours != 0)
    std::snprintf(buf, sizeof buf, "%2.2llu:%2.2llu:%2.2llu",
                  static_cast<unsigned long long>(hours), static_cast<unsigned long long>(mins),
                  static_cast<unsigned long long>(s));
  else if (msecs != 0)
    std::snprintf(buf, sizeof buf, "%2.2llu:%2.2llu.%3.3llu", static_cast<unsigned long long>(mins),
                  static_cast<unsigned long long>(s), static_cast<unsigned long long>(msecs));
  else
    std::snprintf(buf, sizeof buf, "00:%2.2llu:%2.2llu", static_cast<unsigned long long>(mins),
                  static_cast<unsigned long long>(s));
  return buf;
}

namespace {

std::string cpu_text(uint64_t us) {
  return sacct_cpu_text(us);
}

/// Bytes as sacct prints memory and disk figures (convert_num_unit, exact, or --units).
value bytes_value(uint64_t bytes, const sacct_print_options& opt) {
  if (opt.units >= 0) return str(slurm_number_in_unit(static_cast<double>(bytes), 0, opt.units));
  return str(slurm_number_unit(static_cast<double>(bytes), 0));
}

/// A step line's field, from what the accounting store kept of it (`j`: its job).
value step_value(const std::string& f, const msg::accounted_step& step, const msg::job_info& j,
                 const sacct_print_options& opt) {
  const auto& u = step.usage;
  int64_t elapsed = 0;
  if (step.start_time != 0)
    elapsed =
        std::max<int64_t>(0, (step.end_time != 0 ? step.end_time : opt.now) - step.start_time);
  auto cpus = std::max<uint64_t>(step.ntasks, 1);
  if (f == "JobID") return str(accounting::step_id_text(job_id_text(j), step.step_id));
  if (f == "JobIDRaw") return str(accounting::step_id_text(std::to_string(j.job_id), step.step_id));
  if (f == "JobName") return opt_str(step.name);
  if (f == "Account") return opt_str(j.account);
  if (f == "Cluster") return opt_str(opt.cluster);
  if (f == "AllocCPUS" || f == "NCPUS" || f == "ReqCPUS") return num(cpus);
  if (f == "State") return str(step.state);
  if (f == "ExitCode") return str(exit_text(step.exit_code, step.exit_signal));
  if (f == "Start" || f == "Submit" || f == "Eligible")
    return str(date_text(step.start_time, opt.time_format));
  if (f == "End") return str(date_text(step.end_time, opt.time_format));
  if (f == "Elapsed") return str(secs_text(elapsed));
  if (f == "ElapsedRaw") return num(static_cast<uint64_t>(elapsed));
  if (f == "CPUTime") return str(secs_text(elapsed * static_cast<int64_t>(cpus)));
  if (f == "CPUTimeRAW") return num(static_cast<uint64_t>(elapsed) * cpus);
  if (f == "NodeList") return opt_str(step.nodelist);
  if (f == "NNodes" || f == "AllocNodes") return num(step.node_count);
  if (f == "NTasks") return num(step.ntasks);
  if (f == "TotalCPU") return str(cpu_text(u.user_cpu_us + u.system_cpu_us));
  if (f == "UserCPU") return str(cpu_text(u.user_cpu_us));
  if (f == "SystemCPU") return str(cpu_text(u.system_cpu_us));
  if (f == "MaxRSS") return bytes_value(u.max_rss_bytes, opt);
  if (f == "MaxRSSNode") return opt_str(u.max_rss_node);
  if (f == "MaxRSSTask")
    return u.max_rss_task >= 0 ? num(static_cast<uint64_t>(u.max_rss_task)) : value{};
  if (f == "AveRSS") return bytes_value(u.ave_rss_bytes, opt);
  if (f == "MaxVMSize") return bytes_value(u.max_vsize_bytes, opt);
  if (f == "MaxVMSizeNode") return opt_str(u.max_vsize_node);
  // shoal keeps the step's totals: sacct's per-task maxima read them.
  if (f == "MaxDiskRead" || f == "AveDiskRead") return bytes_value(u.read_bytes, opt);
  if (f == "MaxDiskWrite" || f == "AveDiskWrite") return bytes_value(u.written_bytes, opt);
  if (f == "Suspended") return str(secs_text(0));
  return value{};
}

/// A stored job's line: its view's fields, with the figures only the store keeps.
value stored_job_value(const std::string& f, const msg::accounted_job& a, const msg::job_info& j,
                       const sacct_print_options& opt) {
  uint64_t user = 0, system = 0;
  for (auto& step : a.steps) {
    user += step.usage.user_cpu_us;
    system += step.usage.system_cpu_us;
  }
  if (f == "TotalCPU") return str(cpu_text(user + system));
  if (f == "UserCPU") return str(cpu_text(user));
  if (f == "SystemCPU") return str(cpu_text(system));
  if (f == "DerivedExitCode") return str(exit_text(a.derived_exit_code, 0));
  if (f == "ReqTRES") return opt_str(a.req_tres);
  if (f == "AllocTRES") return opt_str(a.alloc_tres);
  if ((f == "AllocCPUS" || f == "NCPUS") && a.alloc_cpus != 0) return num(a.alloc_cpus);
  return field_value(f, j, false, opt);
}

cell_kind kind_of(const std::string& name) {
  auto* e = find_entry(name);
  return e != nullptr ? e->kind : cell_kind::str;
}

/// One field as print_fields.c prints it, with its trailing blank or delimiter.
void print_cell(std::string& out, const sacct_column& col, const value& v, bool last,
                const sacct_print_options& opt, bool header = false) {
  // The header is cut as printf's precision cuts, without a `+`.
  auto kind = header ? cell_kind::date : kind_of(col.name);
  auto cut = kind == cell_kind::str    ? field_cut::plus
             : kind == cell_kind::date ? field_cut::plain
                                       : field_cut::never;
  print_field(out, col.width, v.set ? &v.text : nullptr, cut, last, opt.parsable, opt.delimiter);
}

}  // namespace

void print_field(std::string& out, int width, const std::string* text, field_cut cut, bool last,
                 int parsable, const std::string& delimiter) {
  if (parsable != 0) {
    if (text) out += *text;
    if (!(parsable == 2 && last)) out += delimiter;
    return;
  }
  int abs_len = std::abs(width);
  bool right = width == abs_len;
  std::string shown;
  if (text) {
    shown = *text;
    if (cut != field_cut::never && static_cast<int>(shown.size()) > abs_len) {
      shown.resize(static_cast<size_t>(abs_len));
      if (cut == field_cut::plus && abs_len > 0) shown.back() = '+';
    }
  }
  auto pad = abs_len > static_cast<int>(shown.size()) ? abs_len - shown.size() : 0;
  if (right)
    out += std::string(pad, ' ') + shown;
  else
    out += shown + std::string(pad, ' ');
  out += ' ';
}

shoal::expected<std::vector<sacct_column>> parse_sacct_fields(std::string_view list) {
  std::vector<sacct_column> out;
  std::string all{list};
  all += ',';
  size_t pos = 0;
  for (auto end = all.find(',', pos); end != std::string::npos;
       pos = end + 1, end = all.find(',', pos)) {
    auto item = trim_left(std::string_view{all}.substr(pos, end - pos));
    if (item.empty()) continue;
    bool width_set = false;
    int width = 0;
    if (auto pct = item.find('%'); pct != std::string::npos) {
      width_set = true;
      width = std::atoi(item.c_str() + pct + 1);
      item.resize(pct);
    }
    if (strncasecmp("ALL", item.c_str(), item.size()) == 0) {
      for (auto& e : table) out.push_back({e.name, width_set ? width : e.width});
      continue;
    }
    const table_entry* found = nullptr;
    for (auto& e : table)
      if (strncasecmp(e.name, item.c_str(), item.size()) == 0) {
        found = &e;
        break;
      }
    if (found == nullptr)
      return shoal::error(errc::invalid_request, "Invalid field requested: \"" + item + "\"");
    out.push_back({found->name, width_set ? width : found->width});
  }
  return out;
}

std::vector<std::string> sacct_field_names() {
  std::vector<std::string> out;
  for (auto& e : table) out.emplace_back(e.name);
  return out;
}

std::string render_sacct(const std::vector<msg::job_info>& jobs,
                         const std::vector<sacct_column>& columns, const sacct_print_options& opt) {
  return render_sacct(jobs, {}, columns, opt);
}

std::string render_sacct(const std::vector<msg::job_info>& jobs, const sacct_stored& stored,
                         const std::vector<sacct_column>& columns, const sacct_print_options& opt) {
  std::string out;
  if (!opt.no_header) {
    for (size_t i = 0; i < columns.size(); ++i) {
      bool last = i + 1 == columns.size();
      print_cell(out, columns[i], str(columns[i].name), last, opt, true);
    }
    out += '\n';
    if (opt.parsable == 0) {
      for (auto& c : columns) out += std::string(static_cast<size_t>(std::abs(c.width)), '-') + ' ';
      out += '\n';
    }
  }
  auto print_line = [&](auto&& value_of) {
    for (size_t i = 0; i < columns.size(); ++i)
      print_cell(out, columns[i], value_of(columns[i].name), i + 1 == columns.size(), opt);
    out += '\n';
  };
  for (auto& j : jobs) {
    auto kept = stored.find({j.job_id, j.submit_time});
    if (kept == stored.end()) {
      print_line([&](const std::string& f) { return field_value(f, j, false, opt); });
      if (!opt.allocations && j.batch && started(j))
        print_line([&](const std::string& f) { return field_value(f, j, true, opt); });
      continue;
    }
    const auto& a = kept->second;
    print_line([&](const std::string& f) { return stored_job_value(f, a, j, opt); });
    if (opt.allocations) continue;
    for (auto& step : a.steps)
      print_line([&](const std::string& f) { return step_value(f, step, j, opt); });
  }
  return out;
}

shoal::expected<std::vector<sacct_job_selector>> parse_sacct_jobs(std::string_view list) {
  std::vector<sacct_job_selector> out;
  for (const auto& item : detail::split_list(list, false)) {
    auto bad = [&] { return shoal::error(errc::invalid_request, "Invalid job id: " + item); };
    sacct_job_selector sel;
    auto dot = item.find('.');
    std::string id = item.substr(0, dot);
    if (dot != std::string::npos) {
      sel.step = item.substr(dot + 1);
      if (sel.step.empty() || (sel.step != "batch" && sel.step != "extern" &&
                               sel.step.find_first_not_of("0123456789") != std::string::npos))
        return bad();
    }
    auto under = id.find('_');
    auto digits = [](const std::string& s) {
      return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
    };
    std::string job = id.substr(0, under);
    if (!digits(job)) return bad();
    sel.job_id = std::strtoull(job.c_str(), nullptr, 10);
    if (under != std::string::npos) {
      auto task = id.substr(under + 1);
      if (!digits(task)) return bad();
      sel.array_task = std::strtoll(task.c_str(), nullptr, 10);
    }
    out.push_back(sel);
  }
  return out;
}

shoal::expected<std::vector<msg::job_state>> parse_sacct_states(std::string_view list) {
  std::vector<msg::job_state> out;
  for (const auto& item : detail::split_list(list, false)) {
    auto s = msg::parse_job_state(item);
    if (!s)
      return shoal::error(errc::invalid_request, "unrecognized job state value '" + item + "'");
    out.push_back(*s);
  }
  return out;
}

namespace {

/// Whether the job held any of `names` (an unparsable or empty nodelist holds none).
bool ran_on(const msg::job_info& j, const std::vector<std::string>& names) {
  if (j.start_time == 0 || j.nodelist.empty()) return false;
  auto held = topology::expand_hostlist(j.nodelist);
  if (!held) return false;
  for (auto& n : *held)
    if (std::find(names.begin(), names.end(), n) != names.end()) return true;
  return false;
}

bool one_of_folded(const std::vector<std::string>& list, const std::string& value) {
  return std::any_of(list.begin(), list.end(),
                     [&](const std::string& x) { return detail::iequals(x, value); });
}

/// -q, -R, -C, -i, -I and -k/-K.
bool matches_request(const msg::job_info& j, const sacct_filter& f) {
  if (!f.qos.empty() && !one_of_folded(f.qos, j.qos)) return false;
  if (!f.reasons.empty() && !one_of_folded(f.reasons, j.reason)) return false;
  for (auto& c : f.constraints)
    if (c.empty() ? !j.features.empty() : j.features.find(c) == std::string::npos) return false;
  if (!f.nodes_alloc.matches(started(j) ? j.node_count : 0)) return false;
  if (!f.cpus_alloc.matches(started(j) ? job_cpus(j) : 0)) return false;
  if (f.timelimit_min.min != 0 &&
      (j.time_limit_s < 0 || !f.timelimit_min.matches(static_cast<uint64_t>(j.time_limit_s) / 60)))
    return false;
  return true;
}

/// sacct -T: a start before the window's start reads as that start, an end after its end (or
/// none yet) as that end.
void truncate_to_window(msg::job_info& j, int64_t start, int64_t end) {
  if (j.start_time != 0 && start != 0 && j.start_time < start) j.start_time = start;
  if (j.start_time != 0 && (j.end_time == 0 || j.end_time > end)) j.end_time = end;
}

}  // namespace

shoal::expected<sacct_range> parse_sacct_range(const std::string& text, const char* what) {
  sacct_range r;
  auto number = [&](const char*& at, uint64_t& out) {
    char* end = nullptr;
    auto v = std::strtoll(at, &end, 10);
    if (end == at || v <= 0) return false;
    if (*end == 'k' || *end == 'K')
      v *= 1024, ++end;
    else if (*end == 'm' || *end == 'M')
      v *= 1048576, ++end;
    out = static_cast<uint64_t>(v);
    at = end;
    return true;
  };
  const char* at = text.c_str();
  bool ok = number(at, r.min);
  if (ok && *at == '-') {
    ++at;
    ok = number(at, r.max) && r.max >= r.min;
  }
  if (!ok || *at != '\0')
    return shoal::error(errc::invalid_request,
                        "Invalid numeric value \"" + text + "\" for " + what + ".");
  return r;
}

std::vector<msg::job_info> select_sacct_jobs(const std::vector<msg::job_info>& jobs,
                                             const sacct_filter& filter, int64_t now) {
  using S = msg::job_state;
  int64_t end = filter.end != 0 ? filter.end : now;
  auto in_list = [](const auto& list, const auto& x) {
    return list.empty() || std::find(list.begin(), list.end(), x) != list.end();
  };
  auto selected = [&](const msg::job_info& j) {
    if (filter.jobs.empty()) return true;
    for (auto& sel : filter.jobs) {
      if (sel.array_task >= 0) {
        if (j.array_job_id == sel.job_id && j.array_task_id == sel.array_task) return true;
      } else if (j.job_id == sel.job_id || j.array_job_id == sel.job_id) {
        return true;
      }
    }
    return false;
  };
  auto in_window = [&](const msg::job_info& j) {
    bool timed = filter.start != 0 || filter.end != 0;
    auto state = db_state(j.state);
    if (!filter.states.empty()) {
      bool match = false;
      for (auto s : filter.states) match = match || db_state(s) == state;
      if (!match) return false;
      if (!timed) return true;
      if (state == S::pending) return j.submit_time <= end;
      if (state == S::running) return j.start_time != 0 && j.start_time <= end;
      return j.end_time != 0 && j.end_time >= filter.start && j.end_time <= end;
    }
    if (!timed) return true;
    auto eligible = std::max(j.submit_time, j.begin_time);
    // At or before the end: a job submitted this second is in a window that ends now.
    return eligible <= end && (j.end_time == 0 || j.end_time >= filter.start);
  };
  std::vector<msg::job_info> out;
  for (auto& j : jobs) {
    if (!selected(j) || !in_window(j)) continue;
    if (!filter.uids.empty() && !in_list(filter.uids, j.uid)) continue;
    if (!in_list(filter.partitions, j.partition)) continue;
    if (!in_list(filter.names, j.name)) continue;
    if (!in_list(filter.accounts, j.account)) continue;
    if (!filter.nodes.empty() && !ran_on(j, filter.nodes)) continue;
    if (!matches_request(j, filter)) continue;
    out.push_back(j);
    if (filter.truncate) truncate_to_window(out.back(), filter.start, end);
  }
  auto key = [](const msg::job_info& j) {
    auto id = j.array_job_id != 0 ? j.array_job_id : j.job_id;
    // An array's pending remainder comes after its tasks.
    auto task = j.array_job_id != 0 && j.array_task_id < 0 ? INT64_MAX : j.array_task_id;
    return std::make_tuple(id, task);
  };
  std::stable_sort(out.begin(), out.end(),
                   [&](const msg::job_info& a, const msg::job_info& b) { return key(a) < key(b); });
  return out;
}

int64_t sacct_default_start(int64_t now, bool states_given) {
  if (states_given) return now;
  time_t t = static_cast<time_t>(now);
  tm parts{};
  localtime_r(&t, &parts);
  parts.tm_sec = 0;
  parts.tm_min = 0;
  parts.tm_hour = 0;
  parts.tm_isdst = -1;
  return static_cast<int64_t>(std::mktime(&parts));
}

}  // namespace shoal::cli
