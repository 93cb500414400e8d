// Slurm's classic fair-share (policy/fairshare.hpp): decayed usage, normalised shares and usage
// down the tree, effective usage and the factor 2^(-EffectvUsage/NormShares).

#include <boost/test/unit_test.hpp>

#include <cmath>

#include "policy/fairshare.hpp"

using namespace shoal::policy;

namespace {

std::vector<share_input> tree() {
  return {{"root", "", "", 1},          {"physics", "", "root", 1},
          {"chem", "", "root", 1},      {"physics", "heavy", "physics", 1},
          {"chem", "light", "chem", 1}, {"chem", "idle", "chem", 1}};
}

const share_row& row(const std::vector<share_row>& rows, const std::string& account,
                     const std::string& user = "") {
  for (auto& r : rows)
    if (r.account == account && r.user == user) return r;
  BOOST_FAIL("no row " << account << "/" << user);
  return rows.front();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(fairshare)

BOOST_AUTO_TEST_CASE(usage_halves_every_half_life) {
  usage_ledger ledger{100};
  ledger.charge({"a", "x"}, 100, 1000);
  ledger.decay_to(1100);
  BOOST_TEST(ledger.usage().at({"a", "x"}) == 50.0, boost::test_tools::tolerance(1e-9));
  ledger.charge({"a", "x"}, 10, 1200);
  BOOST_TEST(ledger.usage().at({"a", "x"}) == 35.0, boost::test_tools::tolerance(1e-9));
  usage_ledger forever{0};
  forever.charge({"a", "x"}, 100, 1000);
  forever.decay_to(99999);
  BOOST_TEST(forever.usage().at({"a", "x"}) == 100.0);
}

BOOST_AUTO_TEST_CASE(the_heavy_user_gets_the_smaller_factor) {
  auto rows = compute_shares(tree(), {{{"heavy", "physics"}, 300.0}, {{"light", "chem"}, 100.0}});
  auto tol = boost::test_tools::tolerance(1e-6);
  BOOST_TEST(row(rows, "root").raw_usage == 400.0, tol);
  auto& physics = row(rows, "physics");
  BOOST_TEST(physics.norm_shares == 0.5, tol);
  BOOST_TEST(physics.norm_usage == 0.75, tol);
  BOOST_TEST(physics.effective_usage == 0.75, tol);  // under root: its own
  BOOST_TEST(physics.fairshare == std::pow(2.0, -1.5), tol);
  auto& heavy = row(rows, "physics", "heavy");
  BOOST_TEST(heavy.norm_shares == 0.5, tol);
  BOOST_TEST(heavy.effective_usage == 0.75, tol);
  auto& light = row(rows, "chem", "light");
  BOOST_TEST(light.norm_shares == 0.25, tol);
  // 0.25 + (0.25 - 0.25) * 1/2
  BOOST_TEST(light.effective_usage == 0.25, tol);
  BOOST_TEST(light.fairshare == std::pow(2.0, -1.0), tol);
  auto& idle = row(rows, "chem", "idle");
  // 0 + (0.25 - 0) * 1/2: a user who ran nothing still carries part of the account's usage.
  BOOST_TEST(idle.effective_usage == 0.125, tol);
  BOOST_TEST(idle.fairshare == std::pow(2.0, -0.5), tol);
  BOOST_TEST(heavy.fairshare < light.fairshare);
}

BOOST_AUTO_TEST_CASE(rows_come_in_sshares_order_with_depths) {
  auto rows = compute_shares(tree(), {});
  std::vector<std::string> got;
  for (auto& r : rows) got.push_back(std::to_string(r.depth) + r.account + "/" + r.user);
  BOOST_TEST(got == (std::vector<std::string>{"0root/", "1chem/", "2chem/idle", "2chem/light",
                                              "1physics/", "2physics/heavy"}),
             boost::test_tools::per_element());
  // No usage anywhere: every factor is 1.
  for (auto& r : rows) BOOST_TEST(r.fairshare == 1.0);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(fairshare_resets)

// 2026-03-18 (a Wednesday) 15:30:00 UTC.
constexpr int64_t wednesday = 1773847800;

BOOST_AUTO_TEST_CASE(periods_start_at_the_day_week_month_quarter_and_year) {
  BOOST_TEST(period_start(reset_period::none, wednesday) == 0);
  BOOST_TEST(period_start(reset_period::now, wednesday) == 0);
  BOOST_TEST(period_start(reset_period::daily, wednesday) == 1773792000);      // 03-18 00:00
  BOOST_TEST(period_start(reset_period::weekly, wednesday) == 1773619200);     // Mon 03-16
  BOOST_TEST(period_start(reset_period::monthly, wednesday) == 1772323200);    // 03-01
  BOOST_TEST(period_start(reset_period::quarterly, wednesday) == 1767225600);  // 01-01
  BOOST_TEST(period_start(reset_period::yearly, wednesday) == 1767225600);     // 01-01
  // Local time: two hours east of UTC, the day starts two hours earlier in UTC.
  BOOST_TEST(period_start(reset_period::daily, wednesday, 7200) == 1773792000 - 7200);
  // A day's first second is its own boundary.
  BOOST_TEST(period_start(reset_period::daily, 1773792000) == 1773792000);
}

BOOST_AUTO_TEST_CASE(a_reset_is_due_once_a_boundary_passed_since_the_last) {
  // Started on Wednesday: not due until the next day begins.
  BOOST_TEST(!reset_due(reset_period::daily, 0, wednesday, wednesday + 3600));
  BOOST_TEST(reset_due(reset_period::daily, 0, wednesday, wednesday + 9 * 3600));
  // Wiped at Thursday's start: due again on Friday.
  int64_t thursday = 1773878400;
  BOOST_TEST(!reset_due(reset_period::daily, thursday, wednesday, thursday + 86399));
  BOOST_TEST(reset_due(reset_period::daily, thursday, wednesday, thursday + 86400));
  BOOST_TEST(!reset_due(reset_period::none, 0, 0, wednesday));
  BOOST_TEST(!reset_due(reset_period::now, 0, 0, wednesday));
}

BOOST_AUTO_TEST_CASE(a_ledger_restored_and_reset_keeps_its_times) {
  usage_ledger ledger{100};
  ledger.restore({{{"a", "x"}, 80.0}}, 1000, 500);
  BOOST_TEST(ledger.at() == 1000);
  BOOST_TEST(ledger.reset_at() == 500);
  ledger.decay_to(1100);
  BOOST_TEST(ledger.usage().at({"a", "x"}) == 40.0, boost::test_tools::tolerance(1e-9));
  ledger.reset(1200);
  BOOST_TEST(ledger.usage().empty());
  BOOST_TEST(ledger.reset_at() == 1200);
}

BOOST_AUTO_TEST_CASE(a_job_without_qos_takes_its_associations_default_then_normal) {
  priority_shares s;
  s.qos = {{"normal", 0.5}, {"high", 1.0}};
  s.default_qos[{"alice", "physics"}] = "high";
  BOOST_TEST(s.qos_of("alice", "physics", "") == 1.0);
  BOOST_TEST(s.qos_of("bob", "physics", "") == 0.5);
  BOOST_TEST(s.qos_of("alice", "physics", "normal") == 0.5);
  BOOST_TEST(s.qos_of("alice", "physics", "unknown") == 0.0);
  BOOST_TEST(s.fairshare_of("nobody", "physics") == 0.0);
}

BOOST_AUTO_TEST_SUITE_END()
