// `shoal control`: scontrol. show
// node|partition|job|config|collectors|hostnames|hostlist|hostlistsorted, update NodeName=...
// State=... Reason=..., update|create|delete PartitionName=..., setdebug LEVEL, setdebugflags
// +FLAG -FLAG, version, reconfigure, the job commands hold, uhold, release, requeue, top, and
// update JobId=N KEY=VALUE ..., suspend and resume (admins); show step[s] [ID] lists running
// steps.

#include <strings.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>

#include "config/job_update.hpp"
#include "config/log_settings.hpp"
#include "config/node_reboot.hpp"
#include "messages/caf/type_ids.hpp"
#include "policy/licenses.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/ping.hpp"
#include "tools/cli/reservations.hpp"
#include "tools/cli/session.hpp"
#include "tools/cli/steps.hpp"
#include "tools/cli/token.hpp"
#include "tools/format/listing.hpp"
#include "tools/format/node_state_text.hpp"
#include "tools/format/sinfo_format.hpp"
#include "topology/hostlist.hpp"

namespace shoal::cli {

namespace {

bool is(const std::string& word, const char* name) {
  return strcasecmp(word.c_str(), name) == 0;
}

/// Accepts scontrol's singular and plural entity names (node/nodes, job/jobs, ...) and, as
/// scontrol's _show_it does, any abbreviation of the plural at least `shortest` letters long
/// (`show part`, as Open OnDemand and Snakemake's executor write it).
bool is_entity(const std::string& word, const char* singular, size_t shortest = 0) {
  auto plural = std::string{singular} + "s";
  if (is(word, singular) || is(word, plural.c_str())) return true;
  return shortest > 0 && word.size() >= shortest && word.size() <= plural.size() &&
         strncasecmp(word.c_str(), plural.c_str(), word.size()) == 0;
}

int show_hostlist(const std::string& what, const std::string& expr) {
  if (is(what, "hostnames")) {
    auto names = topology::expand_hostlist(expr);
    if (!names) return fail("control", describe(names.error()), exit_usage);
    for (auto& n : *names) std::printf("%s\n", n.c_str());
    return 0;
  }
  auto text = is(what, "hostlist") ? topology::compress_hostlist_expression(expr)
                                   : topology::compress_hostlist_expression_sorted(expr);
  if (!text) return fail("control", describe(text.error()), exit_usage);
  std::printf("%s\n", text->c_str());
  return 0;
}

/// How `show` prints its records: scontrol's -o (--oneliner) puts each on one line.
struct show_options {
  bool json = false;
  bool one_line = false;
};

/// A record as scontrol -o prints it: its lines joined by blanks, and no blank line after it.
std::string one_line(const std::string& record) {
  std::string out;
  for (size_t i = 0; i < record.size(); ++i) {
    if (record[i] != '\n') {
      out.push_back(record[i]);
      continue;
    }
    auto next = record.find_first_not_of(' ', i + 1);
    if (next == std::string::npos || record[next] == '\n') {
      // A job record's last line is its indentation alone: scontrol -o keeps it as one blank.
      if (next != std::string::npos && next > i + 1) out.push_back(' ');
      break;
    }
    out.push_back(' ');
    i = next - 1;
  }
  out.push_back('\n');
  return out;
}

/// What the running jobs hold on each node (CPUAlloc, AllocMem). Without the job listing (a user
/// PrivateData hides it from), what the nodes' states say.
std::map<std::string, node_use> node_uses(session& s, const std::vector<msg::node_info>& nodes) {
  std::map<std::string, node_use> uses;
  auto jobs = ask<std::vector<msg::job_info>>(s, msg::jobs_atom_v);
  std::vector<msg::job_info> running;
  if (jobs)
    for (auto& j : *jobs)
      if (j.state == msg::job_state::running || j.state == msg::job_state::configuring ||
          j.state == msg::job_state::completing)
        running.push_back(std::move(j));
  for (auto& [name, cpus] : cpus_in_use(nodes, running)) uses[name].cpus = cpus;
  for (auto& j : running) {
    auto names = topology::expand_hostlist(j.nodelist);
    if (names)
      for (auto& n : *names) uses[n].mem_mb += j.mem_per_node_mb;
  }
  return uses;
}

void print_record(const std::string& record, const show_options& opt) {
  std::fputs(opt.one_line ? one_line(record).c_str() : record.c_str(), stdout);
}

/// The Licenses= of the running configuration (its `Licenses = a:3,b:1` line), as the
/// controller renders it.
shoal::expected<policy::license_list> configured_licenses(session& s) {
  auto text = ask<std::string>(s, msg::client_op::config);
  if (!text) return std::move(text.error());
  for (size_t at = 0; at < text->size();) {
    auto end = std::min(text->find('\n', at), text->size());
    auto line = text->substr(at, end - at);
    at = end + 1;
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    auto key = line.substr(0, line.find_first_of(" =", 0));
    if (!is(key, "licenses")) continue;
    auto value = line.substr(eq + 1);
    value.erase(0, value.find_first_not_of(' '));
    return policy::parse_licenses(value);
  }
  return policy::license_list{};
}

/// `scontrol show licenses [NAME]`: each configured license, what the jobs holding nodes use.
int show_licenses(session& s, const std::string& name, const show_options& opt) {
  auto totals = configured_licenses(s);
  if (!totals) return fail("control", describe(totals.error()));
  auto jobs = ask<std::vector<msg::job_info>>(s, msg::jobs_atom_v);
  if (!jobs) return fail("control", describe(jobs.error()));
  auto used = licenses_in_use(*jobs);
  if (totals->empty()) {
    std::printf("No licenses configured in Slurm.\n");
    return 0;
  }
  nlohmann::json out = nlohmann::json::array();
  bool found = false;
  for (auto& l : *totals) {
    if (!name.empty() && l.name != name) continue;
    found = true;
    uint64_t in_use = used.count(l.name) != 0 ? used[l.name] : 0;
    if (opt.json)
      out.push_back({{"name", l.name},
                     {"total", l.count},
                     {"used", in_use},
                     {"free", l.count > in_use ? l.count - in_use : 0},
                     {"reserved", 0},
                     {"remote", false}});
    else
      print_record(show_license(l.name, l.count, in_use), opt);
  }
  if (!found) return fail("control", "license " + name + " not found");
  if (opt.json) std::printf("%s\n", nlohmann::json{{"licenses", out}}.dump(2).c_str());
  return 0;
}

int show(session& s, const std::string& what, const std::string& name, const show_options& opt) {
  auto now = now_seconds();
  bool json = opt.json;
  if (is_entity(what, "node", 1)) {
    auto nodes = ask<std::vector<msg::node_info>>(s, msg::client_op::nodes);
    if (!nodes) return fail("control", describe(nodes.error()));
    auto uses = json ? std::map<std::string, node_use>{} : node_uses(s, *nodes);
    nlohmann::json out = nlohmann::json::array();
    bool found = false;
    for (auto& n : *nodes) {
      if (!name.empty() ? n.name != name : hidden_cloud_node(n)) continue;
      found = true;
      if (json)
        out.push_back(to_json(n));
      else
        print_record(show_node(n, now, &uses[n.name]), opt);
    }
    if (!found) return fail("control", "node " + name + " not found");
    if (json) std::printf("%s\n", nlohmann::json{{"nodes", out}}.dump(2).c_str());
    return 0;
  }
  if (is_entity(what, "partition", 2)) {
    auto parts = ask<std::vector<msg::partition_info>>(s, msg::client_op::partitions);
    auto nodes = ask<std::vector<msg::node_info>>(s, msg::client_op::nodes);
    if (!parts || !nodes) return fail("control", describe(parts ? nodes.error() : parts.error()));
    nlohmann::json out = nlohmann::json::array();
    bool found = false;
    for (auto& p : *parts) {
      if (!name.empty() && p.name != name) continue;
      found = true;
      if (json)
        out.push_back(to_json(p));
      else
        print_record(show_partition(p, *nodes), opt);
    }
    if (!found) return fail("control", "partition " + name + " not found");
    if (json) std::printf("%s\n", nlohmann::json{{"partitions", out}}.dump(2).c_str());
    return 0;
  }
  if (is_entity(what, "job", 1)) {
    // scontrol_print_job: digits, '_' and '+' only, checked before asking.
    if (name.find_first_not_of("0123456789_+") != std::string::npos)
      return fail_as_perror("control", "scontrol_print_job error", "Invalid job id specified");
    std::vector<msg::job_info> jobs;
    std::optional<std::vector<msg::job_info>> all;
    if (name.empty() || name.find('_') != std::string::npos) {
      auto listed = ask<std::vector<msg::job_info>>(s, msg::jobs_atom_v);
      if (!listed) return fail("control", describe(listed.error()));
      all = std::move(*listed);
      for (auto& j : *all) {
        // 12_4 names one array task; a plain id below is asked for directly.
        auto text =
            std::to_string(j.array_job_id) + "_" +
            (j.array_task_id >= 0 ? std::to_string(j.array_task_id) : "[" + j.array_tasks + "]");
        if (name.empty() || (j.array_job_id != 0 && text == name)) jobs.push_back(j);
      }
      if (!name.empty() && jobs.empty())
        return fail_as_perror("control", "slurm_load_jobs error", "Invalid job id specified");
    } else {
      auto id = std::strtoull(name.c_str(), nullptr, 10);
      auto one = ask<msg::job_info>(s, msg::jobs_atom_v, uint64_t{id});
      // An array's id names all of it, as in Slurm: its pending tasks' record and each task that
      // started (also once none is pending and the array's own record is gone).
      if (!one || (one->array_job_id == id && one->array_task_id < 0)) {
        if (auto listed = ask<std::vector<msg::job_info>>(s, msg::jobs_atom_v)) {
          all = std::move(*listed);
          for (auto& j : *all)
            if (j.array_job_id == id && j.array_task_id >= 0) jobs.push_back(j);
        }
      }
      if (one) jobs.insert(jobs.begin(), std::move(*one));
      if (jobs.empty()) {
        if (one.error() == errc::unknown_job)
          return fail_as_perror("control", "slurm_load_jobs error", "Invalid job id specified");
        return fail("control", describe(one.error()));
      }
    }
    // A task's record does not carry its array's throttle (ArrayTaskThrottle=): the array's own
    // record does, while some of its tasks are pending.
    bool tasks_shown = std::any_of(jobs.begin(), jobs.end(), [](const msg::job_info& j) {
      return j.array_job_id != 0 && j.array_task_id >= 0;
    });
    if (tasks_shown && !json) {
      if (!all)
        if (auto listed = ask<std::vector<msg::job_info>>(s, msg::jobs_atom_v))
          all = std::move(*listed);
      std::map<uint64_t, std::string> throttles;
      if (all)
        for (auto& j : *all)
          if (j.array_job_id != 0 && j.array_task_id < 0)
            if (auto percent = j.array_tasks.rfind('%'); percent != std::string::npos)
              throttles[j.array_job_id] = j.array_tasks.substr(percent);
      for (auto& j : jobs)
        if (j.array_task_id >= 0 && j.array_tasks.empty() && throttles.count(j.array_job_id) != 0)
          j.array_tasks = throttles[j.array_job_id];
    }
    std::map<uint64_t, msg::pending_detail> pending;
    bool any_pending = std::any_of(jobs.begin(), jobs.end(), [](const msg::job_info& j) {
      return j.state == msg::job_state::pending;
    });
    if (any_pending) {
      auto details = ask<std::vector<msg::pending_detail>>(s, msg::client_op::pending);
      if (!details) return fail("control", describe(details.error()));
      for (auto& d : *details) pending.emplace(d.job_id, d);
    }
    nlohmann::json out = nlohmann::json::array();
    for (auto& j : jobs) {
      auto d = pending.find(j.job_id);
      if (json)
        out.push_back(to_json(j));
      else {
        auto group = primary_group(j.uid);
        print_record(
            show_job(j, now, d == pending.end() ? nullptr : &d->second, group ? &*group : nullptr),
            opt);
      }
    }
    if (json) std::printf("%s\n", nlohmann::json{{"jobs", out}}.dump(2).c_str());
    if (!json && jobs.empty()) std::printf("No jobs in the system\n");
    return 0;
  }
  if (is_entity(what, "collector")) {
    auto collectors = ask<std::vector<msg::collector_info>>(s, msg::client_op::collectors);
    if (!collectors) return fail("control", describe(collectors.error()));
    if (!name.empty()) {
      collectors->erase(
          std::remove_if(collectors->begin(), collectors->end(),
                         [&](const msg::collector_info& c) { return c.name != name; }),
          collectors->end());
      if (collectors->empty()) return fail("control", "collector " + name + " not found");
    }
    if (json) {
      nlohmann::json out = nlohmann::json::array();
      for (auto& c : *collectors) out.push_back(to_json(c));
      std::printf("%s\n", nlohmann::json{{"collectors", out}}.dump(2).c_str());
    } else if (collectors->empty()) {
      std::printf("No collectors: every node reports to the controller (CollectorNodes=)\n");
    } else {
      std::fputs(render_collectors(*collectors).c_str(), stdout);
    }
    return 0;
  }
  if (is_entity(what, "license", 2)) return show_licenses(s, name, opt);
  if (is_entity(what, "reservation", 3)) return show_reservations(s, name, opt.one_line);
  if (is(what, "config")) {
    auto text = ask<std::string>(s, msg::client_op::config);
    if (!text) return fail("control", describe(text.error()));
    std::fputs(text->c_str(), stdout);
    return 0;
  }
  return fail("control",
              "cannot show '" + what +
                  "' (use node, partition, job, config, collectors, licenses, reservations, "
                  "hostnames, hostlist or hostlistsorted)",
              exit_usage);
}

bool names_partition(const std::string& word) {
  auto key = word.substr(0, word.find('='));
  return is(key, "partitionname") || is(key, "partition");
}

/// `update|create|delete PartitionName=P Key=Value ...`: the settings travel as written and the
/// controller reads them as a PartitionName= line's (config/partition_edit.hpp).
int edit_partition(session& s, const std::string& action, const std::vector<std::string>& words) {
  msg::partition_edit edit;
  edit.action = action;
  for (auto& c : edit.action) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  edit.user = current_user().name;
  for (auto& w : words) {
    auto eq = w.find('=');
    if (eq == std::string::npos || eq == 0)
      return fail("control", "expected Key=Value, got '" + w + "'", exit_usage);
    if (names_partition(w) && edit.name.empty())
      edit.name = w.substr(eq + 1);
    else
      edit.settings.push_back(w);
  }
  if (edit.name.empty()) return fail("control", action + " needs PartitionName=NAME", exit_usage);
  auto ok = ask<caf::ok_atom>(s, msg::partedit_atom_v, edit);
  if (!ok) return fail("control", describe(ok.error()));
  return 0;
}

/// `update JobId=N KEY=VALUE ...` (scontrol update job): read here first, so a key shoal does
/// not update exits 2 without a cluster. The words travel as written; StartTime= goes resolved
/// by this host's clock and time zone, as sbatch --begin does.
int update_job(const std::string& conf, const std::vector<std::string>& words) {
  auto spec = config::parse_job_update(words, now_seconds());
  if (!spec) return fail("control", describe(spec.error()), exit_usage);
  if (spec->jobs.empty()) return fail("control", "No job ID specified", exit_usage);
  msg::job_update up;
  up.settings = words;
  up.uid = current_user().uid;
  if (spec->begin_time) up.begin_time = *spec->begin_time;
  int code = 0;
  auto s = open_session("control", conf, code);
  if (!s) return code;
  auto ok = ask<caf::ok_atom>(*s, msg::update_atom_v, std::move(up));
  if (!ok) return fail("control", describe(ok.error()));
  return 0;
}

/// `reconfigure`: shoalctld reads its configuration file again, as on SIGHUP (admins only).
/// Quiet when it parsed, as scontrol; a file that does not parse is the error, with its
/// file:line, and the configuration in force stays.
int reconfigure(const std::string& conf) {
  int code = 0;
  auto s = open_session("control", conf, code);
  if (!s) return code;
  auto done = ask<std::string>(*s, msg::client_op::reconfigure);
  if (!done) return fail("control", describe(done.error()));
  return 0;
}

/// `reboot [ASAP] [nextstate=RESUME|DOWN|UNDRAIN] [reason=TEXT] NODES|ALL` and `cancel_reboot
/// NODES` (admins only): each node is rebooted (RebootProgram) once no job holds it.
int reboot_nodes(const std::string& conf, const std::vector<std::string>& words, bool cancel) {
  auto up = config::parse_reboot_words(words, cancel);
  if (!up) return fail("control", up.error().text(), exit_usage);
  up->user = current_user().name;
  int code = 0;
  auto s = open_session("control", conf, code);
  if (!s) return code;
  auto ok = ask<caf::ok_atom>(*s, msg::nodeupd_atom_v, *up);
  if (!ok) return fail("control", describe(ok.error()));
  return 0;
}

/// scontrol update picks what it updates by the key naming it, wherever it stands.
bool names_job(const std::string& word) {
  auto key = word.substr(0, word.find('='));
  for (auto name : {"jobid", "jobname", "stepid", "arraytaskthrottle"})
    if (is(key, name)) return true;
  return false;
}

int update(session& s, const std::vector<std::string>& words) {
  if (!words.empty() && names_partition(words.front())) return edit_partition(s, "update", words);
  if (!words.empty() && names_reservation(words.front()))
    return edit_reservation(s, "update", words);
  msg::node_update up;
  up.user = current_user().name;
  for (auto& w : words) {
    auto eq = w.find('=');
    if (eq == std::string::npos)
      return fail("control", "expected Key=Value, got '" + w + "'", exit_usage);
    auto key = w.substr(0, eq);
    auto value = w.substr(eq + 1);
    if (is(key, "nodename") || is(key, "node"))
      up.nodes = value;
    else if (is(key, "state"))
      up.state = value;
    else if (is(key, "reason"))
      up.reason = value;
    else if (is(key, "nodeaddr"))
      up.address = value;
    else if (is(key, "nodehostname"))
      up.hostname = value;
    else
      return fail("control",
                  "cannot update '" + key +
                      "' of a node (use NodeName=, State=, Reason=, NodeAddr=, NodeHostname=; "
                      "or PartitionName= first)",
                  exit_usage);
  }
  if (up.nodes.empty())
    return fail("control", "update needs NodeName= or PartitionName=", exit_usage);
  auto ok = ask<caf::ok_atom>(s, msg::nodeupd_atom_v, up);
  if (!ok) return fail("control", describe(ok.error()));
  return 0;
}

/// hold, uhold, release, requeue, top, suspend, resume: job lists may be comma- or
/// blank-separated, as scontrol takes them, and name array tasks (123_4) or whole arrays (123).
int job_command(session& s, const std::string& op, const std::vector<std::string>& words) {
  msg::job_control ctl;
  ctl.op = op;
  for (auto& c : ctl.op) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  ctl.uid = current_user().uid;
  for (auto& w : words) {
    size_t start = 0;
    while (start <= w.size()) {
      auto comma = w.find(',', start);
      auto item = w.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!item.empty()) ctl.jobs.push_back(item);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  auto ok = ask<caf::ok_atom>(s, msg::jobctl_atom_v, ctl);
  if (!ok) return fail("control", describe(ok.error()));
  return 0;
}

bool is_job_command(const std::string& word) {
  for (auto name : {"hold", "uhold", "release", "requeue", "top", "suspend", "resume"})
    if (is(word, name)) return true;
  return false;
}

/// `setdebug LEVEL`: checked here first, so a typo exits 2 without a cluster.
int setdebug(const std::string& conf, const std::vector<std::string>& args) {
  if (args.size() != 1)
    return fail("control",
                std::string{"setdebug needs one level ("} + config::debug_level_choices + ")",
                exit_usage);
  auto level = config::parse_debug_level(args[0]);
  if (!level) return fail("control", describe(level.error()), exit_usage);
  int code = 0;
  auto s = open_session("control", conf, code);
  if (!s) return code;
  auto set = ask<std::string>(*s, msg::setdebug_atom_v, std::string{config::to_string(*level)},
                              current_user().name);
  if (!set) return fail("control", describe(set.error()));
  return 0;
}

/// `setdebugflags +Flag -Flag ...`: checked here first, as setdebug.
int setdebugflags(const std::string& conf, const std::vector<std::string>& args) {
  auto checked = config::change_debug_flags(0, args);
  if (!checked) return fail("control", describe(checked.error()), exit_usage);
  std::string changes;
  for (auto& a : args) changes += (changes.empty() ? "" : " ") + a;
  int code = 0;
  auto s = open_session("control", conf, code);
  if (!s) return code;
  auto now = ask<std::string>(*s, msg::dbgflags_atom_v, changes, current_user().name);
  if (!now) return fail("control", describe(now.error()));
  return 0;
}

}  // namespace

command_runner add_control_command(CLI::App& app, const std::string& conf) {
  auto* cmd = app.add_subcommand("control", "Show and change cluster state (scontrol)");
  auto opt = std::make_shared<show_options>();
  auto details = std::make_shared<bool>(false);
  auto words = std::make_shared<std::vector<std::string>>();
  cmd->add_flag("--json", opt->json, "Print JSON (show only)");
  cmd->add_flag("-o,--oneliner", opt->one_line, "Print each record of show on one line");
  add_clusters_option(*cmd);
  cmd->add_flag("-d,--details", *details,
                "Accepted as scontrol's: show prints every detail shoal has without it");
  auto quiet = std::make_shared<bool>(false);
  cmd->add_flag("-Q,--quiet", *quiet,
                "No error or informational messages on stderr: the exit code alone tells");
  cmd->add_flag("-a,--all", "Every partition (shoal hides none: accepted as it is)");
  cmd->add_flag("--hide", "Accepted, no effect: shoal has no hidden partitions to leave out");
  cmd->add_flag("-F,--future", "Accepted, no effect: shoal has no FUTURE nodes to show");
  add_federation_flags(*cmd, /*with_sibling=*/true);
  cmd->add_option("words", *words,
                  "show node|partition|job|step|config|collectors|licenses [NAME] | show "
                  "hostnames|hostlist|"
                  "hostlistsorted EXPR | update NodeName=X State=drain|resume|down|idle "
                  "Reason=\"...\" | update|create PartitionName=P KEY=VALUE ... | delete "
                  "PartitionName=P | create reservation KEY=VALUE ... | update|delete "
                  "ReservationName=R ... | show reservation [R] | "
                  "update JobId=N KEY=VALUE ... | reboot [ASAP] "
                  "[nextstate=RESUME|DOWN|UNDRAIN] [reason=TEXT] NODES|ALL | cancel_reboot NODES "
                  "| ping | version | reconfigure | token [lifespan=SECONDS] [username=USER] "
                  "| setdebug LEVEL | setdebugflags +FLAG|-FLAG ... | "
                  "hold|uhold|release|requeue|top|suspend|resume JOB_LIST")
      ->required();
  cmd->footer(
      "Examples:\n  shoal control show node node1\n  shoal control show job 12\n"
      "  shoal control update nodename=node[1-2] state=drain reason=\"disk swap\"\n"
      "  shoal control update partitionname=debug state=down maxtime=1:00:00\n"
      "      (keys as on a PartitionName= line: Nodes, State=UP|DOWN|DRAIN|INACTIVE, MaxTime,\n"
      "      DefaultTime, MaxNodes, Default, PriorityTier, PriorityJobFactor, OverSubscribe)\n"
      "  shoal control create partitionname=gpu nodes=node[3-4]\n"
      "  shoal control delete partitionname=gpu    (refused while jobs pend or run in it)\n"
      "  shoal control show hostnames 'lx[01-03]'\n"
      "  shoal control show collectors    (heartbeat fan-in: each CollectorNodes entry)\n"
      "  shoal control update jobid=12 timelimit=30:00 partition=debug numnodes=2\n"
      "      (keys: TimeLimit, Partition, NumNodes, NumTasks, Priority, Nice, Dependency,\n"
      "      StartTime, Name, Comment, Features, QOS, Account, ExcNodeList; pending jobs only\n"
      "      but TimeLimit, Name, Comment, Priority and Nice; users may only lower a running\n"
      "      job's TimeLimit)\n"
      "  shoal control create reservation starttime=now+1hour duration=120 nodes=node[1-2]\n"
      "      users=root flags=maint   (keys: ReservationName, StartTime, EndTime, Duration,\n"
      "      Nodes, NodeCnt, PartitionName, Users, Accounts, Flags=MAINT,IGNORE_JOBS,OVERLAP,\n"
      "      FLEX,DAILY,WEEKLY,SPEC_NODES; update|delete reservationname=R, admins only)\n"
      "  shoal control reconfigure        (shoalctld reads its file again, as on SIGHUP)\n"
      "  shoal control reboot ASAP nextstate=resume reason=\"kernel update\" node[1-4]\n"
      "      (RebootProgram runs on each once no job holds it; cancel_reboot NODES undoes it)\n"
      "  shoal control hold 12,13_4       (release with: shoal control release 12,13_4)\n"
      "  shoal control top 15             (first among your own pending jobs)\n"
      "  shoal control ping               (is each SlurmctldHost's shoalctld UP or DOWN?)\n"
      "  shoal control token lifespan=3600   (SLURM_JWT=... for shoalrestd; "
      "AuthAltTypes=auth/jwt)\n"
      "  shoal control setdebug debug     (shoalctld's level until restart; levels: quiet, "
      "fatal,\n      error, info, verbose, debug, debug2..debug5 or 0-9)\n"
      "  shoal control setdebugflags +Steps -Msg   (flags: " +
      config::debug_flag_choices() + ")");
  cmd->allow_extras();
  return [opt, words, cmd, quiet, &conf]() -> int {
    if (*quiet && std::freopen("/dev/null", "w", stderr) == nullptr) return exit_failure;
    auto& w = *words;
    // "-Flag" words of setdebugflags look like options to CLI11: they arrive as extras, after
    // the positional words (so removals apply after additions). Anywhere else they are errors.
    auto extras = cmd->remaining();
    if (!extras.empty() && !is(w[0], "setdebugflags"))
      return fail("control", "unexpected argument '" + extras.front() + "'", exit_usage);
    if (is(w[0], "show")) {
      if (w.size() < 2)
        return fail("control", "show what? (node, partition, job, config, collectors, licenses)",
                    exit_usage);
      if (is(w[1], "hostnames") || is(w[1], "hostlist") || is(w[1], "hostlistsorted")) {
        if (w.size() != 3)
          return fail("control", "show " + w[1] + " needs one expression", exit_usage);
        return show_hostlist(w[1], w[2]);
      }
      if (w.size() > 3) return fail("control", "too many words after show " + w[1], exit_usage);
      int code = 0;
      auto s = open_session("control", conf, code);
      if (!s) return code;
      if (is_entity(w[1], "step")) return show_steps(*s, w.size() == 3 ? w[2] : "", opt->one_line);
      return show(*s, w[1], w.size() == 3 ? w[2] : "", *opt);
    }
    if (is(w[0], "version")) {
      if (w.size() > 1) return fail("control", "too many words after version", exit_usage);
      std::printf("shoal %s\n", SHOAL_VERSION);
      return 0;
    }
    if (is(w[0], "update")) {
      if (std::any_of(w.begin() + 1, w.end(), names_job))
        return update_job(conf, {w.begin() + 1, w.end()});
      int code = 0;
      auto s = open_session("control", conf, code);
      if (!s) return code;
      return update(*s, {w.begin() + 1, w.end()});
    }
    if (is(w[0], "create") || is(w[0], "delete")) {
      bool reservation =
          w.size() >= 2 &&
          (names_reservation(w[1]) || (is(w[0], "create") && is_entity(w[1], "reservation", 3)));
      if (reservation) {
        int code = 0;
        auto s = open_session("control", conf, code);
        if (!s) return code;
        bool entity_word = w[1].find('=') == std::string::npos;
        return edit_reservation(*s, w[0], {w.begin() + (entity_word ? 2 : 1), w.end()});
      }
      if (w.size() < 2 || !names_partition(w[1]))
        return fail("control", w[0] + " takes PartitionName=NAME first", exit_usage);
      int code = 0;
      auto s = open_session("control", conf, code);
      if (!s) return code;
      return edit_partition(*s, w[0], {w.begin() + 1, w.end()});
    }
    if (is(w[0], "reconfigure") || is(w[0], "reconfig")) {
      if (w.size() > 1) return fail("control", "too many words after reconfigure", exit_usage);
      return reconfigure(conf);
    }
    if (is(w[0], "reboot") || is(w[0], "reboot_nodes") || is(w[0], "cancel_reboot"))
      return reboot_nodes(conf, {w.begin() + 1, w.end()}, is(w[0], "cancel_reboot"));
    if (is(w[0], "token")) return make_token(conf, {w.begin() + 1, w.end()});
    if (is(w[0], "ping")) {
      if (w.size() > 1) return fail("control", "too many words after ping", exit_usage);
      return ping_controllers(conf);
    }
    if (is(w[0], "setdebug")) return setdebug(conf, {w.begin() + 1, w.end()});
    if (is(w[0], "setdebugflags")) {
      std::vector<std::string> changes{w.begin() + 1, w.end()};
      changes.insert(changes.end(), extras.begin(), extras.end());
      return setdebugflags(conf, changes);
    }
    if (is_job_command(w[0])) {
      if (w.size() < 2) return fail("control", w[0] + " needs a job list", exit_usage);
      int code = 0;
      auto s = open_session("control", conf, code);
      if (!s) return code;
      return job_command(*s, w[0], {w.begin() + 1, w.end()});
    }
    return fail("control",
                "unknown command '" + w[0] +
                    "' (use show, update, create, delete, reboot, cancel_reboot, ping, version, "
                    "reconfigure, token, setdebug, "
                    "setdebugflags, hold, uhold, release, requeue, top, suspend or resume)",
                exit_usage);
  };
}

}  // namespace shoal::cli
