#include "bench/support.hpp"

#include "messages/caf/error.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>

extern char** environ;

namespace shoal::bench {

namespace fs = std::filesystem;

summary summarize(std::vector<double> samples_ms) {
  summary s;
  if (samples_ms.empty()) return s;
  std::sort(samples_ms.begin(), samples_ms.end());
  auto n = samples_ms.size();
  s.count = n;
  s.min_ms = samples_ms.front();
  s.max_ms = samples_ms.back();
  s.median_ms = n % 2 == 1 ? samples_ms[n / 2] : (samples_ms[n / 2 - 1] + samples_ms[n / 2]) / 2;
  // Nearest rank: the smallest sample with at least 95% of the samples at or below it.
  auto rank = static_cast<size_t>(std::ceil(0.95 * static_cast<double>(n)));
  s.p95_ms = samples_ms[std::max<size_t>(rank, 1) - 1];
  return s;
}

process_run run_silent(const std::vector<std::string>& argv, const std::string& cwd,
                       const std::string& stderr_file) {
  process_run r;
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  if (stderr_file.empty())
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
  else
    posix_spawn_file_actions_addopen(&actions, 2, stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
  if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  int err = ::posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) {
    r.spawn_error = "cannot start " + argv.front() + ": " + std::strerror(err);
    return r;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.elapsed_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  r.status = status;
  if (!stderr_file.empty() && !succeeded(r)) {
    std::ifstream err{stderr_file};
    std::getline(err, r.error_text);
  }
  return r;
}

bool succeeded(const process_run& r) {
  return r.status >= 0 && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0;
}

std::string describe_status(const process_run& r) {
  if (r.status < 0) return r.spawn_error;
  auto text = WIFSIGNALED(r.status) ? "signal " + std::to_string(WTERMSIG(r.status))
                                    : "exit " + std::to_string(WEXITSTATUS(r.status));
  if (!r.error_text.empty()) text += " (" + r.error_text + ")";
  return text;
}

std::string capture(const std::vector<std::string>& argv) {
  std::string cmd;
  for (auto& a : argv) cmd += "'" + a + "' ";
  cmd += "2>/dev/null";
  std::string out;
  if (auto* p = ::popen(cmd.c_str(), "r")) {
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    ::pclose(p);
  }
  return out;
}

long proc_status_kib(pid_t pid, const char* key) {
  std::ifstream in{"/proc/" + std::to_string(pid) + "/status"};
  std::string line;
  auto prefix = std::string{key} + ":";
  while (std::getline(in, line))
    if (line.rfind(prefix, 0) == 0) return std::strtol(line.c_str() + prefix.size(), nullptr, 10);
  return 0;
}

std::string sibling_binary(const char* name) {
  std::error_code ec;
  auto self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  auto candidate = self.parent_path() / name;
  return ::access(candidate.c_str(), X_OK) == 0 ? candidate.string() : std::string{};
}

unsigned nproc_count() {
  FILE* p = ::popen("nproc 2>/dev/null", "r");
  if (p == nullptr) return 0;
  unsigned n = 0;
  if (std::fscanf(p, "%u", &n) != 1) n = 0;
  ::pclose(p);
  return n;
}

std::string now_text() {
  auto t = std::time(nullptr);
  std::tm local{};
  ::localtime_r(&t, &local);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S %z", &local);
  return buf;
}

std::string command_line(int argc, char** argv) {
  std::string out;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (!out.empty()) out += ' ';
    out += a.find_first_of(" \t\"'") == std::string::npos ? a : "'" + a + "'";
  }
  return out;
}

namespace {

std::string fixed(double x, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

}  // namespace

std::string verdict_below(double value_ms, double limit_ms) {
  if (value_ms < limit_ms) return "MET";
  return "MISSED by " + fixed(value_ms - limit_ms, 1) + " ms (" + fixed(value_ms / limit_ms, 2) +
         "x the target)";
}

std::string verdict_at_least(double rate_per_s, double floor_per_s) {
  if (rate_per_s >= floor_per_s) return "MET";
  if (rate_per_s <= 0) return "MISSED (no rate)";
  return "MISSED: " + fixed(floor_per_s / rate_per_s, 2) + "x short";
}

void remove_tree(const std::string& dir) {
  if (dir.empty()) return;
  std::error_code ec;
  fs::remove_all(dir, ec);
}

metrics::bucket_list scheduler_cycle_buckets(const metrics::exposition& scrape) {
  metrics::bucket_list out;
  if (auto* family = scrape.find("shoal_scheduler_cycle_seconds"))
    for (auto& sample : family->samples)
      if (sample.name == "shoal_scheduler_cycle_seconds_bucket") {
        auto le = sample.label("le");
        out.emplace_back(le == "+Inf" ? INFINITY : std::stod(le), sample.value);
      }
  return out;
}

metrics::bucket_list buckets_between(const metrics::bucket_list& before,
                                     const metrics::bucket_list& after) {
  auto out = after;
  for (size_t i = 0; i < out.size() && i < before.size(); ++i) out[i].second -= before[i].second;
  return out;
}

bool start_simulated(runtime::local_cluster& cluster, unsigned nodes, unsigned front_ends,
                     unsigned collectors, int heartbeat_s, int timeout_s, const std::string& more) {
  auto extra = "HeartBeatInterval=" + std::to_string(heartbeat_s) +
               "\nSlurmdTimeout=" + std::to_string(timeout_s) + "\n" +
               runtime::local_cluster::spread_collectors(nodes, collectors) + more;
  if (auto err = cluster.launch_simulated(nodes, front_ends, extra)) {
    std::printf("  cannot launch: %s\n", describe(err).c_str());
    return false;
  }
  if (auto err = cluster.wait_until_ready(600)) {
    std::printf("  not up: %s (logs in %s)\n", describe(err).c_str(), cluster.directory().c_str());
    cluster.tear_down(true);
    return false;
  }
  return true;
}

}  // namespace shoal::bench
