// select_nodes (topology/node_selection.hpp), linear and consecutive, over 100,000 nodes of which
// half are available at random (fixed seed: runs of every length, the worst fragmentation for
// the run search), without weights and with random weights 1..4 (four tiers). Request sizes 1,
// 64, 4096 and 40,000 (the last fits no run: the largest-runs-first path). Each iteration is one
// selection decision. Counter `picked`: nodes chosen.

#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "topology/node_selection.hpp"

namespace {

using shoal::topology::select_nodes;
using shoal::topology::selection_policy;

constexpr size_t node_count = 100000;

const std::vector<bool>& half_available() {
  static const std::vector<bool> bits = [] {
    std::vector<bool> b(node_count);
    std::mt19937 rng{424242};
    std::bernoulli_distribution available{0.5};
    for (size_t i = 0; i < node_count; ++i) b[i] = available(rng);
    return b;
  }();
  return bits;
}

const std::vector<uint32_t>& random_weights() {
  static const std::vector<uint32_t> weights = [] {
    std::vector<uint32_t> w(node_count);
    std::mt19937 rng{99};
    std::uniform_int_distribution<uint32_t> weight{1, 4};
    for (auto& x : w) x = weight(rng);
    return w;
  }();
  return weights;
}

void select(benchmark::State& state, selection_policy policy, bool weighted) {
  const auto& bits = half_available();
  const std::vector<uint32_t> none;
  const auto& weights = weighted ? random_weights() : none;
  auto count = static_cast<size_t>(state.range(0));
  size_t picked = 0;
  for (auto _ : state) {
    auto chosen = select_nodes(policy, bits, count, weights);
    picked = chosen ? chosen->size() : 0;
    benchmark::DoNotOptimize(chosen);
  }
  state.counters["picked"] = static_cast<double>(picked);
}

void request_sizes(benchmark::internal::Benchmark* b) {
  for (long n : {1L, 64L, 4096L, 40000L}) b->Arg(n);
  b->Unit(benchmark::kMicrosecond);
}

}  // namespace

BENCHMARK_CAPTURE(select, linear, selection_policy::linear, false)->Apply(request_sizes);
BENCHMARK_CAPTURE(select, linear_weighted, selection_policy::linear, true)->Apply(request_sizes);
BENCHMARK_CAPTURE(select, consecutive, selection_policy::consecutive, false)->Apply(request_sizes);
BENCHMARK_CAPTURE(select, consecutive_weighted, selection_policy::consecutive, true)
    ->Apply(request_sizes);
