#include "bench/transport.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "messages/caf/error.hpp"
#include "messages/codec.hpp"
#include "runtime/bootstrap/controller_link.hpp"
#include "runtime/bootstrap/system_setup.hpp"
#include "runtime/tls/cluster_identity.hpp"
#include "runtime/tls/tls_transport.hpp"

namespace shoal::bench {

namespace {

using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

struct system_box {
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  explicit system_box(const std::string& identity) {
    runtime::configure_actor_system(cfg, 2);
    sys = std::make_unique<caf::actor_system>(cfg);
    if (!identity.empty()) {
      if (auto err = runtime::start_tls_transport(*sys, identity))
        std::fprintf(stderr, "shoal_bench: error: %s\n", describe(err).c_str());
    }
  }
};

struct figures {
  double first_reply_ms = 0;  ///< median over fresh client systems: connect, handshake, a reply
  double round_trip_us = 0;
  double large_mb_per_s = 0;
};

bool measure(const transport_options& opt, const std::string& identity, figures& out) {
  system_box server{identity};
  auto echo = server.sys->spawn(
      [](int) -> caf::behavior {
        return {[](int x) { return x + 1; }, [](const std::string& s) { return s; }};
      },
      0);
  auto port =
      runtime::publish_daemon_actor(*server.sys, echo, 0, "127.0.0.1", {msg::wire_interface()});
  if (!port) {
    std::fprintf(stderr, "shoal_bench: error: publish: %s\n", describe(port.error()).c_str());
    return false;
  }
  std::vector<double> firsts;
  for (unsigned i = 0; i < opt.connections; ++i) {
    system_box client{identity};
    auto t0 = clock_type::now();
    auto far = runtime::connect_controller_at(*client.sys, "127.0.0.1", *port);
    if (!far) {
      std::fprintf(stderr, "shoal_bench: error: connect: %s\n", describe(far.error()).c_str());
      return false;
    }
    caf::scoped_actor self{*client.sys};
    bool ok = false;
    self->request(*far, std::chrono::seconds{10}, 1)
        .receive([&](int) { ok = true; }, [](caf::error&) {});
    if (!ok) return false;
    firsts.push_back(ms_since(t0));
  }
  std::sort(firsts.begin(), firsts.end());
  out.first_reply_ms = firsts[firsts.size() / 2];
  system_box client{identity};
  auto far = runtime::connect_controller_at(*client.sys, "127.0.0.1", *port);
  if (!far) return false;
  caf::scoped_actor self{*client.sys};
  bool ok = true;
  auto t0 = clock_type::now();
  for (size_t i = 0; i < opt.round_trips && ok; ++i)
    self->request(*far, std::chrono::seconds{10}, static_cast<int>(i))
        .receive([](int) {}, [&](caf::error&) { ok = false; });
  out.round_trip_us = ms_since(t0) * 1000.0 / static_cast<double>(opt.round_trips);
  std::string big(opt.large_bytes, 'x');
  t0 = clock_type::now();
  for (size_t i = 0; i < opt.large_messages && ok; ++i)
    self->request(*far, std::chrono::seconds{30}, big)
        .receive([&](std::string& s) { ok = ok && s.size() == big.size(); },
                 [&](caf::error&) { ok = false; });
  auto seconds = ms_since(t0) / 1000.0;
  // Each message crosses twice (there and back).
  out.large_mb_per_s =
      2.0 * static_cast<double>(opt.large_messages * opt.large_bytes) / (1024.0 * 1024.0) / seconds;
  caf::anon_send_exit(echo, caf::exit_reason::kill);
  return ok;
}

}  // namespace

bool run_transport_bench(const transport_options& opt) {
  auto identity = runtime::make_cluster_identity();
  if (!identity) {
    std::fprintf(stderr, "shoal_bench: error: %s\n", describe(identity.error()).c_str());
    return false;
  }
  figures plain;
  figures tls;
  // Alternated, twice each, keeping each side's better run: the machine is shared.
  figures runs[2][2];
  for (int round = 0; round < 2; ++round) {
    if (!measure(opt, "", runs[0][round]) || !measure(opt, *identity, runs[1][round])) return false;
  }
  auto best = [](const figures& a, const figures& b) {
    figures f;
    f.first_reply_ms = std::min(a.first_reply_ms, b.first_reply_ms);
    f.round_trip_us = std::min(a.round_trip_us, b.round_trip_us);
    f.large_mb_per_s = std::max(a.large_mb_per_s, b.large_mb_per_s);
    return f;
  };
  plain = best(runs[0][0], runs[0][1]);
  tls = best(runs[1][0], runs[1][1]);
  std::printf("\n## The daemons' transport: plain CAF against TLS with the cluster identity\n");
  std::printf("%-44s %12s %12s %8s\n", "figure", "plain", "TLS", "ratio");
  std::printf("%-44s %9.2f ms %9.2f ms %8.2f\n", "new connection to its first reply (median)",
              plain.first_reply_ms, tls.first_reply_ms, tls.first_reply_ms / plain.first_reply_ms);
  std::printf("%-44s %9.1f us %9.1f us %8.2f\n", "small request-reply round trip",
              plain.round_trip_us, tls.round_trip_us, tls.round_trip_us / plain.round_trip_us);
  std::printf("%-44s %7.0f MB/s %7.0f MB/s %8.2f\n", "1 MiB messages echoed", plain.large_mb_per_s,
              tls.large_mb_per_s, tls.large_mb_per_s / plain.large_mb_per_s);
  std::printf(
      "(%zu round trips, %zu large messages, %u fresh connections; best of 2 alternated "
      "runs each)\n",
      opt.round_trips, opt.large_messages, opt.connections);
  return true;
}

}  // namespace shoal::bench
