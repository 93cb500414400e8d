// `shoal acct` (sacct): the jobs the accounting store kept (docs/accounting.md) and those the
// controller still holds (running, pending, and finished ones not yet stored), printed as Slurm
// 22.05's sacct prints its accounting records, with each stored job's steps and what they used.

#include <pwd.h>
#include <strings.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "config/begin_time.hpp"
#include "config/duration.hpp"
#include "messages/caf/type_ids.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/session.hpp"
#include "tools/format/rest_json.hpp"
#include "tools/format/sacct_format.hpp"
#include "tools/format/slurm_format.hpp"
#include "tools/format/table.hpp"
#include "topology/hostlist.hpp"

namespace shoal::cli {

namespace {

struct acct_flags {
  std::vector<std::string> formats;  ///< -o, each adding to the list as sacct's do
  std::string jobs;
  std::string users;
  std::string states;
  std::string partitions;
  std::string names;
  std::string accounts;
  std::string nodes;
  std::string start;
  std::string end;
  std::string delimiter = "|";
  std::string units;
  bool all_users = false;
  bool no_header = false;
  bool parsable = false;
  bool parsable2 = false;
  bool allocations = false;
  bool brief = false;
  bool long_list = false;
  bool help_format = false;
  bool duplicates = false;
  bool truncate = false;
  bool json = false;
  std::string qos;
  std::string groups;
  std::string reasons;
  std::string constraints;
  std::string nnodes;
  std::string ncpus;
  std::string timelimit_min;
  std::string timelimit_max;
};

/// -q, -R, -C, -i, -I, -k/-K and -T into `filter`; an error in sacct's words.
shoal::error add_request_filters(const acct_flags& f, sacct_filter& filter) {
  filter.qos = detail::split_list(f.qos, false);
  filter.reasons = detail::split_list(f.reasons, false);
  filter.constraints = detail::split_list(f.constraints, false);
  filter.truncate = f.truncate;
  if (!f.nnodes.empty()) {
    auto r = parse_sacct_range(f.nnodes, "requested node range");
    if (!r) return r.error();
    filter.nodes_alloc = *r;
  }
  if (!f.ncpus.empty()) {
    auto r = parse_sacct_range(f.ncpus, "requested cpu range");
    if (!r) return r.error();
    filter.cpus_alloc = *r;
  }
  // time_str2mins: minutes, or [D-]HH:MM:SS; what is not one is refused, as sacct's fatal().
  auto minutes = [](const std::string& text, uint64_t& out) -> shoal::error {
    auto t = config::parse_time_limit(text);
    if (!t || *t <= 0)
      return shoal::error(errc::invalid_request, "Invalid time limit specification");
    out = static_cast<uint64_t>(*t) / 60;
    return {};
  };
  if (!f.timelimit_min.empty())
    if (auto err = minutes(f.timelimit_min, filter.timelimit_min.min)) return err;
  if (!f.timelimit_max.empty()) {
    if (auto err = minutes(f.timelimit_max, filter.timelimit_min.max)) return err;
    if (filter.timelimit_min.min == 0) filter.timelimit_min.min = 1;  // -K alone: up to it
  }
  return {};
}

/// -S and -E read as Slurm's parse_time(text, past=1) reads them: a bare time of day (or
/// `midnight`) not yet reached today is today's, and a date without a year not yet reached
/// this year is last year's, where sbatch --begin would take the next one.
shoal::expected<int64_t> parse_past_time(const std::string& text, int64_t now) {
  auto t = config::parse_begin_time(text, now);
  if (!t || *t <= now) return t;
  bool has_year =
      text.find('-') != std::string::npos || std::count(text.begin(), text.end(), '/') >= 2;
  bool time_only = text.find('/') == std::string::npos && text.find('-') == std::string::npos &&
                   text.find(':') != std::string::npos;
  if (strcasecmp(text.c_str(), "midnight") == 0 || time_only) return *t - 86400;
  if (text.find('/') != std::string::npos && !has_year) {
    time_t tt = static_cast<time_t>(*t);
    tm parts{};
    localtime_r(&tt, &parts);
    parts.tm_year -= 1;
    parts.tm_isdst = -1;
    return static_cast<int64_t>(std::mktime(&parts));
  }
  return t;
}

/// sacct's -u and -g (_convert_to_id): each item a name `lookup` finds, or a number; an
/// unknown one prints "Invalid WHAT id: X" and ends sacct.
template <class Lookup>
bool ids_of(const std::string& list, const char* what, Lookup lookup, std::vector<uint32_t>& out) {
  for (auto& item : detail::split_list(list, false)) {
    if (auto id = lookup(item)) {
      out.push_back(*id);
    } else if (is_numeric_id(item)) {
      out.push_back(static_cast<uint32_t>(std::strtoul(item.c_str(), nullptr, 10)));
    } else {
      std::fprintf(stderr, "Invalid %s id: %s\n", what, item.c_str());
      return false;
    }
  }
  return true;
}

bool user_ids(const std::string& list, std::vector<uint32_t>& out) {
  return ids_of(
      list, "user",
      [](const std::string& name) -> std::optional<uint32_t> {
        auto user = find_user(name);
        if (!user) return std::nullopt;
        return user->uid;
      },
      out);
}

/// -g: only the jobs whose owner's primary group is one of `gids` (a job record keeps its
/// owner's uid; the group is the one that owner has here).
void keep_groups(std::vector<msg::job_info>& jobs, const std::vector<uint32_t>& gids) {
  std::map<uint32_t, bool> wanted;
  auto in_group = [&](uint32_t uid) {
    auto [it, fresh] = wanted.emplace(uid, false);
    if (fresh)
      if (auto g = primary_group(uid))
        it->second = std::find(gids.begin(), gids.end(), g->gid) != gids.end();
    return it->second;
  };
  jobs.erase(std::remove_if(jobs.begin(), jobs.end(),
                            [&](const msg::job_info& j) { return !in_group(j.uid); }),
             jobs.end());
}

/// What the accounting store kept of the jobs `filter` selects (the store applies the same
/// selection; the jobs the controller still holds are selected again with them). Without a store
/// (accounting_storage/none) the controller answers nothing; with one that is away, nothing and a
/// warning.
sacct_stored stored_jobs(session& s, const acct_flags& f, const sacct_filter& filter) {
  msg::accounting_query q;
  q.start = filter.start;
  q.end = filter.end;
  for (auto state : filter.states) q.states.emplace_back(msg::to_string(state));
  q.jobs = detail::split_list(f.jobs, false);
  q.uids = filter.uids;
  q.partitions = filter.partitions;
  q.names = filter.names;
  q.accounts = filter.accounts;
  if (!f.nodes.empty()) q.nodes.push_back(f.nodes);
  q.with_steps = !f.allocations;
  sacct_stored out;
  auto found = ask<std::vector<msg::accounted_job>>(s, msg::account_atom_v, std::move(q));
  if (!found) {
    std::fprintf(stderr, "sacct: warning: %s; listing the jobs the controller holds\n",
                 describe(found.error()).c_str());
    return out;
  }
  for (auto& job : *found) {
    auto key = std::make_pair(job.info.job_id, job.info.submit_time);
    out.emplace(key, std::move(job));
  }
  return out;
}

/// `--json`: the chosen jobs as slurmrestd's /slurmdb/ answers them (the same records and
/// envelope as shoalrestd's GET /slurmdb/v0.0.41/jobs), with their steps where the store has them.
std::string json_of(const std::vector<msg::job_info>& chosen, const sacct_stored& stored,
                    const std::string& cluster, const std::string& user) {
  restd::rendered_list jobs("jobs");
  restd::render_context ctx;
  ctx.cluster = cluster;
  for (const auto& job : chosen) {
    auto it = stored.find({job.job_id, job.submit_time});
    if (it != stored.end()) {
      jobs.add(it->second, restd::accounted_job_fields(), ctx);
    } else {
      msg::accounted_job live;  // not in the store yet: what the controller holds
      live.info = job;
      jobs.add(live, restd::accounted_job_fields(), ctx);
    }
  }
  return restd::answer_text(restd::envelope(cluster, user, {}, {}), std::move(jobs));
}

/// Adds the stored jobs the controller no longer holds to its list.
void merge_stored(std::vector<msg::job_info>& jobs, const sacct_stored& stored) {
  std::set<std::pair<uint64_t, int64_t>> held;
  for (auto& j : jobs) held.emplace(j.job_id, j.submit_time);
  for (auto& [key, job] : stored)
    if (held.count(key) == 0) jobs.push_back(job.info);
}

}  // namespace

command_runner add_acct_command(CLI::App& app, const std::string& conf) {
  auto* cmd = app.add_subcommand(
      "acct", "Jobs and their steps from the accounting store, as sacct prints them");
  auto f = std::make_shared<acct_flags>();
  cmd->add_option("-o,--format", f->formats,
                  "Fields to show: sacct's names, comma-separated, NAME%WIDTH for a width "
                  "(JobID,JobName%30,State); -e lists them")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("-j,--jobs", f->jobs, "Only these jobs: 12, an array task 12_3 (comma list)");
  cmd->add_option("-u,--user,--uid", f->users,
                  "Only these users' jobs (names or uids, comma list; -1: everyone's)");
  cmd->add_flag("-a,--allusers", f->all_users,
                "Every user's jobs (default: only yours, unless you are root or give -j)");
  cmd->add_option("-s,--state", f->states,
                  "Only jobs in these states (CD,F,CA,TO,NF,OOM,R,PD or their names)");
  cmd->add_option("-r,--partition", f->partitions, "Only jobs in these partitions (comma list)");
  cmd->add_option("--name", f->names, "Only jobs with these names (comma list)");
  cmd->add_option("-A,--accounts", f->accounts, "Only jobs charged to these accounts (comma list)");
  cmd->add_option("-N,--nodelist", f->nodes,
                  "Only jobs that ran on any of these nodes (a hostlist: node[1-4],gpu1)");
  cmd->add_option("-S,--starttime", f->start,
                  "Jobs eligible after this time (sacct's forms: 2026-11-26T08:00, 08:00, "
                  "11/26, now-1hour, today; default 00:00 today, or now with -s)");
  cmd->add_option("-E,--endtime", f->end, "Jobs eligible before this time (default: now)");
  cmd->add_flag("-n,--noheader", f->no_header, "Leave out the header lines");
  cmd->add_flag("-p,--parsable", f->parsable, "Fields separated by |, with one at the end");
  cmd->add_flag("-P,--parsable2", f->parsable2, "Fields separated by |, none at the end");
  cmd->add_option("--delimiter", f->delimiter, "With -p/-P: the separator (default |)");
  cmd->add_option("--units", f->units, "Memory in this unit: K, M, G, T or P");
  cmd->add_flag("--noconvert", no_unit_conversion(),
                "Memory and disk figures in their own unit, never scaled (MaxRSS in bytes, ReqMem "
                "in M)");
  add_clusters_option(*cmd);
  cmd->add_flag("-X,--allocations", f->allocations, "Only the jobs, not their steps");
  cmd->add_flag("--json", f->json,
                "Print the jobs as JSON, as slurmrestd's /slurmdb/ answers them (-o is ignored)");
  cmd->add_flag("-b,--brief", f->brief, "Add JobID,State,ExitCode to the fields");
  cmd->add_flag("-l,--long", f->long_list,
                "Add sacct's long field list (figures shoal does not keep, such as pages and "
                "energy, print empty)");
  cmd->add_flag("-e,--helpformat", f->help_format, "List the field names and exit");
  cmd->add_option("-q,--qos", f->qos, "Only jobs with these QOS (comma list)");
  cmd->add_option("-R,--reason", f->reasons,
                  "Only jobs whose reason (Resources, Dependency, ...) is one of these (comma "
                  "list; shoal keeps a job's last reason)");
  cmd->add_option("-C,--constraints", f->constraints,
                  "Only jobs whose -C holds each of these features (comma list)");
  cmd->add_option("-i,--nnodes", f->nnodes, "Only jobs given this many nodes: N, or MIN-MAX");
  cmd->add_option("-I,--ncpus", f->ncpus, "Only jobs given this many CPUs: N, or MIN-MAX");
  cmd->add_option("-k,--timelimit-min", f->timelimit_min,
                  "Only jobs with this time limit (minutes or [D-]HH:MM:SS); with -K the least");
  cmd->add_option("-K,--timelimit-max", f->timelimit_max,
                  "With -k: the greatest time limit (alone: any limit up to it)");
  cmd->add_flag("-T,--truncate", f->truncate,
                "Start and end times cut to the -S/-E window (Elapsed and CPUTime with them)");
  add_federation_flags(*cmd, /*with_sibling=*/false);
  cmd->add_flag("-L,--allclusters", "Every cluster's jobs: this cluster's (shoal has one)");
  cmd->add_flag("--use-local-uid",
                "Accepted, no effect: the user names shown are those recorded at submission");
  cmd->add_flag("--whole-hetjob", "Accepted, no effect: shoal has no heterogeneous jobs");
  cmd->add_option("-g,--gid,--group", f->groups,
                  "Only jobs whose owner's primary group is one of these (names or gids, comma "
                  "list)");
  cmd->add_flag("-D,--duplicates", f->duplicates,
                "Accepted for sacct's sake: the controller holds one record per job id");
  cmd->footer(
      "Finished jobs come from the accounting store (AccountingStorageType, docs/accounting.md) "
      "with their steps (ID.batch, ID.0, ...) and what each used; running and pending jobs, and "
      "finished ones not yet stored, from the controller. With accounting_storage/none, a job is "
      "listed until the controller forgets it (MinJobAge after it ended).");
  return [f, &conf]() -> int {
    if (f->help_format) {
      print_field_names(sacct_field_names());
      return 0;
    }
    std::string list;
    for (auto& o : f->formats) list += o + ",";
    if (f->brief) list += std::string{sacct_brief_fields} + ",";
    if (f->long_list) list += std::string{sacct_long_fields} + ",";
    if (list.empty()) {
      const char* env = std::getenv("SACCT_FORMAT");
      list = env != nullptr ? env : sacct_default_fields;
    }
    auto columns = parse_sacct_fields(list);
    if (!columns) return fail("acct", describe(columns.error()));
    auto now = now_seconds();
    sacct_filter filter;
    if (!f->jobs.empty()) {
      auto jobs = parse_sacct_jobs(f->jobs);
      if (!jobs) return fail("acct", describe(jobs.error()));
      filter.jobs = std::move(*jobs);
    }
    if (!f->states.empty()) {
      auto states = parse_sacct_states(f->states);
      if (!states) return fail("acct", describe(states.error()));
      filter.states = std::move(*states);
    }
    if (!f->start.empty()) {
      auto t = parse_past_time(f->start, now);
      if (!t) return fail("acct", describe(t.error()));
      filter.start = *t;
    } else if (filter.jobs.empty()) {
      filter.start = sacct_default_start(now, !filter.states.empty());
    }
    if (!f->end.empty()) {
      auto t = parse_past_time(f->end, now);
      if (!t) return fail("acct", describe(t.error()));
      filter.end = *t;
    }
    // As sacct: the caller's jobs only, unless -a, -u, -j, or root asks.
    bool all_users = f->all_users || !filter.jobs.empty();
    if (!f->users.empty() && f->users != "-1") {
      if (!user_ids(f->users, filter.uids)) return exit_failure;
    } else if (f->users == "-1") {
      all_users = true;
    }
    auto me = current_user();
    if (filter.uids.empty() && !all_users && me.uid != 0) filter.uids.push_back(me.uid);
    filter.partitions = detail::split_list(f->partitions, false);
    filter.names = detail::split_list(f->names, false);
    filter.accounts = detail::split_list(f->accounts, false);
    if (!f->nodes.empty()) {
      auto names = topology::expand_hostlist(f->nodes);
      if (!names) return fail("acct", describe(names.error()));
      filter.nodes = std::move(*names);
    }
    if (auto err = add_request_filters(*f, filter)) return fail("acct", describe(err));
    std::vector<uint32_t> gids;
    if (!f->groups.empty() && !ids_of(f->groups, "group", find_group, gids)) return exit_failure;
    // As sacct's get_unit_type: one letter, any case.
    int units = -1;
    if (!f->units.empty()) {
      static const std::string letters = "KMGTP";
      auto at = f->units.size() == 1 ? letters.find(static_cast<char>(
                                           std::toupper(static_cast<unsigned char>(f->units[0]))))
                                     : std::string::npos;
      if (at == std::string::npos)
        return fail("acct",
                    "Invalid unit type '" + f->units + "'. Possible options are " + letters);
      units = static_cast<int>(at) + 1;
    }
    int code = 0;
    auto s = open_session("acct", conf, code);
    if (!s) return code;
    auto list_jobs = ask<std::vector<msg::job_info>>(*s, msg::jobs_atom_v, true);
    if (!list_jobs) return fail("acct", describe(list_jobs.error()));
    auto stored = stored_jobs(*s, *f, filter);
    merge_stored(*list_jobs, stored);
    sacct_print_options opt;
    opt.no_header = f->no_header;
    opt.parsable = f->parsable2 ? 2 : f->parsable ? 1 : 0;
    opt.delimiter = f->delimiter;
    opt.units = units;
    opt.allocations = f->allocations;
    opt.cluster = s->conf.cluster_name;
    opt.now = now;
    if (const char* tf = std::getenv("SLURM_TIME_FORMAT");
        tf != nullptr && std::string{tf} != "standard")
      opt.time_format = tf;
    auto chosen = select_sacct_jobs(*list_jobs, filter, now);
    if (!gids.empty()) keep_groups(chosen, gids);
    if (f->json) {
      std::fputs(json_of(chosen, stored, s->conf.cluster_name, me.name).c_str(), stdout);
      return 0;
    }
    std::fputs(render_sacct(chosen, stored, *columns, opt).c_str(), stdout);
    return 0;
  };
}

}  // namespace shoal::cli
