#pragma once

#include <chrono>
#include <memory>
#include <string>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "messages/errc.hpp"
#include "runtime/config.hpp"

namespace shoal::cli {

/// Exit codes shared by every command: 0 success, 1 the request failed, 2 bad usage.
constexpr int exit_failure = 1;
constexpr int exit_usage = 2;

/// A connected CLI process: the config it read, its actor system and the controller handle.
struct session {
  runtime::cluster_config conf;
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

/// Sends a request and blocks for the answer (CLI only).
template <class T, class... Ts>
caf::expected<T> ask(session& s, Ts&&... xs) {
  caf::scoped_actor self{*s.sys};
  caf::expected<T> result{caf::error{}};
  self->request(s.controller, std::chrono::seconds{30}, std::forward<Ts>(xs)...)
      .receive([&](T& x) { result = std::move(x); },
               [&](caf::error& err) { result = std::move(err); });
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
