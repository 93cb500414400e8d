#include <boost/test/unit_test.hpp>

#include <map>
#include <string>
#include <utility>

#include "messages/errc.hpp"
#include "policy/dependency.hpp"

using namespace shoal::policy;

namespace {

std::string why(const shoal::expected<dependency>& r) {
  return r ? "" : shoal::describe(r.error());
}

dependency parse_ok(const std::string& text) {
  auto r = parse_dependency(text);
  BOOST_REQUIRE_MESSAGE(r, "--dependency=" << text << " failed: " << why(r));
  return std::move(*r);
}

std::string parse_error(const std::string& text) {
  auto r = parse_dependency(text);
  BOOST_REQUIRE_MESSAGE(!r, "--dependency=" << text << " should fail");
  return shoal::describe(r.error());
}

enum class st { pending, running, ok, failed };

/// A controller's job table reduced to what dependencies read: one state per job or array
/// task, with the time each left pending. Whole arrays aggregate their tasks.
struct job_table {
  std::map<std::pair<uint64_t, int64_t>, std::pair<st, int64_t>> jobs;  // (id, task or -1)
  bool singleton_busy = false;

  void set(uint64_t id, st s, int64_t at = 0, int64_t task = -1) { jobs[{id, task}] = {s, at}; }

  job_outcome outcome(uint64_t id, std::optional<uint32_t> task) const {
    job_outcome o;
    for (const auto& [key, value] : jobs) {
      if (key.first != id) continue;
      if (task && key.second != int64_t(*task)) continue;
      o.known = true;
      switch (value.first) {
        case st::pending:
          ++o.pending;
          break;
        case st::running:
          ++o.running;
          break;
        case st::ok:
          ++o.succeeded;
          break;
        case st::failed:
          ++o.failed;
          break;
      }
      if (value.first != st::pending) o.left_pending_at = std::max(o.left_pending_at, value.second);
    }
    return o;
  }

  dependency_view view() const {
    return {[this](uint64_t id, std::optional<uint32_t> t) { return outcome(id, t); },
            [this] { return singleton_busy; }};
  }
};

dependency_state eval(const std::string& text, const job_table& t, int64_t now = 0,
                      std::optional<uint32_t> self = std::nullopt) {
  return evaluate(parse_ok(text), t.view(), now, self);
}

constexpr auto sat = dependency_state::satisfied;
constexpr auto wait = dependency_state::waiting;
constexpr auto never = dependency_state::never_satisfiable;

}  // namespace

BOOST_AUTO_TEST_SUITE(dependencies)

BOOST_AUTO_TEST_CASE(every_form_parses_and_prints_canonically) {
  BOOST_TEST(to_string(parse_ok("afterok:12:13_2")) == "afterok:12,afterok:13_2");
  BOOST_TEST(parse_ok("afterok:12:13_2").terms.size() == 2u);
  BOOST_TEST(to_string(parse_ok("after:5+10,singleton")) == "after:5+10,singleton");
  BOOST_TEST(to_string(parse_ok("afterany:1?afternotok:2")) == "afterany:1?afternotok:2");
  BOOST_TEST(to_string(parse_ok("42")) == "afterany:42");
  BOOST_TEST(to_string(parse_ok("aftercorr:7")) == "aftercorr:7");
  BOOST_TEST(parse_ok("afterany:1?afternotok:2").any_of);
}

BOOST_AUTO_TEST_CASE(mixing_all_of_and_any_of_is_refused_with_the_column) {
  BOOST_TEST(parse_error("afterok:1,afterok:2?afterok:3") ==
             "--dependency: column 20: ',' (all of) and '?' (any of) cannot be mixed; use one "
             "of them");
  BOOST_TEST(parse_error("afterok").find("column 8: expected ':'") != std::string::npos);
  BOOST_TEST(parse_error("afterfoo:1").find("unknown dependency type 'afterfoo'") !=
             std::string::npos);
  BOOST_TEST(parse_error("afterok:1+5").find("column 10: +MINUTES applies to 'after' only") !=
             std::string::npos);
  BOOST_TEST(parse_error("afterok:x").find("column 9: expected a job ID") != std::string::npos);
  BOOST_TEST(parse_error("afterok:0").find("job ID 0") != std::string::npos);
  BOOST_TEST(parse_error("").find("column 1") != std::string::npos);
  BOOST_TEST(parse_error("afterok:1;").find("column 10: unexpected ';'") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(after_waits_for_the_start_plus_minutes) {
  job_table t;
  t.set(1, st::pending);
  BOOST_TEST((eval("after:1", t) == wait));
  t.set(1, st::running, 100);
  BOOST_TEST((eval("after:1", t, 100) == sat));
  BOOST_TEST((eval("after:1+2", t, 219) == wait));
  BOOST_TEST((eval("after:1+2", t, 220) == sat));
  t.set(1, st::failed, 100);  // cancelled while pending counts as having left pending
  BOOST_TEST((eval("after:1", t, 100) == sat));
}

BOOST_AUTO_TEST_CASE(afterok_afternotok_and_afterany_follow_the_end_state) {
  job_table t;
  t.set(1, st::running, 0);
  BOOST_TEST((eval("afterok:1", t) == wait));
  BOOST_TEST((eval("afternotok:1", t) == wait));
  BOOST_TEST((eval("afterany:1", t) == wait));
  t.set(1, st::ok, 0);
  BOOST_TEST((eval("afterok:1", t) == sat));
  BOOST_TEST((eval("afternotok:1", t) == never));
  BOOST_TEST((eval("afterany:1", t) == sat));
  t.set(1, st::failed, 0);
  BOOST_TEST((eval("afterok:1", t) == never));
  BOOST_TEST((eval("afternotok:1", t) == sat));
  BOOST_TEST((eval("afterany:1", t) == sat));
  BOOST_TEST(dependency_reason(never) == std::string{"DependencyNeverSatisfied"});
  BOOST_TEST(dependency_reason(wait) == std::string{"Dependency"});
}

BOOST_AUTO_TEST_CASE(all_of_and_any_of_combine_as_slurm_does) {
  job_table t;
  t.set(1, st::ok, 0);
  t.set(2, st::running, 0);
  t.set(3, st::failed, 0);
  BOOST_TEST((eval("afterok:1,afterok:2", t) == wait));
  BOOST_TEST((eval("afterok:1:2", t) == wait));
  BOOST_TEST((eval("afterok:1,afterok:3", t) == never));
  BOOST_TEST((eval("afterok:2?afterok:1", t) == sat));
  BOOST_TEST((eval("afterok:2?afterok:3", t) == wait));
  BOOST_TEST((eval("afterok:3?afternotok:1", t) == never));
  BOOST_TEST((eval("afterok:1,afterany:3", t) == sat));
}

BOOST_AUTO_TEST_CASE(array_targets_mean_one_task_or_all_of_them) {
  job_table t;
  t.set(9, st::ok, 0, 0);
  t.set(9, st::running, 0, 1);
  t.set(9, st::pending, 0, 2);
  BOOST_TEST((eval("afterok:9_0", t) == sat));
  BOOST_TEST((eval("afterok:9", t) == wait));
  BOOST_TEST((eval("after:9_1", t) == sat));
  BOOST_TEST((eval("after:9", t) == wait));
  BOOST_TEST((eval("aftercorr:9", t, 0, 0u) == sat));
  BOOST_TEST((eval("aftercorr:9", t, 0, 1u) == wait));
  t.set(9, st::failed, 0, 1);
  BOOST_TEST((eval("afterok:9", t) == never));
  BOOST_TEST((eval("aftercorr:9", t, 0, 1u) == never));
  BOOST_TEST((eval("aftercorr:9", t, 0, 2u) == wait));
  BOOST_TEST((eval("afternotok:9", t) == wait));  // task 2 has not ended yet
  t.set(9, st::ok, 0, 2);
  BOOST_TEST((eval("afternotok:9", t) == sat));
  BOOST_TEST((eval("afterany:9", t) == sat));
}

BOOST_AUTO_TEST_CASE(singleton_waits_while_another_of_the_same_name_and_user_is_ahead) {
  job_table t;
  t.singleton_busy = true;
  BOOST_TEST((eval("singleton", t) == wait));
  t.singleton_busy = false;
  BOOST_TEST((eval("singleton", t) == sat));
}

BOOST_AUTO_TEST_CASE(a_target_that_is_gone_no_longer_holds_the_job_back) {
  job_table t;
  BOOST_TEST((eval("afterok:77", t) == sat));
  auto unknown = unknown_targets(parse_ok("afterok:77:1,singleton"), t.view());
  BOOST_TEST(unknown.size() == 2u);
  t.set(1, st::pending);
  BOOST_TEST(unknown_targets(parse_ok("afterok:77:1,singleton"), t.view()).size() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
