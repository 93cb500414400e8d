#include "bench/throughput.hpp"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <thread>

#include <caf/all.hpp>

#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"

extern char** environ;

namespace shoal::bench {

namespace {

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

constexpr auto request_timeout = std::chrono::seconds{60};
constexpr size_t max_problem_lines = 10;
constexpr const char* script_text = "#!/bin/sh\ntrue\n";

double seconds_between(clock_type::time_point from, clock_type::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

/// What a submitter thread reports back while the main thread watches the queue.
struct submit_progress {
  std::atomic<size_t> accepted{0};
  std::atomic<bool> done{false};
  std::mutex mtx;
  std::vector<std::string> failures;
  std::vector<double> latencies_ms;  ///< of each submission, when they are timed one by one
  clock_type::time_point finished_at;

  void fail(std::string line) {
    std::lock_guard<std::mutex> guard{mtx};
    failures.push_back(std::move(line));
  }

  void took(double ms) {
    std::lock_guard<std::mutex> guard{mtx};
    latencies_ms.push_back(ms);
  }
};

/// The phase's jobs (those whose work dir is `dir`) as the controller lists them.
struct poll_view {
  std::vector<msg::job_info> jobs;
  size_t listed = 0;
  bool ok = false;
};

/// With `include_finished` false, only pending and running jobs (what `shoal queue` lists): the
/// watch costs the controller little however many jobs have finished.
poll_view poll_jobs(caf::scoped_actor& self, const caf::actor& ctl, const std::string& dir,
                    bool include_finished) {
  poll_view out;
  self->request(ctl, request_timeout, msg::jobs_atom_v, include_finished)
      .receive(
          [&](std::vector<msg::job_info>& all) {
            out.ok = true;
            out.listed = all.size();
            for (auto& j : all)
              if (j.work_dir == dir) out.jobs.push_back(std::move(j));
          },
          [&](caf::error&) { out.ok = false; });
  return out;
}

size_t count_output_files(const std::string& dir) {
  size_t n = 0;
  std::error_code ec;
  for (auto& entry : fs::directory_iterator{dir, ec}) {
    auto name = entry.path().filename().string();
    if (name.rfind("shoal-", 0) == 0 && name.size() > 10 &&
        name.compare(name.size() - 4, 4, ".out") == 0)
      ++n;
  }
  return n;
}

std::string describe_problem(const msg::job_info& j) {
  auto line = "job " + std::to_string(j.job_id) + " " + msg::to_string(j.state) +
              " exit=" + std::to_string(j.exit_code);
  if (!j.nodelist.empty()) line += " nodes=" + j.nodelist;
  if (!j.reason.empty()) line += " reason=\"" + j.reason + "\"";
  return line;
}

/// Runs `submit` on its own thread, starting the clock just before, and polls the controller's
/// active jobs every `access.poll_every` until the submitter is done and none of the phase's jobs
/// is pending or running any more (or the deadline); then lists them all once for their states.
throughput_result run_burst(const cluster_access& access, std::string label, size_t jobs,
                            const std::string& dir, std::chrono::seconds deadline,
                            const std::function<void(submit_progress&)>& submit) {
  throughput_result out;
  out.label = std::move(label);
  out.jobs = jobs;
  submit_progress progress;
  caf::scoped_actor watcher{*access.sys};
  std::vector<double> rtts;
  poll_view last;
  size_t most_listed = 0;
  auto start = clock_type::now();
  std::thread submitter{[&] {
    submit(progress);
    progress.finished_at = clock_type::now();
    progress.done = true;
  }};
  auto next_poll = start;
  auto give_up = start + deadline;
  for (;;) {
    next_poll += access.poll_every;
    std::this_thread::sleep_until(next_poll);
    bool submissions_over = progress.done.load();
    auto sent = clock_type::now();
    auto view = poll_jobs(watcher, access.controller, dir, false);
    auto received = clock_type::now();
    if (!view.ok) {
      if (received > give_up) break;  // all_finished stays false
      continue;
    }
    rtts.push_back(std::chrono::duration<double, std::milli>(received - sent).count());
    most_listed = std::max(most_listed, view.listed);
    bool active = !view.jobs.empty();
    if (submissions_over && !active) {
      // Every job of the phase counts, also one whose submitter failed after the controller
      // had accepted it.
      auto all = poll_jobs(watcher, access.controller, dir, true);
      size_t finished = 0;
      for (auto& j : all.jobs) finished += msg::is_finished(j.state) ? 1 : 0;
      if (all.ok) last = std::move(all);
      if (all.ok && finished == last.jobs.size() && finished >= progress.accepted.load()) {
        out.all_finished = true;
        out.end_to_end_s = seconds_between(start, received);
        break;
      }
    }
    if (received > give_up) {
      out.end_to_end_s = seconds_between(start, received);
      if (auto all = poll_jobs(watcher, access.controller, dir, true); all.ok)
        last = std::move(all);
      break;
    }
  }
  submitter.join();
  out.accepted = progress.accepted;
  out.submit_s = seconds_between(start, progress.finished_at);
  out.submit_failures = std::move(progress.failures);
  out.submit_latency = summarize(std::move(progress.latencies_ms));
  for (auto& j : last.jobs) {
    ++out.states[j.state];
    if (j.state != msg::job_state::completed && out.problems.size() < max_problem_lines)
      out.problems.push_back(describe_problem(j));
  }
  out.output_files = count_output_files(dir);
  out.poll_rtt = summarize(std::move(rtts));
  out.jobs_in_view = most_listed;
  return out;
}

bool write_script(const std::string& path) {
  std::ofstream file{path};
  file << script_text;
  return static_cast<bool>(file);
}

/// The request `shoal batch job.sh` sends, built the same way (identity, environment, cwd).
msg::job_request batch_request(const std::string& dir) {
  msg::job_request req;
  req.uid = static_cast<uint32_t>(::getuid());
  req.gid = static_cast<uint32_t>(::getgid());
  auto* pw = ::getpwuid(::getuid());
  req.user = pw != nullptr ? pw->pw_name : std::to_string(req.uid);
  req.name = "job.sh";
  req.batch = true;
  req.script = script_text;
  req.cwd = dir;
  for (char** e = environ; *e != nullptr; ++e) req.env.emplace_back(*e);
  return req;
}

}  // namespace

throughput_result run_cli_burst(const cluster_access& access, size_t jobs, unsigned submitters,
                                const std::string& dir, std::chrono::seconds deadline) {
  auto script = dir + "/job.sh";
  submitters = std::max(1u, submitters);
  auto label = "shoal batch (real CLI, " +
               (submitters == 1 ? std::string{"1 submitter"}
                                : std::to_string(submitters) + " submitters in parallel") +
               ")";
  if (!write_script(script)) {
    throughput_result out;
    out.label = label;
    out.jobs = jobs;
    out.submit_failures.push_back("cannot write " + script);
    return out;
  }
  return run_burst(access, label, jobs, dir, deadline, [&](submit_progress& progress) {
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < submitters; ++t) {
      // Each thread submits its share one after the other; the shares differ by at most one.
      size_t share = jobs / submitters + (t < jobs % submitters ? 1 : 0);
      threads.emplace_back([&, share, t] {
        auto err_file = dir + "/submitter" + std::to_string(t) + ".err";
        std::vector<std::string> argv{access.shoal_path, "batch", script};
        for (size_t i = 0; i < share; ++i) {
          auto r = run_silent(argv, dir, err_file);
          progress.took(r.elapsed_ms);
          if (succeeded(r))
            ++progress.accepted;
          else
            progress.fail("shoal batch: " + describe_status(r) + " after " +
                          std::to_string(static_cast<long>(r.elapsed_ms)) + " ms");
        }
      });
    }
    for (auto& t : threads) t.join();
  });
}

throughput_result run_api_burst(const cluster_access& access, size_t jobs, const std::string& dir,
                                std::chrono::seconds deadline) {
  auto label = std::string{"actor API (one connection, all requests pipelined)"};
  auto req = batch_request(dir);
  return run_burst(access, label, jobs, dir, deadline, [&](submit_progress& progress) {
    caf::scoped_actor self{*access.sys};
    using handle = decltype(self->request(access.controller, request_timeout, msg::submit_atom_v,
                                          req, caf::actor{}));
    std::vector<handle> pending;
    pending.reserve(jobs);
    for (size_t i = 0; i < jobs; ++i)
      pending.push_back(
          self->request(access.controller, request_timeout, msg::submit_atom_v, req, caf::actor{}));
    // Replies come back in order from the one controller actor, so each receive finds its
    // answer at the head of the mailbox.
    for (auto& h : pending)
      h.receive([&](const msg::job_info&) { ++progress.accepted; },
                [&](caf::error& err) { progress.fail("submit_atom: " + describe(err)); });
  });
}

pending_array_memory measure_pending_array(const cluster_access& access, size_t tasks,
                                           const std::string& dir, pid_t controller) {
  pending_array_memory out;
  out.tasks = tasks;
  auto req = batch_request(dir);
  req.workload.array = "1-" + std::to_string(tasks);
  req.workload.hold = true;
  caf::scoped_actor self{*access.sys};
  out.rss_before_kib = proc_status_kib(controller, "VmRSS");
  uint64_t array_id = 0;
  auto start = clock_type::now();
  self->request(access.controller, request_timeout, msg::submit_atom_v, req, caf::actor{})
      .receive([&](const msg::job_info& info) { array_id = info.job_id; },
               [&](caf::error& err) { out.error = "submit_atom: " + describe(err); });
  out.submit_s = seconds_between(start, clock_type::now());
  out.rss_after_kib = proc_status_kib(controller, "VmRSS");
  if (array_id == 0) return out;
  auto r = run_silent({access.shoal_path, "cancel", std::to_string(array_id)}, dir);
  if (!succeeded(r))
    out.error = "shoal cancel " + std::to_string(array_id) + ": " + describe_status(r);
  return out;
}

throughput_result run_array_burst(const cluster_access& access, size_t jobs, const std::string& dir,
                                  std::chrono::seconds deadline) {
  auto label = std::string{"one job array (--array=1-"} + std::to_string(jobs) + ", actor API)";
  auto req = batch_request(dir);
  req.workload.array = "1-" + std::to_string(jobs);
  return run_burst(access, label, jobs, dir, deadline, [&](submit_progress& progress) {
    caf::scoped_actor self{*access.sys};
    self->request(access.controller, request_timeout, msg::submit_atom_v, req, caf::actor{})
        .receive([&](const msg::job_info&) { progress.accepted = jobs; },
                 [&](caf::error& err) { progress.fail("submit_atom: " + describe(err)); });
  });
}

}  // namespace shoal::bench
