// AccountingStorageEnforce=associations (cluster/association_check.hpp): the default account,
// and Slurm's refusal of a job whose user has no association with its account.

#include <boost/test/unit_test.hpp>

#include "accounting/associations.hpp"
#include "cluster/association_check.hpp"

using namespace shoal;

namespace {

msg::association_data sample() {
  msg::association_data d;
  accounting::ensure_cluster(d, "c1");
  auto add = [&](const char* entity, const char* name, std::vector<std::string> settings) {
    msg::acctmgr_edit e;
    e.action = "add";
    e.entity = entity;
    e.names = {name};
    e.settings = std::move(settings);
    BOOST_REQUIRE(accounting::apply_edit(d, e));
  };
  add("account", "physics", {});
  add("account", "chem", {});
  add("user", "alice", {"account=physics"});
  add("user", "alice", {"account=chem", "partition=gpu"});
  return d;
}

msg::job_request job(const char* user, const char* account, const char* partition) {
  msg::job_request r;
  r.user = user;
  r.workload.account = account;
  r.partition = partition;
  return r;
}

config::cluster_config enforcing(bool on) {
  config::cluster_config cfg;
  cfg.cluster_name = "c1";
  cfg.accounting.enforce_associations = on;
  return cfg;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(association_check)

BOOST_AUTO_TEST_CASE(a_job_without_an_account_is_charged_to_the_default_one) {
  auto d = sample();
  auto r = cluster::check_association(enforcing(false), &d, job("alice", "", "debug"));
  BOOST_REQUIRE(r);
  BOOST_TEST(r->workload.account == "physics");
  auto stranger = cluster::check_association(enforcing(false), &d, job("bob", "", "debug"));
  BOOST_REQUIRE(stranger);
  BOOST_TEST(stranger->workload.account == "");
}

BOOST_AUTO_TEST_CASE(enforcing_refuses_what_no_association_allows) {
  auto d = sample();
  auto cfg = enforcing(true);
  BOOST_TEST(bool(cluster::check_association(cfg, &d, job("alice", "physics", "debug"))));
  BOOST_TEST(bool(cluster::check_association(cfg, &d, job("alice", "chem", "gpu"))));
  BOOST_TEST(bool(cluster::check_association(cfg, &d, job("alice", "", "gpu"))));
  for (auto bad : {job("alice", "chem", "debug"), job("alice", "bio", "debug"),
                   job("bob", "physics", "debug"), job("bob", "", "debug")}) {
    auto r = cluster::check_association(cfg, &d, bad);
    BOOST_REQUIRE(!r);
    BOOST_TEST((r.error() == errc::invalid_request));
    BOOST_TEST(r.error().text() == cluster::invalid_account_text);
  }
  // Not enforcing, anything goes.
  BOOST_TEST(bool(cluster::check_association(enforcing(false), &d, job("bob", "bio", "x"))));
}

BOOST_AUTO_TEST_CASE(enforcing_before_the_associations_are_loaded_says_so) {
  auto r = cluster::check_association(enforcing(true), nullptr, job("alice", "physics", "debug"));
  BOOST_REQUIRE(!r);
  BOOST_TEST((r.error() == errc::unreachable));
  BOOST_TEST(bool(cluster::check_association(enforcing(false), nullptr, job("a", "", "p"))));
}

BOOST_AUTO_TEST_SUITE_END()
