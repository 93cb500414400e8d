// `shoal acctmgr` (sacctmgr): clusters, accounts, users (with their associations) and QOS in the
// accounting store (docs/accounting.md), listed as Slurm 22.05's sacctmgr lists them and changed
// as it changes them. Anyone may list; only admins (root, SlurmUser, AdminUsers) may change.
// shoal never asks for confirmation: every change is committed at once, as under -i.

#include <cctype>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "messages/caf/type_ids.hpp"
#include "messages/text.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/session.hpp"
#include "tools/format/sacctmgr_format.hpp"

namespace shoal::cli {

namespace {

struct acctmgr_flags {
  std::vector<std::string> words;
  bool no_header = false;
  bool parsable = false;
  bool parsable2 = false;
  bool immediate = false;
  bool quiet = false;
  bool readonly = false;
  bool with_assoc = false;
  bool verbose = false;
  std::string delimiter = "|";
};

using text::lower;

/// The action a command word names, as sacctmgr's abbreviations allow; empty for none.
std::string action_of(const std::string& word) {
  auto w = lower(word);
  auto is = [&](const char* full, size_t min) {
    return w.size() >= min && std::string_view{full}.substr(0, w.size()) == w;
  };
  if (is("add", 3) || is("create", 2)) return "add";
  if (is("delete", 3) || is("remove", 3)) return "delete";
  if (is("list", 3) || is("show", 3)) return "list";
  if (is("modify", 1) || is("update", 1)) return "modify";
  return {};
}

/// sacctmgr's words for a change refused for want of privilege.
std::string denied(const std::string& action, const std::string& entity) {
  if (action == "add")
    return " Problem adding " + std::string{entity == "qos" ? "QOS" : entity + "s"} +
           ": Access/permission denied";
  return " Error with request: Access/permission denied";
}

int change(session& s, const std::string& action, const std::string& entity,
           const std::vector<std::string>& rest, const acctmgr_flags& f) {
  msg::acctmgr_edit edit;
  edit.action = action;
  edit.entity = entity;
  // add: every word is a name or an option. modify: conditions up to `set`, then settings.
  // delete: names and conditions.
  bool after_set = false;
  for (auto& w : rest) {
    auto lw = lower(w);
    if (lw == "where") continue;
    if (lw == "set") {
      after_set = true;
      continue;
    }
    if (w.find('=') == std::string::npos) {
      if (action == "modify" && after_set)
        return fail("acctmgr", " Unknown option: " + w, exit_failure);
      edit.names.push_back(w);
    } else if (action == "add" || after_set) {
      edit.settings.push_back(w);
    } else {
      edit.conditions.push_back(w);
    }
  }
  auto report = ask<std::string>(s, msg::acctmgr_atom_v, std::move(edit));
  if (!report) {
    auto text =
        report.error() == errc::permission_denied ? denied(action, entity) : report.error().text();
    // sacctmgr prints what did not happen on stdout ("Nothing new added.") and the rest on
    // stderr, exiting 1 either way.
    bool nothing = text.rfind(" Nothing", 0) == 0;
    if (report.error() != errc::invalid_request && report.error() != errc::permission_denied)
      return fail("acctmgr", describe(report.error()));
    std::fprintf(nothing ? stdout : stderr, "%s\n", text.c_str());
    return exit_failure;
  }
  if (!f.quiet) std::fputs(report->c_str(), stdout);
  return 0;
}

}  // namespace

command_runner add_acctmgr_command(CLI::App& app, const std::string& conf) {
  auto* cmd = app.add_subcommand(
      "acctmgr",
      "Clusters, accounts, users and QOS in the accounting store, as sacctmgr lists and changes "
      "them");
  auto f = std::make_shared<acctmgr_flags>();
  cmd->add_flag("-n,--noheader", f->no_header, "Leave out the header lines");
  cmd->add_flag("-p,--parsable", f->parsable, "Fields separated by |, with one at the end");
  cmd->add_flag("-P,--parsable2", f->parsable2, "Fields separated by |, none at the end");
  cmd->add_flag("-i,--immediate", f->immediate,
                "Commit changes without asking (shoal never asks: always so)");
  cmd->add_flag("-Q,--quiet", f->quiet, "Print no report of the changes, only errors");
  cmd->add_flag("-r,--readonly", f->readonly, "Refuse to change anything");
  cmd->add_flag("-s,--associations", f->with_assoc, "List with the associations (withassoc)");
  cmd->add_flag("-v,--verbose", f->verbose, "Accepted for sacctmgr's sake");
  add_clusters_option(*cmd);
  cmd->add_option("words", f->words,
                  "add|modify|delete|list|show cluster|account|user|qos|association [NAMES] "
                  "[where CONDITIONS] [set SETTINGS] [format=FIELDS] [withassoc]")
      ->required();
  cmd->footer(
      "Examples:\n"
      "  shoal acctmgr add account physics description=\"Physics\" organization=science\n"
      "  shoal acctmgr add account theory parent=physics\n"
      "  shoal acctmgr add user alice account=physics defaultaccount=physics\n"
      "  shoal acctmgr modify user where name=alice set maxjobs=4 adminlevel=operator\n"
      "  shoal acctmgr add qos high priority=100 maxjobsperuser=2 grptres=cpu=8\n"
      "  shoal acctmgr -nP show users withassoc format=account,cluster,partition,qos,user\n"
      "  shoal acctmgr show assoc where user=alice\n"
      "  shoal acctmgr delete user alice account=theory\n"
      "Only admins (root, SlurmUser, AdminUsers) may change; anyone may list. Changes are "
      "committed at once, as under -i: shoal never asks.");
  return [f, &conf]() -> int {
    auto& w = f->words;
    auto action = action_of(w[0]);
    if (action.empty())
      return fail("acctmgr", "Unknown command '" + w[0] + "'. Try 'sacctmgr --help'.", exit_usage);
    if (w.size() < 2)
      return fail("acctmgr",
                  "Your command " + w[0] +
                      " needs an entity: cluster, account, user, "
                      "qos or association",
                  exit_usage);
    auto entity = acctmgr_entity(w[1]);
    if (entity.empty())
      return fail("acctmgr",
                  "No valid entity in " + w[0] +
                      " command\nInput line must include "
                      "Account, Cluster, QOS, User or Association",
                  exit_usage);
    std::vector<std::string> rest(w.begin() + 2, w.end());
    int code = 0;
    auto s = open_session("acctmgr", conf, code);
    if (!s) return code;
    if (action == "list") {
      auto data = ask<msg::association_data>(*s, msg::client_op::acctmgr_list);
      if (!data) return fail("acctmgr", describe(data.error()));
      acctmgr_listing listing;
      listing.entity = entity;
      listing.words = rest;
      if (f->with_assoc) listing.words.emplace_back("withassoc");
      acctmgr_print_options opt;
      opt.no_header = f->no_header;
      opt.parsable = f->parsable2 ? 2 : f->parsable ? 1 : 0;
      auto text = render_acctmgr_list(*data, listing, opt);
      if (!text) {
        std::fprintf(stderr, "%s\n", text.error().text().c_str());
        return exit_failure;
      }
      std::fputs(text->c_str(), stdout);
      return 0;
    }
    if (entity == "association")
      return fail("acctmgr",
                  "Change associations through their user or account: sacctmgr " + action +
                      " user NAME account=ACCOUNT ...",
                  exit_usage);
    if (f->readonly)
      return fail("acctmgr", "Can't run this command in readonly mode.", exit_failure);
    return change(*s, action, entity, rest, *f);
  };
}

}  // namespace shoal::cli
