// shoalrestd: slurmrestd's REST API (data model v0.0.41) in front of shoalctld's front door.
// A client of the controller like the CLI, not a part of its actor system: each request becomes
// the front-door request the CLI sends, carrying the caller's auth/jwt token (docs/rest.md).

#include <malloc.h>
#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "config/log.hpp"
#include "runtime/bootstrap/controller_client.hpp"
#include "runtime/bootstrap/logging.hpp"
#include "tools/format/rest_json.hpp"
#include "tools/restd/rest_server.hpp"

namespace {

/// "HOST:PORT", ":PORT" or "PORT" as slurmrestd reads its listen arguments; false otherwise.
bool split_listen(const std::string& text, std::string& host, uint16_t& port) {
  auto colon = text.rfind(':');
  host = colon == std::string::npos ? "0.0.0.0" : text.substr(0, colon);
  if (host.empty()) host = "0.0.0.0";
  auto digits = colon == std::string::npos ? text : text.substr(colon + 1);
  char* end = nullptr;
  auto n = std::strtoul(digits.c_str(), &end, 10);
  if (digits.empty() || *end != '\0' || n > 65535) return false;
  port = static_cast<uint16_t>(n);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"shoalrestd: slurmrestd's REST API (v0.0.41) for a shoal cluster"};
  std::string conf;
  std::vector<std::string> listen;
  size_t threads = 20;
  unsigned verbose = 0;
  shoal::restd::server_settings settings;
  app.add_option("-f", conf,
                 "Read the cluster's config from this file (default: $SHOAL_CONF, "
                 "then /etc/shoal/shoal.conf)");
  app.add_option("-t", threads, "Requests served at once (default 20)")->check(CLI::Range(1, 1024));
  auto* cert = app.add_option("--tls-cert", settings.tls_cert,
                              "Serve HTTPS on the TCP port with this PEM certificate (chain)")
                   ->check(CLI::ExistingFile);
  auto* key = app.add_option("--tls-key", settings.tls_key,
                             "The certificate's PEM private key (unencrypted)")
                  ->check(CLI::ExistingFile);
  cert->needs(key);
  key->needs(cert);
  app.add_flag("-v", verbose, "More log lines (repeat for more)");
  app.set_version_flag("-V,--version", std::string("shoalrestd ") + SHOAL_VERSION);
  app.add_option("listen", listen,
                 "[HOST]:PORT and/or unix:PATH to listen on (slurmrestd's forms; one of each)")
      ->required();
  app.footer(
      "Each request needs X-SLURM-USER-TOKEN (`shoal control token`; AuthAltTypes=auth/jwt on the\n"
      "controller), but on unix:PATH from this daemon's own user or root (the kernel names the\n"
      "caller; requests go out with this daemon's MUNGE credential). Endpoints under "
      "/slurm/v0.0.41/: ping, jobs, job/ID (GET, POST to update,\n"
      "DELETE to cancel, ?signal=NAME to signal), job/submit, nodes, node/NAME (GET, POST),\n"
      "partitions, partition/NAME, diag, reservations, reservation/NAME; under\n"
      "/slurmdb/v0.0.41/: jobs, accounts, qos. See docs/rest.md.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  std::string host;
  uint16_t port = 0;
  bool tcp = false;
  std::string unix_path;
  for (const auto& where : listen) {
    if (where.rfind("unix:", 0) == 0) {
      if (!unix_path.empty() || where.size() == 5) {
        std::fprintf(stderr, "shoalrestd: error: '%s': one unix:PATH, with a path\n",
                     where.c_str());
        return 2;
      }
      unix_path = where.substr(5);
    } else if (tcp || !split_listen(where, host, port)) {
      std::fprintf(stderr, "shoalrestd: error: cannot read '%s' as [HOST]:PORT (one of them)\n",
                   where.c_str());
      return 2;
    } else {
      tcp = true;
    }
  }
  if (!settings.tls_cert.empty() && !tcp) {
    std::fprintf(stderr,
                 "shoalrestd: error: --tls-cert is for the TCP port: name a [HOST]:PORT to "
                 "listen on\n");
    return 2;
  }
  auto cfg = shoal::runtime::load_cluster_config(conf, /*client_only=*/true);
  if (!cfg) {
    std::fprintf(stderr, "shoalrestd: error: %s\n", shoal::describe(cfg.error()).c_str());
    return 1;
  }
  shoal::runtime::log_options log_opt;
  log_opt.process = "shoalrestd";
  log_opt.more_verbose = verbose;
  // Blocked before any thread exists, so only the waiting thread below takes them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  if (auto err = shoal::runtime::setup_logging(log_opt)) {
    std::fprintf(stderr, "shoalrestd: error: %s\n", shoal::describe(err).c_str());
    return 1;
  }
  // A listing is megabytes of text built and freed per request: above glibc's mmap threshold
  // each one would be fresh pages, faulted in and zeroed every time.
  // 32 MiB is the most glibc takes for the threshold (a larger value is refused).
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  settings.threads = threads;
  shoal::restd::rest_server server(std::move(*cfg), settings);
  if (tcp) {
    if (auto err = server.bind(host, port)) {
      std::fprintf(stderr, "shoalrestd: error: %s\n", shoal::describe(err).c_str());
      return 1;
    }
    const char* scheme = settings.tls_cert.empty() ? "http" : "https";
    shoal::config::log().info("shoalrestd listening on {}://{}:{} (/slurm/{})", scheme, host,
                              server.port(), shoal::restd::api_version);
    // The port chosen for :0, for scripts and tests that start it so.
    std::printf("shoalrestd: listening on %s:%u (%s)\n", host.c_str(), server.port(), scheme);
  }
  if (!unix_path.empty()) {
    if (auto err = server.bind_unix(unix_path)) {
      std::fprintf(stderr, "shoalrestd: error: %s\n", shoal::describe(err).c_str());
      return 1;
    }
    shoal::config::log().info("shoalrestd listening on unix:{} (/slurm/{})", unix_path,
                              shoal::restd::api_version);
    std::printf("shoalrestd: listening on unix:%s\n", unix_path.c_str());
  }
  std::fflush(stdout);
  std::thread stopper([&server, stop_signals] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    shoal::config::log().info("shoalrestd stopping on signal {}", sig);
    server.stop();
  });
  server.serve();
  pthread_kill(stopper.native_handle(), SIGTERM);
  stopper.join();
  return 0;
}
