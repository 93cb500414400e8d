#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include "messages/errc.hpp"

namespace shoal::runtime {

/// A TCP connection to `host`:`port` (a name or an address, v4 or v6), made within `timeout`:
/// a non-blocking socket (close-on-exec, TCP_NODELAY). Errors: errc::unreachable with a few
/// words on why ("Connection refused", "timed out"), errc::system_error for a name that does not
/// resolve.
shoal::expected<int> tcp_connect(const std::string& host, uint16_t port,
                                 std::chrono::milliseconds timeout);

/// Waits until `fd` is ready for `events` (poll's) or `deadline` passes; false on time-out.
bool wait_ready(int fd, short events, std::chrono::steady_clock::time_point deadline);

/// What an HTTP GET brought back.
struct http_response {
  int status = 0;
  std::string body;
};

/// GETs http://`host`:`port``path` (HTTP/1.0, the body read to the end of the connection) within
/// `timeout`; for the CLI's /metrics scrape, which needs no HTTP library. Errors: as
/// tcp_connect, and errc::unreachable for a connection lost or a reply that is not HTTP.
shoal::expected<http_response> http_get(const std::string& host, uint16_t port,
                                        const std::string& path, std::chrono::milliseconds timeout);

}  // namespace shoal::runtime
