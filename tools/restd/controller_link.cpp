#include "tools/restd/controller_link.hpp"

#include <chrono>

#include "messages/front_door.hpp"
#include "runtime/bootstrap/controller_client.hpp"
#include "runtime/bootstrap/request_auth.hpp"

namespace shoal::restd {

shoal::expected<msg::client_reply> controller_link::call(const msg::client_request& req) {
  auto lines = runtime::controller_lines(cfg_);
  std::chrono::milliseconds patience{std::chrono::seconds{cfg_.message_timeout_s}};
  std::string why;
  for (size_t k = 0; k < lines.size(); ++k) {
    size_t i = (line_ + k) % lines.size();
    const auto& line = lines[i];
    if (!door_.connected() || line_ != i) {
      auto door = runtime::front_door_client::connect(line.address, runtime::front_door_port(line),
                                                      runtime::connect_patience);
      if (!door) {
        why += (why.empty() ? "" : "; ") + runtime::describe_line(line) + ": " +
               describe(door.error());
        continue;
      }
      door_ = std::move(*door);
      line_ = i;
    }
    // No token: this daemon's own credential, made afresh for each attempt (munged takes a
    // credential once).
    auto signed_req = req;
    if (req.credential.empty()) {
      if (auto err = runtime::sign_request(cfg_.auth, signed_req))
        return shoal::error(errc::unreachable, "cannot sign the request: " + describe(err));
    }
    auto reply = door_.call(signed_req, patience);
    if (!reply) {
      door_ = runtime::front_door_client{};
      why +=
          (why.empty() ? "" : "; ") + runtime::describe_line(line) + ": " + describe(reply.error());
      continue;
    }
    if (reply->error_code == static_cast<uint8_t>(errc::not_in_control)) {
      door_ = runtime::front_door_client{};
      why += (why.empty() ? "" : "; ") + runtime::describe_line(line) + ": not in control";
      continue;
    }
    if (reply->error_code != 0)
      return shoal::error(static_cast<errc>(reply->error_code), reply->error_text);
    return std::move(*reply);
  }
  return shoal::error(errc::unreachable, "Unable to contact the controller (" + why + ")");
}

}  // namespace shoal::restd
