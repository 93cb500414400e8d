// Random small workloads through repeated passes on a virtual clock (seeded, reproducible).

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "simulator.hpp"

using namespace shoal::policy;
using shoal::policy::sim::simulator;

namespace {

constexpr uint32_t base_seed = 20261122;

simulator cluster(size_t n, uint32_t cpus = 4, uint64_t mem = 4000) {
  simulator s;
  s.nodes.assign(n, node_capacity{cpus, mem, true});
  partition_info p;
  for (size_t i = 0; i < n; ++i) p.nodes.push_back(i);
  s.partitions.push_back(p);
  s.config.resolution = 1;
  return s;
}

/// Brute force: the earliest time >= now at which `want` whole nodes are free for `limit`
/// seconds, if every job in `holders` runs to its time limit. Candidate times are now and each
/// end; a node is free from the last end of the jobs on it.
int64_t earliest_whole_node_start(uint32_t want, int64_t limit, size_t node_count,
                                  const std::vector<running_job>& holders, int64_t now) {
  std::vector<int64_t> free_from(node_count, now);
  for (const auto& h : holders)
    for (const auto& s : h.alloc) free_from[s.node] = std::max(free_from[s.node], h.end);
  std::vector<int64_t> candidates{now};
  for (auto t : free_from) candidates.push_back(t);
  std::sort(candidates.begin(), candidates.end());
  for (auto t : candidates) {
    auto n = std::count_if(free_from.begin(), free_from.end(), [&](int64_t f) { return f <= t; });
    if (size_t(n) >= want) return t;
  }
  (void)limit;  // whole nodes freed stay free: the window never closes again
  return forever;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(simulated_workloads)

// (a) EASY backfill never delays the top job: in every pass, the reservation equals the
// brute-force earliest start without the backfilled jobs, stays the same with them, and the
// job really starts no later than first promised.
BOOST_AUTO_TEST_CASE(easy_backfill_never_delays_the_top_job) {
  int checked = 0;
  int backfilled = 0;
  for (uint32_t seed = base_seed; seed < base_seed + 300; ++seed) {
    std::mt19937 rng(seed);
    size_t n = 2 + rng() % 7;
    auto s = cluster(n);
    int jobs = 5 + int(rng() % 25);
    for (int k = 0; k < jobs; ++k) {
      sim::job j;
      j.priority = int64_t(rng() % 10);
      j.req.min_nodes = 1 + rng() % n;
      j.req.tasks = j.req.min_nodes;
      j.limit = 1 + rng() % 100;
      j.runtime = 1 + rng() % j.limit;
      s.add(j);
    }
    std::map<uint64_t, int64_t> promised;
    std::map<uint64_t, int64_t> started_at;
    s.observer = [&](const pass_result& r, const std::vector<pending_job>& queue,
                     const std::vector<running_job>& before) {
      for (const auto& d : r.started) started_at.emplace(d.job, s.now);
      if (r.planned.empty()) return;
      const auto& plan = r.planned.front();
      auto top = std::find_if(queue.begin(), queue.end(),
                              [&](const pending_job& q) { return q.id == plan.job; });
      BOOST_REQUIRE(top != queue.end());
      std::vector<running_job> ahead_only = before;
      std::vector<running_job> with_backfill = before;
      for (const auto& d : r.started) {
        auto q = std::find_if(queue.begin(), queue.end(),
                              [&](const pending_job& x) { return x.id == d.job; });
        running_job rj{d.job, d.alloc, d.end, {}};
        with_backfill.push_back(rj);
        if (sim::ahead(*q, *top)) {
          ahead_only.push_back(rj);
        } else {
          ++backfilled;
        }
      }
      auto reference =
          earliest_whole_node_start(top->request.min_nodes, top->time_limit, n, ahead_only, s.now);
      auto after = earliest_whole_node_start(top->request.min_nodes, top->time_limit, n,
                                             with_backfill, s.now);
      BOOST_TEST_INFO("seed " << seed << " now " << s.now << " top job " << top->id);
      BOOST_TEST(plan.start == reference);
      BOOST_TEST_INFO("seed " << seed << " now " << s.now << " top job " << top->id);
      BOOST_TEST(after == reference);
      promised.emplace(top->id, plan.start);
      ++checked;
    };
    s.run_all();
    for (const auto& [id, when] : promised) {
      BOOST_TEST_INFO("seed " << seed << " job " << id);
      BOOST_TEST(started_at.count(id) == 1u);
      BOOST_TEST_INFO("seed " << seed << " job " << id);
      BOOST_TEST(started_at[id] <= when);
    }
    for (const auto& j : s.jobs) BOOST_TEST(j.tasks.empty());
  }
  BOOST_TEST(checked > 300);
  BOOST_TEST(backfilled > 50);  // the workloads really exercise backfill
}

/// Brute force for one-node shared jobs: the earliest time >= now at which some node has `cpus`
/// and `mem` free, if every holder runs to its limit. All holders started by now, so what is
/// free on a node only grows: the window's least free is at its start.
int64_t earliest_shared_start(uint32_t cpus, uint64_t mem, const std::vector<node_capacity>& nodes,
                              const std::vector<running_job>& holders, int64_t now) {
  std::vector<int64_t> candidates{now};
  for (const auto& h : holders) candidates.push_back(std::max(now, h.end));
  std::sort(candidates.begin(), candidates.end());
  for (auto t : candidates) {
    for (size_t n = 0; n < nodes.size(); ++n) {
      uint64_t used_cpus = 0, used_mem = 0;
      for (const auto& h : holders)
        if (h.end > t)
          for (const auto& sh : h.alloc)
            if (sh.node == n) {
              used_cpus += sh.cpus;
              used_mem += sh.memory_mb;
            }
      if (nodes[n].cpus - used_cpus >= cpus && nodes[n].memory_mb - used_mem >= mem) return t;
    }
  }
  return forever;
}

// (a') The same guarantee with consumable resources: one-node jobs sharing nodes by CPUs and
// memory, checked against a brute force over node usage.
BOOST_AUTO_TEST_CASE(easy_backfill_never_delays_the_top_job_on_shared_nodes) {
  int checked = 0;
  for (uint32_t seed = base_seed; seed < base_seed + 300; ++seed) {
    std::mt19937 rng(seed);
    size_t n = 1 + rng() % 4;
    auto s = cluster(n, 8, 8000);
    s.config.placement.select = select_type::cons_tres;
    int jobs = 5 + int(rng() % 30);
    for (int k = 0; k < jobs; ++k) {
      sim::job j;
      j.priority = int64_t(rng() % 10);
      j.req.max_nodes = 1;
      j.req.tasks = 1 + rng() % 8;
      j.req.mem_per_cpu_mb = rng() % 1000;
      j.limit = 1 + rng() % 100;
      j.runtime = 1 + rng() % j.limit;
      s.add(j);
    }
    std::map<uint64_t, int64_t> promised;
    std::map<uint64_t, int64_t> started_at;
    s.observer = [&](const pass_result& r, const std::vector<pending_job>& queue,
                     const std::vector<running_job>& before) {
      for (const auto& d : r.started) started_at.emplace(d.job, s.now);
      if (r.planned.empty()) return;
      const auto& plan = r.planned.front();
      auto top = std::find_if(queue.begin(), queue.end(),
                              [&](const pending_job& q) { return q.id == plan.job; });
      BOOST_REQUIRE(top != queue.end());
      std::vector<running_job> ahead_only = before;
      std::vector<running_job> with_backfill = before;
      for (const auto& d : r.started) {
        auto q = std::find_if(queue.begin(), queue.end(),
                              [&](const pending_job& x) { return x.id == d.job; });
        running_job rj{d.job, d.alloc, d.end, {}};
        with_backfill.push_back(rj);
        if (sim::ahead(*q, *top)) ahead_only.push_back(rj);
      }
      uint32_t cpus = top->request.tasks;
      uint64_t mem = top->request.mem_per_cpu_mb * cpus;
      auto reference = earliest_shared_start(cpus, mem, s.nodes, ahead_only, s.now);
      auto after = earliest_shared_start(cpus, mem, s.nodes, with_backfill, s.now);
      BOOST_TEST_INFO("seed " << seed << " now " << s.now << " top job " << top->id);
      BOOST_TEST(plan.start == reference);
      BOOST_TEST_INFO("seed " << seed << " now " << s.now << " top job " << top->id);
      BOOST_TEST(after == reference);
      promised.emplace(top->id, plan.start);
      ++checked;
    };
    s.run_all();
    for (const auto& [id, when] : promised) {
      BOOST_TEST_INFO("seed " << seed << " job " << id);
      BOOST_TEST(started_at[id] <= when);
    }
    for (const auto& j : s.jobs) BOOST_TEST(j.tasks.empty());
  }
  BOOST_TEST(checked > 300);
}

/// Brute force with future holders too: the earliest time >= now at which `want` whole nodes
/// are free over [t, t + limit), every holder occupying its nodes over [start, end).
struct interval_holder {
  std::vector<size_t> nodes;
  int64_t start;
  int64_t end;
};

int64_t earliest_whole_node_window(uint32_t want, int64_t limit, size_t node_count,
                                   const std::vector<interval_holder>& holders, int64_t now) {
  std::vector<int64_t> candidates{now};
  for (const auto& h : holders)
    if (h.end > now) candidates.push_back(h.end);
  std::sort(candidates.begin(), candidates.end());
  for (auto t : candidates) {
    int64_t end = later(t, limit);
    size_t free = 0;
    for (size_t n = 0; n < node_count; ++n) {
      bool busy = false;
      for (const auto& h : holders)
        if (h.start < end && t < h.end &&
            std::find(h.nodes.begin(), h.nodes.end(), n) != h.nodes.end())
          busy = true;
      if (!busy) ++free;
    }
    if (free >= want) return t;
  }
  return forever;
}

// (a'') Conservative backfill: every reservation is the brute-force earliest start given the
// jobs ahead of it (running, started, reserved), and stays so with the backfilled jobs added.
BOOST_AUTO_TEST_CASE(conservative_backfill_never_delays_any_reservation) {
  int checked = 0;
  for (uint32_t seed = base_seed; seed < base_seed + 200; ++seed) {
    std::mt19937 rng(seed);
    size_t n = 2 + rng() % 6;
    auto s = cluster(n);
    s.config.mode = backfill_mode::conservative;
    int jobs = 5 + int(rng() % 20);
    for (int k = 0; k < jobs; ++k) {
      sim::job j;
      j.priority = int64_t(rng() % 10);
      j.req.min_nodes = 1 + rng() % n;
      j.req.tasks = j.req.min_nodes;
      j.limit = 1 + rng() % 100;
      j.runtime = 1 + rng() % j.limit;
      s.add(j);
    }
    s.observer = [&](const pass_result& r, const std::vector<pending_job>& queue,
                     const std::vector<running_job>& before) {
      auto find = [&](uint64_t id) {
        return *std::find_if(queue.begin(), queue.end(),
                             [&](const pending_job& x) { return x.id == id; });
      };
      auto nodes_of = [](const allocation& a) {
        std::vector<size_t> out;
        for (const auto& sh : a) out.push_back(sh.node);
        return out;
      };
      for (const auto& plan : r.planned) {
        const auto me = find(plan.job);
        std::vector<interval_holder> ahead;
        std::vector<interval_holder> everything;
        for (const auto& b : before) {
          ahead.push_back({nodes_of(b.alloc), s.now, b.end});
          everything.push_back(ahead.back());
        }
        for (const auto& d : r.started) {
          interval_holder h{nodes_of(d.alloc), s.now, d.end};
          everything.push_back(h);
          if (sim::ahead(find(d.job), me)) ahead.push_back(h);
        }
        for (const auto& other : r.planned) {
          if (other.job == plan.job) continue;
          const auto o = find(other.job);
          if (!sim::ahead(o, me)) continue;
          interval_holder h{nodes_of(other.alloc), other.start, later(other.start, o.time_limit)};
          ahead.push_back(h);
          everything.push_back(h);
        }
        auto reference =
            earliest_whole_node_window(me.request.min_nodes, me.time_limit, n, ahead, s.now);
        auto with_all =
            earliest_whole_node_window(me.request.min_nodes, me.time_limit, n, everything, s.now);
        BOOST_TEST_INFO("seed " << seed << " now " << s.now << " job " << me.id);
        BOOST_TEST(plan.start == reference);
        BOOST_TEST_INFO("seed " << seed << " now " << s.now << " job " << me.id);
        BOOST_TEST(with_all == reference);
        ++checked;
      }
    };
    s.run_all();
    for (const auto& j : s.jobs) BOOST_TEST(j.tasks.empty());
  }
  BOOST_TEST(checked > 300);
}

// (b) Dependencies in all forms, on jobs that succeed or fail.
BOOST_AUTO_TEST_CASE(dependencies_hold_jobs_until_their_condition_and_never_when_impossible) {
  const char* forms[] = {"after", "afterok", "afternotok", "afterany"};
  int never_seen = 0;
  for (uint32_t seed = base_seed; seed < base_seed + 200; ++seed) {
    std::mt19937 rng(seed);
    auto s = cluster(3);
    int jobs = 4 + int(rng() % 12);
    for (int k = 0; k < jobs; ++k) {
      sim::job j;
      j.priority = int64_t(rng() % 5);
      j.req.min_nodes = 1 + rng() % 2;
      j.req.tasks = j.req.min_nodes;
      j.limit = 60 + rng() % 600;
      j.runtime = 1 + rng() % j.limit;
      j.fails = rng() % 3 == 0;
      j.name = "n" + std::to_string(rng() % 3);
      if (k > 0 && rng() % 4 != 0) {
        std::string text;
        if (rng() % 5 == 0) {
          text = "singleton";
        } else {
          int terms = 1 + int(rng() % 3);
          char sep = rng() % 2 ? ',' : '?';
          for (int t = 0; t < terms; ++t) {
            if (t) text += sep;
            auto form = std::string{forms[rng() % 4]};
            text += form + ":" + std::to_string(1 + rng() % k);
            if (form == "after" && rng() % 2) text += "+" + std::to_string(1 + rng() % 5);
          }
        }
        j.dep = *parse_dependency(text);
      }
      s.add(j);
    }
    s.run_all();
    // Reconstruct each job's run and check its dependency held at its start.
    std::map<uint64_t, sim::run> runs;
    for (const auto& r : s.finished) runs[r.job] = r;
    for (const auto& j : s.jobs) {
      if (!j.dep) {
        BOOST_TEST(runs.count(j.id) == 1u);
        continue;
      }
      auto it = runs.find(j.id);
      if (it == runs.end()) {
        BOOST_TEST_INFO("seed " << seed << " job " << j.id << " " << to_string(*j.dep));
        // Never started: impossible, or waiting on a target that never ran (Slurm does not
        // pass DependencyNeverSatisfied along a chain), or a singleton behind such a job.
        bool target_never_ran =
            std::any_of(j.dep->terms.begin(), j.dep->terms.end(), [&](const dependency_term& t) {
              return t.kind == dependency_kind::singleton || runs.count(t.job) == 0;
            });
        BOOST_TEST((s.last_dependency_state[j.id] == dependency_state::never_satisfiable ||
                    target_never_ran));
        ++never_seen;
        continue;
      }
      const auto& mine = it->second;
      auto holds = [&](const dependency_term& t) {
        if (t.kind == dependency_kind::singleton) {
          // Only jobs submitted before it (lower ids) constrain a singleton.
          for (const auto& [id, r] : runs)
            if (id < j.id && s.jobs[id - 1].name == j.name && r.start < mine.actual_end &&
                mine.start < r.actual_end)
              return false;
          return true;
        }
        auto target = runs.find(t.job);
        if (target == runs.end()) return false;
        const auto& tr = target->second;
        bool ok = !s.jobs[t.job - 1].fails;
        switch (t.kind) {
          case dependency_kind::after:
            return mine.start >= tr.start + int64_t{t.minutes} * 60;
          case dependency_kind::afterany:
            return mine.start >= tr.actual_end;
          case dependency_kind::afterok:
            return ok && mine.start >= tr.actual_end;
          case dependency_kind::afternotok:
            return !ok && mine.start >= tr.actual_end;
          default:
            return true;
        }
      };
      bool fine = j.dep->any_of ? std::any_of(j.dep->terms.begin(), j.dep->terms.end(), holds)
                                : std::all_of(j.dep->terms.begin(), j.dep->terms.end(), holds);
      BOOST_TEST_INFO("seed " << seed << " job " << j.id << " " << to_string(*j.dep));
      BOOST_TEST(fine);
    }
  }
  BOOST_TEST(never_seen > 10);
}

// (c) Array throttling: never more than %N tasks of an array at once, every task runs once.
BOOST_AUTO_TEST_CASE(an_array_never_runs_more_than_its_throttle) {
  for (uint32_t seed = base_seed; seed < base_seed + 100; ++seed) {
    std::mt19937 rng(seed);
    auto s = cluster(2 + rng() % 6);
    std::vector<uint64_t> arrays;
    for (int k = 0; k < 3; ++k) {
      sim::job j;
      j.priority = int64_t(rng() % 3);
      j.total_tasks = 5 + rng() % 40;
      auto spec = parse_array_spec(
          "0-" + std::to_string(j.total_tasks - 1) + "%" + std::to_string(1 + rng() % 4), 1001);
      j.tasks = spec->indices;
      j.max_running = spec->max_running;
      j.limit = 10 + rng() % 50;
      j.runtime = 1 + rng() % j.limit;
      arrays.push_back(s.add(j).id);
    }
    uint32_t peak = 0;
    s.observer = [&](const pass_result& r, const std::vector<pending_job>&,
                     const std::vector<running_job>&) {
      for (auto id : arrays) {
        auto now_running =
            s.running_tasks(id) +
            uint32_t(std::count_if(r.started.begin(), r.started.end(),
                                   [&](const start_decision& d) { return d.job == id; }));
        peak = std::max(peak, now_running);
        BOOST_TEST_INFO("seed " << seed << " array " << id);
        BOOST_TEST(now_running <= s.jobs[id - 1].max_running);
      }
    };
    s.run_all();
    for (auto id : arrays) {
      std::set<uint32_t> ran;
      for (const auto& r : s.finished)
        if (r.job == id) BOOST_TEST(ran.insert(r.task).second);
      BOOST_TEST(ran.size() == s.jobs[id - 1].total_tasks);
    }
    BOOST_TEST(peak >= 1u);
  }
}

// (d) With backfill off, jobs start in priority order.
BOOST_AUTO_TEST_CASE(without_backfill_jobs_start_in_priority_order) {
  for (uint32_t seed = base_seed; seed < base_seed + 200; ++seed) {
    std::mt19937 rng(seed);
    size_t n = 2 + rng() % 6;
    auto s = cluster(n);
    s.config.backfill = false;
    int jobs = 5 + int(rng() % 25);
    for (int k = 0; k < jobs; ++k) {
      sim::job j;
      j.priority = int64_t(rng() % 10);
      j.req.min_nodes = 1 + rng() % n;
      j.req.tasks = j.req.min_nodes;
      j.limit = 1 + rng() % 100;
      j.runtime = 1 + rng() % j.limit;
      s.add(j);
    }
    std::vector<pending_job> start_order;
    s.observer = [&](const pass_result& r, const std::vector<pending_job>& queue,
                     const std::vector<running_job>&) {
      BOOST_TEST(r.planned.empty());
      for (const auto& d : r.started)
        for (const auto& q : queue)
          if (q.id == d.job) start_order.push_back(q);
    };
    s.run_all();
    BOOST_TEST_INFO("seed " << seed);
    BOOST_TEST(start_order.size() == size_t(jobs));
    BOOST_TEST_INFO("seed " << seed);
    BOOST_TEST(std::is_sorted(start_order.begin(), start_order.end(), sim::ahead));
  }
}

// (e) Shared (cons_tres) nodes are never over-allocated on CPUs or memory.
BOOST_AUTO_TEST_CASE(mixed_nodes_are_never_over_allocated) {
  int mixed_seen = 0;
  for (uint32_t seed = base_seed; seed < base_seed + 200; ++seed) {
    std::mt19937 rng(seed);
    size_t n = 1 + rng() % 5;
    auto s = cluster(n, 1 + rng() % 16, 1000 + rng() % 16000);
    s.config.placement.select = select_type::cons_tres;
    s.config.backfill = rng() % 4 != 0;
    if (rng() % 2) s.config.mode = backfill_mode::conservative;
    int jobs = 5 + int(rng() % 40);
    for (int k = 0; k < jobs; ++k) {
      sim::job j;
      j.priority = int64_t(rng() % 10);
      j.req.min_nodes = 1 + rng() % std::min<size_t>(n, 2);
      j.req.tasks = j.req.min_nodes + rng() % 6;
      j.req.cpus_per_task = 1 + rng() % 3;
      if (rng() % 2)
        j.req.mem_per_cpu_mb = rng() % 800;
      else
        j.req.mem_per_node_mb = rng() % 3000;
      j.req.exclusive = rng() % 8 == 0;
      j.limit = 1 + rng() % 100;
      j.runtime = 1 + rng() % j.limit;
      s.add(j);
    }
    s.observer = [&](const pass_result& r, const std::vector<pending_job>& queue,
                     const std::vector<running_job>& before) {
      std::vector<uint64_t> cpus(n), mem(n);
      std::vector<int> holders(n);
      auto add = [&](const allocation& a) {
        for (const auto& sh : a) {
          cpus[sh.node] += sh.cpus;
          mem[sh.node] += sh.memory_mb;
          ++holders[sh.node];
        }
      };
      for (const auto& b : before) add(b.alloc);
      for (const auto& d : r.started) {
        add(d.alloc);
        const auto& q = *std::find_if(queue.begin(), queue.end(),
                                      [&](const pending_job& x) { return x.id == d.job; });
        uint32_t tasks = 0;
        for (const auto& sh : d.alloc) {
          tasks += sh.tasks;
          BOOST_TEST(sh.tasks >= 1u);
          if (!q.request.exclusive) BOOST_TEST(sh.cpus == sh.tasks * q.request.cpus_per_task);
        }
        BOOST_TEST(tasks >= q.request.tasks);
        BOOST_TEST(d.alloc.size() >= q.request.min_nodes);
      }
      for (size_t i = 0; i < n; ++i) {
        BOOST_TEST_INFO("seed " << seed << " node " << i);
        BOOST_TEST(cpus[i] <= s.nodes[i].cpus);
        BOOST_TEST_INFO("seed " << seed << " node " << i);
        BOOST_TEST(mem[i] <= s.nodes[i].memory_mb);
        if (holders[i] > 1) ++mixed_seen;
      }
    };
    s.run_all();
  }
  BOOST_TEST(mixed_seen > 100);  // nodes really were shared
}

// (f) OverSubscribe=YES:N / FORCE:N: a CPU (a whole node under select/linear) is held by at
// most N sharing jobs, never by a sharing and a non-sharing job at once, memory is never
// shared, and no job holds a CPU twice.
BOOST_AUTO_TEST_CASE(oversubscribed_cpus_hold_at_most_n_jobs_and_never_both_kinds) {
  int oversubscribed_seen = 0;
  for (uint32_t seed = base_seed; seed < base_seed + 200; ++seed) {
    std::mt19937 rng(seed);
    size_t n = 1 + rng() % 4;
    auto s = cluster(n, 1 + rng() % 8, 1000 + rng() % 16000);
    bool whole = rng() % 3 == 0;
    if (!whole) s.config.placement.select = select_type::cons_tres;
    auto& part = s.partitions[0];
    part.oversubscribe = 2 + rng() % 3;
    part.force = rng() % 2 == 0;
    s.config.backfill = rng() % 4 != 0;
    if (rng() % 2) s.config.mode = backfill_mode::conservative;
    int jobs = 5 + int(rng() % 40);
    for (int k = 0; k < jobs; ++k) {
      sim::job j;
      j.priority = int64_t(rng() % 10);
      j.req.min_nodes = 1 + rng() % std::min<size_t>(n, 2);
      j.req.tasks = j.req.min_nodes + (whole ? 0 : rng() % 6);
      if (!whole) j.req.cpus_per_task = 1 + rng() % 2;
      if (!whole) j.req.mem_per_cpu_mb = rng() % 500;
      j.req.exclusive = whole || rng() % 8 == 0;
      auto kind = rng() % 4;
      j.req.sharing = kind == 0   ? share_request::exclusive
                      : kind == 1 ? share_request::as_partition
                                  : share_request::oversubscribe;
      j.limit = 1 + rng() % 100;
      j.runtime = 1 + rng() % j.limit;
      s.add(j);
    }
    const uint32_t N = part.oversubscribe;
    s.observer = [&](const pass_result& r, const std::vector<pending_job>& queue,
                     const std::vector<running_job>& before) {
      // Held CPUs in N-ths: a sharing share holds cpus, a sole one N x cpus.
      std::vector<uint64_t> held(n), mem(n), cpus(n);
      std::vector<bool> shared(n), sole(n);
      auto add = [&](const allocation& a) {
        for (const auto& sh : a) {
          BOOST_TEST(sh.cpus <= s.nodes[sh.node].cpus);
          BOOST_TEST((sh.shared_by == 1 || sh.shared_by == N));
          held[sh.node] += sh.shared_by > 1 ? sh.cpus : uint64_t{N} * sh.cpus;
          cpus[sh.node] += sh.cpus;
          mem[sh.node] += sh.memory_mb;
          (sh.shared_by > 1 ? shared : sole)[sh.node] = true;
        }
      };
      for (const auto& b : before) add(b.alloc);
      for (const auto& d : r.started) {
        add(d.alloc);
        const auto& q = *std::find_if(queue.begin(), queue.end(),
                                      [&](const pending_job& x) { return x.id == d.job; });
        uint32_t want = shared_by(part, q.request.sharing);
        for (const auto& sh : d.alloc) BOOST_TEST(sh.shared_by == want);
      }
      for (size_t i = 0; i < n; ++i) {
        BOOST_TEST_INFO("seed " << seed << " node " << i);
        BOOST_TEST(held[i] <= uint64_t{N} * s.nodes[i].cpus);
        BOOST_TEST_INFO("seed " << seed << " node " << i);
        BOOST_TEST(mem[i] <= s.nodes[i].memory_mb);
        BOOST_TEST_INFO("seed " << seed << " node " << i);
        BOOST_TEST(!(shared[i] && sole[i]));
        if (cpus[i] > s.nodes[i].cpus) ++oversubscribed_seen;
      }
    };
    s.run_all();
  }
  BOOST_TEST(oversubscribed_seen > 100);  // CPUs really were held by several jobs
}

BOOST_AUTO_TEST_SUITE_END()
