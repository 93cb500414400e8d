#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "topology/node_selection.hpp"

using shoal::topology::select_nodes;
using shoal::topology::selection_policy;
using indices = std::vector<size_t>;

namespace {

/// A bitmap of runs: `sizes` available runs, each followed by `gap` unavailable nodes.
std::vector<bool> runs_of(const std::vector<size_t>& sizes, size_t gap = 1) {
  std::vector<bool> bits;
  for (auto size : sizes) {
    bits.insert(bits.end(), size, true);
    bits.insert(bits.end(), gap, false);
  }
  return bits;
}

indices iota(size_t first, size_t count) {
  indices out(count);
  for (size_t k = 0; k < count; ++k) out[k] = first + k;
  return out;
}

indices concat(indices a, const indices& b) {
  a.insert(a.end(), b.begin(), b.end());
  std::sort(a.begin(), a.end());
  return a;
}

indices select_ok(selection_policy policy, const std::vector<bool>& available, size_t count,
                  const std::vector<uint32_t>& weights = {}) {
  auto picked = select_nodes(policy, available, count, weights);
  BOOST_REQUIRE(picked.has_value());
  return *picked;
}

// -- naive reference ----------------------------------------------------------------------------

/// Whether [start, start + length) is a maximal run of `ok` nodes.
bool is_maximal_run(const std::vector<bool>& ok, size_t start, size_t length) {
  if (length == 0 || start + length > ok.size()) return false;
  for (size_t k = 0; k < length; ++k)
    if (!ok[start + k]) return false;
  if (start > 0 && ok[start - 1]) return false;
  return start + length == ok.size() || !ok[start + length];
}

/// Consecutive selection by exhaustive search: the smallest maximal run that fits (earliest
/// first), else repeatedly the largest remaining run (earliest first).
indices reference_consecutive(const std::vector<bool>& ok, size_t count) {
  const auto n = ok.size();
  for (size_t length = count; length <= n; ++length)
    for (size_t start = 0; start + length <= n; ++start)
      if (is_maximal_run(ok, start, length)) return iota(start, count);
  indices chosen;
  std::set<size_t> used_starts;
  while (chosen.size() < count) {
    bool found = false;
    for (size_t length = n; length > 0 && !found; --length)
      for (size_t start = 0; start + length <= n && !found; ++start)
        if (!used_starts.count(start) && is_maximal_run(ok, start, length)) {
          used_starts.insert(start);
          chosen = concat(chosen, iota(start, std::min(length, count - chosen.size())));
          found = true;
        }
    if (!found) return {};
  }
  return chosen;
}

indices reference_linear(const std::vector<bool>& ok, size_t count) {
  indices chosen;
  for (size_t i = 0; i < ok.size() && chosen.size() < count; ++i)
    if (ok[i]) chosen.push_back(i);
  return chosen;
}

/// Slurm's weight tiers, one at a time: the lightest tier (with all lighter ones) that holds
/// the request.
std::optional<indices> reference_select(selection_policy policy, const std::vector<bool>& ok,
                                        size_t count, const std::vector<uint32_t>& weights) {
  if (count == 0) return indices{};
  std::set<uint32_t> tiers;
  for (size_t i = 0; i < ok.size(); ++i)
    if (ok[i]) tiers.insert(weights.empty() ? 0 : weights[i]);
  for (auto tier : tiers) {
    std::vector<bool> permitted(ok.size());
    size_t n = 0;
    for (size_t i = 0; i < ok.size(); ++i) {
      permitted[i] = ok[i] && (weights.empty() || weights[i] <= tier);
      n += permitted[i];
    }
    if (n < count) continue;
    return policy == selection_policy::linear ? reference_linear(permitted, count)
                                              : reference_consecutive(permitted, count);
  }
  return std::nullopt;
}

std::string describe(const std::vector<bool>& bits) {
  std::string out;
  for (auto b : bits) out += b ? '1' : '0';
  return out;
}

/// Checks the allocator invariants; returns an empty string or what went wrong.
std::string check_invariants(const std::optional<indices>& picked,
                             const std::vector<bool>& available, size_t count) {
  auto free_nodes = static_cast<size_t>(std::count(available.begin(), available.end(), true));
  if (!picked) return free_nodes < count ? "" : "nullopt although enough nodes are available";
  if (free_nodes < count) return "a selection although too few nodes are available";
  if (picked->size() != count) return "wrong count";
  if (!std::is_sorted(picked->begin(), picked->end())) return "not sorted";
  if (std::adjacent_find(picked->begin(), picked->end()) != picked->end()) return "duplicates";
  for (auto i : *picked)
    if (i >= available.size() || !available[i]) return "picked an unavailable node";
  return "";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(node_selection)

// -- examples -----------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(linear_takes_the_first_available_nodes) {
  std::vector<bool> bits{false, true, true, false, true, true, true};
  BOOST_TEST(select_ok(selection_policy::linear, bits, 3) == (indices{1, 2, 4}),
             boost::test_tools::per_element());
  BOOST_TEST(select_ok(selection_policy::linear, bits, 5) == (indices{1, 2, 4, 5, 6}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(best_fit_prefers_smallest_run) {
  // The seed's example: 16 nodes out of runs of 32 and 16 take the 16-run.
  auto bits = runs_of({32, 16});
  BOOST_TEST(select_ok(selection_policy::consecutive, bits, 16) == iota(33, 16),
             boost::test_tools::per_element());
  // Smaller requests also go to the smallest run that fits, from its start.
  BOOST_TEST(select_ok(selection_policy::consecutive, bits, 5) == iota(33, 5),
             boost::test_tools::per_element());
  BOOST_TEST(select_ok(selection_policy::consecutive, bits, 17) == iota(0, 17),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(best_fit_takes_the_earliest_of_equal_runs) {
  auto bits = runs_of({5, 3, 4, 3});
  BOOST_TEST(select_ok(selection_policy::consecutive, bits, 3) == iota(6, 3),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(best_fit_uses_the_fewest_runs_largest_first_when_none_fits) {
  // The seed's example: runs of 6, 4, 3, 3, 2, 1, 1 and a request for 10 take the 6-run and the
  // 4-run exactly.
  auto bits = runs_of({6, 4, 3, 3, 2, 1, 1});
  BOOST_TEST(select_ok(selection_policy::consecutive, bits, 10) == concat(iota(0, 6), iota(7, 4)),
             boost::test_tools::per_element());
  // The same runs in another order: the runs are found wherever they are.
  auto shuffled = runs_of({1, 3, 4, 2, 6, 1, 3});
  // Runs start at 0, 2, 6, 11, 14, 21, 23.
  BOOST_TEST(
      select_ok(selection_policy::consecutive, shuffled, 10) == concat(iota(6, 4), iota(14, 6)),
      boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(best_fit_takes_only_the_missing_nodes_of_the_last_run) {
  // 6 + 4 + first 2 of the earlier 3-run.
  auto bits = runs_of({6, 4, 3, 3, 2, 1, 1});
  BOOST_TEST(select_ok(selection_policy::consecutive, bits, 12) ==
                 concat(concat(iota(0, 6), iota(7, 4)), iota(12, 2)),
             boost::test_tools::per_element());
  // Every node.
  BOOST_TEST(select_ok(selection_policy::consecutive, bits, 20).size() == 20u);
}

BOOST_AUTO_TEST_CASE(selection_fails_when_too_few_nodes_are_available) {
  auto bits = runs_of({3, 2});
  for (auto policy : {selection_policy::linear, selection_policy::consecutive}) {
    BOOST_TEST(!select_nodes(policy, bits, 6).has_value());
    BOOST_TEST(select_nodes(policy, bits, 5).has_value());
    BOOST_TEST(!select_nodes(policy, {}, 1).has_value());
  }
}

BOOST_AUTO_TEST_CASE(selection_of_zero_nodes_is_empty) {
  for (auto policy : {selection_policy::linear, selection_policy::consecutive}) {
    auto picked = select_nodes(policy, {}, 0);
    BOOST_REQUIRE(picked.has_value());
    BOOST_TEST(picked->empty());
  }
}

// -- weights ------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(weights_use_the_lightest_nodes_first) {
  std::vector<bool> bits(6, true);
  std::vector<uint32_t> weights{5, 1, 5, 1, 9, 1};
  BOOST_TEST(select_ok(selection_policy::linear, bits, 2, weights) == (indices{1, 3}),
             boost::test_tools::per_element());
  BOOST_TEST(select_ok(selection_policy::linear, bits, 3, weights) == (indices{1, 3, 5}),
             boost::test_tools::per_element());
  // The light tier cannot hold 4, so weight 5 joins and linear takes the first four of those.
  BOOST_TEST(select_ok(selection_policy::linear, bits, 4, weights) == (indices{0, 1, 2, 3}),
             boost::test_tools::per_element());
  BOOST_TEST(select_ok(selection_policy::linear, bits, 6, weights) == iota(0, 6),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(weights_ignore_unavailable_light_nodes) {
  std::vector<bool> bits{false, true, true, false, true};
  std::vector<uint32_t> weights{1, 7, 3, 1, 3};
  BOOST_TEST(select_ok(selection_policy::linear, bits, 2, weights) == (indices{2, 4}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(weights_apply_best_fit_within_the_permitted_tier) {
  // Nodes 0-3 weigh 2, nodes 4-9 weigh 1: a request for 3 stays in the light 4..9 run; with the
  // light run broken at 6, the smallest light run that fits is 7..9.
  std::vector<bool> bits(10, true);
  std::vector<uint32_t> weights{2, 2, 2, 2, 1, 1, 1, 1, 1, 1};
  BOOST_TEST(select_ok(selection_policy::consecutive, bits, 3, weights) == iota(4, 3),
             boost::test_tools::per_element());
  bits[6] = false;
  BOOST_TEST(select_ok(selection_policy::consecutive, bits, 3, weights) == iota(7, 3),
             boost::test_tools::per_element());
  // 6 nodes: the light tier has only 5, so weight 2 joins and the 0..5 run fits.
  BOOST_TEST(select_ok(selection_policy::consecutive, bits, 6, weights) == iota(0, 6),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(weights_of_the_wrong_length_are_a_caller_bug) {
  std::vector<bool> bits(3, true);
  BOOST_CHECK_THROW(select_nodes(selection_policy::linear, bits, 1, {1, 2}), std::invalid_argument);
}

// -- properties ---------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(random_selections_keep_the_allocator_invariants) {
  const uint32_t seed = 99;
  std::mt19937 rng{seed};
  std::uniform_int_distribution<size_t> size_dist{0, 200};
  std::uniform_real_distribution<double> density_dist{0.0, 1.0};
  std::uniform_int_distribution<uint32_t> weight_dist{0, 4};
  for (int round = 0; round < 3000; ++round) {
    auto n = size_dist(rng);
    auto density = density_dist(rng);
    std::bernoulli_distribution bit{density};
    std::vector<bool> bits(n);
    for (size_t i = 0; i < n; ++i) bits[i] = bit(rng);
    std::vector<uint32_t> weights;
    if (round % 2 == 1)
      for (size_t i = 0; i < n; ++i) weights.push_back(weight_dist(rng));
    std::uniform_int_distribution<size_t> count_dist{0, n + 2};
    auto count = count_dist(rng);
    for (auto policy : {selection_policy::linear, selection_policy::consecutive}) {
      auto picked = select_nodes(policy, bits, count, weights);
      auto problem = check_invariants(picked, bits, count);
      BOOST_CHECK_MESSAGE(problem.empty(), "seed " << seed << " round " << round << ": " << problem
                                                   << " for " << count << " of " << describe(bits));
      // Alloc then free restores the map.
      if (picked) {
        auto after = bits;
        for (auto i : *picked) after[i] = false;
        for (auto i : *picked) after[i] = true;
        BOOST_CHECK_MESSAGE(after == bits, "seed " << seed << " round " << round);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(selection_matches_the_naive_reference_on_small_inputs) {
  const uint32_t seed = 2002;
  std::mt19937 rng{seed};
  std::uniform_int_distribution<size_t> size_dist{0, 24};
  std::uniform_int_distribution<uint32_t> weight_dist{1, 3};
  std::bernoulli_distribution bit{0.65};
  for (int round = 0; round < 5000; ++round) {
    auto n = size_dist(rng);
    std::vector<bool> bits(n);
    for (size_t i = 0; i < n; ++i) bits[i] = bit(rng);
    std::vector<uint32_t> weights;
    if (round % 3 == 2)
      for (size_t i = 0; i < n; ++i) weights.push_back(weight_dist(rng));
    std::uniform_int_distribution<size_t> count_dist{0, n + 1};
    auto count = count_dist(rng);
    for (auto policy : {selection_policy::linear, selection_policy::consecutive}) {
      auto expected = reference_select(policy, bits, count, weights);
      auto picked = select_nodes(policy, bits, count, weights);
      BOOST_CHECK_MESSAGE(picked == expected, "seed " << seed << " round " << round << " policy "
                                                      << static_cast<int>(policy) << ": " << count
                                                      << " of " << describe(bits));
    }
  }
}

BOOST_AUTO_TEST_CASE(selection_scales_to_one_hundred_thousand_nodes) {
  // Many runs and as many weight tiers as nodes: a per-tier or per-run quadratic pass would not
  // finish within the test timeout.
  const uint32_t seed = 100000;
  std::mt19937 rng{seed};
  const size_t n = 100000;
  std::bernoulli_distribution bit{0.7};
  std::vector<bool> bits(n);
  for (size_t i = 0; i < n; ++i) bits[i] = bit(rng);
  std::vector<uint32_t> weights(n);
  for (size_t i = 0; i < n; ++i) weights[i] = static_cast<uint32_t>(i * 7919 % n);
  const std::vector<uint32_t> no_weights;
  auto free_nodes = static_cast<size_t>(std::count(bits.begin(), bits.end(), true));
  for (auto count : {size_t{1}, size_t{20}, size_t{5000}, free_nodes / 2, free_nodes}) {
    for (auto policy : {selection_policy::linear, selection_policy::consecutive}) {
      for (bool weighted : {true, false}) {
        auto picked = select_nodes(policy, bits, count, weighted ? weights : no_weights);
        auto problem = check_invariants(picked, bits, count);
        BOOST_CHECK_MESSAGE(problem.empty(),
                            "seed " << seed << " count " << count << ": " << problem);
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
