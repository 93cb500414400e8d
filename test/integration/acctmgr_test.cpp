// sacctmgr (`shoal acctmgr`) against a real cluster: accounts, users and QOS kept in the
// accounting store the controller opens (SQLite by default), listed as Slurm 22.05's sacctmgr
// lists them (Open OnDemand's `sacctmgr -nP show users withassoc format=...`), changed by admins
// only; and AccountingStorageEnforce=associations refusing jobs whose user has no association
// with their account, with sbatch's, srun's and salloc's words.

#include <boost/test/unit_test.hpp>

#include <pwd.h>

#include <string>
#include <vector>

#include "accounting/job_store.hpp"
#include "test/integration/harness.hpp"
#include "test/preconditions.hpp"

using namespace shoal::test;
using namespace std::chrono_literals;

namespace {

command_result sacctmgr(cluster_fixture& c, const std::vector<std::string>& args) {
  return run_slurm(c, "sacctmgr", args);
}

/// The cluster's name in its config (ClusterName=; the harness's default when unset).
std::string cluster_name(cluster_fixture& c) {
  auto r = c.run_cli({"control", "show", "config"});
  for (auto& line : lines_of(r.out))
    if (line.rfind("ClusterName", 0) == 0) return line.substr(line.find('=') + 2);
  return "";
}

/// A physics account with theory under it, and root added to physics.
void add_tree(cluster_fixture& c) {
  auto a = sacctmgr(
      c, {"-i", "add", "account", "physics", "description=Physics dept", "organization=science"});
  BOOST_REQUIRE_MESSAGE(a.exit_code == 0, a.describe());
  BOOST_TEST(a.out.find(" Adding Account(s)\n  physics\n") == 0u, a.describe());
  auto t = sacctmgr(c, {"-i", "add", "account", "theory", "parent=physics"});
  BOOST_REQUIRE_MESSAGE(t.exit_code == 0, t.describe());
  auto u = sacctmgr(c, {"-i", "add", "user", "root", "account=physics"});
  BOOST_REQUIRE_MESSAGE(u.exit_code == 0, u.describe());
}

struct enforcing : cluster_fixture {
  enforcing() : cluster_fixture(1, "AccountingStorageEnforce=associations,limits\n") {}
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(acctmgr, one_node)

BOOST_AUTO_TEST_CASE(the_cluster_and_root_are_there_from_the_start) {
  auto name = cluster_name(*this);
  BOOST_REQUIRE(!name.empty());
  auto c = sacctmgr(*this, {"-nP", "show", "cluster", "format=cluster,share,qos"});
  BOOST_REQUIRE_MESSAGE(c.exit_code == 0, c.describe());
  BOOST_TEST(c.out == name + "|1|normal\n", c.describe());
  auto u = sacctmgr(*this, {"show", "user"});
  BOOST_TEST(u.out ==
                 "      User   Def Acct     Admin \n"
                 "---------- ---------- --------- \n"
                 "      root       root Administ+ \n",
             u.describe());
}

BOOST_AUTO_TEST_CASE(open_ondemands_users_withassoc_lines) {
  add_tree(*this);
  auto name = cluster_name(*this);
  auto r = sacctmgr(*this, {"-nP", "show", "users", "withassoc",
                            "format=account,cluster,partition,qos,user,defaultaccount"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  // root's association with root comes first: root's tree, its users before its sub-accounts.
  BOOST_TEST(
      r.out == "root|" + name + "||normal|root|root\nphysics|" + name + "||normal|root|root\n",
      r.describe());
  auto plain = sacctmgr(*this, {"-nP", "show", "users", "withassoc"});
  BOOST_TEST(lines_of(plain.out).size() == 2u, plain.describe());
  auto tree = sacctmgr(*this, {"-nP", "show", "assoc", "format=account,user,parentname"});
  BOOST_TEST(tree.out == "root||\nroot|root|\nphysics||root\nphysics|root|\ntheory||physics\n",
             tree.describe());
}

BOOST_AUTO_TEST_CASE(changes_are_kept_in_the_store_across_a_restart) {
  add_tree(*this);
  auto q = sacctmgr(*this, {"-i", "add", "qos", "high", "priority=100", "maxjobsperuser=2"});
  BOOST_REQUIRE_MESSAGE(q.exit_code == 0, q.describe());
  auto m = sacctmgr(*this, {"-i", "modify", "user", "where", "name=root", "account=physics", "set",
                            "maxjobs=4", "qos+=high", "defaultaccount=physics"});
  BOOST_REQUIRE_MESSAGE(m.exit_code == 0, m.describe());
  BOOST_TEST(m.out.find(" Modified users...\n  root\n") == 0u, m.describe());
  BOOST_REQUIRE(!cluster.restart_controller());
  auto r = sacctmgr(*this, {"-nP", "show", "assoc", "where", "account=physics", "user=root",
                            "format=user,maxjobs,qos"});
  BOOST_TEST(r.out == "root|4|high,normal\n", r.describe());
  auto u = sacctmgr(*this, {"-nP", "list", "user", "format=user,defaultaccount"});
  BOOST_TEST(u.out == "root|physics\n", u.describe());
  auto qos = sacctmgr(*this, {"-nP", "show", "qos", "high", "format=name,priority,maxjobspu"});
  BOOST_TEST(qos.out == "high|100|2\n", qos.describe());
  // The store holds them: sacctmgr reads them from there.
  auto store = shoal::accounting::open_sqlite_store(cluster.directory() + "/state/accounting.db");
  BOOST_REQUIRE(store);
  auto data = (*store)->read_associations();
  BOOST_REQUIRE(data);
  BOOST_TEST(data->accounts.size() == 3u);
}

BOOST_AUTO_TEST_CASE(refusals_say_what_sacctmgr_says) {
  add_tree(*this);
  auto again = sacctmgr(*this, {"-i", "add", "account", "physics"});
  BOOST_TEST(again.exit_code == 1);
  BOOST_TEST(again.out == " Nothing new added.\n", again.describe());
  auto nobody = sacctmgr(*this, {"-i", "add", "user", "bob", "account=nope"});
  BOOST_TEST(nobody.exit_code == 1);
  BOOST_TEST(nobody.err.find(" This account 'nope' doesn't exist.") == 0u, nobody.describe());
  auto root = sacctmgr(*this, {"-i", "delete", "account", "root"});
  BOOST_TEST(root.exit_code == 1);
  BOOST_TEST(root.err.find("You are not allowed to remove the root account") != std::string::npos,
             root.describe());
  auto field = sacctmgr(*this, {"show", "user", "format=bogus"});
  BOOST_TEST(field.exit_code == 1);
  BOOST_TEST(field.err == "Unknown field 'bogus'\n", field.describe());
  auto gone = sacctmgr(*this, {"-i", "delete", "account", "theory"});
  BOOST_TEST(gone.exit_code == 0, gone.describe());
  BOOST_TEST(gone.out == " Deleting accounts...\n  theory\n", gone.describe());
}

BOOST_AUTO_TEST_CASE(only_admins_may_change_anyone_may_list,
                     *boost::unit_test::precondition(needs_root{
                         "to create a test user and run sacctmgr as it"})) {
  const passwd* pw = ensure_user("shoal-it-user");
  BOOST_REQUIRE_MESSAGE(pw != nullptr, "no test user");
  auto as_user = [&](std::vector<std::string> args) {
    return run_as(pw, args, "slurm-names/sacctmgr");
  };
  auto list = as_user({"-nP", "show", "user", "format=user"});
  BOOST_TEST(list.exit_code == 0, list.describe());
  BOOST_TEST(list.out == "root\n", list.describe());
  auto add = as_user({"-i", "add", "account", "mine"});
  BOOST_TEST(add.exit_code == 1, add.describe());
  BOOST_TEST(add.err == " Problem adding accounts: Access/permission denied\n", add.describe());
  auto mod = as_user({"-i", "modify", "user", "root", "set", "adminlevel=none"});
  BOOST_TEST(mod.exit_code == 1, mod.describe());
  BOOST_TEST(mod.err == " Error with request: Access/permission denied\n", mod.describe());
  auto after = sacctmgr(*this, {"-nP", "show", "account", "format=account"});
  BOOST_TEST(after.out == "root\n", after.describe());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(acctmgr_enforce, enforcing)

BOOST_AUTO_TEST_CASE(a_job_without_an_association_is_refused_with_slurms_words) {
  auto script = write_file(scratch.file("job.sh"), "#!/bin/sh\ntrue\n", true);
  // Until the accounting writer has sent the controller its copy of the associations, a
  // submission is refused with "try again" (cluster/association_check.cpp); the test starts once
  // the copy is there, as a user's retry would.
  command_result batch;
  BOOST_REQUIRE(wait_until(
      [&] {
        batch = run_slurm(*this, "sbatch", {"-A", "physics", script});
        return batch.err.find("try again") == std::string::npos;
      },
      30s));
  BOOST_TEST(batch.exit_code == 1, batch.describe());
  BOOST_TEST(batch.err ==
                 "sbatch: error: Batch job submission failed: Invalid account or "
                 "account/partition combination specified\n",
             batch.describe());
  auto run = run_slurm(*this, "srun", {"-A", "physics", "true"});
  BOOST_TEST(run.exit_code == 1, run.describe());
  BOOST_TEST(run.err.find("srun: error: Unable to allocate resources: Invalid account or "
                          "account/partition combination specified") != std::string::npos,
             run.describe());
  auto alloc = run_slurm(*this, "salloc", {"-A", "physics", "true"});
  BOOST_TEST(alloc.exit_code == 1, alloc.describe());
  BOOST_TEST(alloc.err.find("salloc: error: Job submit/allocate failed: Invalid account or "
                            "account/partition combination specified") != std::string::npos,
             alloc.describe());
  // Once sacctmgr adds the association the same job is taken at once: the controller's copy
  // changed with the store.
  add_tree(*this);
  auto ok = run_slurm(*this, "sbatch", {"--parsable", "-A", "physics", script});
  BOOST_REQUIRE_MESSAGE(ok.exit_code == 0, ok.describe());
  // Without -A a job is charged to the user's default account, which root has.
  auto plain = run_slurm(*this, "sbatch", {"--parsable", script});
  BOOST_REQUIRE_MESSAGE(plain.exit_code == 0, plain.describe());
  auto id = std::stoull(plain.out);
  BOOST_TEST(job(id).value("account", "") == "root", job(id).dump());
  // theory has no association for root.
  auto theory = run_slurm(*this, "sbatch", {"-A", "theory", script});
  BOOST_TEST(theory.exit_code == 1, theory.describe());
  // Taking the association away refuses again.
  auto del = sacctmgr(*this, {"-i", "delete", "user", "root", "account=physics"});
  BOOST_REQUIRE_MESSAGE(del.exit_code == 0, del.describe());
  auto after = run_slurm(*this, "sbatch", {"-A", "physics", script});
  BOOST_TEST(after.exit_code == 1, after.describe());
}

BOOST_AUTO_TEST_SUITE_END()
