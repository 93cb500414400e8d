#include "tools/cli/ping.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "messages/front_door.hpp"
#include "runtime/bootstrap/controller_client.hpp"
#include "runtime/bootstrap/front_door_client.hpp"
#include "tools/cli/session.hpp"

namespace shoal::cli {

namespace {

/// True when the shoalctld of `line` answers a ping through its front door within
/// MessageTimeout, in control or not.
bool answers(const config::controller_host& line, std::chrono::seconds timeout) {
  auto door = runtime::front_door_client::connect(line.address, runtime::front_door_port(line),
                                                  std::chrono::seconds{2});
  if (!door) return false;
  auto reply = door->call(msg::make_client_request(msg::client_op::ping), timeout);
  // A shoalctld between roles refuses even a ping, but it is up.
  return reply && (reply->error_code == 0 ||
                   reply->error_code == static_cast<uint8_t>(errc::not_in_control));
}

}  // namespace

int ping_controllers(const std::string& conf_path) {
  auto conf = runtime::load_cluster_config(conf_path);
  if (!conf) return fail("control", describe(conf.error()));
  auto lines = runtime::controller_lines(*conf);
  bool any_up = false;
  bool any_down = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    bool up = answers(lines[i], std::chrono::seconds{conf->message_timeout_s});
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
