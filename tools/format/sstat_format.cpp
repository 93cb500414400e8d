#include "tools/format/sstat_format.hpp"

#include <strings.h>

#include <cstdio>
#include <cstdlib>

#include "accounting/rows.hpp"
#include "tools/format/cell_value.hpp"
#include "tools/format/slurm_format.hpp"

namespace shoal::cli {

const char* const sstat_default_fields =
    "jobid,maxvmsize,maxvmsizenode,maxvmsizetask,avevmsize,maxrss,maxrssnode,maxrsstask,averss,"
    "maxpages,maxpagesnode,maxpagestask,avepages,mincpu,mincpunode,mincputask,avecpu,ntasks,"
    "avecpufreq,reqcpufreqmin,reqcpufreqmax,reqcpufreqgov,consumedenergy,maxdiskread,"
    "maxdiskreadnode,maxdiskreadtask,avediskread,maxdiskwrite,maxdiskwritenode,maxdiskwritetask,"
    "avediskwrite,tresusageinave,tresusageinmax,tresusageinmaxn,tresusageinmaxt,tresusageinmin,"
    "tresusageinminn,tresusageinmint,tresusageintot,tresusageoutave,tresusageoutmax,"
    "tresusageoutmaxn,tresusageoutmaxt,tresusageoutmin,tresusageoutminn,tresusageoutmint,"
    "tresusageouttot";

namespace {

struct table_entry {
  int width;
  const char* name;
  bool numeric;  ///< print_fields_uint*: never cut; otherwise print_fields_str
};

// sstat.c's fields[], in its order (prefix matching depends on it).
// clang-format off
const table_entry table[] = {
  {10, "AveCPU", false}, {10, "AveCPUFreq", false}, {12, "AveDiskRead", false},
  {12, "AveDiskWrite", false}, {10, "AvePages", false}, {10, "AveRSS", false},
  {10, "AveVMSize", false}, {14, "ConsumedEnergy", false}, {17, "ConsumedEnergyRaw", true},
  {-12, "JobID", false}, {12, "MaxDiskRead", false}, {15, "MaxDiskReadNode", false},
  {15, "MaxDiskReadTask", true}, {12, "MaxDiskWrite", false}, {16, "MaxDiskWriteNode", false},
  {16, "MaxDiskWriteTask", true}, {8, "MaxPages", false}, {12, "MaxPagesNode", false},
  {14, "MaxPagesTask", true}, {10, "MaxRSS", false}, {10, "MaxRSSNode", false},
  {10, "MaxRSSTask", true}, {10, "MaxVMSize", false}, {14, "MaxVMSizeNode", false},
  {14, "MaxVMSizeTask", true}, {10, "MinCPU", false}, {10, "MinCPUNode", false},
  {10, "MinCPUTask", true}, {20, "Nodelist", false}, {8, "NTasks", true},
  {20, "Pids", false}, {10, "ReqCPUFreq", false}, {13, "ReqCPUFreqMin", false},
  {13, "ReqCPUFreqMax", false}, {13, "ReqCPUFreqGov", false}, {14, "TRESUsageInAve", false},
  {14, "TRESUsageInMax", false}, {18, "TRESUsageInMaxNode", false},
  {18, "TRESUsageInMaxTask", false}, {14, "TRESUsageInMin", false},
  {18, "TRESUsageInMinNode", false}, {18, "TRESUsageInMinTask", false},
  {14, "TRESUsageInTot", false}, {15, "TRESUsageOutAve", false},
  {15, "TRESUsageOutMax", false}, {19, "TRESUsageOutMaxNode", false},
  {19, "TRESUsageOutMaxTask", false}, {15, "TRESUsageOutMin", false},
  {19, "TRESUsageOutMinNode", false}, {19, "TRESUsageOutMinTask", false},
  {15, "TRESUsageOutTot", false},
};
// clang-format on

const table_entry* find_entry(const std::string& name) {
  for (auto& e : table)
    if (strcasecmp(e.name, name.c_str()) == 0) return &e;
  return nullptr;
}

using cell::num;
using cell::opt_str;
using cell::str;
using cell::value;

/// sstat's _elapsed_time(secs, 0) of a CPU time: whole seconds, "00:MM:SS", "HH:MM:SS" or
/// "D-HH:MM:SS".
std::string cpu_text(uint64_t us) {
  auto secs = us / 1'000'000;
  auto days = secs / 86400, hours = (secs / 3600) % 24, mins = (secs / 60) % 60, s = secs % 60;
  char buf[64];
  using ull = unsigned long long;
  if (days != 0)
    std::snprintf(buf, sizeof buf, "%llu-%2.2llu:%2.2llu:%2.2llu", static_cast<ull>(days),
                  static_cast<ull>(hours), static_cast<ull>(mins), static_cast<ull>(s));
  else if (hours != 0)
    std::snprintf(buf, sizeof buf, "%2.2llu:%2.2llu:%2.2llu", static_cast<ull>(hours),
                  static_cast<ull>(mins), static_cast<ull>(s));
  else
    std::snprintf(buf, sizeof buf, "00:%2.2llu:%2.2llu", static_cast<ull>(mins),
                  static_cast<ull>(s));
  return buf;
}

/// Memory as sstat prints it (convert_num_unit from bytes, exact; --noconvert: the bytes).
value bytes_value(uint64_t bytes) {
  return str(slurm_number_unit(static_cast<double>(bytes), 0));
}

/// Disk bytes as _print_small_double prints them: converted above 1, "0" at 0.
value disk_value(uint64_t bytes) {
  if (bytes == 0) return str("0");
  return bytes_value(bytes);
}

value field_value(const std::string& f, const std::string& job, const msg::accounted_step& step) {
  const auto& u = step.usage;
  auto tasks = u.tasks != 0 ? u.tasks : step.ntasks;
  auto cpu = u.user_cpu_us + u.system_cpu_us;
  if (f == "JobID") return str(accounting::step_id_text(job, step.step_id));
  if (f == "AveCPU") return tasks != 0 ? str(cpu_text(cpu / tasks)) : value{};
  if (f == "MinCPU") return u.min_cpu_node.empty() ? value{} : str(cpu_text(u.min_cpu_us));
  if (f == "MinCPUNode") return opt_str(u.min_cpu_node);
  if (f == "MinCPUTask")
    return u.min_cpu_task >= 0 && !u.min_cpu_node.empty()
               ? num(static_cast<uint64_t>(u.min_cpu_task))
               : value{};
  if (f == "MaxRSS") return bytes_value(u.max_rss_bytes);
  if (f == "MaxRSSNode") return opt_str(u.max_rss_node);
  if (f == "MaxRSSTask")
    return u.max_rss_task >= 0 ? num(static_cast<uint64_t>(u.max_rss_task)) : value{};
  if (f == "AveRSS") return bytes_value(u.ave_rss_bytes);
  if (f == "MaxVMSize") return bytes_value(u.max_vsize_bytes);
  if (f == "MaxVMSizeNode") return opt_str(u.max_vsize_node);
  if (f == "NTasks") return num(tasks);
  if (f == "Nodelist") return opt_str(step.nodelist);
  if (f == "MaxDiskRead") return disk_value(u.read_bytes);
  if (f == "MaxDiskWrite") return disk_value(u.written_bytes);
  if (f == "AveDiskRead") return disk_value(tasks != 0 ? u.read_bytes / tasks : u.read_bytes);
  if (f == "AveDiskWrite")
    return disk_value(tasks != 0 ? u.written_bytes / tasks : u.written_bytes);
  if (f == "ConsumedEnergy" || f == "AveCPUFreq") return str("0");
  if (f == "ConsumedEnergyRaw") return num(0);
  if (f == "ReqCPUFreq" || f == "ReqCPUFreqMin" || f == "ReqCPUFreqMax" || f == "ReqCPUFreqGov")
    return str("Unknown");
  return value{};
}

void print_value(std::string& out, const sacct_column& col, const value& v, bool last,
                 const sstat_print_options& opt, bool header = false) {
  auto* e = find_entry(col.name);
  auto cut = header                       ? field_cut::plain
             : e != nullptr && e->numeric ? field_cut::never
                                          : field_cut::plus;
  print_field(out, col.width, v.set ? &v.text : nullptr, cut, last, opt.parsable, "|");
}

/// Ends a line as print_fields does (a column keeps its blank, the last one too).
void end_line(std::string& out, const sstat_print_options&) {
  out += '\n';
}

}  // namespace

shoal::expected<std::vector<sacct_column>> parse_sstat_fields(std::string_view list) {
  std::vector<sacct_column> out;
  std::string all{list};
  all += ',';
  size_t pos = 0;
  for (auto end = all.find(',', pos); end != std::string::npos;
       pos = end + 1, end = all.find(',', pos)) {
    auto item = all.substr(pos, end - pos);
    size_t blank = 0;
    while (blank < item.size() && (item[blank] == ' ' || item[blank] == '\t')) ++blank;
    item.erase(0, blank);
    if (item.empty()) continue;
    int width = 0;
    if (auto pct = item.find('%'); pct != std::string::npos) {
      width = std::atoi(item.c_str() + pct + 1);
      item.resize(pct);
    }
    const table_entry* found = nullptr;
    for (auto& e : table)
      if (strncasecmp(e.name, item.c_str(), item.size()) == 0) {
        found = &e;
        break;
      }
    if (found == nullptr)
      return shoal::error(errc::invalid_request, "Invalid field requested: \"" + item + "\"");
    // As sstat: `%0` (or no number) keeps the table's width.
    out.push_back({found->name, width != 0 ? width : found->width});
  }
  return out;
}

std::vector<std::string> sstat_field_names() {
  std::vector<std::string> out;
  for (auto& e : table) out.emplace_back(e.name);
  return out;
}

std::string render_sstat_header(const std::vector<sacct_column>& columns,
                                const sstat_print_options& opt) {
  std::string out;
  if (opt.no_header) return out;
  for (size_t i = 0; i < columns.size(); ++i)
    print_value(out, columns[i], str(columns[i].name), i + 1 == columns.size(), opt, true);
  end_line(out, opt);
  if (opt.parsable != 0) return out;
  std::string dashes;
  for (size_t i = 0; i < columns.size(); ++i) {
    auto width = static_cast<size_t>(std::abs(columns[i].width));
    dashes += std::string(width, '-') + ' ';
  }
  end_line(dashes, opt);
  return out + dashes;
}

std::string render_sstat_line(const std::string& job, const msg::accounted_step& step,
                              const std::vector<sacct_column>& columns,
                              const sstat_print_options& opt) {
  std::string out;
  for (size_t i = 0; i < columns.size(); ++i)
    print_value(out, columns[i], field_value(columns[i].name, job, step), i + 1 == columns.size(),
                opt);
  end_line(out, opt);
  return out;
}

}  // namespace shoal::cli
