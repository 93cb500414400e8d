#include "runtime/bootstrap/bind_failure.hpp"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace shoal::runtime {

std::optional<std::string> bind_failure(const std::string& address, uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  auto service = std::to_string(port);
  if (int rc = ::getaddrinfo(address.empty() ? nullptr : address.c_str(), service.c_str(), &hints,
                             &found);
      rc != 0)
    return ::gai_strerror(rc);
  std::optional<std::string> why = "no address to bind";
  for (auto* ai = found; ai != nullptr; ai = ai->ai_next) {
    int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      why = std::strerror(errno);
      continue;
    }
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    bool bound = ::bind(fd, ai->ai_addr, ai->ai_addrlen) == 0;
    why = bound ? std::nullopt : std::optional<std::string>{std::strerror(errno)};
    ::close(fd);
    if (!bound) break;
  }
  ::freeaddrinfo(found);
  return why;
}

}  // namespace shoal::runtime
