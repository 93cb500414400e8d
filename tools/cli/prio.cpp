// `shoal prio` (sprio): the pending jobs' priorities and their weighted factors, or with -w the
// weights themselves.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "messages/caf/type_ids.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/identity.hpp"
#include "tools/cli/session.hpp"
#include "tools/cli/usage.hpp"
#include "tools/format/listing.hpp"
#include "tools/format/table.hpp"

namespace shoal::cli {

namespace {

struct prio_flags {
  std::string jobs;
  std::string users;
  std::string partitions;
  bool no_header = false;
  bool weights = false;
  int verbose = 0;
};

/// sprio -u: user names; a number is a uid, as sprio's -u takes both.
std::set<std::string> wanted_users(const std::string& list) {
  std::set<std::string> out;
  for (auto& item : detail::split_list(list, false)) {
    auto user = find_user(item);
    out.insert(user ? user->name : item);
  }
  return out;
}

/// Whether job `j` passes sprio's -j, -u and -p.
bool selected(const prio_flags& f, const msg::job_info& j, const std::set<std::string>& users) {
  auto in = [](const std::string& list, const std::string& value) {
    auto items = detail::split_list(list, false);
    return std::find(items.begin(), items.end(), value) != items.end();
  };
  if (!f.jobs.empty() && !in(f.jobs, std::to_string(j.job_id)) &&
      !(j.array_job_id != 0 && in(f.jobs, std::to_string(j.array_job_id))))
    return false;
  if (!users.empty() && users.count(j.user) == 0) return false;
  return f.partitions.empty() || in(f.partitions, j.partition);
}

int run_prio(const prio_flags& f, const std::string& conf) {
  int code = 0;
  auto s = open_session("prio", conf, code);
  if (!s) return code;
  const auto& sched = s->conf.scheduling;
  priority_columns shown;
  shown.fairshare = sched.weight_fairshare != 0;
  shown.qos = sched.weight_qos != 0;
  if (f.weights) {
    priority_weights w{sched.weight_age, sched.weight_fairshare, sched.weight_job_size,
                       sched.weight_partition, sched.weight_qos};
    std::fputs(render_priority_weights(w, f.no_header, shown).c_str(), stdout);
    return 0;
  }
  // Only the pending jobs, and only what the table shows of them (the controller encodes no more).
  using J = msg::job_info;
  auto shown_fields = msg::fields_of(&J::job_id, &J::array_job_id, &J::array_task_id,
                                     &J::array_tasks, &J::user, &J::partition);
  msg::job_filter pending;
  pending.states.emplace_back(msg::to_string(msg::job_state::pending));
  auto jobs = ask<std::vector<msg::job_info>>(*s, msg::jobs_atom_v, false, shown_fields, pending);
  if (!jobs) return fail("prio", describe(jobs.error()));
  auto details = ask<std::vector<msg::pending_detail>>(*s, msg::client_op::pending);
  if (!details) return fail("prio", describe(details.error()));
  auto users = wanted_users(f.users);
  std::set<uint64_t> kept;
  for (auto& j : *jobs)
    if (selected(f, j, users)) kept.insert(j.job_id);
  details->erase(
      std::remove_if(details->begin(), details->end(),
                     [&](const msg::pending_detail& d) { return kept.count(d.job_id) == 0; }),
      details->end());
  std::fputs(render_priorities(*jobs, *details, f.no_header, shown).c_str(), stdout);
  return 0;
}

}  // namespace

command_runner add_prio_command(CLI::App& app, const std::string& conf) {
  auto* cmd = app.add_subcommand("prio", "Pending jobs' priorities and their factors (sprio)");
  auto f = std::make_shared<prio_flags>();
  cmd->set_help_flag("--help", "Print this help message and exit");  // -h is --noheader
  cmd->add_option("-j,--jobs", f->jobs, "Only these job ids (comma list)");
  cmd->add_option("-u,--user", f->users, "Only these users' jobs (comma list of names or uids)");
  cmd->add_option("-p,--partition", f->partitions, "Only jobs in these partitions (comma list)");
  cmd->add_flag("-h,--noheader", f->no_header, "Leave out the header line");
  cmd->add_flag("-w,--weights", f->weights,
                "The configured weights (PriorityWeight*) instead, on a line of their own");
  cmd->add_flag("-v,--verbose", f->verbose, "The option settings first (name = value lines)");
  add_federation_flags(*cmd, /*with_sibling=*/true);
  add_clusters_option(*cmd);
  return [f, cmd, &conf]() -> int {
    if (f->verbose > 0) std::fputs(option_settings(*cmd).c_str(), stdout);
    return run_prio(*f, conf);
  };
}

}  // namespace shoal::cli
