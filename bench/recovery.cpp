#include "bench/recovery.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "actors/job.hpp"
#include "actors/saved_state.hpp"
#include "bench/support.hpp"
#include "messages/caf/error.hpp"
#include "policy/job_lifecycle.hpp"
#include "runtime/bootstrap/local_cluster.hpp"
#include "runtime/bootstrap/temp_dir.hpp"
#include "state/store.hpp"

namespace shoal::bench {

namespace {

using clock_type = std::chrono::steady_clock;

/// A held batch job as a controller saves it at submission.
msg::job_record held_job(uint64_t id) {
  actors::job_setup setup;
  setup.id = id;
  auto& req = setup.req;
  req.name = "recovery.sh";
  req.user = "root";
  req.partition = "debug";
  req.min_nodes = 1;
  req.ntasks = 1;
  req.batch = true;
  req.cwd = "/tmp";
  req.script = "#!/bin/sh\ntrue\n";
  req.argv = {"recovery.sh"};
  req.env = {"PATH=/usr/bin:/bin", "HOME=/root", "SHELL=/bin/sh", "LANG=C.UTF-8"};
  req.stdout_path = "/tmp/shoal-" + std::to_string(id) + ".out";
  req.time_limit_s = -1;
  req.workload.hold = true;
  msg::job_record rec;
  rec.request = req;
  rec.info = actors::initial_job_info(setup);
  rec.life_state = static_cast<uint32_t>(policy::initial_lifecycle(true).state);
  rec.life_reason = rec.info.reason;
  return rec;
}

/// The figure shoalctld logs for its load ("saved state loaded ... ms=N"), or -1.
long logged_load_ms(const std::string& log) {
  std::ifstream in{log};
  std::string line;
  std::regex pattern{"saved state loaded .* ms=([0-9]+)"};
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_search(line, m, pattern)) return std::stol(m[1]);
  return -1;
}

uint64_t directory_bytes(const std::string& dir) {
  uint64_t total = 0;
  for (auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.is_regular_file()) total += entry.file_size();
  return total;
}

}  // namespace

bool run_recovery_bench(size_t jobs, unsigned nodes) {
  auto dir = runtime::make_temp_dir("shoal-bench-recovery");
  if (!dir) {
    std::fprintf(stderr, "shoal_bench: error: %s\n", describe(dir.error()).c_str());
    return false;
  }
  auto state_dir = *dir + "/state";
  {
    state::record_map records;
    for (uint64_t id = 1; id <= jobs; ++id)
      records.emplace(actors::job_key(id), actors::encoded(held_job(id)));
    msg::controller_record ctl;
    ctl.next_job_id = jobs + 1;
    records.emplace(actors::controller_key, actors::encoded(ctl));
    auto store = state::store::open({state_dir}, records);
    if (!store) {
      std::fprintf(stderr, "shoal_bench: error: %s\n", describe(store.error()).c_str());
      remove_tree(*dir);
      return false;
    }
  }
  runtime::local_cluster cluster;
  auto started = clock_type::now();
  if (auto err = cluster.launch(nodes, "StateSaveLocation=" + state_dir + "\n")) {
    std::fprintf(stderr, "shoal_bench: error: %s\n", describe(err).c_str());
    cluster.tear_down(true);
    remove_tree(*dir);
    return false;
  }
  // The first answer that lists the last job: every job is back.
  auto shoal = sibling_binary("shoal");
  auto last = std::to_string(jobs);
  bool found = false;
  double answer_s = 0;
  while (clock_type::now() - started < std::chrono::minutes{5}) {
    auto out = capture({shoal, "-f", cluster.config_path(), "control", "show", "job", last});
    if (out.find("JobState=PENDING") != std::string::npos) {
      answer_s = std::chrono::duration<double>(clock_type::now() - started).count();
      found = true;
      break;
    }
  }
  auto load_ms = logged_load_ms(cluster.directory() + "/shoalctld.log");
  auto rss = proc_status_kib(cluster.daemon_pids().front(), "VmRSS");
  std::printf(
      "recovery    %zu held jobs saved (one snapshot of %.1f MiB): load %ld ms (shoalctld's "
      "figure); start of shoalctld to its first answer listing job %s: %.2f s; shoalctld RSS "
      "then %.0f MiB\n",
      jobs, static_cast<double>(directory_bytes(state_dir)) / (1 << 20), load_ms, last.c_str(),
      answer_s, static_cast<double>(rss) / 1024);
  if (!found)
    std::printf("            FAILED: job %s never listed within 5 minutes\n", last.c_str());
  std::fflush(stdout);
  cluster.tear_down(true);
  remove_tree(*dir);
  return found;
}

}  // namespace shoal::bench
