// The scheduling pass as the controller runs it: the scheduler actor orders the queue and (since
// the topology actor exists) sends the whole pass to it in one message; the time of each pass is
// what shoal_scheduler_cycle_seconds records, round trip included. A cluster of idle nodes is
// filled by the first pass (one whole node per job, time limits from 10 minutes to a day); every
// pass after it tests the rest of the queue against the busy cluster, as a pass does while jobs
// pend. Prints the median and the worst pass at each queue length, and the machine's cores.
//
// The source builds against an older tree too (no topology actor: the scheduler placed in its
// own handler), so the same figures can be taken from two binaries in alternation.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <caf/all.hpp>

#include "actors/scheduler.hpp"
#include "config/config.hpp"
#include "messages/caf/type_ids.hpp"
#include "metrics/registry.hpp"
#if __has_include("actors/topology_actor.hpp")
#include "actors/topology_actor.hpp"
#define SHOAL_PASS_BENCH_TOPOLOGY_ACTOR 1
#endif

using namespace shoal;

namespace {

/// Job actors, node actors and the controller, as far as the scheduler can tell: it only sends
/// to them. Takes an argument because CAF 0.17 dereferences a null tuple for argument-less
/// spawns. Not caf::drop: in CAF 0.17 that answers an unexpected message with an error, which
/// the scheduler, as any actor without an error handler, takes for a reason to stop.
caf::behavior sink(caf::event_based_actor* self, int) {
  self->set_default_handler(
      [](caf::scheduled_actor*, caf::message_view&) -> caf::result<caf::message> {
        return caf::message{};
      });
  return {[](caf::ok_atom) {}};
}

struct figures {
  double median_ms = 0;
  double worst_ms = 0;
  double candidates = 0;
};

/// Waits until the scheduler has finished more than `seen` passes. A pass that never comes (the
/// queue emptied: nothing to measure) ends the run.
uint64_t wait_for_pass(const metrics::histogram& cycle, uint64_t seen) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes{2};
  for (;;) {
    auto count = cycle.read().count;
    if (count > seen) return count;
    if (std::chrono::steady_clock::now() > deadline) {
      std::fprintf(stderr, "pass bench: no scheduling pass within 2 minutes\n");
      std::exit(1);
    }
    std::this_thread::sleep_for(std::chrono::microseconds{200});
  }
}

figures measure(unsigned nodes, size_t jobs, unsigned passes) {
  // Outlives the actor system, whose destructor waits for the actors that meter into it.
  metrics::registry meters;
  caf::actor_system_config sys_cfg;
  sys_cfg.add_message_types<caf::id_block::shoal>();
  caf::actor_system sys{sys_cfg};
  auto parsed = config::parse_config(config::default_config_text(nodes, 6917), "<embedded>", "/");
  if (!parsed) {
    std::fprintf(stderr, "pass bench: embedded config refused: %s\n",
                 describe(parsed.error()).c_str());
    std::exit(1);
  }
  auto cluster = std::move(*parsed);
  auto nobody = sys.spawn(sink, 0);
  std::vector<caf::actor> node_actors(cluster.nodes.size(), nobody);
#ifdef SHOAL_PASS_BENCH_TOPOLOGY_ACTOR
  auto topology = actors::spawn_topology(sys, cluster, &meters);
  auto scheduler = actors::spawn_scheduler(sys, cluster, node_actors, nobody, topology, &meters);
  auto views = caf::actor_cast<caf::actor>(topology);
#else
  auto scheduler = actors::spawn_scheduler(sys, cluster, node_actors, nobody, &meters);
  auto views = caf::actor_cast<caf::actor>(scheduler);
#endif
  auto& cycle = meters.histogram_of("shoal_scheduler_cycle_seconds", "");
  auto& last = meters.gauge_of("shoal_scheduler_last_cycle_seconds", "");
  auto& queued = meters.gauge_of("shoal_scheduler_queue_jobs", "");
  caf::scoped_actor self{sys};
  for (auto& n : cluster.nodes) {
    msg::node_info info;
    info.name = n.name;
    info.state = msg::node_state::idle;
    self->send(views, msg::view_atom_v, info);
  }
  std::mt19937 rng(42);
  for (size_t k = 0; k < jobs; ++k) {
    msg::job_request req;
    req.user = "alice";
    req.uid = 1000;
    req.partition = cluster.partitions.front().name;
    req.min_nodes = 1;
    req.ntasks = 1;
    req.time_limit_s = 600 + static_cast<int64_t>(rng() % (24 * 3600));
    req.argv = {"true"};
    req.workload.exclusive = true;  // a node per job, whatever its CPUs
#ifdef SHOAL_PASS_BENCH_TOPOLOGY_ACTOR
    self->send(scheduler, msg::enqueue_atom_v, uint64_t{k + 1}, req, policy::workload_ptr{}, nobody,
               int64_t{1'700'000'000});
#else
    self->send(scheduler, msg::enqueue_atom_v, uint64_t{k + 1}, req, policy::workload_ptr{},
               nobody);
#endif
  }
  // Every enqueue is in once the scheduler answers this (one sender: its messages stay in order).
  self->request(scheduler, caf::infinite, msg::pending_atom_v)
      .receive([](std::vector<msg::pending_detail>&) {}, [](caf::error&) {});
  auto untyped = caf::actor_cast<caf::actor>(scheduler);
  // Two passes untimed: the one that filled the nodes, and one over the busy cluster.
  auto seen = cycle.read().count;
  for (int warm = 0; warm < 2; ++warm) {
    self->send(untyped, msg::schedule_atom_v);
    seen = wait_for_pass(cycle, seen);
  }
  std::vector<double> times;
  for (unsigned p = 0; p < passes; ++p) {
    self->send(untyped, msg::schedule_atom_v);
    seen = wait_for_pass(cycle, seen);
    times.push_back(last.value() * 1e3);
  }
  std::sort(times.begin(), times.end());
  figures out;
  out.median_ms = times[times.size() / 2];
  out.worst_ms = times.back();
  out.candidates = queued.value();
  self->send_exit(untyped, caf::exit_reason::user_shutdown);
#ifdef SHOAL_PASS_BENCH_TOPOLOGY_ACTOR
  self->send_exit(topology, caf::exit_reason::user_shutdown);
#endif
  self->send_exit(nobody, caf::exit_reason::user_shutdown);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  unsigned nodes = 1000;
  unsigned passes = 15;
  std::vector<size_t> queue_lengths{10000, 100000};
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--nodes" && i + 1 < argc) {
      nodes = static_cast<unsigned>(std::stoul(argv[++i]));
    } else if (arg == "--passes" && i + 1 < argc) {
      passes = static_cast<unsigned>(std::stoul(argv[++i]));
    } else if (arg == "--jobs" && i + 1 < argc) {
      queue_lengths = {std::stoul(argv[++i])};
    } else {
      std::fprintf(stderr,
                   "usage: shoal_pass_bench [--nodes N (1000)] [--passes N (15)] "
                   "[--jobs N (10000 and 100000)]\n");
      return 2;
    }
  }
  std::printf("scheduling pass, %u idle nodes filled then busy, %u timed passes, %ld cores (%s)\n",
              nodes, passes, sysconf(_SC_NPROCESSORS_ONLN),
#ifdef SHOAL_PASS_BENCH_TOPOLOGY_ACTOR
              "scheduler + topology actor"
#else
              "scheduler placing in its own handler"
#endif
  );
  for (auto jobs : queue_lengths) {
    auto f = measure(nodes, jobs, passes);
    std::printf("queued %7zu  offered %7.0f  pass median %8.2f ms  worst %8.2f ms\n", jobs,
                f.candidates, f.median_ms, f.worst_ms);
    std::fflush(stdout);
  }
  return 0;
}
