// sacctmgr list/show, against what Slurm 22.05's sacctmgr prints: each expected line follows
// from common.c's field table (names, headers, widths), the *_functions.c default formats and
// print_fields.c's printf forms ("%*.*s " right-justified, a `+` in the last column of a string
// cut to its width, blank for an unset value).

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "accounting/associations.hpp"
#include "tools/format/sacctmgr_format.hpp"

using namespace shoal;
using namespace shoal::cli;

namespace {

msg::association_data sample() {
  msg::association_data d;
  accounting::ensure_cluster(d, "c1", "ctl", 6817);
  auto add = [&](const char* entity, std::vector<std::string> names,
                 std::vector<std::string> settings) {
    msg::acctmgr_edit e;
    e.action = "add";
    e.entity = entity;
    e.names = std::move(names);
    e.settings = std::move(settings);
    BOOST_REQUIRE(accounting::apply_edit(d, e));
  };
  add("account", {"physics"}, {"description=Physics dept", "organization=science"});
  add("user", {"alice"}, {"account=physics"});
  return d;
}

std::string list(const msg::association_data& d, const std::string& entity,
                 std::vector<std::string> words, int parsable = 0, bool no_header = false) {
  acctmgr_print_options opt;
  opt.parsable = parsable;
  opt.no_header = no_header;
  auto out = render_acctmgr_list(d, {entity, std::move(words)}, opt);
  BOOST_REQUIRE_MESSAGE(out, (out ? "" : out.error().text()));
  return *out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sacctmgr_format)

BOOST_AUTO_TEST_CASE(open_ondemands_users_withassoc_line) {
  BOOST_TEST(list(sample(), "user",
                  {"withassoc", "format=account,cluster,partition,qos,user,defaultaccount"}, 2,
                  true) == "physics|c1||normal|alice|physics\nroot|c1||normal|root|root\n");
}

BOOST_AUTO_TEST_CASE(users_by_default_and_withassoc) {
  BOOST_TEST(list(sample(), "user", {}) ==
             "      User   Def Acct     Admin \n"
             "---------- ---------- --------- \n"
             "     alice    physics      None \n"
             "      root       root Administ+ \n");
  BOOST_TEST(list(sample(), "user", {"withassoc", "where", "name=alice"}, 2) ==
             "User|Def Acct|Admin|Cluster|Account|Partition|Share|Priority|MaxJobs|MaxNodes|"
             "MaxCPUs|MaxSubmit|MaxWall|MaxCPUMins|QOS|Def QOS\n"
             "alice|physics|None|c1|physics||1||||||||normal|\n");
}

BOOST_AUTO_TEST_CASE(associations_in_tree_order) {
  BOOST_TEST(list(sample(), "association", {"format=cluster,account,user,share"}) ==
             "   Cluster    Account       User     Share \n"
             "---------- ---------- ---------- --------- \n"
             "        c1       root                    1 \n"
             "        c1       root       root         1 \n"
             "        c1    physics                    1 \n"
             "        c1    physics      alice         1 \n");
  BOOST_TEST(list(sample(), "association", {"user=alice", "format=account,user"}, 1, true) ==
             "physics|alice|\n");
}

BOOST_AUTO_TEST_CASE(accounts_qos_and_clusters_by_default) {
  BOOST_TEST(list(sample(), "account", {}, 2) ==
             "Account|Descr|Org\nphysics|Physics dept|science\nroot|default root account|root\n");
  BOOST_TEST(list(sample(), "qos", {}, 1) ==
             "Name|Priority|GraceTime|Preempt|PreemptExemptTime|PreemptMode|Flags|UsageThres|"
             "UsageFactor|GrpTRES|GrpTRESMins|GrpTRESRunMins|GrpJobs|GrpSubmit|GrpWall|MaxTRES|"
             "MaxTRESPerNode|MaxTRESMins|MaxWall|MaxTRESPU|MaxJobsPU|MaxSubmitPU|MaxTRESPA|"
             "MaxJobsPA|MaxSubmitPA|MinTRES|\n"
             "normal|0|00:00:00|||cluster|||1.000000|" +
                 std::string(17, '|') + "\n");
  BOOST_TEST(list(sample(), "cluster", {}, 2) ==
             "Cluster|ControlHost|ControlPort|RPC|Share|GrpJobs|GrpTRES|GrpSubmit|MaxJobs|MaxTRES|"
             "MaxSubmit|MaxWall|QOS|Def QOS\n"
             "c1|ctl|6817|9728|1||||||||normal|\n");
}

BOOST_AUTO_TEST_CASE(limits_print_in_sacctmgrs_forms) {
  auto d = sample();
  msg::acctmgr_edit e;
  e.action = "modify";
  e.entity = "user";
  e.conditions = {"name=alice"};
  e.settings = {"maxjobs=4", "maxwall=1-12:00:00", "grptres=cpu=8,mem=1000M", "maxsubmit=10"};
  BOOST_REQUIRE(accounting::apply_edit(d, e));
  BOOST_TEST(list(d, "association",
                  {"user=alice", "format=user,maxjobs,maxsubmit,maxwall,grptres,maxtres"}) ==
             "      User MaxJobs MaxSubmit     MaxWall       GrpTRES       MaxTRES \n"
             "---------- ------- --------- ----------- ------------- ------------- \n"
             "     alice       4        10  1-12:00:00 cpu=8,mem=10+               \n");
}

BOOST_AUTO_TEST_CASE(widths_and_unknown_fields) {
  BOOST_TEST(list(sample(), "account", {"format=account%4,org%-12"}) ==
             "Acco Org          \n---- ------------ \nphy+ science      \nroot root         \n");
  acctmgr_print_options opt;
  auto bad = render_acctmgr_list(sample(), {"user", {"format=bogus"}}, opt);
  BOOST_REQUIRE(!bad);
  BOOST_TEST(bad.error().text() == "Unknown field 'bogus'");
  auto cond = render_acctmgr_list(sample(), {"user", {"colour=red"}}, opt);
  BOOST_REQUIRE(!cond);
  BOOST_TEST(cond.error().text().find(" Unknown condition: colour=red") == 0u);
}

BOOST_AUTO_TEST_CASE(entities_take_sacctmgrs_abbreviations) {
  BOOST_TEST(acctmgr_entity("assoc") == "association");
  BOOST_TEST(acctmgr_entity("associations") == "association");
  BOOST_TEST(acctmgr_entity("Users") == "user");
  BOOST_TEST(acctmgr_entity("acc") == "account");
  BOOST_TEST(acctmgr_entity("qos") == "qos");
  BOOST_TEST(acctmgr_entity("clusters") == "cluster");
  BOOST_TEST(acctmgr_entity("nodes") == "");
}

BOOST_AUTO_TEST_SUITE_END()
