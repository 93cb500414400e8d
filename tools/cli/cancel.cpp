// `shoal cancel` (scancel): cancel or signal jobs named by id or matched by filters.

#include <pwd.h>
#include <strings.h>

#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "messages/caf/type_ids.hpp"
#include "policy/array_spec.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/identity.hpp"
#include "tools/cli/session.hpp"
#include "tools/format/table.hpp"

namespace shoal::cli {

namespace {

/// A signal by number or name (KILL, SIGKILL, kill); 0 for none given, -1 for one not known.
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

/// scancel's job filters (-A, -n, -w, -p, -q, -R, -t, -u); each one given narrows the jobs
/// acted on.
struct cancel_filters {
  std::string user;
  bool me = false;
  std::string state;
  std::string name;
  std::string partition;
  std::string account;
  std::string qos;
  std::string reservation;
  std::string nodelist;

  bool any() const {
    return !user.empty() || me || !state.empty() || !name.empty() || !partition.empty() ||
           !account.empty() || !qos.empty() || !reservation.empty() || !nodelist.empty();
  }

  /// scancel's _filters2str: what -v names when no job matches them all.
  std::string described() const {
    std::string out;
    auto add = [&](const char* key, const std::string& value) {
      if (!value.empty()) out += std::string{key} + "=" + value + " ";
    };
    add("account", account);
    add("job_name", name);
    add("nodelist", nodelist);
    add("partition", partition);
    add("qos", qos);
    add("reservation", reservation);
    add("state", state);
    add("user_name", me ? current_user().name : user);
    return out;
  }
};

/// scancel's -v, -Q and -i.
struct cancel_manner {
  int verbose = 0;
  bool quiet = false;
  bool interactive = false;
};

/// The uid scancel -u names (a name or a number), or nullopt after "Invalid user name: X".
std::optional<uint32_t> cancel_uid(const std::string& text) {
  if (auto user = find_user(text)) return user->uid;
  if (is_numeric_id(text)) return static_cast<uint32_t>(std::strtoul(text.c_str(), nullptr, 10));
  fail("cancel", "Invalid user name: " + text);
  return std::nullopt;
}

/// Whether `id` (as given to scancel: 12, 12_4, 12_[1-5]) names job `j`.
bool id_names_job(const std::string& id, const msg::job_info& j) {
  auto underscore = id.find('_');
  auto base = std::strtoull(id.substr(0, underscore).c_str(), nullptr, 10);
  if (underscore == std::string::npos) return j.job_id == base || j.array_job_id == base;
  if (j.array_job_id != base) return false;
  auto tasks = id.substr(underscore + 1);
  if (tasks.size() >= 2 && tasks.front() == '[') tasks = tasks.substr(1, tasks.size() - 2);
  auto spec = policy::parse_array_spec(tasks, UINT32_MAX);
  if (!spec) return false;
  if (j.array_task_id >= 0) return spec->indices.contains(static_cast<uint32_t>(j.array_task_id));
  return true;
}

/// The job as scancel names it when it cancels what its filters matched: the array's pending
/// tasks without the throttle (12_[3-8]), a task (12_4), or the job.
std::string cancel_target(const msg::job_info& j) {
  if (j.array_job_id == 0) return std::to_string(j.job_id);
  if (j.array_task_id >= 0)
    return std::to_string(j.array_job_id) + "_" + std::to_string(j.array_task_id);
  return std::to_string(j.array_job_id) + "_[" + j.array_tasks.substr(0, j.array_tasks.find('%')) +
         "]";
}

/// scancel's filters checked and resolved (scancel's _opt_verify), before any cluster is asked.
struct resolved_filters {
  std::optional<uint32_t> uid;
  std::optional<msg::job_state> state;
  bool no_state_here = false;  ///< a Slurm state shoal never gives a job (SUSPENDED)
  std::vector<std::string> partitions;
};

/// An exit code when a filter is not valid, after Slurm's message.
std::optional<int> resolve_filters(const cancel_filters& f, resolved_filters& out) {
  if (f.me) out.uid = current_user().uid;
  if (!f.user.empty()) {
    out.uid = cancel_uid(f.user);
    if (!out.uid) return exit_failure;
  }
  if (!f.state.empty()) {
    out.state = msg::parse_job_state(f.state);
    out.no_state_here = !out.state && (strcasecmp(f.state.c_str(), "SUSPENDED") == 0 ||
                                       strcasecmp(f.state.c_str(), "S") == 0);
    if (!out.state && !out.no_state_here) {
      std::fprintf(stderr, "Invalid job state specified: %s\n", f.state.c_str());
      std::fprintf(stderr, "Valid job states are PENDING, RUNNING, and SUSPENDED\n");
      return exit_failure;
    }
  }
  out.partitions = detail::split_list(f.partition, false);
  return std::nullopt;
}

/// Whether `value` is one of `list` (a comma list), as scancel compares -A, -q and -R.
bool one_of(const std::string& list, const std::string& value) {
  auto items = detail::split_list(list, false);
  return std::any_of(items.begin(), items.end(),
                     [&](const std::string& item) { return detail::iequals(item, value); });
}

/// scancel -i: "Cancel job_id=12 name=x partition=debug [y/n]? " until y or n is read; no at
/// the end of input.
bool confirmed(const msg::job_info& j) {
  for (;;) {
    std::printf("Cancel job_id=%s name=%s partition=%s [y/n]? ", cancel_target(j).c_str(),
                j.name.c_str(), j.partition.c_str());
    std::fflush(stdout);
    char line[128];
    if (std::fgets(line, sizeof line, stdin) == nullptr) return false;
    if (line[0] == 'y' || line[0] == 'Y') return true;
    if (line[0] == 'n' || line[0] == 'N') return false;
  }
}

/// scancel with filters (scancel.c's _filter_job_records): the unfinished jobs matching every
/// filter and, when ids are given too, one of them.
void filter_jobs(const cancel_filters& f, const resolved_filters& r,
                 const std::vector<std::string>& ids, std::vector<msg::job_info>& jobs) {
  auto keep = [&](const msg::job_info& j) {
    if (msg::is_finished(j.state) || r.no_state_here) return false;
    if (r.state && j.state != *r.state) return false;
    if (r.uid && j.uid != *r.uid) return false;
    if (!f.name.empty() && j.name != f.name) return false;
    if (!r.partitions.empty() &&
        std::find(r.partitions.begin(), r.partitions.end(), j.partition) == r.partitions.end())
      return false;
    if (!f.account.empty() && !one_of(f.account, j.account)) return false;
    if (!f.qos.empty() && !one_of(f.qos, j.qos)) return false;
    if (!f.reservation.empty() && !one_of(f.reservation, j.reservation)) return false;
    if (!f.nodelist.empty() && !detail::hostlists_intersect(j.nodelist, {f.nodelist})) return false;
    return ids.empty() || std::any_of(ids.begin(), ids.end(),
                                      [&](const std::string& id) { return id_names_job(id, j); });
  };
  jobs.erase(
      std::remove_if(jobs.begin(), jobs.end(), [&](const msg::job_info& j) { return !keep(j); }),
      jobs.end());
}

}  // namespace

namespace {

/// Whether scancel takes `text` as job ids (scancel's opt.c, _verify_job_ids): a job id above 0,
/// then `_[LIST]` to the end, or `_*`, `_N` or `+N`, then `.STEP`, then the end or `,` and more.
bool scancel_job_id(const std::string& text) {
  const char* at = text.c_str();
  for (;;) {
    char* end = nullptr;
    if (std::strtol(at, &end, 10) <= 0) return false;
    at = end;
    if (at[0] == '_' && at[1] == '[') {
      const char* close = std::strchr(at + 2, ']');
      return close != nullptr && close[1] == '\0';
    }
    if (at[0] == '_' && at[1] == '*') {
      at += 2;
    } else if (at[0] == '_' || at[0] == '+') {
      if (std::strtol(at + 1, &end, 10) < 0) return false;
      at = end;
    }
    if (at[0] == '.') {
      if (std::strtol(at + 1, &end, 10) < 0) return false;
      at = end;
    }
    if (at[0] == '\0') return true;
    if (at[0] != ',') return false;
    ++at;
  }
}

}  // namespace

command_runner add_cancel_command(CLI::App& app, const std::string& conf) {
  auto* cmd = app.add_subcommand("cancel", "Cancel or signal jobs (scancel)");
  auto ids = std::make_shared<std::vector<std::string>>();
  auto signal_name = std::make_shared<std::string>();
  auto filters = std::make_shared<cancel_filters>();
  cmd->add_option("-s,--signal", *signal_name,
                  "Send this signal to the job's tasks instead of cancelling it (name or number)");
  cmd->add_option("-u,--user", filters->user, "Only this user's jobs (name or uid)");
  cmd->add_flag("--me", filters->me, "Only my jobs");
  cmd->add_option("-t,--state", filters->state,
                  "Only jobs in this state: PENDING (PD), RUNNING (R) or SUSPENDED (S)");
  cmd->add_option("-n,--name,--jobname", filters->name, "Only jobs with this name");
  cmd->add_option("-p,--partition", filters->partition,
                  "Only jobs in these partitions (comma list)");
  cmd->add_option("-A,--account", filters->account,
                  "Only jobs charged to these accounts (comma list)");
  cmd->add_option("-q,--qos", filters->qos, "Only jobs with these QOS (comma list)");
  cmd->add_option("-R,--reservation", filters->reservation,
                  "Only jobs in these reservations (comma list)");
  cmd->add_option("-w,--nodelist", filters->nodelist, "Only jobs on these nodes (hostlist)");
  auto manner = std::make_shared<cancel_manner>();
  cmd->add_flag("-v,--verbose", manner->verbose,
                "Say each job as it is signalled (\"Terminating job 12\"), and when filters "
                "match none");
  cmd->add_flag("-Q,--quiet", manner->quiet, "Do not report jobs that could not be cancelled");
  cmd->add_flag("-i,--interactive", manner->interactive,
                "Ask before each job: \"Cancel job_id=12 name=x partition=p [y/n]? \"");
  cmd->add_flag("--ctld", "Through the controller: how every shoal request goes");
  cmd->add_flag("-H,--hurry", "Accepted, no effect: shoal has no burst buffer to stage out");
  add_clusters_option(*cmd);
  cmd->add_option("job_id", *ids,
                  "Job ids: 12, an array task 12_4, tasks 12_[1-5], or a whole array 12; with "
                  "filters, only those of them the filters match");
  return [ids, signal_name, filters, manner, &conf]() -> int {
    int signo = parse_signal(*signal_name);
    if (signo < 0) return fail("cancel", "invalid signal '" + *signal_name + "'", exit_usage);
    if (ids->empty() && !filters->any()) return fail("cancel", "No job identification provided");
    for (auto& id : *ids)
      if (!scancel_job_id(id)) return fail("cancel", "Invalid job id " + id);
    resolved_filters resolved;
    if (auto bad = resolve_filters(*filters, resolved)) return *bad;
    int code = 0;
    auto s = open_session("cancel", conf, code);
    if (!s) return code;
    auto uid = current_user().uid;
    auto targets = *ids;
    if (filters->any() || manner->interactive) {
      auto jobs = ask<std::vector<msg::job_info>>(*s, msg::jobs_atom_v, false);
      if (!jobs) return fail("cancel", describe(jobs.error()));
      filter_jobs(*filters, resolved, *ids, *jobs);
      if (jobs->empty() && filters->any() && manner->verbose > 0)
        fail("cancel", "No active jobs match ALL job filters, including: " + filters->described());
      targets.clear();
      for (auto& j : *jobs)
        if (!manner->interactive || confirmed(j)) targets.push_back(cancel_target(j));
    }
    int result = 0;
    for (auto& id : targets) {
      if (manner->verbose > 0) {
        auto what =
            signo == 0 ? std::string{"Terminating"} : "Signal " + std::to_string(signo) + " to";
        std::fprintf(stderr, "%s: %s job %s\n", program_name().c_str(), what.c_str(), id.c_str());
      }
      auto ok = ask<caf::ok_atom>(*s, msg::cancel_atom_v, id, int32_t{signo}, uid);
      if (ok) continue;
      result = exit_failure;
      // scancel's words, which scripts match on.
      if (!manner->quiet)
        fail("cancel", "Kill job error on job id " + id + ": " + describe(ok.error()));
    }
    return result;
  };
}

}  // namespace shoal::cli
