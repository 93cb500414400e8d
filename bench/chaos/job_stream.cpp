#include "bench/chaos/job_stream.hpp"

#include <chrono>
#include <cstdlib>
#include <fstream>

#include <sys/stat.h>

namespace shoal::chaos {

using namespace std::chrono_literals;

namespace {

/// The job id in "Submitted batch job N", or 0.
uint64_t submitted_job_id(const std::string& out) {
  static const std::string prefix = "Submitted batch job ";
  auto at = out.find(prefix);
  if (at == std::string::npos) return 0;
  return std::strtoull(out.c_str() + at + prefix.size(), nullptr, 10);
}

}  // namespace

job_stream::job_stream(chaos_cluster& cluster, plan& jobs)
    : cluster_(cluster), plan_(jobs), thread_([this] { run(); }) {}

job_stream::~job_stream() {
  stop();
}

void job_stream::stop() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
}

std::vector<submission> job_stream::submissions() const {
  std::lock_guard<std::mutex> lock{mutex_};
  return done_;
}

void job_stream::run() {
  for (size_t index = 1; !stopping_; ++index) {
    auto job = plan_.next_job();
    auto until = std::chrono::steady_clock::now() +
                 std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                     std::chrono::duration<double>(job.gap_s));
    while (!stopping_ && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(20ms);
    if (stopping_) break;
    auto s = submit(index, job);
    std::lock_guard<std::mutex> lock{mutex_};
    done_.push_back(std::move(s));
  }
}

submission job_stream::submit(size_t index, const planned_job& job) {
  submission s;
  s.index = index;
  s.job = job;
  auto name = "chaos-" + std::to_string(index);
  std::vector<std::string> args{"batch",
                                "-J",
                                name,
                                "-N",
                                std::to_string(job.nodes),
                                "--no-requeue",
                                "-o",
                                cluster_.directory() + "/out/%j.out"};
  if (job.real) {
    // The script leaves a line before and after its sleep: a second run would leave a second
    // "start", a run cut short no "end".
    s.marker = cluster_.marker_dir() + "/" + name;
    auto script = cluster_.script_dir() + "/" + name + ".sh";
    {
      std::ofstream out{script};
      out << "#!/bin/sh\necho start >> " << s.marker << "\nsleep " << job.seconds
          << "\necho end >> " << s.marker << "\n";
    }
    ::chmod(script.c_str(), 0755);
    args.insert(args.end(), {"-p", "real", script});
  } else {
    args.insert(args.end(), {"-p", "sim", "--wrap", "sleep " + std::to_string(job.seconds)});
  }
  // The CLI waits up to MessageTimeout (10 s) for a controller in control; the margin is for a
  // loaded host.
  auto r = cluster_.shoal(args, 60s);
  s.id = r.exit_code == 0 ? submitted_job_id(r.out) : 0;
  if (s.id == 0) s.failure = r.describe();
  return s;
}

}  // namespace shoal::chaos
