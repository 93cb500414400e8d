#include "tools/cli/ping.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "messages/type_ids.hpp"
#include "runtime/bootstrap/controller_client.hpp"
#include "runtime/bootstrap/system_setup.hpp"
#include "tools/cli/session.hpp"

namespace shoal::cli {

namespace {

/// True when the shoalctld of `line` answers a ping within MessageTimeout, in control or not.
bool answers(caf::actor_system& sys, const config::controller_host& line,
             std::chrono::seconds timeout) {
  auto peer = runtime::connect_controller_at(sys, line.address, line.port, true);
  if (!peer) return false;
  bool up = false;
  caf::scoped_actor self{sys};
  self->request(*peer, timeout, caf::ping_atom::value)
      .receive([&](const msg::controller_status&) { up = true; }, [](caf::error&) {});
  return up;
}

}  // namespace

int ping_controllers(const std::string& conf_path) {
  auto conf = runtime::load_cluster_config(conf_path);
  if (!conf) return fail("control", describe(conf.error()));
  caf::actor_system_config sys_cfg;
  runtime::configure_actor_system(sys_cfg, 2);
  caf::actor_system sys{sys_cfg};
  auto lines = runtime::controller_lines(*conf);
  bool any_up = false;
  bool any_down = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    bool up = answers(sys, lines[i], std::chrono::seconds{conf->message_timeout_s});
    (up ? any_up : any_down) = true;
    std::printf("shoalctld(%s) at %s is %s\n", runtime::controller_role(i, lines.size()).c_str(),
                lines[i].name.c_str(), up ? "UP" : "DOWN");
  }
  if (any_down && ::getuid() == 0) {
    std::printf("*****************************************\n");
    std::printf("** RESTORE SHOALCTLD DAEMON TO SERVICE **\n");
    std::printf("*****************************************\n");
  }
  return any_up ? 0 : exit_failure;
}

}  // namespace shoal::cli
