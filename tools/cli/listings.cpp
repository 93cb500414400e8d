// `shoal queue` (squeue) and `shoal info` (sinfo; -N is the seed's machine status tool).

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <optional>
#include <unordered_set>

#include "messages/caf/type_ids.hpp"
#include "policy/array_spec.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/reservations.hpp"
#include "tools/cli/session.hpp"
#include "tools/cli/steps.hpp"
#include "tools/cli/usage.hpp"
#include "tools/format/listing.hpp"
#include "tools/format/node_state_text.hpp"
#include "tools/format/sinfo_format.hpp"
#include "tools/format/slurm_format.hpp"
#include "tools/format/squeue_format.hpp"
#include "tools/format/table.hpp"

namespace shoal::cli {

namespace {

struct listing_flags {
  listing_options opt;
  std::vector<std::string> positional_filters;
  std::string long_format;  ///< -O: Slurm's long field names
};

void add_listing_flags(CLI::App& cmd, listing_flags& f, const char* letters_help,
                       const char* long_help, const char* sort_help) {
  cmd.set_help_flag("--help", "Print this help message and exit");  // -h is --noheader, as in Slurm
  cmd.add_option("-o,--format", f.opt.format, letters_help);
  cmd.add_option("-O,--Format", f.long_format, long_help);
  cmd.add_option("-S,--sort", f.opt.sort, sort_help);
  cmd.add_flag("-h,--noheader", f.opt.no_header, "Leave out the header line");
  cmd.add_flag("--json", f.opt.json, "Print JSON instead of a table");
  cmd.add_option("filter", f.positional_filters, "Field=Value filters, e.g. State=DOWN");
}

int print_or_fail(const std::string& cmd, const shoal::expected<std::string>& text) {
  if (!text) return fail(cmd, describe(text.error()), exit_usage);
  std::fputs(text->c_str(), stdout);
  return 0;
}

/// A listing in Slurm's own format: its complaints about the format on stderr first (as Slurm
/// prints them while parsing), then the listing. A sort Slurm refuses exits 1, as Slurm does.
int print_slurm(const std::string& cmd, const shoal::expected<slurm_output>& out) {
  if (!out) return fail(cmd, describe(out.error()));
  for (auto& line : out->errors) fail(cmd, line);
  for (auto& line : out->notes) warn(cmd, line);
  std::fputs(out->text.c_str(), stdout);
  return 0;
}

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

/// squeue -u: user names or uids, as squeue's _build_user_list reads them. Each unknown one
/// prints "Invalid user: X" and is dropped (so a list of none matches no job).
std::vector<std::string> user_names(const std::string& list, const std::string& cmd) {
  std::vector<std::string> names;
  for (auto& item : detail::split_list(list, false)) {
    if (auto user = find_user(item))
      names.push_back(user->name);
    else
      fail(cmd, "Invalid user: " + item);
  }
  return names;
}

/// squeue -l and sinfo -l print the time first, as ctime does.
void print_date() {
  auto now = std::time(nullptr);
  char buf[64];
  std::fputs(ctime_r(&now, buf), stdout);
}

/// squeue -j of one job id the controller does not know (never was, or purged after MinJobAge)
/// fails, which scripts polling a job's end test for; a list of ids never does.
bool names_unknown_job(const std::string& ids, const std::vector<msg::job_info>& jobs) {
  if (ids.empty() || ids.find_first_not_of("0123456789") != std::string::npos) return false;
  auto id = std::strtoull(ids.c_str(), nullptr, 10);
  return std::none_of(jobs.begin(), jobs.end(), [id](const msg::job_info& j) {
    return j.job_id == id || j.array_job_id == id;
  });
}

/// squeue -r: an array's pending line becomes one line per task (`12_3`, `12_4`, ...).
std::vector<msg::job_info> one_line_per_task(std::vector<msg::job_info> jobs) {
  std::vector<msg::job_info> out;
  out.reserve(jobs.size());
  for (auto& j : jobs) {
    if (j.array_job_id == 0 || j.array_task_id >= 0 || j.array_tasks.empty()) {
      out.push_back(std::move(j));
      continue;
    }
    auto spec = policy::parse_array_spec(j.array_tasks, UINT32_MAX);
    if (!spec) {
      out.push_back(std::move(j));
      continue;
    }
    for (auto& run : spec->indices.runs())
      for (uint64_t i = run.first; i <= run.last; i += run.step) {
        auto task = j;
        task.array_task_id = static_cast<int64_t>(i);
        task.array_tasks.clear();
        out.push_back(std::move(task));
      }
  }
  return out;
}

/// squeue -j's list as squeue's _build_job_list reads it: each comma item must start with a job
/// id above 0 (`12`, `12_4`); the first that does not, or "" when all do.
std::string invalid_job_id(const std::string& list) {
  for (auto& item : detail::split_list(list, false)) {
    if (std::strtol(item.c_str(), nullptr, 10) <= 0) return item;
  }
  return {};
}

/// `shoal queue`'s flags as given.
struct queue_flags {
  listing_flags listing;
  std::string user;
  std::string states;
  std::string parts;
  std::string jobs;
  std::string names;
  std::string accounts;
  std::string qos;
  std::string reservation;
  std::string nodelist;
  std::string licenses;
  int iterate = 0;  ///< -i: seconds between listings; 0: one listing
  int verbose = 0;  ///< -v: the option settings first, then the date
  bool start = false;
  bool priority = false;
  bool me = false;
  bool long_list = false;
  bool array_tasks = false;
  bool steps = false;     ///< -s/--steps given
  std::string step_list;  ///< its value: the steps to list; empty: all
};

/// squeue's format sources: -o, -O, -l; without them SQUEUE_FORMAT, then SQUEUE_FORMAT2. Sets
/// `letters` (squeue's % format, taken out of opt.format) or `long_format` (-O names). An exit
/// code when the flags do not go together.
std::optional<int> pick_queue_format(const queue_flags& q, listing_options& opt,
                                     std::string& letters, std::string& long_format) {
  long_format = q.listing.long_format;
  if (!opt.format.empty() && !long_format.empty())
    return fail("queue", "-O (--Format) is incompatible with -o (--format)");
  if (q.long_list && !opt.format.empty())
    return fail("queue",
                "Options -o(--format) and -l(--long) are mutually exclusive. Please remove one "
                "and retry.");
  if (is_slurm_letter_format(opt.format)) {
    letters = opt.format;
    opt.format.clear();
  } else if (q.long_list) {
    long_format =
        "jobarrayid:.18 ,partition:.9 ,name:.8 ,username:.8 ,state:.8 ,timeused:.10 ,"
        "timelimit:.9 ,numnodes:.6 ,reasonlist:0";
  } else if (opt.format.empty() && long_format.empty() && !q.start) {
    letters = env_or_empty("SQUEUE_FORMAT");
    if (letters.empty()) long_format = env_or_empty("SQUEUE_FORMAT2");
  }
  return std::nullopt;
}

/// -t, -u/--me, -p and -j as filters of `opt`. An exit code when a state is not one; `no_users`
/// when -u named no known user; `include_finished` as squeue: finished jobs only when asked for
/// (-t, a State filter, or -j).
std::optional<int> add_queue_filters(const queue_flags& q, listing_options& opt, bool& no_users,
                                     bool& include_finished) {
  if (!q.states.empty()) {
    if (auto bad = check_job_states(q.states); !bad.empty()) {
      size_t pos = 0;
      for (auto end = bad.find('\n'); end != std::string::npos;
           pos = end + 1, end = bad.find('\n', pos))
        fail("queue", bad.substr(pos, end - pos));
      if (pos < bad.size()) fail("queue", bad.substr(pos));
      return exit_failure;
    }
  }
  no_users = false;
  auto user_list = q.user;
  if (q.me) user_list = std::to_string(::geteuid());
  if (!user_list.empty()) {
    auto names = user_names(user_list, "queue");
    std::string joined;
    for (auto& n : names) joined += (joined.empty() ? "" : ",") + n;
    if (names.empty())
      no_users = true;
    else
      opt.filters.push_back("User=" + joined);
  }
  if (!q.parts.empty()) opt.filters.push_back("Partition=" + q.parts);
  if (!q.jobs.empty()) opt.filters.push_back("JobId=" + q.jobs);
  if (!q.names.empty()) opt.filters.push_back("Name=" + q.names);
  if (!q.accounts.empty()) opt.filters.push_back("Account=" + q.accounts);
  if (!q.qos.empty()) opt.filters.push_back("QOS=" + q.qos);
  if (!q.reservation.empty()) opt.filters.push_back("Reservation=" + q.reservation);
  if (!q.nodelist.empty()) opt.filters.push_back("NodeList=" + q.nodelist);
  if (!q.licenses.empty()) opt.filters.push_back("Licenses=" + q.licenses);
  include_finished = true;
  if (q.states.empty()) {
    bool state_filter = false;
    for (auto& flt : opt.filters)
      if (strncasecmp(flt.c_str(), "state=", 6) == 0 || strncasecmp(flt.c_str(), "st=", 3) == 0)
        state_filter = true;
    include_finished = state_filter || !q.jobs.empty();
  } else if (strcasecmp(q.states.c_str(), "all") != 0) {
    opt.filters.push_back("State=" + q.states);
  }
  return std::nullopt;
}

/// --start and --priority: the pending jobs of `list`, with their planned start or their
/// priority's factors (as sprio).
int print_pending_plan(session& s, const queue_flags& q, std::vector<msg::job_info> list,
                       listing_options opt, squeue_format_options sopt, bool slurm_format,
                       const std::string& slurm_sort) {
  auto details = ask<std::vector<msg::pending_detail>>(s, msg::client_op::pending);
  if (!details) return fail("queue", describe(details.error()));
  if (q.priority) {
    priority_columns shown;
    shown.fairshare = s.conf.scheduling.weight_fairshare != 0;
    shown.qos = s.conf.scheduling.weight_qos != 0;
    std::fputs(render_priorities(list, *details, opt.no_header, shown).c_str(), stdout);
    return 0;
  }
  // As squeue --start: pending jobs only, START_TIME the planned start.
  std::map<uint64_t, int64_t> planned;
  for (auto& d : *details) planned[d.job_id] = d.expected_start;
  std::vector<msg::job_info> pending;
  for (auto& j : list) {
    if (j.state != msg::job_state::pending) continue;
    pending.push_back(j);
    pending.back().start_time = planned.count(j.job_id) > 0 ? planned[j.job_id] : 0;
  }
  if (slurm_format && !opt.json) {
    auto chosen = select_jobs(std::move(pending), opt, now_seconds());
    if (!chosen) return fail("queue", describe(chosen.error()), exit_usage);
    if (sopt.sort.empty() && !sopt.presorted) sopt.sort = "S";
    return print_slurm("queue", render_squeue(std::move(*chosen), sopt, now_seconds()));
  }
  if (opt.format.empty()) opt.format = "JobId,Partition,Name,User,ST,StartTime,Nodes,Reason";
  if (!slurm_sort.empty())
    if (auto err = sort_jobs_slurm(pending, slurm_sort, now_seconds()))
      return fail("queue", describe(err));
  return print_or_fail("queue", render_jobs(std::move(pending), opt, now_seconds()));
}

/// squeue -s: the running steps, in squeue's step format (-o letters, -O names, SQUEUE_FORMAT
/// and SQUEUE_FORMAT2 as for jobs; -l only prints the date first, as squeue).
int run_queue_steps(const queue_flags& q, const std::string& conf) {
  const auto& opt = q.listing.opt;
  step_queue_request r;
  r.steps = q.step_list;
  r.jobs = q.jobs;
  r.partitions = q.parts;
  r.long_format = q.listing.long_format;
  r.sort = opt.sort;
  r.no_header = opt.no_header;
  r.long_list = q.long_list;
  if (!opt.format.empty() && !r.long_format.empty())
    return fail("queue", "-O (--Format) is incompatible with -o (--format)");
  if (q.long_list && !opt.format.empty())
    return fail("queue",
                "Options -o(--format) and -l(--long) are mutually exclusive. Please remove one "
                "and retry.");
  if (!opt.format.empty() && !is_slurm_letter_format(opt.format))
    return fail("queue", "-s takes squeue's formats (-o \"%.15i %j\", -O StepId,StepName)",
                exit_usage);
  r.letters = opt.format;
  if (r.letters.empty() && r.long_format.empty()) {
    r.letters = env_or_empty("SQUEUE_FORMAT");
    if (r.letters.empty()) r.long_format = env_or_empty("SQUEUE_FORMAT2");
  }
  if (!r.sort.empty() && !is_slurm_sort(r.sort))
    return fail("queue", "-s sorts by squeue's letters (-S P,i)", exit_usage);
  if (auto bad = invalid_job_id(q.jobs); !bad.empty())
    return fail("queue", "Invalid job id: " + bad);
  auto user_list = q.me ? std::to_string(::geteuid()) : q.user;
  if (!user_list.empty()) {
    auto names = user_names(user_list, "queue");
    r.no_users = names.empty();
    for (auto& n : names) r.users += (r.users.empty() ? "" : ",") + n;
  }
  return run_step_queue(r, conf);
}

/// The job fields the listing reads (messages/field_mask.hpp): its format, filters and sorts,
/// and the ids -j and -r read; every field for --json, --start and --priority.
msg::field_mask queue_reads(const queue_flags& q, const listing_options& opt,
                            const squeue_format_options& sopt, bool slurm_format) {
  if (q.start || q.priority || opt.json) return msg::all_fields;
  auto ids = msg::fields_of(&msg::job_info::job_id, &msg::job_info::array_job_id,
                            &msg::job_info::array_task_id, &msg::job_info::array_tasks);
  if (slurm_format) return ids | squeue_reads(sopt) | job_selection_reads(opt);
  return ids | job_listing_reads(opt) | (sopt.sort.empty() ? 0 : squeue_reads(sopt));
}

int run_queue(const queue_flags& q, const std::string& conf) {
  auto opt = q.listing.opt;
  opt.filters = q.listing.positional_filters;
  std::string letters;
  std::string long_format;
  if (q.steps) return run_queue_steps(q, conf);
  if (auto code = pick_queue_format(q, opt, letters, long_format)) return *code;
  if (auto bad = invalid_job_id(q.jobs); !bad.empty())
    return fail("queue", "Invalid job id: " + bad);
  bool slurm_format = !letters.empty() || !long_format.empty();
  bool no_users = false;
  bool include_finished = true;
  if (auto code = add_queue_filters(q, opt, no_users, include_finished)) return *code;
  // -S in squeue's letters is squeue's sort; otherwise shoal's field names.
  std::string slurm_sort;
  if (is_slurm_sort(opt.sort)) {
    slurm_sort = opt.sort;
    opt.sort.clear();
  }
  squeue_format_options sopt;
  sopt.format = letters;
  sopt.long_format = long_format;
  sopt.no_header = opt.no_header;
  sopt.group_of = primary_group;
  sopt.sort = slurm_sort;
  sopt.presorted = !opt.sort.empty();
  int code = 0;
  auto s = open_session("queue", conf, code);
  if (!s) return code;
  auto list = ask<std::vector<msg::job_info>>(*s, msg::jobs_atom_v, include_finished,
                                              queue_reads(q, opt, sopt, slurm_format),
                                              job_coarse_filter(opt));
  if (!list) return fail("queue", describe(list.error()));
  if (names_unknown_job(q.jobs, *list))
    return fail_as_perror("queue", "slurm_load_jobs error", "Invalid job id specified");
  if (no_users) list->clear();
  if (q.array_tasks) *list = one_line_per_task(std::move(*list));
  if ((q.long_list || q.iterate > 0 || q.verbose > 0) && !opt.no_header && !opt.json) print_date();
  if (q.start || q.priority)
    return print_pending_plan(*s, q, std::move(*list), opt, sopt, slurm_format, slurm_sort);
  if (slurm_format && !opt.json) {
    auto chosen = select_jobs(std::move(*list), opt, now_seconds());
    if (!chosen) return fail("queue", describe(chosen.error()), exit_usage);
    return print_slurm("queue", render_squeue(std::move(*chosen), sopt, now_seconds()));
  }
  if (!slurm_sort.empty())
    if (auto err = sort_jobs_slurm(*list, slurm_sort, now_seconds()))
      return fail("queue", describe(err));
  return print_or_fail("queue", render_jobs(std::move(*list), opt, now_seconds()));
}

}  // namespace

command_runner add_queue_command(CLI::App& app, const std::string& conf) {
  auto* cmd = app.add_subcommand("queue", "List jobs (squeue)");
  auto q = std::make_shared<queue_flags>();
  cmd->add_flag("--start", q->start,
                "Pending jobs with their expected start time (from the backfill plan)");
  cmd->add_flag("--priority", q->priority,
                "Pending jobs with their priority and its weighted factors (as sprio)");
  cmd->add_option("-u,--user,--users", q->user,
                  "Only these users' jobs (comma list of names or uids)");
  cmd->add_flag("--me", q->me, "Only my jobs (-u with my uid)");
  cmd->add_option("-t,--states", q->states, "Only jobs in these states (comma list, or 'all')");
  cmd->add_option("-p,--partition,--partitions", q->parts,
                  "Only jobs in these partitions (comma list)");
  cmd->add_option("-j,--jobs", q->jobs, "Only these job ids (comma list)");
  cmd->add_option("-n,--name", q->names, "Only jobs with these names (comma list)");
  cmd->add_option("-A,--account", q->accounts, "Only jobs charged to these accounts (comma list)");
  cmd->add_option("-q,--qos", q->qos, "Only jobs with these QOS (comma list)");
  cmd->add_option("-R,--reservation", q->reservation, "Only jobs in this reservation");
  cmd->add_option("-w,--nodelist", q->nodelist,
                  "Only jobs on these nodes (hostlist; running jobs, as in squeue)");
  cmd->add_option("-L,--licenses", q->licenses,
                  "Only jobs asking for these licenses (comma list of names)");
  cmd->add_option("-i,--iterate", q->iterate,
                  "List again every SECONDS, the date first, until interrupted")
      ->type_name("SECONDS")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("-v,--verbose", q->verbose,
                "The option settings first (squeue's block of name = value lines), then the date");
  add_federation_flags(*cmd, /*with_sibling=*/true);
  cmd->add_flag("-r,--array", q->array_tasks,
                "One line per array task, the pending ones too (12_3, 12_4, ...)");
  cmd->add_flag("-l,--long", q->long_list,
                "squeue's long format: the time, then STATE in full and TIME_LIMIT");
  auto* steps = cmd->add_option("-s,--steps", q->step_list,
                                "Running job steps instead of jobs (squeue -s); optionally only "
                                "these (12.0,12.batch,10_3.1)")
                    ->expected(0, 1);
  cmd->add_flag("-a,--all", "Jobs in every partition (shoal hides none: accepted as it is)");
  cmd->add_flag("--hide", "Leave out hidden partitions' jobs: squeue's default (shoal hides none)");
  cmd->add_flag("--array-unique",
                "A pending array task with a record of its own keeps its own line: always so "
                "here (shoal never folds such a task into its array's line)");
  cmd->add_flag("--noconvert", no_unit_conversion(),
                "Memory in the unit it was given (MB), not converted to G or T");
  add_clusters_option(*cmd);
  add_listing_flags(
      *cmd, q->listing,
      "Fields to show: squeue's letters (\"%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R\"; a format "
      "with a % is squeue's), or shoal's field names (JobId,State)",
      "Fields to show by squeue's long names (JobID,State,Name:20)",
      "Sort: squeue's letters (-t,p) or shoal's field names ('-' descending)");
  return [q, steps, cmd, &conf]() -> int {
    q->steps = steps->count() > 0;
    if (q->verbose > 0) std::fputs(option_settings(*cmd).c_str(), stdout);
    return every_iteration(q->iterate, [&] { return run_queue(*q, conf); });
  };
}

namespace {

/// sinfo's -l, -R and -s.
struct info_views {
  bool long_list = false;
  bool reasons = false;
  bool summarize = false;
};

/// The long format sinfo's opts.c picks for -s, -N -l, -R and -l when no format is given; "" for
/// none of them (the default listing).
std::string view_format(const info_views& v, bool node_oriented) {
  if (v.summarize) return "partition:9 ,available:.5 ,time:.10 ,nodeaiot:.16 ,nodelist:0";
  if (node_oriented)
    return v.long_list ? "nodelist:0 ,nodes:.6 ,partition:.9 ,statelong:.11 ,cpus:4 ,"
                         "socketcorethread:.8 ,memory:.6 ,disk:.8 ,weight:.6 ,features:.8 ,"
                         "reason:20"
                       : "";
  if (v.reasons)
    return v.long_list ? "reason:20 ,userlong:12 ,timestamp:19 ,statecompact:6 ,nodelist:0"
                       : "reason:20 ,user:9 ,timestamp:19 ,nodelist:0";
  // As sinfo: SINFO_FORMAT wins over -l's format (the date is still printed).
  if (v.long_list && env_or_empty("SINFO_FORMAT").empty())
    return "partition:9 ,available:.5 ,time:.10 ,size:.10 ,root:.4 ,oversubscribe:.8 ,"
           "groups:.10 ,nodes:.6 ,statelong:.11 ,nodelist:0";
  return "";
}

/// sinfo's options.
struct info_flags {
  listing_flags listing;
  info_views views;
  bool node_oriented = false;
  bool exact = false;
  bool dead = false;          ///< -d: only nodes that do not respond
  bool responding = false;    ///< -r: only nodes that respond
  bool reservations = false;  ///< -T: the reservations instead
  int iterate = 0;
  int verbose = 0;
  std::string parts;
  std::string states;
  std::string nodes;
};

/// -d and -r: only the nodes that do (or do not) respond, in `nodes` and in the partitions'
/// member lists; a partition left without members is left out, as sinfo leaves out what its
/// filters match nothing of.
void keep_by_response(const info_flags& f, std::vector<msg::node_info>& nodes,
                      std::vector<msg::partition_info>& parts) {
  if (!f.dead && !f.responding) return;
  auto unwanted = [&](const msg::node_info& n) { return f.dead != not_responding(n); };
  std::unordered_set<std::string> kept;
  for (auto& n : nodes)
    if (!unwanted(n)) kept.insert(n.name);
  nodes.erase(std::remove_if(nodes.begin(), nodes.end(), unwanted), nodes.end());
  for (auto& p : parts)
    p.nodes.erase(std::remove_if(p.nodes.begin(), p.nodes.end(),
                                 [&](const std::string& name) { return kept.count(name) == 0; }),
                  p.nodes.end());
  parts.erase(std::remove_if(parts.begin(), parts.end(),
                             [](const msg::partition_info& p) { return p.nodes.empty(); }),
              parts.end());
}

/// sinfo in its own formats (letters, -O names, or the views' formats).
int run_info_slurm(const info_flags& f, const listing_options& opt, const std::string& letters,
                   const std::string& long_format, const std::string& wanted_states,
                   const std::string& conf) {
  if (!opt.filters.empty())
    return fail("info", "Field=Value filters go with shoal's -o field names, not sinfo's",
                exit_usage);
  // sinfo -S takes letters only (`#P,-t`).
  if (!opt.sort.empty() &&
      opt.sort.find_first_not_of("#+-,abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") !=
          std::string::npos)
    return fail("info", "-S with sinfo's format takes sinfo's letters (#P,-t)", exit_usage);
  sinfo_format_options sopt;
  sopt.format = letters;
  sopt.long_format = long_format;
  sopt.sort = opt.sort;
  sopt.no_header = opt.no_header;
  sopt.node_oriented = f.node_oriented;
  sopt.exact = f.exact;
  sopt.partitions = detail::split_list(f.parts, false);
  sopt.states = detail::split_list(wanted_states, false);
  sopt.nodes = f.nodes;
  int code = 0;
  auto s = open_session("info", conf, code);
  if (!s) return code;
  auto node_list = ask<std::vector<msg::node_info>>(*s, msg::client_op::nodes);
  if (!node_list) return fail("info", describe(node_list.error()));
  auto part_list = ask<std::vector<msg::partition_info>>(*s, msg::client_op::partitions);
  if (!part_list) return fail("info", describe(part_list.error()));
  keep_by_response(f, *node_list, *part_list);
  // Sockets, cores and threads as configured (NodeName= lines), as sinfo shows them; the
  // controller lists what the nodes reported. Only read when the format shows them.
  auto shows = [&](const char* letters_wanted, const char* name) {
    return letters.find_first_of(letters_wanted) != std::string::npos ||
           strcasestr(long_format.c_str(), name) != nullptr;
  };
  if ((shows("XYZz", "sockets") || shows("XYZz", "cores") || shows("XYZz", "threads") ||
       shows("XYZz", "socketcorethread")) &&
      !s->conf.path.empty()) {
    if (auto full = config::load_config(s->conf.path)) {
      for (auto& n : *node_list) {
        auto c = std::find_if(full->nodes.begin(), full->nodes.end(),
                              [&](const config::node_config& x) { return x.name == n.name; });
        if (c == full->nodes.end()) continue;
        if (c->sockets != 0) n.reported.sockets = c->sockets;
        if (c->cores_per_socket != 0) n.reported.cores_per_socket = c->cores_per_socket;
        if (c->threads_per_core != 0) n.reported.threads_per_core = c->threads_per_core;
      }
    }
  }
  // Only CPUS(A/I/O/T) needs the jobs (the CPUs of partly used nodes).
  std::vector<msg::job_info> running;
  if (letters.find('C') != std::string::npos ||
      strcasestr(long_format.c_str(), "cpusstate") != nullptr) {
    auto job_list = ask<std::vector<msg::job_info>>(*s, msg::jobs_atom_v, false);
    if (!job_list) return fail("info", describe(job_list.error()));
    running = std::move(*job_list);
  }
  return print_slurm("info", render_sinfo(*part_list, *node_list, running, sopt));
}

int run_info(const info_flags& f, const std::string& conf) {
  auto opt = f.listing.opt;
  opt.filters = f.listing.positional_filters;
  std::string letters;
  std::string long_format = f.listing.long_format;
  if (f.views.long_list && !opt.format.empty())
    return fail("info",
                "Options -o(--format) and -l(--long) are mutually exclusive. Please remove one "
                "and retry.");
  if (f.reservations) {
    int code = 0;
    auto s = open_session("info", conf, code);
    if (!s) return code;
    return print_sinfo_reservations(*s, opt.no_header);
  }
  if (opt.format.empty() && long_format.empty() && !opt.json)
    long_format = view_format(f.views, f.node_oriented);
  auto wanted_states = f.states;
  if (f.views.reasons && wanted_states.empty()) wanted_states = "down,fail,drain";
  if ((f.views.long_list || f.iterate > 0 || f.verbose > 0) && !opt.no_header && !opt.json)
    print_date();
  if (is_slurm_letter_format(opt.format)) {
    letters = opt.format;
    opt.format.clear();
  } else if (opt.format.empty() && long_format.empty() && !f.node_oriented) {
    letters = env_or_empty("SINFO_FORMAT");
  }
  if (!opt.format.empty() && !long_format.empty()) long_format.clear();  // the last one wins
  bool slurm_format = (!letters.empty() || !long_format.empty()) && !opt.json;
  if (slurm_format) return run_info_slurm(f, opt, letters, long_format, wanted_states, conf);
  if (!f.parts.empty()) opt.filters.push_back("Partition=" + f.parts);
  if (!wanted_states.empty()) opt.filters.push_back("State=" + wanted_states);
  if (!f.nodes.empty()) opt.filters.push_back("NodeList=" + f.nodes);
  int code = 0;
  auto s = open_session("info", conf, code);
  if (!s) return code;
  if (!f.node_oriented && opt.format.empty() && !opt.json && !f.dead && !f.responding) {
    // The controller groups the nodes: a few lines, whatever the cluster's size. A controller
    // older than the summary refuses the request; then the nodes come one by one as before.
    auto sums = ask<std::vector<msg::partition_summary>>(*s, msg::client_op::partition_summary);
    if (sums) return print_or_fail("info", render_partition_summary(*sums, opt));
    auto older = sums.error() == errc::invalid_request;
    if (!older) return fail("info", describe(sums.error()));
  }
  auto node_list = ask<std::vector<msg::node_info>>(*s, msg::client_op::nodes);
  if (!node_list) return fail("info", describe(node_list.error()));
  auto part_list = ask<std::vector<msg::partition_info>>(*s, msg::client_op::partitions);
  if (!part_list) return fail("info", describe(part_list.error()));
  keep_by_response(f, *node_list, *part_list);
  if (f.node_oriented || !opt.format.empty())
    return print_or_fail("info", render_nodes(*part_list, *node_list, opt, now_seconds()));
  return print_or_fail("info", render_partitions(*part_list, *node_list, opt));
}

}  // namespace

command_runner add_info_command(CLI::App& app, const std::string& conf) {
  auto* cmd = app.add_subcommand("info", "List partitions and nodes (sinfo)");
  auto f = std::make_shared<info_flags>();
  cmd->add_flag("-N,--Node", f->node_oriented, "One line per node (the machine status tool)");
  cmd->add_flag("-l,--long", f->views.long_list,
                "sinfo's long format: the time, then more fields (with -N: the nodes' sizes)");
  cmd->add_flag("-R,--list-reasons", f->views.reasons,
                "Why nodes are down or drained: REASON USER TIMESTAMP NODELIST");
  cmd->add_flag("-s,--summarize", f->views.summarize,
                "One line per partition, its nodes counted as NODES(A/I/O/T)");
  cmd->add_flag("-e,--exact", f->exact,
                "With sinfo's formats: nodes that differ in CPUs, memory, ... get lines of "
                "their own");
  cmd->add_option("-p,--partition", f->parts, "Only these partitions (comma list)");
  cmd->add_option("-t,--states", f->states, "Only nodes in these states (comma list)");
  cmd->add_option("-n,--nodes", f->nodes, "Only these nodes (hostlist)");
  auto* dead = cmd->add_flag("-d,--dead", f->dead,
                             "Only nodes that do not respond (never heard from, or down as "
                             "\"Not responding\")");
  cmd->add_flag("-r,--responding", f->responding, "Only nodes that respond")->excludes(dead);
  cmd->add_flag("-T,--reservation", f->reservations,
                "The reservations: RESV_NAME STATE START_TIME END_TIME DURATION NODELIST");
  cmd->add_option("-i,--iterate", f->iterate,
                  "List again every SECONDS, the date first, until interrupted")
      ->type_name("SECONDS")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("-v,--verbose", f->verbose,
                "The option settings first (sinfo's block of name = value lines), then the date");
  add_federation_flags(*cmd, /*with_sibling=*/false);
  cmd->add_flag("-a,--all", "Every partition (shoal hides none: accepted as it is)");
  cmd->add_flag("--hide", "Leave out hidden partitions: sinfo's default (shoal hides none)");
  cmd->add_flag("--noconvert", no_unit_conversion(),
                "Memory and disk in the unit they were given (MB), not converted to G or T");
  add_clusters_option(*cmd);
  add_listing_flags(
      *cmd, f->listing,
      "Fields to show: sinfo's letters (\"%P %a %l %D %t %N\"; a format with a % is sinfo's), "
      "or shoal's field names (Name,State)",
      "Fields to show by sinfo's long names (partition,nodes,statecompact)",
      "Sort: sinfo's letters (#P,-t) or shoal's field names ('-' descending)");
  return [f, cmd, &conf]() -> int {
    if (f->verbose > 0) std::fputs(option_settings(*cmd).c_str(), stdout);
    return every_iteration(f->iterate, [&] { return run_info(*f, conf); });
  };
}

}  // namespace shoal::cli
