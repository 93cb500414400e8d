// `shoal share` (sshare): the associations' shares, decayed usage and fair-share factors, as
// Slurm 22.05's sshare prints them (classic fair-share, docs/accounting.md, "Fair-share"). The
// scheduler owns the usage; the controller answers from it and its copy of the associations.

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "messages/caf/type_ids.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/identity.hpp"
#include "tools/cli/session.hpp"
#include "tools/format/slurm_format.hpp"
#include "tools/format/sshare_format.hpp"
#include "tools/format/table.hpp"

namespace shoal::cli {

namespace {

struct share_flags {
  bool all = false;
  bool long_list = false;
  bool no_header = false;
  bool parsable = false;
  bool parsable2 = false;
  bool help_format = false;
  std::vector<std::string> accounts;  ///< -A, each a comma list
  std::vector<std::string> users;     ///< -u, each a comma list
  std::vector<std::string> formats;   ///< -o, each adding to the list
  int verbose = 0;
};

/// sshare -l's columns (process.c's long format).
const std::vector<std::string> long_fields = {
    "Account",      "User",      "RawShares", "NormShares",  "RawUsage",   "NormUsage",
    "EffectvUsage", "FairShare", "LevelFS",   "GrpTRESMins", "TRESRunMins"};

const std::vector<std::string> all_fields = {
    "Account",    "Cluster",   "EffectvUsage", "FairShare",   "GrpTRESMins",
    "GrpTRESRaw", "ID",        "LevelFS",      "NormShares",  "NormUsage",
    "Partition",  "RawShares", "RawUsage",     "TRESRunMins", "User"};

policy::share_row to_row(const msg::share_info& info) {
  policy::share_row out;
  out.account = info.account;
  out.user = info.user;
  out.parent = info.parent;
  out.depth = static_cast<int>(info.depth);
  out.raw_shares = info.raw_shares;
  out.norm_shares = info.norm_shares;
  out.raw_usage = info.raw_usage;
  out.norm_usage = info.norm_usage;
  out.effective_usage = info.effective_usage;
  out.fairshare = info.fairshare;
  return out;
}

std::vector<std::string> items_of(const std::vector<std::string>& lists) {
  std::vector<std::string> out;
  for (auto& list : lists)
    for (auto& item : detail::split_list(list, false)) out.push_back(item);
  return out;
}

}  // namespace

command_runner add_share_command(CLI::App& app, const std::string& conf) {
  auto* cmd = app.add_subcommand(
      "share", "The associations' shares, usage and fair-share factors, as sshare prints them");
  cmd->alias("sshare");
  auto f = std::make_shared<share_flags>();
  cmd->add_flag("-a,--all", f->all, "Every user's line, not only yours");
  cmd->add_option("-A,--accounts", f->accounts, "Only these accounts' lines (comma list)")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("-u,--users", f->users, "These users' lines (comma list; `all`: every user)")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_flag("-l,--long", f->long_list, "NormUsage, LevelFS and the TRES columns too");
  cmd->add_option("-o,--format", f->formats,
                  "Fields to show: sshare's names, comma-separated, NAME%WIDTH for a width "
                  "(Account,User,RawUsage,FairShare); -e lists them")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_flag("-n,--noheader", f->no_header, "Leave out the header lines");
  cmd->add_flag("-p,--parsable", f->parsable, "Fields separated by |, with one at the end");
  cmd->add_flag("-P,--parsable2", f->parsable2, "Fields separated by |, none at the end");
  cmd->add_flag("-e,--helpformat", f->help_format, "List the field names and exit");
  cmd->add_flag("-v,--verbose", f->verbose, "Accepted for sshare's sake");
  add_clusters_option(*cmd);
  cmd->footer(
      "Usage is CPU-seconds (allocated CPUs x elapsed) charged to a job's user and account when "
      "it ends, decayed by PriorityDecayHalfLife; FairShare is Slurm's classic factor "
      "2^(-EffectvUsage/NormShares), which PriorityWeightFairshare weighs in each pending job's "
      "priority. LevelFS, Cluster, ID, Partition and the TRES columns print blank.");
  return [f, &conf]() -> int {
    if (f->help_format) {
      print_field_names(all_fields);
      return 0;
    }
    sshare_options opt;
    opt.no_header = f->no_header;
    opt.parsable = f->parsable2 ? 2 : f->parsable ? 1 : 0;
    opt.accounts = items_of(f->accounts);
    opt.format = items_of(f->formats);
    if (opt.format.empty() && f->long_list) opt.format = long_fields;
    auto users = items_of(f->users);
    bool all_users = f->all;
    for (auto& u : users)
      if (u == "all") all_users = true;
    opt.all_users = all_users;
    opt.users = users.empty() ? std::vector<std::string>{current_user().name} : users;
    // A bad -o is the user's to hear before any request.
    if (auto probe = render_sshare({}, opt); !probe)
      return fail("share", describe(probe.error()), exit_usage);
    int code = 0;
    auto s = open_session("share", conf, code);
    if (!s) return code;
    auto shares = ask<std::vector<msg::share_info>>(*s, msg::client_op::shares);
    if (!shares) return fail("share", describe(shares.error()));
    std::vector<policy::share_row> rows;
    rows.reserve(shares->size());
    for (auto& info : *shares) rows.push_back(to_row(info));
    auto text = render_sshare(rows, opt);
    if (!text) return fail("share", describe(text.error()), exit_usage);
    std::fputs(text->c_str(), stdout);
    return 0;
  };
}

}  // namespace shoal::cli
