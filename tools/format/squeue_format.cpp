#include "tools/format/squeue_format.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "messages/errc.hpp"
#include "tools/format/job_times.hpp"
#include "tools/format/slurm_format.hpp"
#include "tools/format/table.hpp"
#include "topology/hostlist.hpp"

namespace shoal::cli {

namespace {

using J = msg::job_info;

/// A value as squeue prints it: `cut` says whether _print_str may cut it to the width.
struct cell {
  std::string text;
  bool cut = true;
};

cell uncut(std::string text) {
  return {std::move(text), false};
}

struct job_context {
  int64_t now = 0;
  const squeue_format_options* opt = nullptr;
};

/// One of squeue's fields: its -o letter ('\0': -O only), its -O names, its header.
struct job_column {
  char letter = '\0';  ///< '\0': -O only
  std::vector<const char*> names;
  const char* header = "";
  bool header_cut = true;
  std::function<cell(const J&, const job_context&)> value;
  /// Non-null: shoal has no value for it; the note printed once when the format uses it.
  const char* missing = nullptr;
  /// The job's fields `value` reads (declare_reads below), so a listing asks only for those.
  msg::field_mask reads = msg::all_fields;
};

std::string time_text(int64_t t) {
  return detail::iso_time(t, "N/A");
}

std::string job_id_text(const J& j) {
  if (j.array_job_id == 0) return std::to_string(j.job_id);
  auto prefix = std::to_string(j.array_job_id) + "_";
  if (j.array_task_id >= 0) return prefix + std::to_string(j.array_task_id);
  return prefix + "[" + j.array_tasks + "]";
}

/// slurm_sort_node_list_str: the nodes as a sorted hostset prints them.
std::string sorted_nodes(const std::string& nodes) {
  if (nodes.empty()) return "";
  auto sorted = topology::compress_hostlist_expression_sorted(nodes);
  return sorted ? *sorted : nodes;
}

std::string reason_text(const J& j) {
  return j.reason.empty() ? "None" : j.reason;
}

std::string number(uint64_t n) {
  return std::to_string(n);
}

/// The exit code as Slurm keeps it: a wait status (exit status << 8, or the signal).
int64_t wait_status(const J& j) {
  return j.exit_signal != 0 ? j.exit_signal : static_cast<int64_t>(j.exit_code) << 8;
}

std::optional<group_entry> group(const J& j, const job_context& c) {
  if (!c.opt->group_of) return std::nullopt;
  return c.opt->group_of(j.uid);
}

// A shorthand for the column tables below.
using C = const job_context&;

/// A cell of the text `get` returns for the job.
template <class Get>
std::function<cell(const J&, C)> text(Get get) {
  return [get](const J& j, C) { return cell{get(j)}; };
}

/// A cell that is always `value` (cut to the column's width when `cut`).
std::function<cell(const J&, C)> constant(const char* value, bool cut = true) {
  return [value, cut](const J&, C) { return cell{value, cut}; };
}

/// Which job it is, whose, and what it runs.
void add_identity_columns(std::vector<job_column>& f) {
  f.push_back({'A', {"jobid"}, "JOBID", true, text([](const J& j) { return number(j.job_id); })});
  f.push_back({'i', {"jobarrayid"}, "JOBID", true, text(job_id_text)});
  f.push_back({'F', {"arrayjobid"}, "ARRAY_JOB_ID", true, text([](const J& j) {
                 return number(j.array_job_id != 0 ? j.array_job_id : j.job_id);
               })});
  f.push_back({'K', {"arraytaskid"}, "ARRAY_TASK_ID", true, text([](const J& j) -> std::string {
                 if (j.array_job_id == 0) return "N/A";
                 return j.array_task_id >= 0 ? number(static_cast<uint64_t>(j.array_task_id))
                                             : j.array_tasks;
               })});
  f.push_back(
      {'j', {"name"}, "NAME", true, text([](const J& j) { return detail::or_null(j.name); })});
  f.push_back(
      {'u', {"username"}, "USER", true, text([](const J& j) { return detail::or_null(j.user); })});
  f.push_back({'U', {"userid"}, "UID", true, text([](const J& j) { return number(j.uid); })});
  f.push_back({'g', {"groupname"}, "GROUP", true, [](const J& j, C c) {
                 auto g = group(j, c);
                 if (!g) return cell{"N/A"};
                 return cell{g->name.empty() ? number(g->gid) : g->name};
               }});
  f.push_back({'G', {"groupid"}, "GROUP", true, [](const J& j, C c) {
                 auto g = group(j, c);
                 return cell{g ? number(g->gid) : "N/A"};
               }});
  f.push_back({'a', {"account"}, "ACCOUNT", true, text([](const J& j) {
                 return detail::or_null(j.account);
               })});
  f.push_back({'P', {"partition"}, "PARTITION", true, text([](const J& j) {
                 return detail::or_null(j.partition);
               })});
  f.push_back({'q', {"qos"}, "QOS", true, text([](const J& j) { return detail::or_null(j.qos); })});
  f.push_back({'k', {"comment"}, "COMMENT", true, text([](const J& j) {
                 return detail::or_null(j.comment);
               })});
  f.push_back({'o', {"command"}, "COMMAND", true, text([](const J& j) {
                 return detail::or_null(j.command);
               })});
  f.push_back({'Z', {"workdir"}, "WORK_DIR", true, text([](const J& j) {
                 return detail::or_null(j.work_dir);
               })});
  f.push_back({'E', {"dependency"}, "DEPENDENCY", true, text([](const J& j) {
                 return detail::or_null(j.dependency);
               })});
}

/// Where the job is in its life, why, and its priority.
void add_state_columns(std::vector<job_column>& f) {
  f.push_back({'t', {"statecompact"}, "ST", true, text([](const J& j) {
                 return std::string{msg::short_code(j.state)};
               })});
  f.push_back({'T', {"state"}, "STATE", true, text([](const J& j) {
                 return std::string{msg::to_string(j.state)};
               })});
  f.push_back({'r', {"reason"}, "REASON", true, text(reason_text)});
  f.push_back({'R', {"reasonlist"}, "NODELIST(REASON)", false, [](const J& j, C) {
                 // squeue's rule: the reason while pending and for jobs that ended on a fault of
                 // their own (timeout, failure, out of memory); the nodes otherwise.
                 using S = msg::job_state;
                 bool reason = j.state == S::pending || j.state == S::timeout ||
                               j.state == S::failed || j.state == S::out_of_memory;
                 if (reason) return cell{"(" + reason_text(j) + ")"};
                 return uncut(sorted_nodes(j.nodelist));
               }});
  f.push_back({'p', {"priority"}, "PRIORITY", true, text([](const J& j) {
                 char buf[64];
                 std::snprintf(buf, sizeof buf, "%16.14f",
                               static_cast<double>(j.priority) / static_cast<double>(0xffffffffu));
                 return std::string{buf};
               })});
  f.push_back({'Q', {"prioritylong"}, "PRIORITY", true, text([](const J& j) {
                 return number(j.priority);
               })});
  f.push_back({'\0', {"exit_code"}, "EXIT_CODE", true, text([](const J& j) {
                 return std::to_string(wait_status(j));
               })});
  f.push_back({'\0', {"batchflag"}, "BATCH_FLAG", true, text([](const J& j) {
                 return std::string{j.batch ? "1" : "0"};
               })});
  f.push_back({'\0', {"requeue"}, "REQUEUE", true, text([](const J& j) {
                 return std::string{j.requeue ? "1" : "0"};
               })});
  f.push_back({'\0', {"restartcnt"}, "RESTART_COUNT", true, text([](const J& j) {
                 return number(j.requeue_count);
               })});
  // shoal keeps no TRES strings (as sacct's AllocTRES): what squeue prints for a job without
  // one. Open OnDemand asks for it in every squeue call (ood_core all_squeue_fields).
  f.push_back({'\0', {"tres-alloc"}, "TRES_ALLOC", true, constant("(null)")});
}

/// When the job was submitted, started and ends, and how long it may run.
void add_time_columns(std::vector<job_column>& f) {
  f.push_back({'V', {"submittime"}, "SUBMIT_TIME", true, text([](const J& j) {
                 return time_text(j.submit_time);
               })});
  f.push_back({'S', {"starttime"}, "START_TIME", true, text([](const J& j) {
                 return time_text(j.start_time);
               })});
  f.push_back({'e', {"endtime"}, "END_TIME", true, [](const J& j, C) {
                 // An unlimited job that runs has no end in sight (Slurm's end is a year away).
                 if (j.time_limit_s < 0 && j.end_time == 0 && holds_nodes(j.state))
                   return cell{"NONE"};
                 return cell{time_text(expected_end(j))};
               }});
  f.push_back({'l', {"timelimit"}, "TIME_LIMIT", true, [](const J& j, C) {
                 if (j.time_limit_s < 0) return cell{"UNLIMITED"};
                 return uncut(slurm_seconds(j.time_limit_s, true));
               }});
  f.push_back({'L', {"timeleft"}, "TIME_LEFT", true, [](const J& j, C c) {
                 if (j.time_limit_s < 0) return cell{"UNLIMITED"};
                 return uncut(slurm_seconds(j.time_limit_s - run_seconds(j, c.now), true));
               }});
  f.push_back({'M', {"timeused"}, "TIME", true, [](const J& j, C c) {
                 return uncut(slurm_seconds(run_seconds(j, c.now), true));
               }});
  f.push_back({'\0', {"pendingtime"}, "PENDING_TIME", true, [](const J& j, C c) {
                 auto since = j.start_time != 0 && j.start_time < c.now ? j.start_time : c.now;
                 return cell{std::to_string(since - j.submit_time)};
               }});
}

/// What the job asks for and the nodes it holds.
void add_resource_columns(std::vector<job_column>& f) {
  f.push_back(
      {'D', {"numnodes"}, "NODES", true, text([](const J& j) { return number(j.node_count); })});
  f.push_back(
      {'\0', {"numtasks"}, "TASKS", true, text([](const J& j) { return number(j.ntasks); })});
  f.push_back({'C', {"numcpus"}, "CPUS", true, text([](const J& j) {
                 return number(uint64_t{j.ntasks} * std::max(1u, j.cpus_per_task));
               })});
  f.push_back({'c', {"mincpus"}, "MIN_CPUS", true, text([](const J& j) {
                 return slurm_number_unit(std::max({1u, j.min_cpus, j.cpus_per_task}), 0);
               })});
  f.push_back({'\0', {"cpuspertask", "cpus-per-task"}, "CPUS_PER_TASK", true, text([](const J& j) {
                 return number(j.cpus_per_task);
               })});
  f.push_back({'\0', {"ntpernode"}, "NTASKS_PER_NODE", true, text([](const J& j) {
                 return number(j.ntasks_per_node);
               })});
  f.push_back({'m', {"minmemory"}, "MIN_MEMORY", true, text([](const J& j) {
                 return slurm_number_unit(static_cast<double>(j.mem_per_node_mb), 2);
               })});
  f.push_back({'b', {"gres", "tres-per-node"}, "TRES_PER_NODE", true, text([](const J& j) {
                 return j.tres_per_node.empty() ? "N/A" : j.tres_per_node;
               })});
  f.push_back({'W', {"licenses"}, "LICENSES", true, text([](const J& j) {
                 return j.licenses.empty() ? "(null)" : j.licenses;
               })});
  f.push_back({'h', {"oversubscribe", "shared"}, "OVER_SUBSCRIBE", true, text([](const J& j) {
                 return j.over_subscribe;
               })});
  f.push_back({'B', {"batchhost"}, "EXEC_HOST", true, text([](const J& j) -> std::string {
                 // The batch host is the allocation's first node; shoal does not record the
                 // host an interactive job was submitted from.
                 if (!j.batch || j.nodelist.empty()) return "n/a";
                 auto names = topology::expand_hostlist(j.nodelist);
                 return names && !names->empty() ? names->front() : "n/a";
               })});
  f.push_back({'n', {"reqnodes"}, "REQ_NODES", true, [](const J& j, C) {
                 return uncut(sorted_nodes(j.required_nodes));
               }});
  f.push_back({'N', {"nodelist"}, "NODELIST", false, [](const J& j, C) {
                 return uncut(sorted_nodes(j.nodelist));
               }});
  f.push_back({'x', {"excnodes"}, "EXC_NODES", true, [](const J& j, C) {
                 return uncut(sorted_nodes(j.exclude_nodes));
               }});
}

/// Slurm's fields shoal keeps no value for, shown as Slurm shows them unset.
void add_unkept_columns(std::vector<job_column>& f) {
  f.push_back({'d', {"mintmpdisk"}, "MIN_TMP_DISK", true, constant("0")});
  f.push_back({'f', {"feature"}, "FEATURES", true, constant("(null)")});
  f.push_back({'H', {"sockets"}, "SOCKETS_PER_NODE", true, constant("*")});
  f.push_back({'I', {"cores"}, "CORES_PER_SOCKET", true, constant("*")});
  f.push_back({'J', {"threads"}, "THREADS_PER_CORE", true, constant("*")});
  f.push_back({'z', {"sct"}, "S:C:T", true, constant("*:*:*")});
  f.push_back({'O', {"contiguous"}, "CONTIGUOUS", true, constant("0")});
  // select/linear and select/cons_tres print nothing here.
  f.push_back({'s', {"selectjobinfo"}, "", true, constant("")});
  f.push_back({'v', {"reservation"}, "RESERVATION", true, text([](const J& j) {
                 return detail::or_null(j.reservation);
               })});
  f.push_back({'w', {"wckey"}, "WCKEY", true, constant("(null)")});
  f.push_back({'X', {"corespec"}, "CORE_SPEC", true, constant("N/A")});
  f.push_back({'y',
               {"nice"},
               "NICE",
               true,
               constant("N/A"),
               "NICE (%y, nice) is not in shoal's job listing; shown as N/A"});
  f.push_back({'Y', {"schednodes"}, "SCHEDNODES", false, constant("(null)", false)});
}

/// What each column reads of a job, by its first -O name. A column not named here keeps
/// all_fields (correct, only slower); the unit test squeue_reads checks every entry.
void declare_reads(std::vector<job_column>& f) {
  auto r = [](auto... members) { return msg::fields_of<J>(members...); };
  auto elapsed = r(&J::start_time, &J::state, &J::end_time, &J::suspend_time, &J::suspended_secs);
  const std::pair<const char*, msg::field_mask> reads[] = {
      {"jobid", r(&J::job_id)},
      {"jobarrayid", r(&J::job_id, &J::array_job_id, &J::array_task_id, &J::array_tasks)},
      {"arrayjobid", r(&J::job_id, &J::array_job_id)},
      {"arraytaskid", r(&J::array_job_id, &J::array_task_id, &J::array_tasks)},
      {"name", r(&J::name)},
      {"username", r(&J::user)},
      {"userid", r(&J::uid)},
      {"groupname", r(&J::uid)},
      {"groupid", r(&J::uid)},
      {"account", r(&J::account)},
      {"partition", r(&J::partition)},
      {"qos", r(&J::qos)},
      {"comment", r(&J::comment)},
      {"command", r(&J::command)},
      {"workdir", r(&J::work_dir)},
      {"dependency", r(&J::dependency)},
      {"statecompact", r(&J::state)},
      {"state", r(&J::state)},
      {"reason", r(&J::reason)},
      {"reasonlist", r(&J::state, &J::reason, &J::nodelist)},
      {"priority", r(&J::priority)},
      {"prioritylong", r(&J::priority)},
      {"exit_code", r(&J::exit_code, &J::exit_signal)},
      {"batchflag", r(&J::batch)},
      {"requeue", r(&J::requeue)},
      {"restartcnt", r(&J::requeue_count)},
      {"submittime", r(&J::submit_time)},
      {"starttime", r(&J::start_time)},
      {"endtime", elapsed | r(&J::time_limit_s)},
      {"timelimit", r(&J::time_limit_s)},
      {"timeleft", elapsed | r(&J::time_limit_s)},
      {"timeused", elapsed},
      {"pendingtime", r(&J::start_time, &J::submit_time)},
      {"numnodes", r(&J::node_count)},
      {"numtasks", r(&J::ntasks)},
      {"numcpus", r(&J::ntasks, &J::cpus_per_task)},
      {"mincpus", r(&J::min_cpus, &J::cpus_per_task)},
      {"cpuspertask", r(&J::cpus_per_task)},
      {"ntpernode", r(&J::ntasks_per_node)},
      {"minmemory", r(&J::mem_per_node_mb)},
      {"gres", r(&J::tres_per_node)},
      {"licenses", r(&J::licenses)},
      {"oversubscribe", r(&J::over_subscribe)},
      {"batchhost", r(&J::batch, &J::nodelist)},
      {"reqnodes", r(&J::required_nodes)},
      {"nodelist", r(&J::nodelist)},
      {"excnodes", r(&J::exclude_nodes)},
      {"reservation", r(&J::reservation)},
      // Values shoal does not keep: constants.
      {"tres-alloc", 0},
      {"mintmpdisk", 0},
      {"feature", 0},
      {"sockets", 0},
      {"cores", 0},
      {"threads", 0},
      {"sct", 0},
      {"contiguous", 0},
      {"selectjobinfo", 0},
      {"wckey", 0},
      {"corespec", 0},
      {"nice", 0},
      {"schednodes", 0},
  };
  for (auto& c : f) {
    auto named = std::find_if(std::begin(reads), std::end(reads),
                              [&](const auto& x) { return std::strcmp(x.first, c.names[0]) == 0; });
    if (named != std::end(reads)) c.reads = named->second;
  }
}

std::vector<job_column> make_columns() {
  std::vector<job_column> f;
  add_identity_columns(f);
  add_state_columns(f);
  add_time_columns(f);
  add_resource_columns(f);
  add_unkept_columns(f);
  declare_reads(f);
  return f;
}

const std::vector<job_column>& columns() {
  static const std::vector<job_column> all = make_columns();
  return all;
}

const job_column* by_letter(char letter) {
  for (auto& c : columns())
    if (c.letter == letter) return &c;
  return nullptr;
}

const job_column* by_name(const std::string& name) {
  for (auto& c : columns())
    for (auto* n : c.names) {
      // squeue compares "numtasks" on its first 7 letters only.
      if (std::strcmp(n, "numtasks") == 0 ? name.compare(0, 7, "numtask") == 0 : name == n)
        return &c;
    }
  return nullptr;
}

// -- sorting ------------------------------------------------------------------------------

int compare_text(const std::string& a, const std::string& b) {
  int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

template <class T>
int compare_value(T a, T b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

/// First node of the sorted list: squeue's _sort_by_node_list compares those.
std::string first_node(const std::string& nodes) {
  if (nodes.empty()) return "";
  auto names = topology::expand_hostlist(nodes);
  if (!names || names->empty()) return nodes;
  std::sort(names->begin(), names->end(), [](const std::string& a, const std::string& b) {
    return detail::natural_compare(a, b) < 0;
  });
  return names->front();
}

using comparator = std::function<int(const J&, const J&)>;

std::optional<comparator> sort_key(char letter, int64_t now, const job_context& ctx) {
  switch (letter) {
    case 'i':
      return comparator{[](const J& a, const J& b) {
        auto id = [](const J& j) { return j.array_job_id != 0 ? j.array_job_id : j.job_id; };
        if (id(a) != id(b)) return compare_value(id(a), id(b));
        return compare_value(a.array_task_id, b.array_task_id);
      }};
    case 'j':
      return comparator{[](const J& a, const J& b) { return compare_text(a.name, b.name); }};
    case 'u':
      return comparator{[](const J& a, const J& b) { return compare_text(a.user, b.user); }};
    case 'U':
      return comparator{[](const J& a, const J& b) { return compare_value(a.uid, b.uid); }};
    case 'P':
      return comparator{
          [](const J& a, const J& b) { return compare_text(a.partition, b.partition); }};
    case 'p':
    case 'Q':
      return comparator{
          [](const J& a, const J& b) { return compare_value(a.priority, b.priority); }};
    case 't':
      return comparator{[](const J& a, const J& b) {
        return compare_text(msg::short_code(a.state), msg::short_code(b.state));
      }};
    case 'T':
      return comparator{[](const J& a, const J& b) {
        return compare_text(msg::to_string(a.state), msg::to_string(b.state));
      }};
    case 'M':
      return comparator{[now](const J& a, const J& b) {
        return compare_value(run_seconds(a, now), run_seconds(b, now));
      }};
    case 'l':
      return comparator{[](const J& a, const J& b) {
        // Minutes as Slurm keeps them: unlimited is the largest.
        auto limit = [](const J& j) { return j.time_limit_s < 0 ? INT64_MAX : j.time_limit_s; };
        return compare_value(limit(a), limit(b));
      }};
    case 'L':
      return comparator{[now](const J& a, const J& b) {
        auto left = [now](const J& j) {
          return j.time_limit_s < 0 ? INT64_MAX : j.time_limit_s - run_seconds(j, now);
        };
        return compare_value(left(a), left(b));
      }};
    case 'D':
      return comparator{
          [](const J& a, const J& b) { return compare_value(a.node_count, b.node_count); }};
    case 'C':
      return comparator{[](const J& a, const J& b) {
        auto cpus = [](const J& j) { return uint64_t{j.ntasks} * std::max(1u, j.cpus_per_task); };
        return compare_value(cpus(a), cpus(b));
      }};
    case 'S':
      return comparator{
          [](const J& a, const J& b) { return compare_value(a.start_time, b.start_time); }};
    case 'V':
      return comparator{
          [](const J& a, const J& b) { return compare_value(a.submit_time, b.submit_time); }};
    case 'e':
      return comparator{
          [](const J& a, const J& b) { return compare_value(expected_end(a), expected_end(b)); }};
    case 'N':
      return comparator{[](const J& a, const J& b) {
        return detail::natural_compare(first_node(a.nodelist), first_node(b.nodelist));
      }};
    case 'a':
      return comparator{[](const J& a, const J& b) { return compare_text(a.account, b.account); }};
    case 'q':
      return comparator{[](const J& a, const J& b) { return compare_text(a.qos, b.qos); }};
    case 'k':
      return comparator{[](const J& a, const J& b) { return compare_text(a.comment, b.comment); }};
    case 'm':
      return comparator{[](const J& a, const J& b) {
        return compare_value(a.mem_per_node_mb, b.mem_per_node_mb);
      }};
    case 'g':
    case 'G':
      return comparator{[ctx, letter](const J& a, const J& b) {
        auto ga = group(a, ctx);
        auto gb = group(b, ctx);
        if (!ga || !gb) return compare_value(ga.has_value(), gb.has_value());
        return letter == 'G' ? compare_value(ga->gid, gb->gid) : compare_text(ga->name, gb->name);
      }};
    case 'B':
      return comparator{[](const J& a, const J& b) {
        return compare_text(first_node(a.nodelist), first_node(b.nodelist));
      }};
    case 'd':
    case 'H':
    case 'I':
    case 'J':
    case 'z':
    case 'v':
    case 'w':
    case 'W':
    case 'f':
      // Values shoal never sets: every job is equal, and the stable sort keeps the order.
      return comparator{[](const J&, const J&) { return 0; }};
    default:
      return std::nullopt;
  }
}

shoal::error sort_with(std::vector<J>& jobs, std::string_view spec, int64_t now,
                       const job_context& ctx) {
  // print_jobs_array: sort_jobs_by_start_time (latest first, none last), then sort_job_list.
  std::stable_sort(jobs.begin(), jobs.end(), [now](const J& a, const J& b) {
    if (a.start_time == 0 || b.start_time == 0) return a.start_time != 0 && b.start_time == 0;
    auto start = [now](const J& j) {
      return j.state == msg::job_state::pending && j.start_time < now ? now : j.start_time;
    };
    return start(a) > start(b);
  });
  std::string letters = spec.empty() ? std::string{"P,t,-p"} : std::string{spec};
  for (size_t k = letters.size(); k-- > 0;) {
    char c = letters[k];
    if (c == ',' || c == '+' || c == '-') continue;
    bool reverse = k > 0 && letters[k - 1] == '-';
    auto key = sort_key(c, now, ctx);
    if (!key)
      return shoal::error(errc::invalid_request, std::string{"Invalid sort specification: "} + c);
    std::stable_sort(jobs.begin(), jobs.end(), [&](const J& a, const J& b) {
      int d = (*key)(a, b);
      return reverse ? d > 0 : d < 0;
    });
  }
  return {};
}

}  // namespace

bool is_slurm_sort(std::string_view spec) {
  if (spec.empty()) return false;
  size_t i = 0;
  for (;;) {
    if (i < spec.size() && (spec[i] == '+' || spec[i] == '-')) ++i;
    if (i >= spec.size() || !std::isalpha(static_cast<unsigned char>(spec[i]))) return false;
    ++i;
    if (i == spec.size()) return true;
    if (spec[i] != ',') return false;
    ++i;
  }
}

shoal::error sort_jobs_slurm(std::vector<msg::job_info>& jobs, std::string_view spec, int64_t now) {
  squeue_format_options none;
  return sort_with(jobs, spec, now, job_context{now, &none});
}

shoal::expected<slurm_output> render_squeue(std::vector<msg::job_info> jobs,
                                            const squeue_format_options& opt, int64_t now) {
  slurm_output out;
  job_context ctx{now, &opt};
  std::vector<slurm_item> items;
  if (!opt.long_format.empty())
    items = parse_slurm_long_format(
        opt.long_format, [](const std::string& name) { return by_name(name) != nullptr; }, true,
        out.errors);
  else
    items = parse_slurm_format(
        opt.format, [](char letter) { return by_letter(letter) != nullptr; }, "Invalid job",
        out.errors);
  std::vector<const job_column*> cols;
  for (auto& item : items) {
    const job_column* c = nullptr;
    if (item.what == slurm_item::kind::field)
      c = opt.long_format.empty() ? by_letter(item.name[0]) : by_name(item.name);
    cols.push_back(c);
    if (c != nullptr && c->missing != nullptr &&
        std::find(out.notes.begin(), out.notes.end(), c->missing) == out.notes.end())
      out.notes.emplace_back(c->missing);
  }
  if (!opt.presorted)
    if (auto err = sort_with(jobs, opt.sort, now, ctx)) return err;
  auto line = [&](const J* j) {
    std::string text;
    for (size_t k = 0; k < items.size(); ++k) {
      auto& item = items[k];
      if (cols[k] != nullptr) {
        if (j == nullptr) {
          text += slurm_cell(cols[k]->header, item.width, item.right, cols[k]->header_cut);
        } else {
          auto v = cols[k]->value(*j, ctx);
          text += slurm_cell(v.text, item.width, item.right, v.cut);
        }
      }
      text += item.suffix;
    }
    out.text += text;
    out.text.push_back('\n');
  };
  if (!opt.no_header) line(nullptr);
  for (auto& j : jobs) line(&j);
  return out;
}

msg::field_mask squeue_reads(const squeue_format_options& opt) {
  std::vector<std::string> ignored;
  std::vector<slurm_item> items;
  if (!opt.long_format.empty())
    items = parse_slurm_long_format(
        opt.long_format, [](const std::string& name) { return by_name(name) != nullptr; }, true,
        ignored);
  else
    items = parse_slurm_format(
        opt.format, [](char letter) { return by_letter(letter) != nullptr; }, "Invalid job",
        ignored);
  // sort_with's first order: the start time, pending jobs' as now.
  auto mask = msg::fields_of(&J::start_time, &J::state);
  for (auto& item : items) {
    if (item.what != slurm_item::kind::field) continue;
    auto* c = opt.long_format.empty() ? by_letter(item.name[0]) : by_name(item.name);
    if (c != nullptr) mask |= c->reads;
  }
  if (!opt.presorted) {
    // Each sort letter reads what its column shows (sort_key's keys read no more).
    for (char letter : opt.sort.empty() ? std::string{"P,t,-p"} : opt.sort)
      if (auto* c = by_letter(letter)) mask |= c->reads;
  }
  return mask;
}

std::vector<std::string> squeue_long_names() {
  std::vector<std::string> out;
  for (auto& c : columns()) out.emplace_back(c.names[0]);
  return out;
}

std::string check_job_states(std::string_view states) {
  // job_state_string for 0..JOB_END-1, then the flag states job_state_num also takes.
  static const char* const names[][2] = {
      {"PENDING", "PD"},       {"RUNNING", "R"},      {"SUSPENDED", "S"},
      {"COMPLETED", "CD"},     {"CANCELLED", "CA"},   {"FAILED", "F"},
      {"TIMEOUT", "TO"},       {"NODE_FAIL", "NF"},   {"PREEMPTED", "PR"},
      {"BOOT_FAIL", "BF"},     {"DEADLINE", "DL"},    {"OUT_OF_MEMORY", "OOM"},
      {"COMPLETING", "CG"},    {"CONFIGURING", "CF"}, {"RESIZING", "RS"},
      {"RESV_DEL_HOLD", "RD"}, {"REQUEUED", "RQ"},    {"REQUEUE_FED", "RF"},
      {"REQUEUE_HOLD", "RH"},  {"REVOKED", "RV"},     {"SIGNALING", "SI"},
      {"SPECIAL_EXIT", "SE"},  {"STAGE_OUT", "SO"},   {"STOPPED", "ST"},
  };
  if (detail::iequals(states, "all")) return "";
  size_t pos = 0;
  while (pos <= states.size()) {
    auto end = states.find(',', pos);
    if (end == std::string_view::npos) end = states.size();
    auto item = states.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) continue;  // strtok_r skips empty items
    bool known = std::any_of(std::begin(names), std::end(names), [&](const auto& n) {
      return detail::iequals(item, n[0]) || detail::iequals(item, n[1]);
    });
    if (known) continue;
    std::string valid;
    for (auto& n : names) valid += (valid.empty() ? "" : ",") + std::string{n[0]};
    return "Invalid job state specified: " + std::string{item} +
           "\nValid job states include: " + valid;
  }
  return "";
}

}  // namespace shoal::cli
