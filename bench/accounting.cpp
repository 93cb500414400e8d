#include "bench/accounting.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "accounting/job_store.hpp"
#include "accounting/private_postgres.hpp"
#include "bench/support.hpp"

namespace shoal::bench {

namespace {

using namespace shoal::accounting;

/// The first job's submit time; jobs are submitted a second apart and run a minute each.
constexpr int64_t first_submit = 1700000000;
constexpr int64_t run_seconds = 60;

job_row finished_job(size_t i) {
  job_row j;
  j.cluster = "bench";
  j.job_id = static_cast<uint32_t>(i + 1);
  j.name = "job" + std::to_string(i % 100);
  j.user = "user" + std::to_string(i % 50);
  j.uid = static_cast<uint32_t>(1000 + i % 50);
  j.gid = 100;
  j.group = "users";
  j.account = "acct" + std::to_string(i % 10);
  j.partition = "batch";
  j.qos = "normal";
  j.state = i % 17 == 0 ? "FAILED" : "COMPLETED";
  j.reason = "None";
  j.exit_code = i % 17 == 0 ? 1 : 0;
  j.submit_time = first_submit + static_cast<int64_t>(i);
  j.eligible_time = j.submit_time;
  j.start_time = j.submit_time + 1;
  j.end_time = j.start_time + run_seconds;
  j.time_limit_s = 3600;
  j.node_count = 1;
  char node[16];
  std::snprintf(node, sizeof node, "n%03zu", i % 100);
  j.nodelist = node;
  j.req_cpus = j.alloc_cpus = 4;
  j.req_mem_mb = 2000;
  j.req_tres = "cpu=4,mem=2000M,node=1,billing=4";
  j.alloc_tres = j.req_tres;
  j.work_dir = "/home/" + j.user;
  j.submit_line = "sbatch job.sh";
  j.priority = 4294000000u - static_cast<uint32_t>(i);
  return j;
}

step_row batch_step_of(const job_row& j) {
  step_row s;
  s.cluster = j.cluster;
  s.job_id = j.job_id;
  s.submit_time = j.submit_time;
  s.step_id = batch_step;
  s.name = "batch";
  s.nodelist = j.nodelist;
  s.node_count = 1;
  s.ntasks = 1;
  s.state = j.state;
  s.exit_code = j.exit_code;
  s.start_time = j.start_time;
  s.end_time = j.end_time;
  s.user_cpu_us = 59000000;
  s.system_cpu_us = 400000;
  s.max_rss_bytes = 200ull << 20;
  s.max_rss_node = j.nodelist;
  s.ave_rss_bytes = 150ull << 20;
  s.max_vsize_bytes = 1ull << 30;
  s.read_bytes = 10ull << 20;
  s.written_bytes = 1ull << 20;
  return s;
}

/// Writes opt.jobs finished jobs in batches; false after printing why.
bool write_all(job_store& store, const accounting_options& opt) {
  std::vector<double> batch_ms;
  auto start = std::chrono::steady_clock::now();
  for (size_t from = 0; from < opt.jobs; from += opt.batch) {
    std::vector<job_row> jobs;
    std::vector<step_row> steps;
    for (size_t i = from; i < std::min(opt.jobs, from + opt.batch); ++i) {
      jobs.push_back(finished_job(i));
      steps.push_back(batch_step_of(jobs.back()));
    }
    auto batch_start = std::chrono::steady_clock::now();
    if (auto err = store.write(jobs, steps)) {
      std::printf("            FAILED write of jobs %zu..: %s\n", from, describe(err).c_str());
      return false;
    }
    batch_ms.push_back(seconds_since(batch_start) * 1000);
  }
  double total = seconds_since(start);
  auto s = summarize(batch_ms);
  std::printf(
      "            write  %zu jobs (1 step each) in batches of %zu: %.2f s = %9.0f jobs/s"
      "  per batch: median %.1f ms  p95 %.1f ms  max %.1f ms\n",
      opt.jobs, opt.batch, total, static_cast<double>(opt.jobs) / total, s.median_ms, s.p95_ms,
      s.max_ms);
  return true;
}

/// Times `sacct -S` windows over the written jobs: all of them, and the last 1%; false after
/// printing why (an error, or a count other than the jobs in the window).
bool time_windows(job_store& store, const accounting_options& opt) {
  size_t recent = std::max<size_t>(1, opt.jobs / 100);
  struct window {
    const char* label;
    size_t expected;
  };
  for (auto w : {window{"all", opt.jobs}, window{"last 1%", recent}}) {
    job_query q;
    // A job still ran at S when it ended at or after it: the last `expected` jobs end then.
    q.start = first_submit + static_cast<int64_t>(opt.jobs - w.expected) + 1 + run_seconds;
    std::vector<double> runs;
    size_t found = 0;
    for (unsigned r = 0; r < opt.query_runs; ++r) {
      auto start = std::chrono::steady_clock::now();
      auto result = store.query(q);
      runs.push_back(seconds_since(start) * 1000);
      if (!result) {
        std::printf("            FAILED query: %s\n", describe(result.error()).c_str());
        return false;
      }
      found = result->size();
    }
    auto s = summarize(runs);
    std::printf(
        "            query  -S over %-8s %7zu jobs with their steps: median %8.1f ms"
        "  (%u runs, min %.1f ms)\n",
        w.label, found, s.median_ms, opt.query_runs, s.min_ms);
    if (found != w.expected) {
      std::printf("            FAILED the window held %zu jobs, not %zu\n", found, w.expected);
      return false;
    }
  }
  return true;
}

bool measure(const char* label, expected<std::unique_ptr<job_store>> store,
             const accounting_options& opt) {
  std::printf("accounting  %s\n", label);
  if (!store) {
    std::printf("            FAILED open: %s\n", describe(store.error()).c_str());
    return false;
  }
  std::printf("            store %s\n", (*store)->describe().c_str());
  bool valid = write_all(**store, opt) && time_windows(**store, opt);
  std::fflush(stdout);
  return valid;
}

}  // namespace

bool run_accounting_bench(const accounting_options& opt) {
  std::printf("# accounting store: cores hardware_concurrency=%u nproc=%u\n",
              std::thread::hardware_concurrency(), nproc_count());
  auto sqlite_path = opt.dir + "/sqlite/jobs.db";
  bool valid = measure("SQLite (WAL, synchronous=FULL)", open_sqlite_store(sqlite_path), opt);
  std::error_code ec;
  auto size = std::filesystem::file_size(sqlite_path, ec);
  if (!ec) std::printf("            file %.1f MiB\n", static_cast<double>(size) / (1 << 20));

  auto server = private_postgres::start(opt.postgres_dir, /*durable=*/true);
  if (!server) {
    std::printf("accounting  PostgreSQL: SKIPPED, no private server here: %s\n",
                describe(server.error()).c_str());
    return valid;
  }
  valid = measure("PostgreSQL 15 (private server on 127.0.0.1, fsync on)",
                  open_postgres_store(server->settings("shoal_acct")), opt) &&
          valid;
  return valid;
}

}  // namespace shoal::bench
