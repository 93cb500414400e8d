#include "tools/cli/ping.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "messages/front_door.hpp"
#include "runtime/bootstrap/controller_client.hpp"
#include "runtime/bootstrap/front_door_client.hpp"
#include "runtime/bootstrap/request_auth.hpp"
#include "tools/cli/session.hpp"

namespace shoal::cli {

namespace {

/// True when the shoalctld of `line` answers a ping through its front door within
/// MessageTimeout, in control or not.
bool answers(const config::cluster_config& conf, const config::controller_host& line) {
  auto door = runtime::front_door_client::connect(line.address, runtime::front_door_port(line),
                                                  runtime::connect_patience);
  if (!door) return false;
  auto ping = msg::make_client_request(msg::client_op::ping);
  ping.uid = static_cast<uint32_t>(::getuid());
  // Unsigned when munged cannot be reached: the refusal still proves the daemon up.
  (void)runtime::sign_request(conf.auth, ping);
  auto reply = door->call(ping, std::chrono::seconds{conf.message_timeout_s});
  // Any answer, a refusal too (between roles, or of the credential), proves it up.
  return static_cast<bool>(reply);
}

}  // namespace

int ping_controllers(const std::string& conf_path) {
  auto conf = runtime::load_cluster_config(conf_path, /*client_only=*/true);
  if (!conf) return fail("control", describe(conf.error()));
  auto lines = runtime::controller_lines(*conf);
  bool any_up = false;
  bool any_down = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    bool up = answers(*conf, lines[i]);
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
