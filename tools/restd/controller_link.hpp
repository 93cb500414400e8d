#pragma once

#include <cstddef>
#include <string>

#include "config/config.hpp"
#include "messages/errc.hpp"
#include "messages/types.hpp"
#include "runtime/bootstrap/front_door_client.hpp"

namespace shoal::restd {

/// One worker thread's connection to the controller's front door: blocking, one request at a
/// time, reconnecting and trying the next SlurmctldHost line when the one it used is gone or not
/// in control. The request's credential is the caller's token, passed on as it came: the front
/// door proves the sender from it, so shoalrestd holds no key and no privilege of its own. A
/// request without one (the UNIX socket's own user) is signed as this process (AuthType).
class controller_link {
 public:
  explicit controller_link(const config::cluster_config& cfg) : cfg_(cfg) {}

  /// The reply to `req`, or errc::unreachable when no controller in control answers. A refusal
  /// (the reply's error_code) comes back as a shoal::error with the controller's words.
  shoal::expected<msg::client_reply> call(const msg::client_request& req);

 private:
  const config::cluster_config& cfg_;
  runtime::front_door_client door_;
  size_t line_ = 0;
};

}  // namespace shoal::restd
