#include "tools/cli/session.hpp"

#include <pwd.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <thread>

#include "runtime/bootstrap/controller_client.hpp"
#include "runtime/bootstrap/system_setup.hpp"

namespace shoal::cli {

int fail(const std::string& cmd, const std::string& text, int code) {
  std::fprintf(stderr, "shoal %s: error: %s\n", cmd.c_str(), text.c_str());
  return code;
}

std::unique_ptr<session> open_session(const std::string& cmd, const std::string& conf_path,
                                      int& code) {
  auto s = std::make_unique<session>();
  s->cmd = cmd;
  auto conf = runtime::load_cluster_config(conf_path);
  if (!conf) {
    code = fail(cmd, describe(conf.error()));
    return nullptr;
  }
  s->conf = std::move(*conf);
  s->sys_cfg = std::make_unique<caf::actor_system_config>();
  runtime::configure_actor_system(*s->sys_cfg, 2);
  s->sys = std::make_unique<caf::actor_system>(*s->sys_cfg);
  if (auto err = find_controller(*s)) {
    code = fail(cmd, describe(err));
    return nullptr;
  }
  code = 0;
  return s;
}

bool is_not_in_control(const caf::error& err) {
  return err.category() == error_category && static_cast<errc>(err.code()) == errc::not_in_control;
}

caf::error find_controller(session& s) {
  using clock = std::chrono::steady_clock;
  auto lines = runtime::controller_lines(s.conf);
  auto patience = runtime::controller_patience(s.conf);
  for (;;) {
    std::string why;
    caf::error last;
    for (const auto& line : lines) {
      std::string reason;
      auto ctl = runtime::connect_controller_at(*s.sys, line.address, line.port, false, &reason);
      if (ctl) {
        s.controller = std::move(*ctl);
        return caf::none;
      }
      if (ctl.error().category() == error_category &&
          static_cast<errc>(ctl.error().code()) == errc::incompatible_version)
        return std::move(ctl.error());
      why += (why.empty() ? "" : "; ") + runtime::describe_line(line) + ": " + reason;
      last = std::move(ctl.error());
    }
    auto now = clock::now();
    if (!s.waiting_since) s.waiting_since = now;
    auto waited = now - *s.waiting_since;
    if (waited >= patience) {
      auto seconds = std::chrono::duration_cast<std::chrono::seconds>(patience).count();
      if (lines.size() == 1 && !is_not_in_control(last))
        return make_error(errc::unreachable, describe(last) + " (waited " +
                                                 std::to_string(seconds) + " s: MessageTimeout)");
      return make_error(errc::unreachable, "no controller in control after waiting " +
                                               std::to_string(seconds) + " s (" + why + ")");
    }
    if (!s.said_waiting && waited >= std::chrono::seconds{2}) {
      std::fprintf(stderr, "shoal: waiting for the controller (%s)...\n", why.c_str());
      std::fflush(stderr);
      s.said_waiting = true;
    }
    std::this_thread::sleep_for(std::chrono::seconds{1});
  }
}

caf::error reconnect(session& s) {
  // Leaked on purpose: tearing a CAF 0.17 system down can wait on its connections.
  (void)s.sys.release();
  (void)s.sys_cfg.release();
  s.sys_cfg = std::make_unique<caf::actor_system_config>();
  runtime::configure_actor_system(*s.sys_cfg, 2);
  s.sys = std::make_unique<caf::actor_system>(*s.sys_cfg);
  return find_controller(s);
}

void quit_process(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(code);
}

user_identity current_user() {
  user_identity id;
  id.uid = static_cast<uint32_t>(getuid());
  id.gid = static_cast<uint32_t>(getgid());
  if (auto* pw = getpwuid(getuid()); pw != nullptr)
    id.name = pw->pw_name;
  else
    id.name = std::to_string(id.uid);
  return id;
}

int64_t now_seconds() {
  return static_cast<int64_t>(std::time(nullptr));
}

}  // namespace shoal::cli
