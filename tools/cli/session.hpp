#pragma once

#include <chrono>
#include <memory>
#include <string>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "messages/errc.hpp"
#include "config/config.hpp"

namespace shoal::cli {

/// Exit codes shared by every command: 0 success, 1 the request failed, 2 bad usage.
constexpr int exit_failure = 1;
constexpr int exit_usage = 2;

/// A connected CLI process: the config it read, its actor system and the controller handle.
struct session {
  config::cluster_config conf;
  std::unique_ptr<caf::actor_system_config> sys_cfg;
  std::unique_ptr<caf::actor_system> sys;
  caf::actor controller;
};

/// Prints "shoal CMD: error: TEXT" to stderr and returns `code`.
int fail(const std::string& cmd, const std::string& text, int code = exit_failure);

/// Reads the config (-f, $SHOAL_CONF, /etc/shoal/shoal.conf) and connects to its controller.
/// On failure prints the error and returns the exit code in `code`.
std::unique_ptr<session> open_session(const std::string& cmd, const std::string& conf_path,
                                      int& code);

/// Replaces the connection with a fresh actor system and connection (the old system is left to
/// the process exit). Error: as open_session.
caf::error reconnect(session& s);

/// Sends a request and blocks for the answer (CLI only). Every request the CLI makes this way is
/// idempotent (listings, updates, cancel, token-carrying submissions), so when no reply comes it
/// retries over a fresh connection: CAF 0.17 can drop a reply on a connection whose socket id
/// the controller reused a moment earlier (see docs/benchmarks.md, "A lost reply").
template <class T, class... Ts>
caf::expected<T> ask(session& s, Ts&&... xs) {
  // A healthy controller answers in milliseconds; a retry costs one reconnect and, thanks to
  // idempotence, nothing else, so the first wait is short and later ones allow for load.
  constexpr std::chrono::milliseconds waits[] = {std::chrono::seconds{2}, std::chrono::seconds{5},
                                                 std::chrono::seconds{20}};
  constexpr int attempts = 3;
  caf::expected<T> result{caf::error{}};
  for (int attempt = 1; attempt <= attempts; ++attempt) {
    {
      caf::scoped_actor self{*s.sys};
      self->request(s.controller, waits[attempt - 1], xs...)
          .receive([&](T& x) { result = std::move(x); },
                   [&](caf::error& err) { result = std::move(err); });
    }
    if (result || result.error() != caf::sec::request_timeout || attempt == attempts) return result;
    if (auto err = reconnect(s)) return err;
  }
  return result;
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
