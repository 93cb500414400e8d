#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "messages/errc.hpp"
#include "policy/array_spec.hpp"

using namespace shoal::policy;

namespace {

std::string why(const shoal::expected<array_spec>& r) {
  return r ? "" : shoal::describe(r.error());
}

array_spec parse_ok(const std::string& text, uint32_t max = 1001) {
  auto r = parse_array_spec(text, max);
  BOOST_REQUIRE_MESSAGE(r, "--array=" << text << " failed: " << why(r));
  return std::move(*r);
}

std::string parse_error(const std::string& text, uint32_t max = 1001) {
  auto r = parse_array_spec(text, max);
  BOOST_REQUIRE_MESSAGE(!r, "--array=" << text << " should fail");
  return shoal::describe(r.error());
}

std::vector<uint32_t> expand(index_set s) {
  std::vector<uint32_t> out;
  while (auto i = s.take_first()) out.push_back(*i);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(array_specs)

BOOST_AUTO_TEST_CASE(a_range_with_a_throttle_folds_back_as_squeue_prints_it) {
  auto spec = parse_ok("1-1000%50");
  BOOST_TEST(spec.indices.count() == 1000u);
  BOOST_TEST(spec.max_running == 50u);
  BOOST_TEST(spec.indices.run_count() == 1u);
  BOOST_TEST(folded_tasks(spec.indices, spec.max_running) == "[1-1000%50]");
  for (int i = 0; i < 4; ++i) spec.indices.take_first();
  BOOST_TEST(folded_tasks(spec.indices, spec.max_running) == "[5-1000%50]");
}

BOOST_AUTO_TEST_CASE(steps_lists_and_combinations_parse_to_the_right_indices) {
  BOOST_TEST(expand(parse_ok("1-9:2").indices) == (std::vector<uint32_t>{1, 3, 5, 7, 9}));
  BOOST_TEST(expand(parse_ok("1-10:3").indices) == (std::vector<uint32_t>{1, 4, 7, 10}));
  BOOST_TEST(expand(parse_ok("1-11:3").indices) == (std::vector<uint32_t>{1, 4, 7, 10}));
  BOOST_TEST(expand(parse_ok("1,3,5-7").indices) == (std::vector<uint32_t>{1, 3, 5, 6, 7}));
  BOOST_TEST(parse_ok("1,3,5-7").indices.to_string() == "1,3,5-7");
  BOOST_TEST(parse_ok("1-99:2").indices.to_string() == "1-99:2");
  BOOST_TEST(parse_ok("0-4,5-9").indices.to_string() == "0-9");
  BOOST_TEST(parse_ok("5-9,0-4").indices.to_string() == "0-9");
  BOOST_TEST(parse_ok("1-10,4-20:2").indices.to_string() == "1-10,12-20:2");
  BOOST_TEST(parse_ok("1-99:2,2-98:2").indices.to_string() == "1-99");
  auto combo = parse_ok("0-9:3,20,30-32%2");
  BOOST_TEST(expand(combo.indices) == (std::vector<uint32_t>{0, 3, 6, 9, 20, 30, 31, 32}));
  BOOST_TEST(combo.max_running == 2u);
  BOOST_TEST(folded_tasks(combo.indices, 2) == "[0-9:3,20,30-32%2]");
}

BOOST_AUTO_TEST_CASE(errors_name_the_column_and_the_limit) {
  BOOST_TEST(parse_error("") == "--array: column 1: empty value; expected e.g. 1-10 or 1,3,5-7%2");
  BOOST_TEST(parse_error("1-x").find("column 3: expected the last index") != std::string::npos);
  BOOST_TEST(parse_error("9-3").find("column 3: range 9-3 ends before it starts") !=
             std::string::npos);
  BOOST_TEST(parse_error("1-9:0").find("column 5: the step must be at least 1") !=
             std::string::npos);
  BOOST_TEST(parse_error("1,1001").find("column 3: index 1001 is not below MaxArraySize=1001") !=
             std::string::npos);
  BOOST_TEST(parse_error("1-5%0").find("%0 would never run") != std::string::npos);
  BOOST_TEST(parse_error("1-5x").find("column 4: unexpected 'x'") != std::string::npos);
  BOOST_TEST(parse_error("1,,2").find("column 3: expected a task index") != std::string::npos);
  BOOST_TEST(parse_error("1-5%2,7").find("column 6: unexpected ','") != std::string::npos);
  BOOST_TEST(parse_ok("1000").indices.count() == 1u);
}

BOOST_AUTO_TEST_CASE(cancelling_one_task_or_a_range_cuts_runs) {
  auto s = parse_ok("1-99:2").indices;
  BOOST_TEST(s.erase(51));
  BOOST_TEST(!s.erase(52));
  BOOST_TEST(s.to_string() == "1-49:2,53-99:2");
  BOOST_TEST(s.erase(10, 60) == 24u);
  BOOST_TEST(s.to_string() == "1-9:2,61-99:2");
  BOOST_TEST(s.count() == 25u);
  BOOST_TEST(s.erase(0, 1000) == 25u);
  BOOST_TEST(s.empty());
  BOOST_TEST(folded_tasks(s, 5) == "");
}

BOOST_AUTO_TEST_CASE(a_hundred_thousand_pending_tasks_cost_bytes) {
  auto spec = parse_ok("0-99999%50", 100001);
  BOOST_TEST(spec.indices.count() == 100000u);
  BOOST_TEST(spec.indices.heap_bytes() <= 64u);
  for (int i = 0; i < 1000; ++i) spec.indices.take_first();
  BOOST_TEST(spec.indices.count() == 99000u);
  BOOST_TEST(spec.indices.heap_bytes() <= 64u);
  BOOST_TEST(spec.indices.to_string() == "1000-99999");
}

BOOST_AUTO_TEST_CASE(random_specs_round_trip_through_the_folded_form) {
  std::mt19937 rng(20261122);
  for (int round = 0; round < 2000; ++round) {
    std::set<uint32_t> truth;
    std::string text;
    int items = 1 + int(rng() % 5);
    for (int k = 0; k < items; ++k) {
      uint32_t a = rng() % 200;
      if (!text.empty()) text += ',';
      switch (rng() % 3) {
        case 0:
          text += std::to_string(a);
          truth.insert(a);
          break;
        case 1: {
          uint32_t b = a + rng() % 30;
          text += std::to_string(a) + "-" + std::to_string(b);
          for (uint32_t i = a; i <= b; ++i) truth.insert(i);
          break;
        }
        default: {
          uint32_t b = a + rng() % 60;
          uint32_t step = 1 + rng() % 7;
          text += std::to_string(a) + "-" + std::to_string(b) + ":" + std::to_string(step);
          for (uint32_t i = a; i <= b; i += step) truth.insert(i);
        }
      }
    }
    auto spec = parse_ok(text, 1000);
    BOOST_TEST_INFO("seed 20261122 round " << round << " --array=" << text);
    BOOST_TEST(spec.indices.count() == truth.size());
    auto rendered = spec.indices.to_string();
    auto again = parse_ok(rendered, 1000);
    BOOST_TEST(again.indices.to_string() == rendered);
    BOOST_TEST(expand(again.indices) == std::vector<uint32_t>(truth.begin(), truth.end()));
    // Random cancels keep the set equal to the reference.
    uint32_t lo = rng() % 200;
    uint32_t hi = lo + rng() % 40;
    uint64_t removed = 0;
    for (auto it = truth.lower_bound(lo); it != truth.end() && *it <= hi;) {
      it = truth.erase(it);
      ++removed;
    }
    BOOST_TEST(spec.indices.erase(lo, hi) == removed);
    BOOST_TEST(expand(spec.indices) == std::vector<uint32_t>(truth.begin(), truth.end()));
  }
}

BOOST_AUTO_TEST_CASE(the_throttle_allows_tasks_below_the_cap_only) {
  BOOST_TEST(may_start_task(0, 1000));
  BOOST_TEST(may_start_task(2, 1));
  BOOST_TEST(!may_start_task(2, 2));
}

BOOST_AUTO_TEST_SUITE_END()
