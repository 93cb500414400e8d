// torus_map::place on the LLNL machine (8x4x4) and on a 32x32x32 grid.
//
// An empty map (the start of the day), and two kinds of half-occupied maps, each from a fixed
// seed:
// - random: every base partition taken with probability 1/2 (free space in single nodes and
//   short runs: thousands of small placements to rank);
// - jobs: random prisms (each side 1..dim/2, at random origins, wrapping allowed) taken while
//   they fit until half the grid is used, as after a day of jobs of all sizes.
// Each benchmark times one place() call on the same map (place() is const). Counters: `free` the
// available nodes, `placed` 1 when a placement was found, `left` the largest free prism it keeps.
// The core count is Google Benchmark's "Run on (N X ... MHz CPU s)" header line.

#include <benchmark/benchmark.h>

#include <optional>
#include <random>

#include "topology/torus.hpp"

namespace {

using shoal::topology::conn_type;
using shoal::topology::coord3;
using shoal::topology::torus_allocation;
using shoal::topology::torus_map;
using shoal::topology::torus_request;

enum class occupancy { none, random, jobs };

torus_map half_full(coord3 dims, occupancy kind, uint32_t seed) {
  torus_map m{dims};
  std::mt19937 rng{seed};
  if (kind == occupancy::none) return m;
  if (kind == occupancy::random) {
    std::bernoulli_distribution taken{0.5};
    for (size_t i = 0; i < m.size(); ++i) m.set_available(i, !taken(rng));
    return m;
  }
  size_t used = 0;
  while (2 * used < m.size()) {
    torus_allocation a;
    for (int d = 0; d < 3; ++d) {
      a.size[d] = 1 + static_cast<int>(rng() % std::max(1, dims[d] / 2));
      a.origin[d] = static_cast<int>(rng() % dims[d]);
    }
    if (!m.fits(a, conn_type::torus)) continue;
    m.set_available(a, false);
    used += static_cast<size_t>(a.size[0]) * a.size[1] * a.size[2];
  }
  return m;
}

torus_request geometry(coord3 g) {
  torus_request r;
  r.geometry = g;
  return r;
}

torus_request count(uint32_t n) {
  torus_request r;
  r.node_count = n;
  return r;
}

torus_request mesh(torus_request r) {
  r.conn = conn_type::mesh;
  return r;
}

void torus_place(benchmark::State& state, coord3 dims, occupancy kind, torus_request req) {
  const auto m = half_full(dims, kind, 2004);
  std::optional<torus_allocation> where;
  for (auto _ : state) {
    where = m.place(req);
    benchmark::DoNotOptimize(where);
  }
  state.counters["free"] = static_cast<double>(m.available_count());
  state.counters["placed"] = where ? 1 : 0;
  if (where) {
    auto after = m;
    after.set_available(*where, false);
    const auto q = after.largest_free_prism(req.conn);
    state.counters["left"] = q ? static_cast<double>(q->size[0] * q->size[1] * q->size[2]) : 0;
  }
}

constexpr coord3 llnl{8, 4, 4};
constexpr coord3 big{32, 32, 32};

// clang-format off
BENCHMARK_CAPTURE(torus_place, llnl_random_1x1x1, llnl, occupancy::random, geometry({1, 1, 1}));
BENCHMARK_CAPTURE(torus_place, llnl_random_2x2x2, llnl, occupancy::random, geometry({2, 2, 2}));
BENCHMARK_CAPTURE(torus_place, llnl_random_count5, llnl, occupancy::random, count(5));
BENCHMARK_CAPTURE(torus_place, llnl_jobs_2x2x2, llnl, occupancy::jobs, geometry({2, 2, 2}));
BENCHMARK_CAPTURE(torus_place, llnl_jobs_4x2x2, llnl, occupancy::jobs, geometry({4, 2, 2}));
BENCHMARK_CAPTURE(torus_place, llnl_jobs_count5, llnl, occupancy::jobs, count(5));
BENCHMARK_CAPTURE(torus_place, llnl_empty_4x4x4, llnl, occupancy::none, geometry({4, 4, 4}));

BENCHMARK_CAPTURE(torus_place, big_random_1x1x1, big, occupancy::random, geometry({1, 1, 1}))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(torus_place, big_random_2x2x2, big, occupancy::random, geometry({2, 2, 2}))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(torus_place, big_random_4x4x4, big, occupancy::random, geometry({4, 4, 4}))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(torus_place, big_random_count6, big, occupancy::random, count(6))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(torus_place, big_jobs_2x2x2, big, occupancy::jobs, geometry({2, 2, 2}))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(torus_place, big_jobs_4x4x4, big, occupancy::jobs, geometry({4, 4, 4}))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(torus_place, big_jobs_8x8x4, big, occupancy::jobs, geometry({8, 8, 4}))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(torus_place, big_jobs_count100, big, occupancy::jobs, count(100))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(torus_place, big_jobs_mesh_4x4x4, big, occupancy::jobs, mesh(geometry({4, 4, 4})))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(torus_place, big_empty_1x1x1, big, occupancy::none, geometry({1, 1, 1}))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(torus_place, big_empty_8x8x8, big, occupancy::none, geometry({8, 8, 8}))->Unit(benchmark::kMicrosecond);
// clang-format on

}  // namespace
