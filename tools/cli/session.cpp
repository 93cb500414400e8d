#include "tools/cli/session.hpp"

#include <pwd.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>

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
  auto conf = runtime::load_cluster_config(conf_path);
  if (!conf) {
    code = fail(cmd, describe(conf.error()));
    return nullptr;
  }
  s->conf = std::move(*conf);
  s->sys_cfg = std::make_unique<caf::actor_system_config>();
  runtime::configure_actor_system(*s->sys_cfg, 2);
  s->sys = std::make_unique<caf::actor_system>(*s->sys_cfg);
  auto ctl = runtime::connect_controller(*s->sys, s->conf);
  if (!ctl) {
    code = fail(cmd, describe(ctl.error()));
    return nullptr;
  }
  s->controller = std::move(*ctl);
  code = 0;
  return s;
}

caf::error reconnect(session& s) {
  // Leaked on purpose: tearing a CAF 0.17 system down can wait on its connections.
  (void)s.sys.release();
  (void)s.sys_cfg.release();
  s.sys_cfg = std::make_unique<caf::actor_system_config>();
  runtime::configure_actor_system(*s.sys_cfg, 2);
  s.sys = std::make_unique<caf::actor_system>(*s.sys_cfg);
  auto ctl = runtime::connect_controller(*s.sys, s.conf);
  if (!ctl) return std::move(ctl.error());
  s.controller = std::move(*ctl);
  return caf::none;
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
