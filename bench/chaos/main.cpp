// shoal_chaos: a seeded chaos test. Under a stream of jobs it kills -9, at random, the primary
// and the backup shoalctld, a front-end shoald holding collectors and a real shoald running a
// step, starts each again after a random pause, and once everything is back and the queue has
// drained checks that every acknowledged job ended once, every node is IDLE, every collector UP
// and the controllers agree on who is in charge. The seed decides every kill, pause and job;
// `--seed S` replays them (the processes' timing differs). Exits 1 when a check fails, keeping
// the scratch directory with every daemon's log; 2 on bad usage. docs/benchmarks.md, "Chaos:
// kills survived", quotes a long run.

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "bench/chaos/checks.hpp"
#include "bench/chaos/cluster.hpp"
#include "bench/chaos/faults.hpp"
#include "bench/chaos/job_stream.hpp"
#include "bench/chaos/plan.hpp"
#include "bench/support.hpp"
#include "messages/states.hpp"

#ifndef SHOAL_BENCH_BUILD_TYPE
#define SHOAL_BENCH_BUILD_TYPE "unknown"
#endif

namespace {

using namespace shoal;
using namespace shoal::chaos;
using namespace std::chrono_literals;

struct options {
  double seconds = 60;
  uint64_t seed = 0;
  bool seed_given = false;
  unsigned nodes = 40;
  unsigned drain_seconds = 120;
  unsigned recovery_seconds = 45;
  bool keep = false;
};

/// The test munged's socket when ctest runs one (test/CMakeLists.txt, shoal_uses_munged), as the
/// integration tests' test_auth_config does; otherwise no credentials at all.
std::string auth_config() {
  const char* socket = std::getenv("SHOAL_TEST_MUNGE_SOCKET");
  if (socket == nullptr || *socket == '\0') return "AuthType=auth/none\n";
  return std::string{"AuthType=auth/munge\nAuthInfo=socket="} + socket + "\n";
}

/// Every node IDLE, the primary in control and the backup answering, every collector UP.
bool wait_ready(chaos_cluster& cluster, std::chrono::seconds bound) {
  auto deadline = steady::now() + bound;
  std::string last = "no controller answers";
  while (steady::now() < deadline) {
    for (size_t i = 0; i < victim_count; ++i) {
      auto& d = cluster.daemon(static_cast<victim>(i));
      if (!d.running()) {
        std::printf("  %s exited during start-up (%s); its log: %s\n", d.name().c_str(),
                    d.exit_text().c_str(), d.log_path().c_str());
        return false;
      }
    }
    auto look = cluster.look_now();
    size_t idle = 0;
    for (auto& n : look.nodes) idle += n.state == msg::node_state::idle ? 1 : 0;
    if (!look.in_control[0] || !look.answers[1]) {
      last = "the primary not in control, or the backup not answering";
    } else if (idle != cluster.all_nodes().size()) {
      last = std::to_string(idle) + " of " + std::to_string(cluster.all_nodes().size()) +
             " nodes IDLE";
    } else {
      auto r = cluster.shoal({"control", "show", "collectors", "--json"});
      auto doc = nlohmann::json::parse(r.out, nullptr, false);
      size_t up = 0;
      if (doc.is_object())
        for (auto& c : doc.value("collectors", nlohmann::json::array()))
          up += c.value("state", "") == "UP" ? 1 : 0;
      if (up == cluster.collectors().size()) return true;
      last = std::to_string(up) + " of " + std::to_string(cluster.collectors().size()) +
             " collectors UP";
    }
    std::this_thread::sleep_for(250ms);
  }
  std::printf("  not ready after %lld s: %s\n", static_cast<long long>(bound.count()),
              last.c_str());
  return false;
}

/// "4.1 s (round 3, front end 2: down 3.2 s, back 0.9 s after its start)", or "-".
std::string describe_recovery(const fault_record* f) {
  if (f == nullptr) return "-";
  char buf[200];
  std::snprintf(buf, sizeof buf, "%.1f s (round %zu, %s: down %.1f s, back %.1f s after its start)",
                f->back_s, f->round, name_of(f->who).c_str(), f->down_s, f->back_after_start_s);
  return buf;
}

/// Kills survived per kind, what became of the jobs, and the worst recovery of each kind.
void print_summary(const fault_driver& driver, const std::vector<submission>& subs,
                   const job_tally& tally) {
  std::array<size_t, fault_kind_count> kills{};
  std::array<size_t, fault_kind_count> survived{};
  std::array<const fault_record*, fault_kind_count> worst{};
  std::array<const fault_record*, fault_kind_count> worst_alone{};
  size_t with_step = 0;
  for (auto& f : driver.faults()) {
    auto k = static_cast<size_t>(kind_of(f.who));
    ++kills[k];
    if (f.back_s < 0) continue;
    ++survived[k];
    if (worst[k] == nullptr || f.back_s > worst[k]->back_s) worst[k] = &f;
    if (f.alone && (worst_alone[k] == nullptr || f.back_s > worst_alone[k]->back_s))
      worst_alone[k] = &f;
    if (f.who == victim::real_node && f.step_running) ++with_step;
  }
  std::printf("\n== summary ==\n");
  std::printf("kills survived (killed -9, started again, back):");
  for (size_t k = 0; k < fault_kind_count; ++k)
    std::printf("%s %s %zu/%zu", k == 0 ? "" : ",", name_of(static_cast<fault_kind>(k)).c_str(),
                survived[k], kills[k]);
  std::printf("\n  real node kills that caught a job's step running: %zu\n", with_step);

  size_t not_acked = 0;
  for (auto& s : subs) not_acked += s.id == 0 ? 1 : 0;
  std::printf("jobs: %zu submitted, %zu acknowledged, %zu ended once in a final state (",
              subs.size(), tally.acknowledged, tally.ended);
  bool first = true;
  for (auto& [state, n] : tally.by_state) {
    std::printf("%s%s %zu", first ? "" : ", ", state.c_str(), n);
    first = false;
  }
  std::printf(")\n");
  for (auto& [what, n] : tally.not_completed) std::printf("  %zu x %s\n", n, what.c_str());
  std::printf(
      "  %zu submissions not acknowledged (the CLI gave up or was cut off); %zu listed jobs of "
      "this run that no CLI acknowledged\n",
      not_acked, tally.listed_unacknowledged);
  int shown = 0;
  for (auto& s : subs)
    if (s.id == 0 && shown++ < 5)
      std::printf("  not acknowledged: chaos-%zu: %s\n", s.index, s.failure.c_str());
  if (tally.drain_s >= 0)
    std::printf("  the queue drained %.1f s after the last submission\n", tally.drain_s);

  std::printf("time to recover: %s\n", fault_driver::back_definition());
  std::printf("worst time to recover, per kind (of the kills alone in their round; of all):\n");
  for (size_t k = 0; k < fault_kind_count; ++k)
    std::printf("  %-10s alone: %s\n  %-10s all:   %s\n",
                name_of(static_cast<fault_kind>(k)).c_str(),
                describe_recovery(worst_alone[k]).c_str(), "", describe_recovery(worst[k]).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  options opt;
  CLI::App app{
      "shoal_chaos: kill -9 shoal's controllers and node daemons at random under a stream of "
      "jobs, then check that nothing was lost"};
  app.add_option("--seconds", opt.seconds, "Length of the chaos phase (default 60)")
      ->check(CLI::Range(1.0, 86400.0));
  auto* seed = app.add_option("--seed", opt.seed, "Seed of every decision (default: random)");
  app.add_option("--nodes", opt.nodes,
                 "Simulated nodes, in two front ends with two collectors each (default 40)")
      ->check(CLI::Range(4u, 100000u));
  app.add_option("--drain-seconds", opt.drain_seconds,
                 "How long the acknowledged jobs may take to end after the chaos (default 120)");
  app.add_option("--recovery-seconds", opt.recovery_seconds,
                 "How long a killed daemon may take to be back after its restart (default 45)");
  app.add_flag("--keep", opt.keep, "Keep the scratch directory even when every check passes");
  CLI11_PARSE(app, argc, argv);
  opt.seed_given = seed->count() > 0;
  if (!opt.seed_given) opt.seed = (uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();

  std::printf("# shoal_chaos  cores: nproc=%u  date: %s  build: %s\n", bench::nproc_count(),
              bench::now_text().c_str(), SHOAL_BENCH_BUILD_TYPE);
  std::printf("# command: %s\n", bench::command_line(argc, argv).c_str());
  std::printf("seed: %llu  (replay: shoal_chaos --seed %llu --seconds %g --nodes %u)\n",
              static_cast<unsigned long long>(opt.seed), static_cast<unsigned long long>(opt.seed),
              opt.seconds, opt.nodes);
  std::fflush(stdout);

  auto ctld = bench::sibling_binary("shoalctld");
  if (ctld.empty() || bench::sibling_binary("shoald").empty() ||
      bench::sibling_binary("shoal").empty()) {
    std::fprintf(stderr, "shoal_chaos: shoalctld, shoald and shoal must be beside it\n");
    return 1;
  }
  auto bin_dir = ctld.substr(0, ctld.rfind('/'));
  auto auth = auth_config();
  auto launched = chaos_cluster::launch(opt.nodes, auth, bin_dir);
  if (!launched) {
    std::printf("cannot launch the cluster: %s\n", describe(launched.error()).c_str());
    return 1;
  }
  auto& cluster = **launched;
  std::printf(
      "cluster: 2 shoalctld (SlurmctldTimeout=3), %u simulated nodes in 2 front ends, "
      "collectors %s, %s, %s and %s, and %s (real); %s\n",
      opt.nodes, cluster.collectors()[0].c_str(), cluster.collectors()[1].c_str(),
      cluster.collectors()[2].c_str(), cluster.collectors()[3].c_str(),
      chaos_cluster::real_node_name,
      auth.find("munge") != std::string::npos ? "AuthType=auth/munge (the test munged)"
                                              : "AuthType=auth/none");
  std::printf("scratch directory: %s\n", cluster.directory().c_str());
  std::fflush(stdout);
  if (!wait_ready(cluster, 120s)) {
    cluster.keep();
    std::printf("FAILED: the cluster did not come up; logs kept in %s\n",
                cluster.directory().c_str());
    return 1;
  }

  plan decisions{opt.seed};
  fault_driver driver{cluster, decisions, std::chrono::seconds{opt.recovery_seconds}};
  auto chaos_start = steady::now();
  std::vector<submission> subs;
  {
    job_stream stream{cluster, decisions};
    driver.play(opt.seconds);
    stream.stop();
    subs = stream.submissions();
  }
  std::printf("chaos over after %.1f s; draining the queue (up to %u s)\n",
              std::chrono::duration<double>(steady::now() - chaos_start).count(),
              opt.drain_seconds);
  std::fflush(stdout);
  driver.check_daemons("after the chaos");
  job_tally tally;
  drain(cluster, subs, std::chrono::seconds{opt.drain_seconds}, tally);
  auto checks = final_checks(cluster, driver, subs, 30s, tally);

  print_summary(driver, subs, tally);
  std::printf("\n== checks ==\n");
  bool passed = true;
  for (auto& c : checks) {
    std::printf("%s: %s\n", c.passed() ? "PASS" : "FAIL", c.name.c_str());
    size_t shown = 0;
    for (auto& line : c.failed) {
      if (shown++ == 20) {
        std::printf("    ... and %zu more\n", c.failed.size() - 20);
        break;
      }
      std::printf("    %s\n", line.c_str());
    }
    passed = passed && c.passed();
  }
  if (!passed || opt.keep) cluster.keep();
  if (passed) {
    std::printf("\nPASSED (seed %llu)\n", static_cast<unsigned long long>(opt.seed));
    if (opt.keep) std::printf("logs kept in %s\n", cluster.directory().c_str());
    return 0;
  }
  std::printf("\nFAILED (seed %llu); every daemon's log is kept in %s\n",
              static_cast<unsigned long long>(opt.seed), cluster.directory().c_str());
  return 1;
}
