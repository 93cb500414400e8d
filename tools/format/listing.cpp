#include "tools/format/listing.hpp"

#include <cstdio>
#include <limits>
#include <map>
#include <unordered_map>

#include "config/duration.hpp"
#include "tools/format/job_times.hpp"
#include "tools/format/node_state_text.hpp"
#include "tools/format/table.hpp"
#include "topology/hostlist.hpp"
#include "topology/partition_summary.hpp"

namespace shoal::cli {

using detail::field;

namespace {

constexpr double infinite_time = std::numeric_limits<double>::max();

std::string dump(const nlohmann::json& doc) {
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

double as_number(int64_t v) {
  return static_cast<double>(v);
}

/// A time limit as a sort key: unlimited sorts after every finite limit.
double limit_key(int64_t seconds) {
  return seconds < 0 ? infinite_time : as_number(seconds);
}

// -- jobs ---------------------------------------------------------------------

std::string reason_text(const msg::job_info& j) {
  return j.reason.empty() ? "None" : j.reason;
}

/// -j 12 names job 12 and, as in squeue, every task of array 12; 12_4 names one task.
bool job_id_matches(const msg::job_info& j, const std::vector<std::string>& values) {
  auto text = job_id_text(j);
  auto id = std::to_string(j.job_id);
  auto array = std::to_string(j.array_job_id);
  for (auto& v : values)
    if (v == text || v == id || (j.array_job_id != 0 && v == array)) return true;
  return false;
}

using J = msg::job_info;

/// Which job it is and whose.
void add_job_identity_fields(std::vector<field<J>>& f) {
  f.push_back({"JobId", "JOBID", true, job_id_text,
               [](const J& j) {
                 // Array lines sort by their array, then task.
                 return j.array_job_id == 0
                            ? static_cast<double>(j.job_id)
                            : static_cast<double>(j.array_job_id) +
                                  (static_cast<double>(j.array_task_id) + 1.0) / 1e7;
               },
               job_id_matches});
  f.push_back(
      {"ArrayJobId",
       "ARRAY_JOB_ID",
       true,
       [](const J& j) { return std::to_string(j.array_job_id != 0 ? j.array_job_id : j.job_id); },
       [](const J& j) {
         return static_cast<double>(j.array_job_id != 0 ? j.array_job_id : j.job_id);
       },
       {}});
  f.push_back({"ArrayTaskId",
               "ARRAY_TASK_ID",
               false,
               [](const J& j) {
                 if (j.array_job_id == 0) return std::string{"N/A"};
                 return j.array_task_id >= 0 ? std::to_string(j.array_task_id) : j.array_tasks;
               },
               {},
               {}});
  f.push_back(
      {"Dependency",
       "DEPENDENCY",
       false,
       [](const J& j) { return j.dependency.empty() ? std::string{"(null)"} : j.dependency; },
       {},
       {}});
  f.push_back({"Partition", "PARTITION", false, [](const J& j) { return j.partition; }, {}, {}});
  f.push_back({"Name", "NAME", false, [](const J& j) { return j.name; }, {}, {}});
  f.push_back({"User", "USER", false, [](const J& j) { return j.user; }, {}, {}});
}

/// Its state, run time and nodes, and the times of its life (Time is counted up to `now`).
void add_job_progress_fields(std::vector<field<J>>& f, int64_t now) {
  f.push_back({"State",
               "STATE",
               false,
               [](const J& j) { return msg::to_string(j.state); },
               {},
               [](const J& j, const std::vector<std::string>& v) {
                 return detail::state_matches(j.state, v);
               }});
  f.push_back({"ST",
               "ST",
               false,
               [](const J& j) { return msg::short_code(j.state); },
               {},
               [](const J& j, const std::vector<std::string>& v) {
                 return detail::state_matches(j.state, v);
               }});
  f.push_back({"Time",
               "TIME",
               true,
               [now](const J& j) { return config::format_duration(run_seconds(j, now)); },
               [now](const J& j) { return as_number(run_seconds(j, now)); },
               {}});
  f.push_back({"TimeLimit",
               "TIME_LIMIT",
               true,
               [](const J& j) { return config::format_duration(j.time_limit_s); },
               [](const J& j) { return limit_key(j.time_limit_s); },
               {}});
  f.push_back({"Nodes",
               "NODES",
               true,
               [](const J& j) { return std::to_string(j.node_count); },
               [](const J& j) { return as_number(j.node_count); },
               {}});
  f.push_back({"NodeList",
               "NODELIST",
               false,
               [](const J& j) { return j.nodelist; },
               {},
               [](const J& j, const std::vector<std::string>& v) {
                 return detail::hostlists_intersect(j.nodelist, v);
               }});
  f.push_back({"Reason", "REASON", false, reason_text, {}, {}});
  f.push_back({"SubmitTime",
               "SUBMIT_TIME",
               false,
               [](const J& j) { return detail::iso_time(j.submit_time, "N/A"); },
               [](const J& j) { return as_number(j.submit_time); },
               {}});
  f.push_back({"StartTime",
               "START_TIME",
               false,
               [](const J& j) { return detail::iso_time(j.start_time, "N/A"); },
               [](const J& j) { return as_number(j.start_time); },
               {}});
  f.push_back({"EndTime",
               "END_TIME",
               false,
               [](const J& j) { return detail::iso_time(j.end_time, "N/A"); },
               [](const J& j) { return as_number(j.end_time); },
               {}});
  f.push_back({"ExitCode",
               "EXIT_CODE",
               true,
               [](const J& j) { return std::to_string(j.exit_code) + ":0"; },
               [](const J& j) { return as_number(j.exit_code); },
               {}});
}

/// What it asked for and how it was submitted; and squeue's NODELIST(REASON).
void add_job_request_fields(std::vector<field<J>>& f) {
  f.push_back({"NTasks",
               "TASKS",
               true,
               [](const J& j) { return std::to_string(j.ntasks); },
               [](const J& j) { return as_number(j.ntasks); },
               {}});
  f.push_back({"CPUsPerTask",
               "CPUS_PER_TASK",
               true,
               [](const J& j) { return std::to_string(j.cpus_per_task); },
               [](const J& j) { return as_number(j.cpus_per_task); },
               {}});
  f.push_back({"WorkDir", "WORK_DIR", false, [](const J& j) { return j.work_dir; }, {}, {}});
  // squeue shows "(null)" for an account, QOS or comment the job was not given.
  f.push_back(
      {"Account", "ACCOUNT", false, [](const J& j) { return detail::or_null(j.account); }, {}, {}});
  f.push_back({"QOS", "QOS", false, [](const J& j) { return detail::or_null(j.qos); }, {}, {}});
  f.push_back(
      {"Comment", "COMMENT", false, [](const J& j) { return detail::or_null(j.comment); }, {}, {}});
  f.push_back({"Command", "COMMAND", false, [](const J& j) { return j.command; }, {}, {}});
  f.push_back({"Priority",
               "PRIORITY",
               true,
               [](const J& j) { return std::to_string(j.priority); },
               [](const J& j) { return static_cast<double>(j.priority); },
               {}});
  f.push_back({"NodeListReason",
               "NODELIST(REASON)",
               false,
               [](const J& j) {
                 // As squeue: nodes while the job holds them or once it ran; the reason otherwise.
                 bool show_nodes =
                     holds_nodes(j.state) || (msg::is_finished(j.state) && !j.nodelist.empty());
                 return show_nodes ? j.nodelist : "(" + reason_text(j) + ")";
               },
               {},
               [](const J& j, const std::vector<std::string>& v) {
                 return detail::hostlists_intersect(j.nodelist, v) ||
                        std::any_of(v.begin(), v.end(), [&](const std::string& x) {
                          return detail::iequals(x, j.reason) ||
                                 detail::iequals(x, "(" + reason_text(j) + ")");
                        });
               }});
  f.push_back({"Reservation",
               "RESERVATION",
               false,
               [](const J& j) { return detail::or_null(j.reservation); },
               {},
               {}});
  // squeue -L matches a license by its name, whatever count the job asked ("fluent:2").
  f.push_back({"Licenses",
               "LICENSES",
               false,
               [](const J& j) { return detail::or_null(j.licenses); },
               {},
               [](const J& j, const std::vector<std::string>& v) {
                 for (auto& item : detail::split_list(j.licenses, false)) {
                   auto name = item.substr(0, item.find(':'));
                   for (auto& x : v)
                     if (detail::iequals(x.substr(0, x.find(':')), name)) return true;
                 }
                 return false;
               }});
  // squeue's %b: the --gres asked for each node.
  f.push_back({"TresPerNode",
               "TRES_PER_NODE",
               false,
               [](const J& j) { return j.tres_per_node.empty() ? "N/A" : j.tres_per_node; },
               {},
               {}});
}

/// The fields of a job listing, in the order errors list them.
std::vector<field<J>> job_fields(int64_t now) {
  std::vector<field<J>> f;
  add_job_identity_fields(f);
  add_job_progress_fields(f, now);
  add_job_request_fields(f);
  return f;
}

/// squeue's default columns in shoal's names.
const std::vector<std::string>& default_job_columns() {
  static const std::vector<std::string> names = {"JobId", "Partition", "Name",  "User",
                                                 "ST",    "Time",      "Nodes", "NodeListReason"};
  return names;
}

/// What each job field reads of a job (by name as job_fields lists it): its text, sort key and
/// filter. A name not here reads every field (correct, only slower); the unit test
/// job_listing_reads checks every entry against job_fields.
msg::field_mask job_field_reads(std::string_view name) {
  auto r = [](auto... members) { return msg::fields_of<J>(members...); };
  auto id = r(&J::job_id, &J::array_job_id, &J::array_task_id, &J::array_tasks);
  auto elapsed = r(&J::start_time, &J::state, &J::end_time, &J::suspend_time, &J::suspended_secs);
  static const std::vector<std::pair<std::string, msg::field_mask>> reads = {
      {"JobId", id},
      {"ArrayJobId", r(&J::job_id, &J::array_job_id)},
      {"ArrayTaskId", r(&J::array_job_id, &J::array_task_id, &J::array_tasks)},
      {"Dependency", r(&J::dependency)},
      {"Partition", r(&J::partition)},
      {"Name", r(&J::name)},
      {"User", r(&J::user)},
      {"State", r(&J::state)},
      {"ST", r(&J::state)},
      {"Time", elapsed},
      {"TimeLimit", r(&J::time_limit_s)},
      {"Nodes", r(&J::node_count)},
      {"NodeList", r(&J::nodelist)},
      {"Reason", r(&J::reason)},
      {"SubmitTime", r(&J::submit_time)},
      {"StartTime", r(&J::start_time)},
      {"EndTime", r(&J::end_time)},
      {"ExitCode", r(&J::exit_code)},
      {"NTasks", r(&J::ntasks)},
      {"CPUsPerTask", r(&J::cpus_per_task)},
      {"WorkDir", r(&J::work_dir)},
      {"Account", r(&J::account)},
      {"QOS", r(&J::qos)},
      {"Comment", r(&J::comment)},
      {"Command", r(&J::command)},
      {"Priority", r(&J::priority)},
      {"NodeListReason", r(&J::state, &J::nodelist, &J::reason)},
      {"TresPerNode", r(&J::tres_per_node)},
      {"Reservation", r(&J::reservation)},
      {"Licenses", r(&J::licenses)},
  };
  auto folded = detail::fold_name(name);
  for (auto& [n, mask] : reads)
    if (detail::fold_name(n) == folded) return mask;
  return msg::all_fields;
}

// -- partitions ---------------------------------------------------------------

/// One sinfo line: the nodes of one partition that share a state.
struct partition_row {
  const msg::partition_info* part = nullptr;
  bool has_state = false;  ///< false for a partition without nodes ("n/a")
  msg::node_state state = msg::node_state::unknown;
  size_t count = 0;
  std::string nodelist;  ///< as `scontrol show hostlistsorted` prints the group's nodes
  bool maint = false;    ///< in an active MAINT reservation: sinfo's `maint`
};

std::string avail_text(const std::string& state) {
  auto s = detail::lower(state);
  return s == "inactive" ? "inact" : s;
}

std::string partition_limit(int64_t seconds) {
  return seconds < 0 ? "infinite" : config::format_duration(seconds);
}

std::vector<field<partition_row>> partition_fields() {
  using R = partition_row;
  std::vector<field<R>> f;
  f.push_back({"Partition",
               "PARTITION",
               false,
               [](const R& r) { return r.part->name + (r.part->is_default ? "*" : ""); },
               {},
               [](const R& r, const std::vector<std::string>& v) {
                 return std::any_of(v.begin(), v.end(), [&](const std::string& x) {
                   return detail::iequals(x, r.part->name) ||
                          detail::iequals(x, r.part->name + (r.part->is_default ? "*" : ""));
                 });
               }});
  f.push_back({"Avail",
               "AVAIL",
               false,
               [](const R& r) { return avail_text(r.part->state); },
               {},
               [](const R& r, const std::vector<std::string>& v) {
                 return std::any_of(v.begin(), v.end(), [&](const std::string& x) {
                   return detail::iequals(x, r.part->state) ||
                          detail::iequals(x, avail_text(r.part->state));
                 });
               }});
  f.push_back({"TimeLimit",
               "TIMELIMIT",
               true,
               [](const R& r) { return partition_limit(r.part->max_time_s); },
               [](const R& r) { return limit_key(r.part->max_time_s); },
               {}});
  f.push_back({"Nodes",
               "NODES",
               true,
               [](const R& r) { return std::to_string(r.count); },
               [](const R& r) { return static_cast<double>(r.count); },
               {}});
  f.push_back({"State",
               "STATE",
               false,
               [](const R& r) -> std::string {
                 if (r.maint && r.state == msg::node_state::idle) return "maint";
                 return r.has_state ? msg::short_name(r.state) : "n/a";
               },
               {},
               [](const R& r, const std::vector<std::string>& v) {
                 if (r.has_state) return detail::state_matches(r.state, v);
                 return std::any_of(v.begin(), v.end(),
                                    [](const std::string& x) { return detail::iequals(x, "n/a"); });
               }});
  f.push_back({"NodeList",
               "NODELIST",
               false,
               [](const R& r) { return r.nodelist; },
               {},
               [](const R& r, const std::vector<std::string>& v) {
                 return detail::hostlists_intersect(r.nodelist, v);
               }});
  return f;
}

/// One row per group of the summaries (which outlive the rows), "n/a" for a partition without.
std::vector<partition_row> partition_rows(const std::vector<msg::partition_summary>& sums) {
  std::vector<partition_row> rows;
  for (auto& s : sums) {
    for (auto& g : s.groups)
      rows.push_back({&s.partition, true, g.state, g.count, g.nodes, g.maint});
    if (s.groups.empty()) rows.push_back({&s.partition, false, msg::node_state::unknown, 0, {}});
  }
  return rows;
}

/// Partitions in order of their first surviving group, with counts over surviving groups.
std::string partitions_json(const std::vector<partition_row>& rows,
                            const std::vector<msg::partition_info>& full) {
  std::vector<std::string> order;
  std::map<std::string, nlohmann::json> counts;
  for (auto& r : rows) {
    if (counts.count(r.part->name) == 0) {
      order.push_back(r.part->name);
      counts[r.part->name] = nlohmann::json::object();
    }
    if (r.has_state) counts[r.part->name][msg::short_name(r.state)] = r.count;
  }
  auto list = nlohmann::json::array();
  for (auto& name : order) {
    auto p = std::find_if(full.begin(), full.end(),
                          [&](const msg::partition_info& x) { return x.name == name; });
    if (p == full.end()) continue;
    auto doc = to_json(*p);
    doc["nodes_by_state"] = std::move(counts[name]);
    list.push_back(std::move(doc));
  }
  return dump({{"partitions", std::move(list)}});
}

// -- nodes --------------------------------------------------------------------

/// One node line: the node with one of its partitions (sinfo -N) or all of them (-o).
struct node_row {
  const msg::node_info* node = nullptr;
  std::vector<std::string> partitions;  ///< names to match filters against
  std::string partition_cell;
};

uint32_t shown_cpus(const msg::node_info& n) {
  return n.cpus ? n.cpus : n.reported.cpus;
}
uint64_t shown_memory(const msg::node_info& n) {
  return n.real_memory_mb ? n.real_memory_mb : n.reported.real_memory_mb;
}
uint64_t shown_tmp(const msg::node_info& n) {
  return n.tmp_disk_mb ? n.tmp_disk_mb : n.reported.tmp_disk_mb;
}

std::string job_list(const msg::node_info& n) {
  std::string out;
  for (auto id : n.job_ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return out;
}

std::string mhz_text(double mhz) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", mhz);
  return buf;
}

std::vector<field<node_row>> node_fields() {
  using R = node_row;
  using V = std::vector<std::string>;
  auto name_match = [](const R& r, const V& v) {
    return detail::hostlists_intersect(r.node->name, v);
  };
  auto state_match = [](const R& r, const V& v) { return detail::state_matches(r.node->state, v); };
  auto num = [](auto get) {
    return [get](const R& r) { return static_cast<double>(get(*r.node)); };
  };
  auto num_text = [](auto get) {
    return [get](const R& r) { return std::to_string(get(*r.node)); };
  };
  std::vector<field<R>> f;
  f.push_back({"Name", "NODENAME", false, [](const R& r) { return r.node->name; }, {}, name_match});
  f.push_back(
      {"State",
       "STATE",
       false,
       [](const R& r) { return msg::to_string(r.node->state) + std::string{power_mark(*r.node)}; },
       {},
       state_match});
  f.push_back({"StateCompact",
               "STATE",
               false,
               [](const R& r) { return compact_state(*r.node); },
               {},
               state_match});
  f.push_back({"Reason",
               "REASON",
               false,
               [](const R& r) { return r.node->reason.empty() ? "none" : r.node->reason; },
               {},
               {}});
  f.push_back({"OS", "OS", false, [](const R& r) { return r.node->reported.os; }, {}, {}});
  auto cpus = [](const msg::node_info& n) { return shown_cpus(n); };
  f.push_back({"CPUs", "CPUS", true, num_text(cpus), num(cpus), {}});
  f.push_back({"Speed",
               "SPEED",
               true,
               [](const R& r) { return mhz_text(r.node->reported.cpu_mhz); },
               [](const R& r) { return r.node->reported.cpu_mhz; },
               {}});
  auto mem = [](const msg::node_info& n) { return shown_memory(n); };
  f.push_back({"RealMemory", "REAL_MEMORY", true, num_text(mem), num(mem), {}});
  auto vmem = [](const msg::node_info& n) { return n.reported.virtual_memory_mb; };
  f.push_back({"VirtualMemory", "VIRTUAL_MEMORY", true, num_text(vmem), num(vmem), {}});
  auto tmp = [](const msg::node_info& n) { return shown_tmp(n); };
  f.push_back({"TmpDisk", "TMP_DISK", true, num_text(tmp), num(tmp), {}});
  f.push_back({"Partition",
               "PARTITION",
               false,
               [](const R& r) { return r.partition_cell; },
               {},
               [](const R& r, const V& v) {
                 for (auto& p : r.partitions)
                   for (auto& x : v)
                     if (detail::iequals(x, p) || detail::iequals(x, p + "*")) return true;
                 return r.partitions.empty() &&
                        std::any_of(v.begin(), v.end(),
                                    [](const std::string& x) { return x == "-"; });
               }});
  auto last = [](const msg::node_info& n) { return n.last_response; };
  f.push_back({"LastResponse",
               "LAST_RESPONSE",
               false,
               [](const R& r) { return detail::iso_time(r.node->last_response, "N/A"); },
               num(last),
               {}});
  f.push_back({"Address", "ADDRESS", false, [](const R& r) { return r.node->address; }, {}, {}});
  auto weight = [](const msg::node_info& n) { return n.weight; };
  f.push_back({"Weight", "WEIGHT", true, num_text(weight), num(weight), {}});
  auto sockets = [](const msg::node_info& n) { return n.reported.sockets; };
  f.push_back({"Sockets", "SOCKETS", true, num_text(sockets), num(sockets), {}});
  auto cores = [](const msg::node_info& n) { return n.reported.cores_per_socket; };
  f.push_back({"Cores", "CORES", true, num_text(cores), num(cores), {}});
  auto threads = [](const msg::node_info& n) { return n.reported.threads_per_core; };
  f.push_back({"Threads", "THREADS", true, num_text(threads), num(threads), {}});
  f.push_back({"Jobs",
               "JOBS",
               false,
               [](const R& r) { return job_list(*r.node); },
               {},
               [](const R& r, const V& v) {
                 for (auto id : r.node->job_ids)
                   for (auto& x : v)
                     if (x == std::to_string(id)) return true;
                 return false;
               }});
  f.push_back({"Features", "FEATURES", false, [](const R& r) { return r.node->features; }, {}, {}});
  auto boot = [](const msg::node_info& n) { return n.reported.boot_time; };
  f.push_back({"BootTime",
               "BOOT_TIME",
               false,
               [](const R& r) { return detail::iso_time(r.node->reported.boot_time, "N/A"); },
               num(boot),
               {}});
  f.push_back(
      {"NodeList", "NODELIST", false, [](const R& r) { return r.node->name; }, {}, name_match});
  f.push_back({"Nodes",
               "NODES",
               true,
               [](const R&) { return std::string("1"); },
               [](const R&) { return 1.0; },
               {}});
  return f;
}

std::vector<node_row> node_rows(const std::vector<msg::partition_info>& parts,
                                const std::vector<msg::node_info>& nodes, bool per_partition) {
  auto is_default = [&](const std::string& name) {
    return std::any_of(parts.begin(), parts.end(), [&](const msg::partition_info& p) {
      return p.is_default && p.name == name;
    });
  };
  std::vector<node_row> rows;
  for (auto& n : nodes) {
    if (hidden_cloud_node(n)) continue;
    if (!per_partition) {
      std::string cell;
      for (auto& p : n.partitions) cell += (cell.empty() ? "" : ",") + p;
      rows.push_back({&n, n.partitions, cell.empty() ? "-" : cell});
      continue;
    }
    if (n.partitions.empty()) rows.push_back({&n, {}, "-"});
    for (auto& p : n.partitions) rows.push_back({&n, {p}, p + (is_default(p) ? "*" : "")});
  }
  return rows;
}

}  // namespace

// -- listings -----------------------------------------------------------------

shoal::expected<std::string> render_jobs(std::vector<msg::job_info> rows,
                                         const listing_options& opt, int64_t now) {
  auto fields = job_fields(now);
  if (auto err = detail::filter_and_sort(rows, fields, opt)) return err;
  if (opt.json) {
    auto list = nlohmann::json::array();
    for (auto& j : rows) list.push_back(to_json(j));
    return dump({{"jobs", std::move(list)}});
  }
  auto cols = detail::pick_columns(fields, opt.format, default_job_columns());
  if (!cols) return cols.error();
  return detail::render_table(rows, *cols, opt.no_header);
}

msg::field_mask job_selection_reads(const listing_options& opt) {
  msg::field_mask mask = 0;
  for (auto& item : opt.filters) {
    auto eq = item.find('=');
    if (eq == std::string::npos) continue;  // an error at filter_and_sort
    mask |= job_field_reads(detail::split_list(item.substr(0, eq), true).front());
  }
  for (auto& k : detail::split_list(opt.sort, false))
    mask |= job_field_reads(k[0] == '-' || k[0] == '+' ? std::string_view(k).substr(1)
                                                       : std::string_view(k));
  return mask;
}

msg::field_mask job_listing_reads(const listing_options& opt) {
  if (opt.json) return msg::all_fields;
  auto mask = job_selection_reads(opt);
  auto names = detail::split_list(opt.format, false);
  if (names.empty()) names = default_job_columns();
  for (auto& n : names) mask |= job_field_reads(n);
  return mask;
}

msg::job_filter job_coarse_filter(const listing_options& opt) {
  msg::job_filter out;
  auto take = [](std::vector<std::string>& list, const std::vector<std::string>& values) {
    if (list.empty()) list = values.empty() ? std::vector<std::string>{""} : values;
  };
  for (auto& item : opt.filters) {
    auto eq = item.find('=');
    if (eq == std::string::npos) continue;
    auto key = detail::fold_name(detail::split_list(item.substr(0, eq), true).front());
    auto values = detail::split_list(std::string_view(item).substr(eq + 1), true);
    if (key == "state" || key == "st") {
      if (!out.states.empty()) continue;
      for (size_t s = 0; s < msg::job_state_count; ++s) {
        auto state = static_cast<msg::job_state>(s);
        if (detail::state_matches(state, values)) out.states.emplace_back(msg::to_string(state));
      }
      // No state matches: keep one that none has, so the controller lists nothing.
      if (out.states.empty()) out.states.emplace_back("-");
    } else if (key == "user") {
      take(out.users, values);
    } else if (key == "partition") {
      take(out.partitions, values);
    }
  }
  return out;
}

std::vector<std::string> job_field_names() {
  std::vector<std::string> out;
  for (auto& f : job_fields(0)) out.push_back(f.name);
  return out;
}

shoal::expected<std::vector<msg::job_info>> select_jobs(std::vector<msg::job_info> rows,
                                                        const listing_options& opt, int64_t now) {
  auto fields = job_fields(now);
  if (auto err = detail::filter_and_sort(rows, fields, opt)) return err;
  return rows;
}

shoal::expected<std::string> render_partitions(const std::vector<msg::partition_info>& parts,
                                               const std::vector<msg::node_info>& nodes,
                                               const listing_options& opt) {
  std::unordered_map<std::string, msg::node_state> state;
  state.reserve(nodes.size());
  for (auto& n : nodes) state.emplace(n.name, n.state);
  auto sums = topology::summarize_partitions(parts, [&](const std::string& name) {
    auto it = state.find(name);
    return it == state.end() ? msg::node_state::unknown : it->second;
  });
  auto fields = partition_fields();
  auto rows = partition_rows(sums);
  if (auto err = detail::filter_and_sort(rows, fields, opt)) return err;
  if (opt.json) return partitions_json(rows, parts);
  auto cols = detail::pick_columns(
      fields, opt.format, {"Partition", "Avail", "TimeLimit", "Nodes", "State", "NodeList"});
  if (!cols) return cols.error();
  return detail::render_table(rows, *cols, opt.no_header);
}

shoal::expected<std::string> render_partition_summary(
    const std::vector<msg::partition_summary>& sums, const listing_options& opt) {
  auto fields = partition_fields();
  auto rows = partition_rows(sums);
  if (auto err = detail::filter_and_sort(rows, fields, opt)) return err;
  auto cols = detail::pick_columns(
      fields, opt.format, {"Partition", "Avail", "TimeLimit", "Nodes", "State", "NodeList"});
  if (!cols) return cols.error();
  return detail::render_table(rows, *cols, opt.no_header);
}

shoal::expected<std::string> render_nodes(const std::vector<msg::partition_info>& parts,
                                          const std::vector<msg::node_info>& nodes,
                                          const listing_options& opt, int64_t now) {
  static_cast<void>(now);
  auto fields = node_fields();
  bool per_partition = !opt.json && detail::split_list(opt.format, false).empty();
  auto rows = node_rows(parts, nodes, per_partition);
  if (auto err = detail::filter_and_sort(rows, fields, opt)) return err;
  if (opt.json) {
    auto list = nlohmann::json::array();
    for (auto& r : rows) list.push_back(to_json(*r.node));
    return dump({{"nodes", std::move(list)}});
  }
  auto cols =
      detail::pick_columns(fields, opt.format, {"NodeList", "Nodes", "Partition", "StateCompact"});
  if (!cols) return cols.error();
  return detail::render_table(rows, *cols, opt.no_header);
}

std::string job_id_text(const msg::job_info& j) {
  if (j.array_job_id == 0) return std::to_string(j.job_id);
  auto prefix = std::to_string(j.array_job_id) + "_";
  if (j.array_task_id >= 0) return prefix + std::to_string(j.array_task_id);
  return prefix + "[" + j.array_tasks + "]";
}

}  // namespace shoal::cli
