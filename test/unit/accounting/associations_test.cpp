// sacctmgr's changes to clusters, accounts, users and QOS (accounting/associations.hpp), as
// Slurm 22.05's sacctmgr and slurmdbd make them.

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "accounting/associations.hpp"

namespace {

using namespace shoal;
using namespace shoal::accounting;

msg::acctmgr_edit edit(std::string action, std::string entity, std::vector<std::string> names,
                       std::vector<std::string> settings = {},
                       std::vector<std::string> conditions = {}) {
  msg::acctmgr_edit e;
  e.action = std::move(action);
  e.entity = std::move(entity);
  e.names = std::move(names);
  e.settings = std::move(settings);
  e.conditions = std::move(conditions);
  return e;
}

std::string ok(msg::association_data& d, const msg::acctmgr_edit& e) {
  auto r = apply_edit(d, e);
  BOOST_REQUIRE_MESSAGE(r, "apply_edit: " << (r ? "" : r.error().text()));
  return *r;
}

std::string refused(msg::association_data& d, const msg::acctmgr_edit& e) {
  auto before = d;
  auto r = apply_edit(d, e);
  BOOST_REQUIRE(!r);
  BOOST_TEST((r.error() == errc::invalid_request));
  BOOST_TEST(d.associations.size() == before.associations.size());
  BOOST_TEST(d.users.size() == before.users.size());
  BOOST_TEST(d.accounts.size() == before.accounts.size());
  return r.error().text();
}

/// cluster c1 with accounts physics (under root) and theory (under physics), user alice in
/// physics.
msg::association_data sample() {
  msg::association_data d;
  ensure_cluster(d, "c1", "ctl", 6817);
  ok(d, edit("add", "account", {"physics"}, {"description=Physics", "organization=science"}));
  ok(d, edit("add", "account", {"theory"}, {"parent=physics"}));
  ok(d, edit("add", "user", {"alice"}, {"account=physics"}));
  return d;
}

std::vector<std::string> order(const msg::association_data& d) {
  std::vector<std::string> out;
  for (auto* a : tree_order(d))
    out.push_back(a->account + "/" + a->user + (a->partition.empty() ? "" : "/" + a->partition));
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(associations)

BOOST_AUTO_TEST_CASE(a_cluster_comes_with_its_root_account_root_user_and_normal_qos) {
  msg::association_data d;
  BOOST_TEST(ensure_cluster(d, "c1", "ctl", 6817));
  BOOST_TEST(!ensure_cluster(d, "c1", "ctl", 6817));
  BOOST_TEST(order(d) == (std::vector<std::string>{"root/", "root/root"}));
  BOOST_TEST(d.qos.size() == 1u);
  BOOST_TEST(d.qos[0].name == "normal");
  BOOST_TEST(d.associations[0].qos == std::vector<std::string>{"normal"});
  BOOST_TEST(default_account_of(d, "root") == "root");
  BOOST_TEST(d.clusters[0].control_port == 6817u);
}

BOOST_AUTO_TEST_CASE(accounts_form_a_tree_and_take_slurms_defaults) {
  auto d = sample();
  BOOST_TEST(order(d) == (std::vector<std::string>{"root/", "root/root", "physics/",
                                                   "physics/alice", "theory/"}));
  BOOST_TEST(d.accounts.size() == 3u);
  auto* theory = &d.accounts.back();
  BOOST_TEST(theory->name == "theory");
  BOOST_TEST(theory->description == "theory");    // the name, unless description= says
  BOOST_TEST(theory->organization == "physics");  // the parent's name below root
  BOOST_TEST(d.accounts[1].organization == "science");
  // Inherited QOS.
  BOOST_TEST(find_association(d, "c1", "alice", "physics", "")->qos ==
             std::vector<std::string>{"normal"});
}

BOOST_AUTO_TEST_CASE(adding_reports_as_sacctmgr_does) {
  msg::association_data d;
  ensure_cluster(d, "c1");
  BOOST_TEST(ok(d, edit("add", "account", {"physics"}, {"description=Physics"})) ==
             " Adding Account(s)\n  physics\n Settings\n  Description     = Physics\n"
             "  Organization    = Parent/Account Name\n Associations\n"
             "  A = physics    C = c1        \n");
  BOOST_TEST(ok(d, edit("add", "user", {"alice"}, {"account=physics"})) ==
             " Adding User(s)\n  alice\n Associations =\n"
             "  U = alice     A = physics    C = c1        \n");
  BOOST_TEST(refused(d, edit("add", "user", {"alice"}, {"account=physics"})) ==
             " Nothing new added.");
}

BOOST_AUTO_TEST_CASE(a_user_needs_an_account_that_exists) {
  auto d = sample();
  BOOST_TEST(refused(d, edit("add", "user", {"bob"})) == " Need name of account to add user to.");
  BOOST_TEST(refused(d, edit("add", "user", {"bob"}, {"account=nope"}))
                 .find("This account 'nope' doesn't exist.") != std::string::npos);
  BOOST_TEST(refused(d, edit("add", "account", {"x"}, {"parent=nope"}))
                 .find("Parent account 'nope' doesn't exist on cluster c1") != std::string::npos);
  BOOST_TEST(refused(d, edit("add", "user", {"bob"}, {"account=physics", "colour=red"}))
                 .find("Unknown option: colour=red") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(users_get_a_default_account_and_more_associations) {
  auto d = sample();
  BOOST_TEST(default_account_of(d, "alice") == "physics");
  ok(d, edit("add", "user", {"alice"}, {"account=theory", "partition=gpu"}));
  BOOST_TEST(find_association(d, "c1", "alice", "theory", "gpu") != nullptr);
  BOOST_TEST(find_association(d, "c1", "alice", "theory", "cpu") == nullptr);
  BOOST_TEST(find_association(d, "c1", "alice", "physics", "cpu") != nullptr);  // every partition
  BOOST_TEST(find_association(d, "c1", "bob", "physics", "") == nullptr);
  ok(d, edit("add", "user", {"bob"}, {"defaultaccount=theory", "adminlevel=op"}));
  BOOST_TEST(default_account_of(d, "bob") == "theory");
  BOOST_TEST(d.users.back().admin_level == "Operator");
  BOOST_TEST(order(d) ==
             (std::vector<std::string>{"root/", "root/root", "physics/", "physics/alice", "theory/",
                                       "theory/alice/gpu", "theory/bob"}));
}

BOOST_AUTO_TEST_CASE(modify_sets_user_fields_and_association_limits) {
  auto d = sample();
  ok(d, edit("add", "user", {"alice"}, {"account=theory"}));
  auto report =
      ok(d, edit("modify", "user", {},
                 {"defaultaccount=theory", "maxjobs=4", "grptres=cpu=8", "maxwall=1:00:00"},
                 {"name=alice", "account=physics"}));
  BOOST_TEST(report.find(" Modified users...\n  alice\n") == 0u, report);
  BOOST_TEST(report.find(" Modified user associations...\n") != std::string::npos, report);
  BOOST_TEST(default_account_of(d, "alice") == "theory");
  auto* a = find_association(d, "c1", "alice", "physics", "");
  BOOST_TEST(a->max_jobs == 4);
  BOOST_TEST(a->grp_tres == "cpu=8");
  BOOST_TEST(a->max_wall_min == 60);
  BOOST_TEST(find_association(d, "c1", "alice", "theory", "")->max_jobs == -1);
  ok(d, edit("modify", "user", {}, {"maxjobs=-1", "grptres=cpu=-1"}, {"name=alice"}));
  a = find_association(d, "c1", "alice", "physics", "");
  BOOST_TEST(a->max_jobs == -1);
  BOOST_TEST(a->grp_tres == "");
  BOOST_TEST(refused(d, edit("modify", "user", {}, {"defaultaccount=root"}, {"name=alice"}))
                 .find("aren't associated with new default account 'root'") != std::string::npos);
  BOOST_TEST(refused(d, edit("modify", "user", {}, {"maxjobs=3"}, {"name=nobody"})) ==
             " Nothing modified");
  BOOST_TEST(refused(d, edit("modify", "user", {}, {}, {"name=alice"})) ==
             " You didn't give me anything to set");
}

BOOST_AUTO_TEST_CASE(modify_moves_an_account_but_not_under_itself) {
  auto d = sample();
  ok(d, edit("add", "account", {"bio"}));
  ok(d, edit("modify", "account", {}, {"parent=bio"}, {"name=theory"}));
  BOOST_TEST(order(d) == (std::vector<std::string>{"root/", "root/root", "bio/", "theory/",
                                                   "physics/", "physics/alice"}));
  ok(d, edit("modify", "account", {}, {"parent=theory"}, {"name=physics"}));
  refused(d, edit("modify", "account", {}, {"parent=physics"}, {"name=bio"}));
}

BOOST_AUTO_TEST_CASE(qos_are_added_modified_used_and_deleted) {
  auto d = sample();
  ok(d, edit("add", "qos", {"high"}, {"priority=100", "maxjobsperuser=2", "grptres=cpu=8"}));
  auto& high = d.qos.back();
  BOOST_TEST(high.priority == 100u);
  BOOST_TEST(high.max_jobs_per_user == 2);
  BOOST_TEST(high.grp_tres == "cpu=8");
  ok(d, edit("modify", "qos", {}, {"priority=50", "maxwall=2:00:00"}, {"name=high"}));
  BOOST_TEST(d.qos.back().priority == 50u);
  BOOST_TEST(d.qos.back().max_wall_min == 120);
  ok(d, edit("modify", "user", {}, {"qos+=high"}, {"name=alice"}));
  BOOST_TEST(find_association(d, "c1", "alice", "physics", "")->qos ==
             (std::vector<std::string>{"high", "normal"}));
  BOOST_TEST(refused(d, edit("modify", "user", {}, {"qos+=nope"}, {"name=alice"})) ==
             " Unknown QOS name: nope");
  ok(d, edit("delete", "qos", {"high"}));
  BOOST_TEST(find_association(d, "c1", "alice", "physics", "")->qos ==
             std::vector<std::string>{"normal"});
}

BOOST_AUTO_TEST_CASE(deleting_users_accounts_and_associations) {
  auto d = sample();
  ok(d, edit("add", "user", {"alice"}, {"account=theory"}));
  // Not her default account's association while she has another.
  BOOST_TEST(refused(d, edit("delete", "user", {"alice"}, {}, {"account=physics"}))
                 .find("default account") != std::string::npos);
  BOOST_TEST(ok(d, edit("delete", "user", {"alice"}, {}, {"account=theory"}))
                 .find(" Deleting user associations...") == 0u);
  BOOST_TEST(find_association(d, "c1", "alice", "theory", "") == nullptr);
  // An account with sub-accounts stays; root always does.
  refused(d, edit("delete", "account", {"physics"}));
  BOOST_TEST(refused(d, edit("delete", "account", {"root"})).find("root account") !=
             std::string::npos);
  BOOST_TEST(ok(d, edit("delete", "account", {"theory"})) == " Deleting accounts...\n  theory\n");
  BOOST_TEST(ok(d, edit("delete", "user", {"alice"})) == " Deleting users...\n  alice\n");
  BOOST_TEST(find_association(d, "c1", "alice", "physics", "") == nullptr);
  BOOST_TEST(refused(d, edit("delete", "user", {"alice"})) == " Nothing deleted");
}

BOOST_AUTO_TEST_CASE(admin_levels_take_any_prefix) {
  BOOST_TEST(admin_level_name("admin") == "Administrator");
  BOOST_TEST(admin_level_name("a") == "Administrator");
  BOOST_TEST(admin_level_name("OPERATOR") == "Operator");
  BOOST_TEST(admin_level_name("none") == "None");
  BOOST_TEST(admin_level_name("boss") == "");
}

BOOST_AUTO_TEST_CASE(a_qos_names_the_qos_it_preempts_and_how_they_are_preempted) {
  auto d = sample();
  ok(d, edit("add", "qos", {"scavenger"}, {"preemptmode=requeue", "gracetime=30"}));
  ok(d, edit("add", "qos", {"urgent"}, {"preempt=scavenger", "priority=100"}));
  auto qos = [&](const std::string& name) -> msg::qos_info& {
    for (auto& q : d.qos)
      if (q.name == name) return q;
    BOOST_FAIL("no qos " << name);
    return d.qos.front();
  };
  BOOST_TEST(qos("urgent").preempt == std::vector<std::string>{"scavenger"});
  BOOST_TEST(qos("urgent").preempt_mode.empty());  // the cluster's
  BOOST_TEST(qos("scavenger").preempt_mode == "REQUEUE");
  ok(d, edit("modify", "qos", {}, {"preempt+=normal"}, {"name=urgent"}));
  BOOST_TEST(qos("urgent").preempt == (std::vector<std::string>{"normal", "scavenger"}));
  ok(d, edit("modify", "qos", {}, {"preempt-=normal", "preemptmode=Suspend"}, {"name=urgent"}));
  BOOST_TEST(qos("urgent").preempt == std::vector<std::string>{"scavenger"});
  BOOST_TEST(qos("urgent").preempt_mode == "SUSPEND");
  ok(d, edit("modify", "qos", {}, {"preemptmode=cluster"}, {"name=urgent"}));
  BOOST_TEST(qos("urgent").preempt_mode.empty());
  // sacctmgr's refusals.
  BOOST_TEST(refused(d, edit("modify", "qos", {}, {"preempt=nope"}, {"name=urgent"})) ==
             " Unknown QOS name: nope");
  BOOST_TEST(refused(d, edit("modify", "qos", {}, {"preempt=urgent"}, {"name=urgent"})) ==
             " QOS urgent can't preempt itself");
  BOOST_TEST(refused(d, edit("modify", "qos", {}, {"preemptmode=kill"}, {"name=urgent"})) ==
             " Bad PreemptMode value: kill");
  // A QOS deleted leaves the lists that named it.
  ok(d, edit("delete", "qos", {"scavenger"}));
  BOOST_TEST(qos("urgent").preempt.empty());
}

BOOST_AUTO_TEST_SUITE_END()
