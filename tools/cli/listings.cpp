// `shoal queue` (squeue), `shoal info` (sinfo; -N is the seed's machine status tool) and
// `shoal cancel` (scancel).

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

#include "messages/caf/type_ids.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/session.hpp"
#include "tools/format/listing.hpp"

namespace shoal::cli {

namespace {

struct listing_flags {
  listing_options opt;
  std::vector<std::string> positional_filters;
};

void add_listing_flags(CLI::App& cmd, listing_flags& f) {
  cmd.set_help_flag("--help", "Print this help message and exit");  // -h is --noheader, as in Slurm
  cmd.add_option("-o,--format", f.opt.format, "Comma-separated fields to show");
  cmd.add_option("-S,--sort", f.opt.sort, "Comma-separated fields to sort by ('-' descending)");
  cmd.add_flag("-h,--noheader", f.opt.no_header, "Leave out the header line");
  cmd.add_flag("--json", f.opt.json, "Print JSON instead of a table");
  cmd.add_option("filter", f.positional_filters, "Field=Value filters, e.g. State=DOWN");
}

int print_or_fail(const std::string& cmd, const shoal::expected<std::string>& text) {
  if (!text) return fail(cmd, describe(text.error()), exit_usage);
  std::fputs(text->c_str(), stdout);
  return 0;
}

int parse_signal(const std::string& text) {
  if (text.empty()) return 0;
  char* end = nullptr;
  auto n = std::strtol(text.c_str(), &end, 10);
  if (*end == '\0') return n > 0 && n < NSIG ? static_cast<int>(n) : -1;
  auto name = text;
  for (auto& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (name.rfind("SIG", 0) == 0) name = name.substr(3);
  for (int s = 1; s < NSIG; ++s) {
    const char* abbrev = sigabbrev_np(s);
    if (abbrev != nullptr && name == abbrev) return s;
  }
  return -1;
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

}  // namespace

command_runner add_queue_command(CLI::App& app, const std::string& conf) {
  auto* cmd = app.add_subcommand("queue", "List jobs (squeue)");
  auto f = std::make_shared<listing_flags>();
  auto user = std::make_shared<std::string>();
  auto states = std::make_shared<std::string>();
  auto parts = std::make_shared<std::string>();
  auto jobs = std::make_shared<std::string>();
  auto start = std::make_shared<bool>(false);
  auto priority = std::make_shared<bool>(false);
  cmd->add_flag("--start", *start,
                "Pending jobs with their expected start time (from the backfill plan)");
  cmd->add_flag("--priority", *priority,
                "Pending jobs with their priority and its weighted factors (as sprio)");
  cmd->add_option("-u,--user", *user, "Only these users' jobs (comma list)");
  cmd->add_option("-t,--states", *states, "Only jobs in these states (comma list, or 'all')");
  cmd->add_option("-p,--partition", *parts, "Only jobs in these partitions (comma list)");
  cmd->add_option("-j,--jobs", *jobs, "Only these job ids (comma list)");
  add_listing_flags(*cmd, *f);
  return [f, user, states, parts, jobs, start, priority, &conf]() -> int {
    auto opt = f->opt;
    opt.filters = f->positional_filters;
    if (!user->empty()) opt.filters.push_back("User=" + *user);
    if (!parts->empty()) opt.filters.push_back("Partition=" + *parts);
    if (!jobs->empty()) opt.filters.push_back("JobId=" + *jobs);
    // As squeue: finished jobs only when asked for (-t, a State filter, or -j).
    bool include_finished = true;
    if (states->empty()) {
      bool state_filter = false;
      for (auto& flt : opt.filters)
        if (strncasecmp(flt.c_str(), "state=", 6) == 0 || strncasecmp(flt.c_str(), "st=", 3) == 0)
          state_filter = true;
      include_finished = state_filter || !jobs->empty();
    } else if (strcasecmp(states->c_str(), "all") != 0) {
      opt.filters.push_back("State=" + *states);
    }
    int code = 0;
    auto s = open_session("queue", conf, code);
    if (!s) return code;
    auto list = ask<std::vector<msg::job_info>>(*s, msg::jobs_atom_v, include_finished);
    if (!list) return fail("queue", describe(list.error()));
    if (names_unknown_job(*jobs, *list)) return fail("queue", "Invalid job id specified");
    if (*start || *priority) {
      auto details = ask<std::vector<msg::pending_detail>>(*s, msg::pending_atom_v);
      if (!details) return fail("queue", describe(details.error()));
      if (*priority) {
        std::fputs(render_priorities(*list, *details, opt.no_header).c_str(), stdout);
        return 0;
      }
      // As squeue --start: pending jobs only, START_TIME the planned start.
      std::map<uint64_t, int64_t> planned;
      for (auto& d : *details) planned[d.job_id] = d.expected_start;
      std::vector<msg::job_info> pending;
      for (auto& j : *list) {
        if (j.state != msg::job_state::pending) continue;
        pending.push_back(j);
        pending.back().start_time = planned.count(j.job_id) > 0 ? planned[j.job_id] : 0;
      }
      if (opt.format.empty()) opt.format = "JobId,Partition,Name,User,ST,StartTime,Nodes,Reason";
      return print_or_fail("queue", render_jobs(pending, opt, now_seconds()));
    }
    return print_or_fail("queue", render_jobs(*list, opt, now_seconds()));
  };
}

command_runner add_info_command(CLI::App& app, const std::string& conf) {
  auto* cmd = app.add_subcommand("info", "List partitions and nodes (sinfo)");
  auto f = std::make_shared<listing_flags>();
  auto node_oriented = std::make_shared<bool>(false);
  auto parts = std::make_shared<std::string>();
  auto states = std::make_shared<std::string>();
  auto nodes = std::make_shared<std::string>();
  cmd->add_flag("-N,--Node", *node_oriented, "One line per node (the machine status tool)");
  cmd->add_option("-p,--partition", *parts, "Only these partitions (comma list)");
  cmd->add_option("-t,--states", *states, "Only nodes in these states (comma list)");
  cmd->add_option("-n,--nodes", *nodes, "Only these nodes (hostlist)");
  add_listing_flags(*cmd, *f);
  return [f, node_oriented, parts, states, nodes, &conf]() -> int {
    auto opt = f->opt;
    opt.filters = f->positional_filters;
    if (!parts->empty()) opt.filters.push_back("Partition=" + *parts);
    if (!states->empty()) opt.filters.push_back("State=" + *states);
    if (!nodes->empty()) opt.filters.push_back("NodeList=" + *nodes);
    int code = 0;
    auto s = open_session("info", conf, code);
    if (!s) return code;
    if (!*node_oriented && opt.format.empty() && !opt.json) {
      // The controller groups the nodes: a few lines, whatever the cluster's size. A controller
      // older than the summary refuses the request; then the nodes come one by one as before.
      auto sums = ask<std::vector<msg::partition_summary>>(*s, msg::summary_atom_v);
      if (sums) return print_or_fail("info", render_partition_summary(*sums, opt));
      auto older = sums.error() == errc::invalid_request;
      if (!older) return fail("info", describe(sums.error()));
    }
    auto node_list = ask<std::vector<msg::node_info>>(*s, msg::nodes_atom_v);
    if (!node_list) return fail("info", describe(node_list.error()));
    auto part_list = ask<std::vector<msg::partition_info>>(*s, msg::parts_atom_v);
    if (!part_list) return fail("info", describe(part_list.error()));
    if (*node_oriented || !opt.format.empty())
      return print_or_fail("info", render_nodes(*part_list, *node_list, opt, now_seconds()));
    return print_or_fail("info", render_partitions(*part_list, *node_list, opt));
  };
}

command_runner add_cancel_command(CLI::App& app, const std::string& conf) {
  auto* cmd = app.add_subcommand("cancel", "Cancel or signal jobs (scancel)");
  auto ids = std::make_shared<std::vector<std::string>>();
  auto signal_name = std::make_shared<std::string>();
  cmd->add_option("-s,--signal", *signal_name,
                  "Send this signal to the job's tasks instead of cancelling it (name or number)");
  cmd->add_option("job_id", *ids,
                  "Job ids: 12, an array task 12_4, tasks 12_[1-5], or a whole array 12")
      ->required();
  return [ids, signal_name, &conf]() -> int {
    int signo = parse_signal(*signal_name);
    if (signo < 0) return fail("cancel", "invalid signal '" + *signal_name + "'", exit_usage);
    int code = 0;
    auto s = open_session("cancel", conf, code);
    if (!s) return code;
    auto uid = current_user().uid;
    int result = 0;
    for (auto& id : *ids) {
      auto ok = ask<caf::ok_atom>(*s, msg::cancel_atom_v, id, int32_t{signo}, uid);
      // scancel's words, which scripts match on.
      if (!ok)
        result = fail("cancel", "Kill job error on job id " + id + ": " + describe(ok.error()));
    }
    return result;
  };
}

}  // namespace shoal::cli
