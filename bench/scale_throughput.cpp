#include "bench/scale_throughput.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>
#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "accounting/job_store.hpp"
#include "bench/support.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "metrics/text_parser.hpp"
#include "runtime/bootstrap/controller_client.hpp"
#include "runtime/bootstrap/controller_link.hpp"
#include "runtime/bootstrap/local_cluster.hpp"
#include "runtime/bootstrap/system_setup.hpp"

namespace shoal::bench {

namespace {

using clock_type = std::chrono::steady_clock;

/// What one scrape of shoalctld's /metrics says about the run.
struct snapshot {
  bool ok = false;
  double allocated = 0;        ///< nodes ALLOCATED or MIXED
  double pending = 0;          ///< jobs PENDING
  double running = 0;          ///< jobs RUNNING or COMPLETING
  double started = 0;          ///< shoal_jobs_started_total
  double kept = 0;             ///< finished jobs the controller still holds (MinJobAge)
  metrics::bucket_list cycle;  ///< shoal_scheduler_cycle_seconds, cumulative
};

snapshot scrape(uint16_t port) {
  snapshot s;
  httplib::Client client{"127.0.0.1", port};
  client.set_read_timeout(30);
  auto res = client.Get("/metrics");
  if (!res || res->status != 200) return s;
  auto parsed = metrics::parse_text(res->body);
  if (!parsed) return s;
  auto value = [&](const char* name, const char* state) {
    return parsed->value(name, {{"state", state}}).value_or(0);
  };
  s.allocated = value("shoal_nodes", "ALLOCATED") + value("shoal_nodes", "MIXED");
  s.pending = value("shoal_jobs", "PENDING");
  s.running = value("shoal_jobs", "RUNNING") + value("shoal_jobs", "COMPLETING");
  s.started = parsed->value("shoal_jobs_started_total").value_or(0);
  for (const char* state : {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL"})
    s.kept += value("shoal_jobs", state);
  s.cycle = scheduler_cycle_buckets(*parsed);
  s.ok = true;
  return s;
}

/// User plus system CPU seconds of process `pid` so far (/proc/PID/stat).
double cpu_seconds(pid_t pid) {
  auto* f = std::fopen(("/proc/" + std::to_string(pid) + "/stat").c_str(), "r");
  if (!f) return 0;
  char buf[1024] = {};
  auto n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  std::string text(buf, n);
  // Fields after the command's closing parenthesis: state is field 3, utime 14, stime 15.
  auto at = text.rfind(')');
  if (at == std::string::npos) return 0;
  std::vector<std::string> fields;
  size_t pos = at + 2;
  while (pos < text.size()) {
    auto space = text.find(' ', pos);
    fields.push_back(text.substr(pos, space - pos));
    if (space == std::string::npos) break;
    pos = space + 1;
  }
  if (fields.size() < 13) return 0;
  auto ticks = std::stod(fields[11]) + std::stod(fields[12]);
  return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

double rss_mib(pid_t pid) {
  return static_cast<double>(proc_status_kib(pid, "VmRSS")) / 1024;
}

msg::job_request job(std::mt19937& rng, const scale_throughput_options& opt) {
  std::uniform_int_distribution<unsigned> nodes{1, std::max(1u, opt.max_job_nodes)};
  std::uniform_int_distribution<unsigned> secs{1, std::max(1u, opt.max_job_s)};
  msg::job_request req;
  req.uid = static_cast<uint32_t>(::getuid());
  req.gid = static_cast<uint32_t>(::getgid());
  req.user = "bench";
  req.name = "scale";
  req.batch = true;
  req.min_nodes = nodes(rng);
  req.ntasks = req.min_nodes;
  req.time_limit_s = 2 * static_cast<int64_t>(opt.max_job_s) + 60;
  req.script = "#!/bin/sh\nsleep " + std::to_string(secs(rng)) + "\n";
  req.stdout_path = "/dev/null";
  req.cwd = "/tmp";
  return req;
}

}  // namespace

bool run_scale_throughput_bench(const scale_throughput_options& opt) {
  std::printf(
      "scale throughput: %u jobs of 1-%u nodes and 1-%u s on %u simulated nodes (%u front ends, "
      "%u collectors), HeartBeatInterval=%d\n",
      opt.jobs, opt.max_job_nodes, opt.max_job_s, opt.nodes, opt.front_ends, opt.collectors,
      opt.heartbeat_interval_s);
  std::fflush(stdout);
  runtime::local_cluster cluster;
  std::string more;
  if (opt.min_job_age_s > 0) more = "MinJobAge=" + std::to_string(opt.min_job_age_s) + "\n";
  if (!start_simulated(cluster, opt.nodes, opt.front_ends, opt.collectors, opt.heartbeat_interval_s,
                       3 * opt.heartbeat_interval_s, more))
    return false;
  const pid_t controller = cluster.daemon_pids().front();
  const double cpu_before = cpu_seconds(controller);
  caf::actor_system_config cfg;
  runtime::configure_actor_system(cfg, 2);
  caf::actor_system sys{cfg};
  auto conf = runtime::load_cluster_config(cluster.config_path());
  auto ctl = conf ? runtime::connect_controller(sys, *conf)
                  : caf::expected<caf::actor>{to_caf(conf.error())};
  if (!ctl) {
    std::printf("  cannot reach the controller: %s\n", describe(ctl.error()).c_str());
    cluster.tear_down(true);
    return false;
  }
  auto before = scrape(cluster.metrics_port());
  std::mt19937 rng{opt.seed};
  auto start = clock_type::now();
  size_t refused = 0;
  {
    // Pipelined in windows, so the mailbox of replies stays small.
    caf::scoped_actor self{sys};
    constexpr unsigned window = 2000;
    for (unsigned done = 0; done < opt.jobs;) {
      unsigned n = std::min(window, opt.jobs - done);
      std::vector<decltype(self->request(*ctl, std::chrono::seconds{120}, msg::submit_atom_v,
                                         msg::job_request{}, caf::actor{}))>
          pending;
      for (unsigned i = 0; i < n; ++i)
        pending.push_back(self->request(*ctl, std::chrono::seconds{120}, msg::submit_atom_v,
                                        job(rng, opt), caf::actor{}));
      for (auto& h : pending)
        h.receive([](const msg::job_info&) {}, [&](caf::error&) { ++refused; });
      done += n;
    }
  }
  auto submitted_s = seconds_since(start);
  std::printf("  %-40s %9.1f s (%.0f jobs/s)%s\n", "all submitted", submitted_s,
              opt.jobs / std::max(submitted_s, 1e-9),
              refused ? (" " + std::to_string(refused) + " REFUSED").c_str() : "");
  // Busy share while jobs are queued, sampled each second.
  std::vector<double> busy;
  snapshot last = before;
  double queue_emptied_s = -1;
  auto started_at_empty = before.started;
  while (seconds_since(start) < 3600) {
    std::this_thread::sleep_for(std::chrono::seconds{1});
    auto now = scrape(cluster.metrics_port());
    if (!now.ok) continue;
    last = now;
    if (now.pending > 0) {
      busy.push_back(now.allocated / opt.nodes);
    } else if (queue_emptied_s < 0) {
      queue_emptied_s = seconds_since(start);
      started_at_empty = now.started;
    }
    if (now.pending == 0 && now.running == 0) break;
  }
  bool valid = refused == 0 && last.ok && queue_emptied_s > 0;
  if (queue_emptied_s > 0) {
    std::printf("  %-40s %9.1f s\n", "queue empty (every job started)", queue_emptied_s);
    std::printf("  %-40s %9.0f jobs/s\n", "jobs started per second (while queued)",
                (started_at_empty - before.started) / queue_emptied_s);
  } else {
    std::printf("  the queue never emptied within the hour\n");
  }
  auto cycles = buckets_between(before.cycle, last.cycle);
  std::printf("  %-40s median %7.1f ms  p99 %7.1f ms  (%.0f passes)\n", "scheduling pass",
              1e3 * metrics::bucket_quantile(0.5, cycles),
              1e3 * metrics::bucket_quantile(0.99, cycles),
              cycles.empty() ? 0.0 : cycles.back().second);
  if (!busy.empty()) {
    double mean = 0;
    for (auto b : busy) mean += b;
    mean /= static_cast<double>(busy.size());
    std::printf("  %-40s mean %5.1f %%  lowest %5.1f %% (%zu samples; aim: over 90 %%)\n",
                "nodes allocated while jobs were queued", 100 * mean,
                100 * *std::min_element(busy.begin(), busy.end()), busy.size());
  }
  auto ran_s = seconds_since(start);
  std::printf("  %-40s %9.1f MiB (%.0f finished jobs held)\n", "controller RSS at the end",
              rss_mib(controller), last.kept);
  std::printf("  %-40s %9.1f s over %.0f s (%.2f ms a job)\n", "controller CPU",
              cpu_seconds(controller) - cpu_before, ran_s,
              1e3 * (cpu_seconds(controller) - cpu_before) / std::max(1u, opt.jobs));
  if (opt.min_job_age_s > 0 && valid) {
    // Forgotten only once the accounting store holds them: wait for both.
    auto deadline = seconds_since(start) + static_cast<double>(opt.min_job_age_s) + 600;
    while (last.kept > 0 && seconds_since(start) < deadline) {
      std::this_thread::sleep_for(std::chrono::seconds{1});
      if (auto now = scrape(cluster.metrics_port()); now.ok) last = now;
    }
    std::printf("  %-40s %9.1f MiB (%.0f finished jobs held)\n", "controller RSS after MinJobAge",
                rss_mib(controller), last.kept);
    std::printf("  %-40s %9.1f s\n", "controller CPU, whole run",
                cpu_seconds(controller) - cpu_before);
    auto store = accounting::open_sqlite_store(cluster.directory() + "/state/accounting.db");
    if (store) {
      accounting::job_query all;
      all.with_steps = false;
      auto jobs = (*store)->query(all);
      std::printf("  %-40s %9zu\n", "jobs in the accounting store", jobs ? jobs->size() : 0);
    }
    valid = valid && last.kept == 0;
  }
  cluster.tear_down(false);
  return valid;
}

}  // namespace shoal::bench
