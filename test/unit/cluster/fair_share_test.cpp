// The scheduler's fair-share book (cluster/fair_share.hpp): the store's associations as the
// fair-share tree, usage charged to a user and account, the factors the priority reads, and the
// ledger's saved record.

#include <boost/test/unit_test.hpp>

#include "accounting/associations.hpp"
#include "cluster/fair_share.hpp"

using namespace shoal;

namespace {

/// Two accounts under root with equal shares, a user in each.
msg::association_data two_accounts() {
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
  add("account", "acct_a", {"fairshare=10"});
  add("account", "acct_b", {"fairshare=10"});
  add("user", "alice", {"account=acct_a"});
  add("user", "bob", {"account=acct_b"});
  add("user", "bob", {"account=acct_b", "partition=gpu"});  // adds no second line to the tree
  return d;
}

const policy::share_row* row(const std::vector<policy::share_row>& rows, const std::string& account,
                             const std::string& user) {
  for (auto& r : rows)
    if (r.account == account && r.user == user) return &r;
  return nullptr;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(fair_share_book_suite)

BOOST_AUTO_TEST_CASE(the_tree_comes_from_one_clusters_associations) {
  auto d = two_accounts();
  auto inputs = cluster::share_inputs(d, "c1");
  size_t bobs = 0;
  for (auto& in : inputs)
    if (in.user == "bob") ++bobs;
  BOOST_TEST(bobs == 1u);
  BOOST_TEST(cluster::share_inputs(d, "other").empty());
}

BOOST_AUTO_TEST_CASE(usage_lowers_its_users_factor_and_nobody_elses) {
  config::scheduler_settings settings;
  cluster::fair_share_book book{settings, "c1", 1000};
  BOOST_TEST(book.shares() == nullptr);  // no associations yet
  book.set_associations(two_accounts());
  auto before = book.shares();
  BOOST_REQUIRE(before != nullptr);
  BOOST_TEST(before->fairshare_of("alice", "acct_a") == 1.0);
  BOOST_TEST(before->fairshare_of("bob", "acct_b") == 1.0);
  BOOST_TEST(!book.charge("alice", "acct_a", 0, 1100));  // nothing to charge
  BOOST_TEST(book.charge("alice", "acct_a", 600, 1100));
  auto after = book.shares();
  BOOST_TEST(after->fairshare_of("alice", "acct_a") < after->fairshare_of("bob", "acct_b"));
  BOOST_TEST(after->fairshare_of("bob", "acct_b") == 1.0);
  auto rows = book.rows(1100);
  auto* alice = row(rows, "acct_a", "alice");
  auto* bob = row(rows, "acct_b", "bob");
  BOOST_REQUIRE(alice != nullptr);
  BOOST_REQUIRE(bob != nullptr);
  BOOST_TEST(alice->raw_usage == 600.0);
  BOOST_TEST(bob->raw_usage == 0.0);
  BOOST_TEST(alice->fairshare < bob->fairshare);
}

BOOST_AUTO_TEST_CASE(the_saved_ledger_gives_a_new_book_the_same_usage) {
  config::scheduler_settings settings;
  settings.decay_half_life_s = 0;  // no decay: the figures compare exactly
  cluster::fair_share_book book{settings, "c1", 1000};
  book.set_associations(two_accounts());
  book.charge("alice", "acct_a", 600, 1100);
  auto rec = book.record();
  BOOST_REQUIRE(rec.entries.size() == 1u);
  BOOST_TEST(rec.entries[0].user == "alice");
  BOOST_TEST(rec.entries[0].account == "acct_a");
  BOOST_TEST(rec.entries[0].cpu_seconds == 600.0);
  BOOST_TEST(rec.at == 1100);
  cluster::fair_share_book again{settings, "c1", 5000, rec};
  again.set_associations(two_accounts());
  BOOST_TEST(row(again.rows(5000), "acct_a", "alice")->raw_usage == 600.0);
  // PriorityUsageResetPeriod=NOW: a restart starts from zero.
  settings.usage_reset_period = config::usage_reset::now;
  cluster::fair_share_book wiped{settings, "c1", 5000, rec};
  wiped.set_associations(two_accounts());
  BOOST_TEST(row(wiped.rows(5000), "acct_a", "alice")->raw_usage == 0.0);
}

BOOST_AUTO_TEST_CASE(a_daily_reset_wipes_the_usage_at_the_next_day) {
  config::scheduler_settings settings;
  settings.usage_reset_period = config::usage_reset::daily;
  int64_t noon = 1773835200;  // 2026-03-18 12:00 UTC
  cluster::fair_share_book book{settings, "c1", noon};
  book.set_associations(two_accounts());
  book.charge("alice", "acct_a", 600, noon + 60);
  BOOST_TEST(!book.tick(noon + 3600));
  BOOST_TEST(row(book.rows(noon + 3600), "acct_a", "alice")->raw_usage > 0.0);
  BOOST_TEST(book.tick(noon + 13 * 3600));
  BOOST_TEST(row(book.rows(noon + 13 * 3600), "acct_a", "alice")->raw_usage == 0.0);
  BOOST_TEST(!book.tick(noon + 14 * 3600));
}

BOOST_AUTO_TEST_CASE(qos_priorities_are_normalised_by_the_largest) {
  auto d = two_accounts();
  msg::qos_info high;
  high.name = "high";
  high.priority = 100;
  d.qos.push_back(high);
  for (auto& q : d.qos)
    if (q.name == "normal") q.priority = 25;
  auto shares = cluster::priority_shares_of(d, "c1", {});
  BOOST_TEST(shares.qos.at("high") == 1.0);
  BOOST_TEST(shares.qos.at("normal") == 0.25);
}

BOOST_AUTO_TEST_CASE(a_qos_usage_factor_scales_what_its_jobs_are_charged) {
  config::scheduler_settings settings;
  cluster::fair_share_book book{settings, "c1", 1000};
  BOOST_TEST(book.usage_factor("alice", "acct_a", "") == 1.0);  // no associations yet
  auto d = two_accounts();
  msg::qos_info cheap;
  cheap.name = "scavenger";
  cheap.usage_factor = 0.5;
  msg::qos_info free;
  free.name = "free";
  free.usage_factor = 0;
  d.qos.push_back(cheap);
  d.qos.push_back(free);
  for (auto& a : d.associations)
    if (a.user == "bob") a.default_qos = "scavenger";
  book.set_associations(d);
  BOOST_TEST(book.usage_factor("alice", "acct_a", "") == 1.0);  // normal
  BOOST_TEST(book.usage_factor("alice", "acct_a", "scavenger") == 0.5);
  BOOST_TEST(book.usage_factor("bob", "acct_b", "") == 0.5);  // his DefaultQOS
  BOOST_TEST(book.usage_factor("alice", "acct_a", "free") == 0.0);
  BOOST_TEST(book.usage_factor("alice", "acct_a", "unknown") == 1.0);
}

BOOST_AUTO_TEST_SUITE_END()
