// Hostlist expansion and compression of 100,000 names (topology/hostlist.hpp).
//
// Two name sets, each from a fixed seed:
// - contiguous: n000000..n099999, the names of one big partition;
// - fragmented: every name of n000000..n199999 kept with probability 1/2 (about 100,000 names
//   in about 50,000 ranges), as the nodes of a busy partition's idle half.
// expand_* times expand_hostlist on the compressed form; compress_* times compress_hostlist on the
// names in config order and compress_hostlist_sorted on them shuffled (`show hostlist` and
// `show hostlistsorted`). Counter `names`: names handled per call.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "topology/hostlist.hpp"

namespace {

using shoal::topology::compress_hostlist;
using shoal::topology::compress_hostlist_sorted;
using shoal::topology::expand_hostlist;

std::vector<std::string> names_of(bool fragmented) {
  std::vector<std::string> names;
  std::mt19937 rng{20260611};
  std::bernoulli_distribution keep{0.5};
  const int end = fragmented ? 200000 : 100000;
  for (int i = 0; i < end; ++i) {
    if (fragmented && !keep(rng)) continue;
    auto digits = std::to_string(i);
    names.push_back("n" + std::string(6 - digits.size(), '0') + digits);
  }
  return names;
}

std::vector<std::string> shuffled(std::vector<std::string> names) {
  std::mt19937 rng{7};
  std::shuffle(names.begin(), names.end(), rng);
  return names;
}

void expand(benchmark::State& state, bool fragmented) {
  auto expr = compress_hostlist(names_of(fragmented));
  size_t n = 0;
  for (auto _ : state) {
    auto names = expand_hostlist(expr);
    n = names ? names->size() : 0;
    benchmark::DoNotOptimize(names);
  }
  state.counters["names"] = static_cast<double>(n);
  state.counters["expr_bytes"] = static_cast<double>(expr.size());
}

void compress_in_order(benchmark::State& state, bool fragmented) {
  auto names = names_of(fragmented);
  for (auto _ : state) benchmark::DoNotOptimize(compress_hostlist(names));
  state.counters["names"] = static_cast<double>(names.size());
}

void compress_sorted(benchmark::State& state, bool fragmented) {
  auto names = shuffled(names_of(fragmented));
  for (auto _ : state) benchmark::DoNotOptimize(compress_hostlist_sorted(names));
  state.counters["names"] = static_cast<double>(names.size());
}

void compress_sorted_presorted(benchmark::State& state, bool fragmented) {
  auto names = names_of(fragmented);
  for (auto _ : state) benchmark::DoNotOptimize(compress_hostlist_sorted(names));
  state.counters["names"] = static_cast<double>(names.size());
}

}  // namespace

BENCHMARK_CAPTURE(expand, contiguous, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(expand, fragmented, true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(compress_in_order, contiguous, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(compress_in_order, fragmented, true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(compress_sorted, contiguous_shuffled, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(compress_sorted, fragmented_shuffled, true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(compress_sorted_presorted, contiguous, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(compress_sorted_presorted, fragmented, true)->Unit(benchmark::kMillisecond);
