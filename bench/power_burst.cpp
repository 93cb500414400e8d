#include "bench/power_burst.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include <httplib.h>
#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "bench/support.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "metrics/text_parser.hpp"
#include "runtime/bootstrap/controller_client.hpp"
#include "runtime/bootstrap/controller_link.hpp"
#include "runtime/bootstrap/local_cluster.hpp"
#include "runtime/bootstrap/system_setup.hpp"
#include "runtime/bootstrap/temp_dir.hpp"

namespace shoal::bench {

namespace {

using clock_type = std::chrono::steady_clock;

/// What one scrape of shoalctld's /metrics says about the burst.
struct snapshot {
  bool ok = false;
  double started = 0;  ///< shoal_jobs_started_total
  metrics::bucket_list cycle;
};

snapshot scrape(uint16_t port) {
  snapshot s;
  httplib::Client client{"127.0.0.1", port};
  client.set_read_timeout(30);
  auto res = client.Get("/metrics");
  if (!res || res->status != 200) return s;
  auto parsed = metrics::parse_text(res->body);
  if (!parsed) return s;
  s.started = parsed->value("shoal_jobs_started_total").value_or(0);
  s.cycle = scheduler_cycle_buckets(*parsed);
  s.ok = true;
  return s;
}

/// The ResumeProgram: one line per call in resume.log (wall time, the argument's length in
/// bytes, the nodes it names), then one front-end shoald for all of them, in a session of its
/// own (the controller kills the program's process group once its timeout passes), its pid in
/// `pids` for the tear-down. The config's path is read from `conf`, written once the cluster
/// has one.
std::string resume_script(const std::string& dir) {
  auto shoal = sibling_binary("shoal");
  auto shoald = sibling_binary("shoald");
  return "#!/bin/bash\n"
         "conf=$(cat " +
         dir +
         "/conf)\n"
         "count=$(" +
         shoal + " -f \"$conf\" control show hostnames \"$1\" | wc -w)\n" +
         "echo \"$(date +%s.%N) $(printf %s \"$1\" | wc -c) $count\" >> " + dir +
         "/resume.log\n"
         "setsid " +
         shoald + " -f \"$conf\" --nodes=\"$1\" --simulate -b --metrics-port 0 -L " + dir +
         "/shoald-$$.log </dev/null >/dev/null 2>&1 &\n"
         "echo $! >> " +
         dir + "/pids\n";
}

struct resume_call {
  double at = 0;
  double arg_bytes = 0;
  double nodes = 0;
};

std::vector<resume_call> read_resume_log(const std::string& path) {
  std::vector<resume_call> calls;
  std::ifstream in{path};
  resume_call c;
  while (in >> c.at >> c.arg_bytes >> c.nodes) calls.push_back(c);
  return calls;
}

/// The front ends the ResumeProgram started live in their own sessions: nobody else ends them.
void stop_front_ends(const std::string& pids_file) {
  std::vector<pid_t> pids;
  std::ifstream in{pids_file};
  for (pid_t p; in >> p;) pids.push_back(p);
  for (auto p : pids) ::kill(p, SIGTERM);
  for (int i = 0; i < 50; ++i) {
    bool any = false;
    for (auto p : pids) any = any || ::kill(p, 0) == 0;
    if (!any) return;
    std::this_thread::sleep_for(std::chrono::milliseconds{100});
  }
  for (auto p : pids) ::kill(p, SIGKILL);
}

/// min / median / max of `v`, as "1 / 2 / 3".
std::string spread(std::vector<double> v) {
  if (v.empty()) return "-";
  std::sort(v.begin(), v.end());
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.0f / %.0f / %.0f", v.front(), v[(v.size() - 1) / 2], v.back());
  return buf;
}

msg::job_request burst_job(const power_burst_options& opt) {
  msg::job_request req;
  req.uid = static_cast<uint32_t>(::getuid());
  req.gid = static_cast<uint32_t>(::getgid());
  req.user = "bench";
  req.name = "burst";
  req.batch = true;
  req.partition = "cloud";
  req.min_nodes = opt.job_nodes;
  req.ntasks = opt.job_nodes;
  req.time_limit_s = static_cast<int64_t>(opt.job_s) + 600;
  req.script = "#!/bin/sh\nsleep " + std::to_string(opt.job_s) + "\n";
  req.stdout_path = "/dev/null";
  req.cwd = "/tmp";
  return req;
}

/// Waits until the ordinary node answers IDLE, which means the controller is up; the CLOUD nodes
/// stay powered down, so local_cluster::wait_until_ready (every node IDLE) does not apply.
bool wait_for_controller(const runtime::local_cluster& cluster) {
  auto shoal = sibling_binary("shoal");
  auto deadline = clock_type::now() + std::chrono::minutes{10};
  while (clock_type::now() < deadline) {
    auto out = capture(
        {shoal, "-f", cluster.config_path(), "info", "-N", "-h", "-n", "node1", "-o", "%t"});
    if (out.rfind("idle", 0) == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds{200});
  }
  return false;
}

}  // namespace

bool run_power_burst_bench(const power_burst_options& opt) {
  std::printf(
      "power burst: %u jobs of %u nodes (sleep %u s, simulated) on %u State=CLOUD simulated "
      "nodes, all powered down; ResumeRate=%u%s, ResumeTimeout=%d\n",
      opt.jobs, opt.job_nodes, opt.job_s, opt.nodes, opt.resume_rate,
      opt.resume_rate == 0 ? " (no limit)" : " a minute", opt.resume_timeout_s);
  if (!opt.scheduler_parameters.empty())
    std::printf("  SchedulerParameters=%s\n", opt.scheduler_parameters.c_str());
  std::fflush(stdout);
  auto dir = runtime::make_temp_dir("shoal-burst");
  if (!dir) {
    std::printf("  cannot make a directory: %s\n", describe(dir.error()).c_str());
    return false;
  }
  {
    std::ofstream script{*dir + "/resume.sh"};
    script << resume_script(*dir);
  }
  ::chmod((*dir + "/resume.sh").c_str(), 0755);
  auto cloud = "cloud[1-" + std::to_string(opt.nodes) + "]";
  // One ordinary node (the simulated cluster's node1) shows the controller is up. SuspendTime
  // stays INFINITE: CLOUD nodes alone run the power actor, and nothing powers down mid-burst.
  // MinJobAge keeps the jobs that end early listed, for their start times.
  std::string extra =
      "HeartBeatInterval=30\nSlurmdTimeout=90\nMinJobAge=86400\nSuspendProgram=/bin/true\n"
      "ResumeProgram=" +
      *dir + "/resume.sh\nResumeRate=" + std::to_string(opt.resume_rate) +
      "\nResumeTimeout=" + std::to_string(opt.resume_timeout_s) + "\nNodeName=" + cloud +
      " NodeAddr=127.0.0.1 State=CLOUD Simulate=YES\n" + "PartitionName=cloud Nodes=" + cloud +
      " MaxTime=INFINITE State=UP\n";
  if (!opt.scheduler_parameters.empty())
    extra += "SchedulerParameters=" + opt.scheduler_parameters + "\n";
  runtime::local_cluster cluster;
  auto give_up = [&](bool keep) {
    stop_front_ends(*dir + "/pids");
    cluster.tear_down(keep);
    if (!keep) remove_tree(*dir);
    return false;
  };
  if (auto err = cluster.launch_simulated(1, 1, extra)) {
    std::printf("  cannot launch: %s\n", describe(err).c_str());
    return give_up(true);
  }
  {
    std::ofstream conf{*dir + "/conf"};
    conf << cluster.config_path() << "\n";
  }
  if (!wait_for_controller(cluster)) {
    std::printf("  not up (logs in %s and %s)\n", cluster.directory().c_str(), dir->c_str());
    return give_up(true);
  }
  caf::actor_system_config cfg;
  runtime::configure_actor_system(cfg, 2);
  caf::actor_system sys{cfg};
  auto conf = runtime::load_cluster_config(cluster.config_path());
  auto ctl = conf ? runtime::connect_controller(sys, *conf)
                  : caf::expected<caf::actor>{to_caf(conf.error())};
  if (!ctl) {
    std::printf("  cannot reach the controller: %s\n", describe(ctl.error()).c_str());
    return give_up(true);
  }
  auto before = scrape(cluster.metrics_port());
  auto start = clock_type::now();
  auto start_wall =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  size_t refused = 0;
  std::vector<uint64_t> ids;
  {
    caf::scoped_actor self{sys};
    std::vector<decltype(self->request(*ctl, std::chrono::seconds{120}, msg::submit_atom_v,
                                       msg::job_request{}, caf::actor{}))>
        pending;
    for (unsigned i = 0; i < opt.jobs; ++i)
      pending.push_back(self->request(*ctl, std::chrono::seconds{120}, msg::submit_atom_v,
                                      burst_job(opt), caf::actor{}));
    for (auto& h : pending)
      h.receive([&](const msg::job_info& j) { ids.push_back(j.job_id); },
                [&](caf::error&) { ++refused; });
  }
  auto submitted_s = seconds_since(start);
  std::printf("  %-44s %9.2f s%s\n", "all submitted", submitted_s,
              refused ? (" " + std::to_string(refused) + " REFUSED").c_str() : "");
  // With a rate limit the nodes come up at ResumeRate a minute: wait for that, and more.
  double bound_s = 600;
  if (opt.resume_rate > 0)
    bound_s += 60.0 * std::min(opt.nodes, opt.jobs * opt.job_nodes) / opt.resume_rate;
  snapshot last = before;
  double all_running_s = -1;
  while (seconds_since(start) < bound_s) {
    std::this_thread::sleep_for(std::chrono::milliseconds{200});
    auto now = scrape(cluster.metrics_port());
    if (!now.ok) continue;
    last = now;
    if (now.started - before.started >= opt.jobs) {
      all_running_s = seconds_since(start);
      break;
    }
  }
  auto rss_kib = proc_status_kib(cluster.daemon_pids().front(), "VmRSS");
  auto hwm_kib = proc_status_kib(cluster.daemon_pids().front(), "VmHWM");
  // Each job's submit-to-running, from the controller's own times (whole seconds).
  std::vector<double> waits;
  {
    std::unordered_set<uint64_t> mine(ids.begin(), ids.end());
    caf::scoped_actor self{sys};
    self->request(*ctl, std::chrono::seconds{120}, msg::jobs_atom_v, true)
        .receive(
            [&](const std::vector<msg::job_info>& all) {
              for (auto& j : all)
                if (mine.count(j.job_id) && j.start_time > 0)
                  waits.push_back(static_cast<double>(j.start_time - j.submit_time));
            },
            [&](caf::error&) {});
  }
  auto calls = read_resume_log(*dir + "/resume.log");
  std::vector<double> per_call_nodes;
  std::vector<double> per_call_bytes;
  double resumed = 0;
  for (auto& c : calls) {
    per_call_nodes.push_back(c.nodes);
    per_call_bytes.push_back(c.arg_bytes);
    resumed += c.nodes;
  }
  std::printf("  %-44s %9zu (%.0f nodes; the first %.2f s after the first submission)\n",
              "ResumeProgram calls", calls.size(), resumed,
              calls.empty() ? 0.0 : calls.front().at - start_wall);
  std::printf("  %-44s %s\n", "nodes per call (min / median / max)",
              spread(per_call_nodes).c_str());
  std::printf("  %-44s %s\n", "argument bytes per call (min / median / max)",
              spread(per_call_bytes).c_str());
  if (all_running_s > 0)
    std::printf("  %-44s %9.1f s\n", "first submission to every job running", all_running_s);
  else
    std::printf("  not every job ran within %.0f s (%.0f of %u)\n", bound_s,
                last.started - before.started, opt.jobs);
  if (!waits.empty()) {
    std::sort(waits.begin(), waits.end());
    std::printf("  %-44s median %4.0f s  max %4.0f s (controller times, whole seconds)\n",
                "a job's submit-to-running", waits[(waits.size() - 1) / 2], waits.back());
  }
  auto cycles = buckets_between(before.cycle, last.cycle);
  std::printf("  %-44s median %7.1f ms  p99 %7.1f ms  (%.0f passes)\n", "scheduling pass meanwhile",
              1e3 * metrics::bucket_quantile(0.5, cycles),
              1e3 * metrics::bucket_quantile(0.99, cycles),
              cycles.empty() ? 0.0 : cycles.back().second);
  std::printf("  %-44s %9.1f MiB (peak %.1f MiB)\n", "controller RSS, every job running",
              static_cast<double>(rss_kib) / 1024, static_cast<double>(hwm_kib) / 1024);
  std::fflush(stdout);
  if (waits.size() != opt.jobs)
    std::printf("  only %zu of the %u jobs are listed with a start time\n", waits.size(), opt.jobs);
  bool valid = refused == 0 && all_running_s > 0 && !calls.empty() && resumed <= opt.nodes &&
               waits.size() == opt.jobs;
  if (resumed > opt.nodes) std::printf("  MORE NODES RESUMED THAN CONFIGURED: one resumed twice\n");
  if (!valid || opt.keep)
    std::printf("  files kept in %s and %s\n", dir->c_str(), cluster.directory().c_str());
  stop_front_ends(*dir + "/pids");
  cluster.tear_down(!valid || opt.keep);
  if (valid && !opt.keep) remove_tree(*dir);
  return valid;
}

}  // namespace shoal::bench
