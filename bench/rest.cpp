#include "bench/rest.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "bench/latency.hpp"
#include "bench/support.hpp"
#include "runtime/bootstrap/local_cluster.hpp"
#include "runtime/bootstrap/temp_dir.hpp"

namespace shoal::bench {

namespace {

using clock_type = std::chrono::steady_clock;
const std::string api = "/slurm/v0.0.41";

/// shoalrestd as a child of the bench, stopped (SIGTERM) when this goes.
struct restd_process {
  pid_t pid = -1;
  ~restd_process() {
    if (pid <= 0) return;
    ::kill(pid, SIGTERM);
    int status = 0;
    ::waitpid(pid, &status, 0);
  }
};

bool start_restd(restd_process& restd, const std::string& conf, uint16_t port, unsigned threads,
                 const std::string& log) {
  std::vector<std::string> argv{
      sibling_binary("shoalrestd"),       "-f", conf, "-t", std::to_string(threads),
      "127.0.0.1:" + std::to_string(port)};
  restd.pid = ::fork();
  if (restd.pid < 0) return false;
  if (restd.pid == 0) {
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  return true;
}

/// One client's keep-alive connection to shoalrestd with the token on every request.
std::unique_ptr<httplib::Client> client_for(uint16_t port, const std::string& token) {
  auto c = std::make_unique<httplib::Client>("127.0.0.1", port);
  c->set_keep_alive(true);
  c->set_tcp_nodelay(true);  // as curl and Python's http.client do
  c->set_read_timeout(60);
  c->set_default_headers({{"X-SLURM-USER-TOKEN", token}});
  return c;
}

/// `clients` threads sending `request` until `total` have been sent and `busy_until` says the
/// measurement beside them is done; the requests answered per second.
struct load_result {
  size_t answered = 0;
  size_t failed = 0;
  double seconds = 0;
  std::string first_failure;
};

template <typename Request>
load_result run_load(unsigned clients, size_t total, uint16_t port, const std::string& token,
                     const std::atomic<bool>& measuring, Request request) {
  std::atomic<size_t> next{0};
  std::atomic<size_t> failed{0};
  std::mutex failure_mutex;
  std::string first_failure;
  auto start = clock_type::now();
  std::vector<std::thread> threads;
  for (unsigned c = 0; c < clients; ++c) {
    threads.emplace_back([&] {
      auto client = client_for(port, token);
      for (;;) {
        auto n = next.fetch_add(1);
        if (n >= total && !measuring.load()) break;
        std::string why;
        if (!request(*client, n, why)) {
          failed.fetch_add(1);
          std::lock_guard<std::mutex> lock(failure_mutex);
          if (first_failure.empty()) first_failure = why;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  load_result out;
  out.seconds = seconds_since(start);
  out.answered = next.load() - clients - failed.load();
  out.failed = failed.load();
  out.first_failure = first_failure;
  return out;
}

void print_queue(const char* when, const latency_result& r) {
  std::printf("            shoal queue %-26s median %6.1f ms  p95 %6.1f ms  (%zu runs)\n", when,
              r.stats.median_ms, r.stats.p95_ms, r.stats.count);
  for (auto& f : r.failures) std::printf("            FAILED %s\n", f.c_str());
}

}  // namespace

bool run_rest_bench(const rest_options& opt) {
  auto dir = runtime::make_temp_dir("shoal-bench-rest");
  if (!dir) {
    std::printf("rest        cannot make a directory: %s\n", describe(dir.error()).c_str());
    return false;
  }
  auto key = *dir + "/jwt_hs256.key";
  {
    std::ifstream random("/dev/urandom", std::ios::binary);
    std::string bytes(32, '\0');
    random.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    std::ofstream{key, std::ios::binary} << bytes;
  }
  runtime::local_cluster cluster;
  auto extra = "AuthAltTypes=auth/jwt\nAuthAltParameters=jwt_key=" + key + "\n";
  if (auto err = cluster.launch_simulated(opt.nodes, 1, extra)) {
    std::printf("rest        cannot launch: %s\n", describe(err).c_str());
    return false;
  }
  if (auto err = cluster.wait_until_ready(120)) {
    std::printf("rest        not up: %s (logs in %s)\n", describe(err).c_str(),
                cluster.directory().c_str());
    cluster.tear_down(true);
    return false;
  }
  ::setenv("SHOAL_CONF", cluster.config_path().c_str(), 1);
  auto shoal = sibling_binary("shoal");
  auto minted = capture({shoal, "control", "token", "lifespan=3600"});
  const std::string prefix = "SLURM_JWT=";
  if (minted.rfind(prefix, 0) != 0) {
    std::printf("rest        shoal control token printed no token\n");
    return false;
  }
  auto token = minted.substr(prefix.size());
  while (!token.empty() && token.back() == '\n') token.pop_back();

  auto port = runtime::free_loopback_port();
  if (!port) return false;
  restd_process restd;
  auto restd_log = *dir + "/shoalrestd.log";
  if (!start_restd(restd, cluster.config_path(), *port, opt.restd_threads, restd_log)) return false;
  auto probe = client_for(*port, token);
  bool up = false;
  for (int i = 0; i < 200 && !up; ++i) {
    auto res = probe->Get(api + "/ping");
    up = res && res->status == 200;
    if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (!up) {
    std::printf("rest        shoalrestd did not answer /ping (log: %s)\n", restd_log.c_str());
    return false;
  }
  std::printf("rest        %u simulated nodes, shoalrestd -t %u, %u keep-alive clients, auth/jwt\n",
              opt.nodes, opt.restd_threads, opt.clients);

  bool valid = true;
  auto idle = measure_cli_latency(shoal, {"queue"}, 2, opt.queue_runs, *dir);
  print_queue("idle:", idle);
  valid = valid && idle.failures.empty();

  // Submissions first, so that the listing below lists them.
  std::mutex ids_mutex;
  std::vector<uint64_t> ids;
  auto body = nlohmann::json{{"job",
                              {{"script", "#!/bin/sh\ntrue\n"},
                               {"name", "rest-bench"},
                               {"current_working_directory", *dir},
                               {"environment", {"PATH=/usr/bin:/bin"}}}}}
                  .dump();
  std::atomic<bool> measuring{true};
  latency_result under_submit;
  std::thread timer([&] {
    under_submit = measure_cli_latency(shoal, {"queue"}, 0, opt.queue_runs, *dir);
    measuring = false;
  });
  auto submitted =
      run_load(opt.clients, opt.submit_requests, *port, token, measuring,
               [&](httplib::Client& c, size_t, std::string& why) {
                 auto res = c.Post(api + "/job/submit", body, "application/json");
                 if (!res || res->status != 200) {
                   why = res ? std::to_string(res->status) + " " + res->body : "no answer";
                   return false;
                 }
                 auto parsed = nlohmann::json::parse(res->body, nullptr, false);
                 if (!parsed.is_object() || !parsed["job_id"].is_number()) {
                   why = "no job_id in " + res->body;
                   return false;
                 }
                 std::lock_guard<std::mutex> lock(ids_mutex);
                 ids.push_back(parsed["job_id"].get<uint64_t>());
                 return true;
               });
  timer.join();
  std::set<uint64_t> distinct(ids.begin(), ids.end());
  std::printf(
      "            POST job/submit: %zu in %.2f s = %7.0f requests/s; %zu distinct ids, "
      "%zu failed\n",
      submitted.answered, submitted.seconds,
      static_cast<double>(submitted.answered) / submitted.seconds, distinct.size(),
      submitted.failed);
  print_queue("while submitting:", under_submit);
  if (submitted.failed > 0) std::printf("            FAILED %s\n", submitted.first_failure.c_str());
  valid = valid && submitted.failed == 0 && distinct.size() == ids.size() &&
          under_submit.failures.empty();

  // One listing at a time: what a dashboard's poll costs, load aside.
  std::vector<double> one_listing_ms;
  for (int i = 0; i < 5; ++i) {
    auto start = clock_type::now();
    auto res = probe->Get(api + "/jobs");
    if (!res || res->status != 200) {
      std::printf("            FAILED GET jobs alone\n");
      valid = false;
      break;
    }
    one_listing_ms.push_back(seconds_since(start) * 1000);
  }
  auto alone = summarize(one_listing_ms);
  std::printf("            GET jobs alone: median %.1f ms (%zu runs)\n", alone.median_ms,
              alone.count);

  measuring = true;
  latency_result under_list;
  size_t listed = 0;
  std::thread list_timer([&] {
    under_list = measure_cli_latency(shoal, {"queue"}, 0, opt.queue_runs, *dir);
    measuring = false;
  });
  auto listing = run_load(opt.clients, opt.list_requests, *port, token, measuring,
                          [&](httplib::Client& c, size_t n, std::string& why) {
                            auto res = c.Get(api + "/jobs");
                            if (!res || res->status != 200) {
                              why = res ? std::to_string(res->status) : "no answer";
                              return false;
                            }
                            if (n == 0) {
                              auto parsed = nlohmann::json::parse(res->body, nullptr, false);
                              if (parsed.is_object()) listed = parsed["jobs"].size();
                            }
                            return true;
                          });
  list_timer.join();
  std::printf(
      "            GET jobs (%zu jobs each): %zu in %.2f s = %7.0f requests/s, %zu failed\n",
      listed, listing.answered, listing.seconds,
      static_cast<double>(listing.answered) / listing.seconds, listing.failed);
  print_queue("while listing:", under_list);
  if (listing.failed > 0) std::printf("            FAILED %s\n", listing.first_failure.c_str());
  valid = valid && listing.failed == 0 && under_list.failures.empty();
  std::fflush(stdout);
  cluster.tear_down(false);
  remove_tree(*dir);
  return valid;
}

}  // namespace shoal::bench
