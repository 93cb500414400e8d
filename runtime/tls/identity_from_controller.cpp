#include "runtime/tls/identity_from_controller.hpp"

#include <algorithm>
#include <chrono>

#include "messages/front_door.hpp"
#include "runtime/bootstrap/controller_client.hpp"
#include "runtime/bootstrap/daemon_auth.hpp"
#include "runtime/bootstrap/front_door_client.hpp"
#include "runtime/bootstrap/munge.hpp"
#include "runtime/bootstrap/request_auth.hpp"
#include "runtime/tls/cluster_identity.hpp"

namespace shoal::runtime {

namespace {

/// The identity sealed in `credential`, provided a daemon user made it.
shoal::expected<std::string> unseal(const config::cluster_config& cfg,
                                    const std::string& credential) {
  auto opened = decode_munge_credential(cfg.auth.munge_socket, credential);
  if (!opened) return std::move(opened.error());
  auto trusted = daemon_uids(cfg);
  if (std::find(trusted.begin(), trusted.end(), opened->uid) == trusted.end())
    return shoal::error(errc::authentication_failed,
                        "Protocol authentication error (the cluster identity was sealed by uid " +
                            std::to_string(opened->uid) +
                            ", who is neither root, SlurmUser nor this daemon's user)");
  if (auto err = check_cluster_identity(opened->payload)) return err;
  return std::move(opened->payload);
}

}  // namespace

shoal::expected<std::string> identity_from_controller(const config::cluster_config& cfg) {
  std::string why;
  for (const auto& line : controller_lines(cfg)) {
    auto door = front_door_client::connect(line.address, front_door_port(line), connect_patience);
    if (!door) {
      why += (why.empty() ? "" : "; ") + describe_line(line) + ": " + door.error().text();
      continue;
    }
    auto req = msg::make_client_request(msg::client_op::cluster_identity);
    if (auto err = sign_request(cfg.auth, req)) return err;
    auto reply = door->call(req, std::chrono::seconds{cfg.message_timeout_s});
    if (!reply) {
      why += (why.empty() ? "" : "; ") + describe_line(line) + ": " + reply.error().text();
      continue;
    }
    if (reply->error_code != 0) {
      auto code = static_cast<errc>(reply->error_code);
      if (code == errc::not_in_control || code == errc::unreachable) {
        why += (why.empty() ? "" : "; ") + describe_line(line) + ": " + reply->error_text;
        continue;
      }
      return shoal::error(code, "the controller at " + describe_line(line) +
                                    " refused the cluster identity: " + reply->error_text);
    }
    return unseal(cfg, reply->text);
  }
  return shoal::error(errc::unreachable,
                      "no controller handed out the cluster identity (" + why + ")");
}

}  // namespace shoal::runtime
