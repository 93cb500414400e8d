// Scheduling cycle (pure pass) figures: one shoal::policy::schedule call over a large pending
// queue and a busy cluster, backfill on (EASY; conservative and OverSubscribe=FORCE:4 as
// variants). Each repetition is one cycle (Iterations(1)), so
// the median and p99 below are per-cycle figures. See docs/benchmarks.md.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>
#include <thread>
#include <vector>

#include "policy/priority.hpp"
#include "policy/scheduling_pass.hpp"

using namespace shoal::policy;

namespace {

constexpr size_t node_count = 1000;
constexpr uint32_t cpus_per_node = 32;
constexpr uint64_t memory_per_node = 128 * 1024;

struct workload {
  std::vector<node_capacity> nodes;
  std::vector<partition_info> partitions;
  std::vector<running_job> running;
  std::vector<pending_job> pending;
};

/// 1,000 nodes of 32 CPUs in two overlapping partitions; running jobs fill `fill` percent of the
/// nodes (97: a busy cluster; 50: a cluster draining, where hundreds of jobs start in one cycle)
/// and end over the next day; pending jobs are mostly small (1-4 nodes), some large
/// (up to 64 nodes), limits from 10 minutes to a day, priorities spread. With `oversubscribe`
/// N > 1, both partitions are OverSubscribe=FORCE:N and the running jobs share too.
workload make_workload(size_t pending, bool shared, size_t fill, uint32_t oversubscribe = 1,
                       uint32_t seed = 42) {
  std::mt19937 rng(seed);
  workload w;
  w.nodes.assign(node_count, node_capacity{cpus_per_node, memory_per_node, true});
  partition_info batch;
  partition_info debug;
  for (size_t i = 0; i < node_count; ++i) {
    batch.nodes.push_back(i);
    if (i < 100) debug.nodes.push_back(i);
  }
  debug.max_time = 3600;
  debug.priority_tier = 1;
  for (auto* p : {&batch, &debug}) {
    p->oversubscribe = oversubscribe;
    p->force = oversubscribe > 1;
  }
  w.partitions = {batch, debug};
  auto limit = [&] { return int64_t(600 + rng() % (24 * 3600)); };
  // Running: whole-node jobs of 1-8 nodes (or shared jobs of 1-32 CPUs) up to ~97% full.
  size_t next = 0;
  uint64_t id = 1'000'000;
  while (next < node_count * fill / 100) {
    running_job r;
    r.id = id++;
    r.end = 1 + int64_t(rng() % (24 * 3600));
    if (shared) {
      uint32_t left = cpus_per_node;
      while (left > 0 && next < node_count) {
        uint32_t cpus = std::min<uint32_t>(left, 1 + rng() % 16);
        running_job s;
        s.id = id++;
        s.end = 1 + int64_t(rng() % (24 * 3600));
        s.alloc.push_back({next, cpus, cpus * 2048ull, cpus, oversubscribe});
        w.running.push_back(std::move(s));
        left -= cpus;
      }
      ++next;
      continue;
    }
    size_t n = std::min<size_t>(1 + rng() % 8, node_count - next);
    for (size_t k = 0; k < n; ++k)
      r.alloc.push_back(
          {next + k, cpus_per_node, memory_per_node / oversubscribe, cpus_per_node, oversubscribe});
    next += n;
    w.running.push_back(std::move(r));
  }
  for (size_t k = 0; k < pending; ++k) {
    pending_job p;
    p.id = k + 1;
    p.priority = 1 + int64_t(rng() % 100000);
    p.partition = rng() % 10 == 0 ? 1 : 0;
    auto roll = rng() % 100;
    p.request.min_nodes = roll < 70 ? 1 : roll < 90 ? 1 + rng() % 4 : 1 + rng() % 64;
    p.request.tasks = shared && roll < 70 ? 1 + rng() % 32 : p.request.min_nodes;
    p.request.mem_per_cpu_mb = shared ? 1024 * (1 + rng() % 4) : 0;
    p.time_limit = p.partition == 1 ? 600 + rng() % 3000 : limit();
    w.pending.push_back(std::move(p));
  }
  return w;
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  auto i = size_t(q * double(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

/// Args: pending jobs, bf_max_job_test (0 = no bound), 1 = cons_tres (shared) else linear,
/// percent of nodes busy, 1 = conservative else EASY, OverSubscribe=FORCE:N (1 = NO).
void backfill_cycle(benchmark::State& state) {
  auto pending = size_t(state.range(0));
  bool shared = state.range(2) == 1;
  auto w = make_workload(pending, shared, size_t(state.range(3)), uint32_t(state.range(5)));
  pass_config config;
  config.backfill = true;
  config.mode = state.range(4) == 1 ? backfill_mode::conservative : backfill_mode::easy;
  config.max_job_test = size_t(state.range(1));
  config.placement.select = shared ? select_type::cons_tres : select_type::linear;
  pass_result last;
  for (auto _ : state) {
    last = schedule(w.pending, w.running, w.partitions, w.nodes, 0, config);
    benchmark::DoNotOptimize(last.started.data());
  }
  state.counters["started"] = double(last.started.size());
  state.counters["reserved"] = double(last.planned.size());
  state.counters["tested"] = double(last.tested);
  state.counters["running"] = double(w.running.size());
  state.counters["nproc"] = double(std::thread::hardware_concurrency());
}

void register_cycle(int64_t pending, int64_t bound, int64_t shared, int64_t fill,
                    int64_t conservative, int64_t oversubscribe) {
  benchmark::RegisterBenchmark("backfill_cycle", backfill_cycle)
      ->Args({pending, bound, shared, fill, conservative, oversubscribe})
      ->ArgNames({"pending", "max_job_test", "cons_tres", "busy_pct", "conservative", "force"})
      ->Unit(benchmark::kMillisecond)
      ->Iterations(1)
      ->Repetitions(pending == 10'000 ? 30 : 10)
      ->ComputeStatistics("p99", [](const std::vector<double>& v) { return percentile(v, 0.99); });
}

void register_cycles() {
  for (int64_t pending : {10'000, 100'000}) {
    for (int64_t fill : {97, 50})
      for (int64_t shared : {0, 1})
        for (int64_t bound : {500, 0}) register_cycle(pending, bound, shared, fill, 0, 1);
    // The variants, on the busy cluster with Slurm's default test bound.
    for (int64_t shared : {0, 1}) {
      register_cycle(pending, 500, shared, 97, 1, 1);  // conservative backfill
      register_cycle(pending, 500, shared, 97, 0, 4);  // OverSubscribe=FORCE:4
    }
  }
}

const bool registered = (register_cycles(), true);

/// Multifactor priority for a whole queue: what the controller recomputes each cycle.
void priority_of_queue(benchmark::State& state) {
  auto n = size_t(state.range(0));
  std::vector<priority_input> jobs(n);
  std::mt19937 rng(7);
  for (auto& j : jobs) {
    j.eligible_time = -int64_t(rng() % 100000);
    j.nodes = 1 + rng() % 16;
    j.cpus = j.nodes * 32;
    j.partition_job_factor = 1 + rng() % 3;
  }
  priority_scale scale{1000, 32000, 3};
  priority_config config;
  for (auto _ : state) {
    int64_t sum = 0;
    for (const auto& j : jobs) sum += multifactor_priority(j, scale, config, 0).total;
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(int64_t(state.iterations() * n));
}
BENCHMARK(priority_of_queue)->Arg(100'000)->Unit(benchmark::kMillisecond);

}  // namespace
