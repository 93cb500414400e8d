#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace shoal::runtime {

/// A TCP socket listening on `address`:`port` (every address when empty; SO_REUSEADDR alone, as
/// the daemons' listeners bind), the first address that takes it; or fd -1 and why not.
struct tcp_listener {
  int fd = -1;
  std::string why;
};
tcp_listener listen_tcp(const std::string& address, uint16_t port);

/// Why listening on `address`:`port` fails ("Address already in use"), found by binding it again
/// as the daemons' listeners do (SO_REUSEADDR alone): for libraries that report only that the
/// bind failed (cpp-httplib, CAF's acceptor). An empty `address` is every address. Nothing when
/// the bind succeeds now (the port was freed meanwhile, or the failure was not the bind's).
std::optional<std::string> bind_failure(const std::string& address, uint16_t port);

}  // namespace shoal::runtime
