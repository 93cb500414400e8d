#include "runtime/bootstrap/bind_failure.hpp"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace shoal::runtime {

tcp_listener listen_tcp(const std::string& address, uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  auto service = std::to_string(port);
  if (int rc = ::getaddrinfo(address.empty() ? nullptr : address.c_str(), service.c_str(), &hints,
                             &found);
      rc != 0)
    return {-1, std::string{"cannot resolve: "} + ::gai_strerror(rc)};
  tcp_listener out{-1, "no address to bind"};
  for (auto* ai = found; ai != nullptr && out.fd < 0; ai = ai->ai_next) {
    int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      out.why = std::strerror(errno);
      continue;
    }
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || ::listen(fd, SOMAXCONN) != 0) {
      out.why = std::strerror(errno);
      ::close(fd);
      continue;
    }
    out.fd = fd;
  }
  ::freeaddrinfo(found);
  return out;
}

std::optional<std::string> bind_failure(const std::string& address, uint16_t port) {
  auto probe = listen_tcp(address, port);
  if (probe.fd < 0) return probe.why;
  ::close(probe.fd);
  return std::nullopt;
}

}  // namespace shoal::runtime
