#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "config/config.hpp"
#include "messages/errc.hpp"

namespace shoal::cli {

/// Exit codes shared by every command: 0 success, 1 the request failed, 2 bad usage.
constexpr int exit_failure = 1;
constexpr int exit_usage = 2;

/// A connected CLI process: the config it read, its actor system and the controller handle.
struct session {
  std::string cmd;  ///< the command, for messages
  config::cluster_config conf;
  std::unique_ptr<caf::actor_system_config> sys_cfg;
  std::unique_ptr<caf::actor_system> sys;
  caf::actor controller;
  /// When the current request first found no controller in control (unset while one answers).
  std::optional<std::chrono::steady_clock::time_point> waiting_since;
  bool said_waiting = false;  ///< the "waiting for the controller" line was printed
};

/// Prints "shoal CMD: error: TEXT" to stderr and returns `code`.
int fail(const std::string& cmd, const std::string& text, int code = exit_failure);

/// Reads the config (-f, $SHOAL_CONF, /etc/shoal/shoal.conf) and connects to its controller in
/// control (find_controller). On failure prints the error and returns the exit code in `code`.
std::unique_ptr<session> open_session(const std::string& cmd, const std::string& conf_path,
                                      int& code);

/// Connects to the controller in control: the SlurmctldHost lines in order, the first that
/// answers and is in control. While none is, it waits, retrying about every second; after 2 s
/// it prints once to stderr "shoal: waiting for the controller (NAME at ADDR:PORT: why)...",
/// and after runtime::controller_patience (MessageTimeout; with a backup line, at least
/// 1.5 x SlurmctldTimeout, time for a takeover) it gives up. Error: errc::unreachable naming
/// every line and why; errc::incompatible_version at once.
caf::error find_controller(session& s);

/// Replaces the connection with a fresh actor system and find_controller's connection (the old
/// system is left to the process exit). Error: as find_controller.
caf::error reconnect(session& s);

/// True for errc::not_in_control: the shoalctld asked handed control to another.
bool is_not_in_control(const caf::error& err);

/// Sends a request and blocks for the answer (CLI only). Every request the CLI makes this way is
/// idempotent (listings, updates, cancel, token-carrying submissions), so it is retried when no
/// reply comes (over a fresh connection: CAF 0.17 can drop a reply on a connection whose socket
/// id the controller reused a moment earlier, see docs/benchmarks.md, "A lost reply"; and a
/// controller that died mid-request only shows as a timeout) and when the shoalctld asked is no
/// longer in control (then find_controller follows control to another line, waiting for it).
template <class T, class... Ts>
caf::expected<T> ask(session& s, Ts&&... xs) {
  // A healthy controller answers in milliseconds; a retry costs one reconnect and, thanks to
  // idempotence, nothing else, so the first wait is short and later ones allow for load.
  constexpr std::chrono::milliseconds waits[] = {std::chrono::seconds{2}, std::chrono::seconds{5},
                                                 std::chrono::seconds{20}};
  constexpr int attempts = 3;
  int timeouts = 0;
  for (;;) {
    caf::expected<T> result{caf::error{}};
    {
      caf::scoped_actor self{*s.sys};
      self->request(s.controller, waits[timeouts], xs...)
          .receive([&](T& x) { result = std::move(x); },
                   [&](caf::error& err) { result = std::move(err); });
    }
    if (result) {
      s.waiting_since.reset();
      return result;
    }
    if (is_not_in_control(result.error())) {
      // Control moved between the connect and the request: follow it (bounded by
      // find_controller's patience, which counts from the first refusal).
      if (auto err = find_controller(s)) return err;
      continue;
    }
    if (result.error() != caf::sec::request_timeout || ++timeouts == attempts) return result;
    if (auto err = reconnect(s)) return err;
  }
}

/// Flushes stdout/stderr and ends the process at once: a CLI has nothing to tear down, and the
/// actor system's orderly shutdown would only add latency.
[[noreturn]] void quit_process(int code);

/// The calling user's name, uid and gid.
struct user_identity {
  std::string name;
  uint32_t uid = 0;
  uint32_t gid = 0;
};
user_identity current_user();

/// Unix seconds now.
int64_t now_seconds();

}  // namespace shoal::cli
