#include "tools/format/step_format.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <functional>
#include <optional>

#include "tools/format/slurm_format.hpp"
#include "tools/format/table.hpp"
#include "topology/hostlist.hpp"

namespace shoal::cli {

namespace {

using S = msg::step_info;

/// A value as squeue's step fields print it: `cut` says whether _print_str may cut it.
struct cell {
  std::string text;
  bool cut = true;
};

/// One of squeue's step fields: its -o letter ('\0': -O only), its -O names, its header.
struct step_column {
  char letter = '\0';
  std::vector<const char*> names;
  const char* header = "";
  bool header_cut = true;
  std::function<cell(const S&, int64_t now)> value;
};

std::string number(int64_t n) {
  return std::to_string(n);
}

/// slurm_sort_node_list_str: the nodes as a sorted hostset prints them.
std::string sorted_nodes(const std::string& nodes) {
  if (nodes.empty()) return "";
  auto sorted = topology::compress_hostlist_expression_sorted(nodes);
  return sorted ? *sorted : nodes;
}

int64_t run_time(const S& s, int64_t now) {
  return s.start_time > 0 && now > s.start_time ? now - s.start_time : 0;
}

/// A string field slurmctld leaves NULL when unset: printf prints it "(null)".
std::string null_text(const std::string& text) {
  return text.empty() ? "(null)" : text;
}

template <class Get>
std::function<cell(const S&, int64_t)> text(Get get) {
  return [get](const S& s, int64_t) { return cell{get(s)}; };
}

std::function<cell(const S&, int64_t)> constant(const char* value) {
  return [value](const S&, int64_t) { return cell{value}; };
}

const std::vector<step_column>& columns() {
  static const std::vector<step_column> cols = [] {
    std::vector<step_column> f;
    f.push_back({'i', {"stepid"}, "STEPID", true, text(step_id_text)});
    f.push_back({'j', {"stepname"}, "NAME", true, text([](const S& s) { return s.name; })});
    f.push_back({'P', {"partition"}, "PARTITION", true, text([](const S& s) {
                   return null_text(s.partition);
                 })});
    f.push_back({'u', {"username"}, "USER", true, text([](const S& s) {
                   return s.user.empty() ? number(s.uid) : s.user;
                 })});
    f.push_back({'U', {"userid"}, "UID", true, text([](const S& s) { return number(s.uid); })});
    f.push_back({'M', {"timeused"}, "TIME", true, [](const S& s, int64_t now) {
                   return cell{slurm_seconds(run_time(s, now), false)};
                 }});
    f.push_back({'l', {"timelimit"}, "TIME_LIMIT", true, text([](const S& s) -> std::string {
                   return s.time_limit_s < 0 ? "UNLIMITED" : slurm_seconds(s.time_limit_s, false);
                 })});
    f.push_back({'S', {"starttime"}, "START_TIME", true, text([](const S& s) {
                   return detail::iso_time(s.start_time, "N/A");
                 })});
    f.push_back({'N', {"nodes"}, "NODELIST", false, [](const S& s, int64_t) {
                   return cell{sorted_nodes(s.nodelist), false};
                 }});
    f.push_back(
        {'A', {"numtasks"}, "TASKS", true, text([](const S& s) { return number(s.ntasks); })});
    f.push_back({'b', {"gres", "tres-per-node"}, "TRES_PER_JOB", true, text([](const S& s) {
                   return null_text(s.tres_per_node);
                 })});
    f.push_back({'\0', {"jobid"}, "JOB_ID", true, text([](const S& s) {
                   return number(static_cast<int64_t>(s.job_id));
                 })});
    // squeue prints the packed array job id, 0 for a job outside an array.
    f.push_back({'\0', {"arrayjobid"}, "ARRAY_JOB_ID", true, text([](const S& s) {
                   return number(static_cast<int64_t>(s.array_job_id));
                 })});
    f.push_back({'\0', {"arraytaskid"}, "ARRAY_TASK_ID", true, text([](const S& s) {
                   return s.array_task_id >= 0 ? number(s.array_task_id) : std::string{"N/A"};
                 })});
    f.push_back(
        {'\0', {"numcpus"}, "NUM_CPUS", true, text([](const S& s) { return number(s.cpus); })});
    f.push_back({'\0', {"network"}, "NETWORK", true, constant("(null)")});
    f.push_back({'\0', {"cpufreq"}, "CPU_FREQ", true, constant("Unknown-Unknown:Unknown")});
    f.push_back({'\0', {"resvports"}, "RESERVED_PORTS", true, constant("(null)")});
    f.push_back({'\0', {"stepstate"}, "STATE", true, constant("RUNNING")});
    f.push_back({'\0', {"container"}, "CONTAINER", true, constant("(null)")});
    f.push_back({'\0', {"cpus-per-tres"}, "CPUS_PER_TRES", true, constant("(null)")});
    f.push_back({'\0', {"mem-per-tres"}, "MEM_PER_TRES", true, constant("(null)")});
    f.push_back({'\0', {"tres-bind"}, "TRES_BIND", true, constant("(null)")});
    f.push_back({'\0', {"tres-freq"}, "TRES_FREQ", true, constant("(null)")});
    f.push_back(
        {'\0', {"tres-per-job", "tres-per-step"}, "TRES_PER_STEP", true, constant("(null)")});
    f.push_back({'\0', {"tres-per-socket"}, "TRES_PER_SOCKET", true, constant("(null)")});
    f.push_back({'\0', {"tres-per-task"}, "TRES_PER_TASK", true, constant("(null)")});
    return f;
  }();
  return cols;
}

const step_column* by_letter(char letter) {
  for (auto& c : columns())
    if (c.letter == letter) return &c;
  return nullptr;
}

const step_column* by_name(const std::string& name) {
  // squeue takes any name that starts with "numtask" for the task count.
  if (name.rfind("numtask", 0) == 0) return by_letter('A');
  // ... and any that starts with "container" for the container.
  bool container = name.rfind("container", 0) == 0;
  for (auto& c : columns())
    for (auto* n : c.names)
      if (detail::iequals(container ? std::string{"container"} : name, n)) return &c;
  return nullptr;
}

int compare_text(const std::string& a, const std::string& b) {
  return a.compare(b) < 0 ? -1 : a == b ? 0 : 1;
}

template <class T>
int compare_value(T a, T b) {
  return a < b ? -1 : a == b ? 0 : 1;
}

/// sort.c's step comparators; nullopt for a letter squeue ignores for steps.
std::optional<std::function<int(const S&, const S&)>> sort_key(char letter, int64_t now) {
  switch (letter) {
    case 'i':
      return [](const S& a, const S& b) {
        int d = compare_value(a.job_id, b.job_id);
        return d != 0 ? d : compare_value(a.step_id, b.step_id);
      };
    case 'N':
      return [](const S& a, const S& b) { return detail::natural_compare(a.nodelist, b.nodelist); };
    case 'P':
      return [](const S& a, const S& b) { return compare_text(a.partition, b.partition); };
    case 'l':
      return [](const S& a, const S& b) {
        auto limit = [](const S& s) { return s.time_limit_s < 0 ? INT64_MAX : s.time_limit_s; };
        return compare_value(limit(a), limit(b));
      };
    case 'S':
      return [](const S& a, const S& b) { return compare_value(a.start_time, b.start_time); };
    case 'M':
      return [now](const S& a, const S& b) {
        return compare_value(run_time(a, now), run_time(b, now));
      };
    case 'u':
      return [](const S& a, const S& b) { return compare_text(a.user, b.user); };
    case 'U':
      return [](const S& a, const S& b) { return compare_value(a.uid, b.uid); };
    default:
      return std::nullopt;
  }
}

void sort_steps(std::vector<S>& steps, const std::string& spec, int64_t now) {
  std::string letters = spec.empty() ? std::string{"P,i"} : spec;
  for (size_t k = letters.size(); k-- > 0;) {
    char c = letters[k];
    if (c == ',' || c == '+' || c == '-') continue;
    bool reverse = k > 0 && letters[k - 1] == '-';
    auto key = sort_key(c, now);
    if (!key) continue;
    std::stable_sort(steps.begin(), steps.end(), [&](const S& a, const S& b) {
      int d = (*key)(a, b);
      return reverse ? d > 0 : d < 0;
    });
  }
}

/// The step part of an id as log_build_step_id_str prints it.
std::string step_part(uint32_t step_id) {
  if (step_id == msg::batch_step_id) return "batch";
  if (step_id == 0xfffffffc) return "extern";
  return std::to_string(step_id);
}

}  // namespace

std::string step_id_text(const msg::step_info& s) {
  if (s.array_job_id != 0 && s.array_task_id >= 0)
    return std::to_string(s.array_job_id) + "_" + std::to_string(s.array_task_id) + "." +
           step_part(s.step_id);
  return std::to_string(s.job_id) + "." + step_part(s.step_id);
}

shoal::expected<std::vector<step_selector>> parse_step_list(std::string_view list) {
  std::vector<step_selector> out;
  size_t pos = 0;
  while (pos < list.size()) {
    auto end = list.find(',', pos);
    if (end == std::string_view::npos) end = list.size();
    auto item = std::string{list.substr(pos, end - pos)};
    pos = end + 1;
    if (item.empty()) continue;
    auto dot = item.find('.');
    auto job = item.substr(0, dot);
    if (dot == std::string::npos || dot + 1 == item.size())
      return shoal::error(errc::invalid_request, "Invalid job_step id: " + job + ".??");
    auto step = item.substr(dot + 1);
    step_selector sel;
    char* rest = nullptr;
    sel.job_id = std::strtoull(job.c_str(), &rest, 10);
    if (rest != nullptr && *rest == '_') sel.array_task = std::strtoll(rest + 1, &rest, 10);
    if (detail::iequals(step, "batch"))
      sel.step_id = msg::batch_step_id;
    else if (detail::iequals(step, "extern"))
      sel.step_id = 0xfffffffc;
    else {
      long long n = std::strtoll(step.c_str(), nullptr, 10);
      if (n < 0 || sel.job_id == 0 || job.empty() || job[0] == '-')
        return shoal::error(errc::invalid_request, "Invalid job_step id: " + item);
      sel.step_id = static_cast<uint32_t>(n);
    }
    if (sel.job_id == 0 || job[0] == '-')
      return shoal::error(errc::invalid_request, "Invalid job_step id: " + item);
    out.push_back(sel);
  }
  return out;
}

bool step_selected(const msg::step_info& s, const step_selector& sel) {
  if (sel.step_id != msg::all_steps && sel.step_id != s.step_id) return false;
  if (sel.array_task >= 0) return sel.job_id == s.array_job_id && sel.array_task == s.array_task_id;
  return sel.job_id == s.job_id || (s.array_job_id != 0 && sel.job_id == s.array_job_id);
}

slurm_output render_squeue_steps(std::vector<msg::step_info> steps,
                                 const squeue_format_options& opt, int64_t now) {
  slurm_output out;
  std::vector<slurm_item> items;
  if (!opt.long_format.empty()) {
    items = parse_slurm_long_format(
        opt.long_format, [](const std::string& name) { return by_name(name) != nullptr; }, true,
        out.errors);
    // squeue's step parser says "job step" where its job parser says "job".
    for (auto& e : out.errors)
      if (e.rfind("Invalid job format", 0) == 0) e.replace(0, 18, "Invalid job step format");
  } else {
    auto format = opt.format.empty() ? std::string{"%.15i %.8j %.9P %.8u %.9M %N"} : opt.format;
    items = parse_slurm_format(
        format, [](char letter) { return by_letter(letter) != nullptr; }, "Invalid job step",
        out.errors);
  }
  std::vector<const step_column*> cols;
  for (auto& item : items)
    cols.push_back(item.what != slurm_item::kind::field ? nullptr
                   : opt.long_format.empty()            ? by_letter(item.name[0])
                                                        : by_name(item.name));
  if (!opt.presorted) sort_steps(steps, opt.sort, now);
  auto line = [&](const S* s) {
    std::string text;
    for (size_t k = 0; k < items.size(); ++k) {
      auto& item = items[k];
      if (cols[k] != nullptr) {
        if (s == nullptr) {
          // _print_step_time_start's header is always left-justified.
          bool right = cols[k]->letter == 'S' ? false : item.right;
          text += slurm_cell(cols[k]->header, item.width, right, cols[k]->header_cut);
        } else {
          auto v = cols[k]->value(*s, now);
          text += slurm_cell(v.text, item.width, item.right, v.cut);
        }
      }
      text += item.suffix;
    }
    out.text += text;
    out.text.push_back('\n');
  };
  if (!opt.no_header) line(nullptr);
  for (auto& s : steps) line(&s);
  return out;
}

std::string show_step(const msg::step_info& s) {
  std::string id;
  if (s.array_job_id != 0 && s.array_task_id >= 0)
    id = "StepId=" + std::to_string(s.array_job_id) + "_" + std::to_string(s.array_task_id) + "." +
         step_part(s.step_id);
  else
    id = "StepId=" + std::to_string(s.job_id) + "." + step_part(s.step_id);
  std::string limit = s.time_limit_s < 0 ? "UNLIMITED" : slurm_time_string(s.time_limit_s);
  std::string out = id + " UserId=" + std::to_string(s.uid) +
                    " StartTime=" + detail::iso_time(s.start_time, "Unknown") +
                    " TimeLimit=" + limit;
  const char* next = "\n   ";
  out += next;
  out += "State=RUNNING Partition=" + null_text(s.partition) +
         " NodeList=" + null_text(sorted_nodes(s.nodelist));
  out += next;
  out += "Nodes=" + std::to_string(s.node_count) + " CPUs=" + std::to_string(s.cpus) +
         " Tasks=" + std::to_string(s.ntasks) + " Name=" + null_text(s.name) + " Network=(null)";
  out += next;
  out += "TRES=cpu=" + std::to_string(s.cpus) +
         ",mem=" + slurm_number_unit(static_cast<double>(s.mem_mb), 2) +
         ",node=" + std::to_string(s.node_count);
  out += next;
  out += "ResvPorts=(null)";
  out += next;
  out += "CPUFreqReq=Default";
  if (!s.distribution.empty()) out += " Dist=" + s.distribution;
  out += next;
  out += "SrunHost:Pid=" + null_text(s.srun_host) + ":" + std::to_string(s.srun_pid);
  if (!s.tres_per_node.empty()) {
    out += next;
    out += "TresPerNode=" + s.tres_per_node;
  }
  out += "\n\n";
  return out;
}

}  // namespace shoal::cli
