#include "bench/scale.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/support.hpp"
#include "messages/errc.hpp"
#include "runtime/bootstrap/local_cluster.hpp"

namespace shoal::bench {

namespace {

using clock_type = std::chrono::steady_clock;

/// User plus system CPU seconds `pid` has used, from /proc/PID/stat; negative when unreadable.
double cpu_seconds(pid_t pid) {
  std::ifstream in{"/proc/" + std::to_string(pid) + "/stat"};
  std::string text{std::istreambuf_iterator<char>{in}, {}};
  auto close = text.rfind(')');  // the command name may hold blanks
  if (close == std::string::npos) return -1;
  std::istringstream fields{text.substr(close + 2)};
  std::string field;
  unsigned long long utime = 0, stime = 0;
  // Fields 3..13 come before utime (14) and stime (15).
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

/// DOWN nodes in `shoal info --json`'s partitions (each node counted in its first partition).
/// The collectors' last rounds from `control show collectors --json`: (collectors up, nodes on
/// their lists, median round in ms, reports received in all); all zero without collectors.
struct collector_figures {
  long up = 0;
  long nodes = 0;
  double median_round_ms = 0;
  long reports = 0;
};

collector_figures collectors_now(const std::string& shoal, const std::string& conf) {
  auto out = capture({shoal, "-f", conf, "control", "show", "collectors", "--json"});
  collector_figures f;
  static const std::regex line{
      "\"nodes\": ([0-9]+),[^}]*\"reports\": ([0-9]+),[^}]*\"round_ms\": ([0-9]+),[^}]*"
      "\"state\": \"([A-Z]+)\""};
  std::vector<double> rounds;
  for (std::sregex_iterator it{out.begin(), out.end(), line}, end; it != end; ++it) {
    if ((*it)[4] != "UP") continue;
    ++f.up;
    f.nodes += std::stol((*it)[1]);
    f.reports += std::stol((*it)[2]);
    rounds.push_back(std::stod((*it)[3]));
  }
  if (!rounds.empty()) {
    std::sort(rounds.begin(), rounds.end());
    f.median_round_ms = rounds[rounds.size() / 2];
  }
  return f;
}

long down_nodes(const std::string& shoal, const std::string& conf) {
  auto out = capture({shoal, "-f", conf, "info", "--json"});
  if (out.empty()) return -1;
  static const std::regex down{"\"down\\*?\": ([0-9]+)"};
  long total = 0;
  for (std::sregex_iterator it{out.begin(), out.end(), down}, end; it != end; ++it)
    total += std::stol((*it)[1]);
  return total;
}

/// `runs` timings of `shoal ARGS`; false after printing why when one fails.
bool time_listing(const std::string& shoal, const std::string& conf, const char* what,
                  const std::vector<std::string>& args, unsigned runs) {
  std::vector<std::string> argv{shoal, "-f", conf};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<double> samples;
  for (unsigned i = 0; i < runs + 1; ++i) {
    auto r = run_silent(argv, "/");
    if (!succeeded(r)) {
      std::printf("  %s failed: %s %s\n", what, describe_status(r).c_str(), r.error_text.c_str());
      return false;
    }
    if (i > 0) samples.push_back(r.elapsed_ms);  // the first one warms the caches
  }
  auto s = summarize(samples);
  std::printf("  %-36s median %7.1f ms  p95 %7.1f ms  (%zu runs)\n", what, s.median_ms, s.p95_ms,
              s.count);
  return true;
}

}  // namespace

bool run_scale_bench(const scale_options& opt) {
  auto shoal = sibling_binary("shoal");
  std::printf(
      "scale: %u simulated nodes in %u front ends, %u collectors, HeartBeatInterval=%d "
      "SlurmdTimeout=%d\n",
      opt.nodes, opt.front_ends, opt.collectors, opt.heartbeat_interval_s, opt.slurmd_timeout_s);
  std::fflush(stdout);
  runtime::local_cluster cluster;
  auto start = clock_type::now();
  if (!start_simulated(cluster, opt.nodes, opt.front_ends, opt.collectors, opt.heartbeat_interval_s,
                       opt.slurmd_timeout_s))
    return false;
  std::printf("  %-36s %9.1f s\n", "bring-up (launch to all IDLE)", seconds_since(start));
  const auto conf = cluster.config_path();
  const auto ctld = cluster.daemon_pids().front();
  // Steady state: registrations are over, heartbeats go on.
  auto cpu_before = cpu_seconds(ctld);
  auto window_start = clock_type::now();
  auto rounds_before = collectors_now(shoal, conf);
  std::this_thread::sleep_for(std::chrono::duration<double>(opt.window_s));
  auto cpu_share = (cpu_seconds(ctld) - cpu_before) / seconds_since(window_start);
  auto rounds = collectors_now(shoal, conf);
  auto window = seconds_since(window_start);
  std::printf("  %-36s %9.2f %% of one core over %.0f s (aim at 100,000 nodes: under 10 %%)\n",
              "controller CPU, steady state", 100 * cpu_share, opt.window_s);
  std::printf("  %-36s %9.1f MiB (aim at 100,000 nodes: under 2 GiB)\n", "controller RSS",
              static_cast<double>(proc_status_kib(ctld, "VmRSS")) / 1024);
  if (opt.collectors == 0) {
    std::printf("  %-36s %9.0f (every node beats to its node actor)\n",
                "heartbeat messages per interval", static_cast<double>(opt.nodes));
  } else {
    auto per_interval = static_cast<double>(rounds.reports - rounds_before.reports) / window *
                        opt.heartbeat_interval_s;
    std::printf("  %-36s %9.0f ms median over %ld collectors up (%ld nodes on their lists)\n",
                "heartbeat round", rounds.median_round_ms, rounds.up, rounds.nodes);
    std::printf("  %-36s %9.0f (one report per collector; it vouches for its own node)\n",
                "heartbeat messages per interval", per_interval);
  }
  bool valid = time_listing(shoal, conf, "shoal info", {"info"}, opt.runs) &&
               time_listing(shoal, conf, "shoal queue", {"queue"}, opt.runs) &&
               time_listing(shoal, conf, "shoal info -N (one line per node)", {"info", "-N"},
                            std::max(1u, opt.runs / 5));
  // One front end stops as a crashed host would: its nodes must go DOWN after SlurmdTimeout.
  long served = static_cast<long>(opt.nodes / opt.front_ends);
  auto down_before = down_nodes(shoal, conf);
  cluster.signal_node(1, SIGKILL);
  auto killed = clock_type::now();
  bool down = false;
  while (valid && seconds_since(killed) < 3.0 * opt.slurmd_timeout_s + 60) {
    auto now_down = down_nodes(shoal, conf);
    if (now_down >= down_before + served) {
      down = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{500});
  }
  if (down)
    std::printf("  %-36s %9.1f s (SlurmdTimeout %d s; %ld nodes)\n", "front end killed to all DOWN",
                seconds_since(killed), opt.slurmd_timeout_s, served);
  else if (valid)
    std::printf("  front end killed: its %ld nodes were not all DOWN after %.0f s\n", served,
                seconds_since(killed));
  cluster.tear_down(false);
  return valid && down;
}

}  // namespace shoal::bench
