#include "runtime/bootstrap/tcp_connect.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "messages/errc.hpp"

namespace shoal::runtime {

namespace {

using clock = std::chrono::steady_clock;

int millis_left(clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
  return left.count() > 0 ? static_cast<int>(left.count()) : 0;
}

/// Connects a non-blocking socket to one address; returns the fd or -1 with `why` set.
int connect_one(const addrinfo* ai, clock::time_point deadline, std::string& why) {
  int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
  if (fd < 0) {
    why = std::strerror(errno);
    return -1;
  }
  if (::connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
    if (errno != EINPROGRESS) {
      why = std::strerror(errno);
      ::close(fd);
      return -1;
    }
    if (!wait_ready(fd, POLLOUT, deadline)) {
      why = "timed out";
      ::close(fd);
      return -1;
    }
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      why = std::strerror(err);
      ::close(fd);
      return -1;
    }
  }
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

}  // namespace

bool wait_ready(int fd, short events, clock::time_point deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    int rc = ::poll(&p, 1, millis_left(deadline));
    if (rc > 0) return true;
    if (rc == 0) return false;
    if (errno != EINTR) return true;  // let the read or write report it
  }
}

shoal::expected<int> tcp_connect(const std::string& host, uint16_t port,
                                 std::chrono::milliseconds timeout) {
  auto deadline = clock::now() + timeout;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  auto service = std::to_string(port);
  if (int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0)
    return shoal::error(errc::system_error, "cannot resolve " + host + ": " + ::gai_strerror(rc));
  std::string why = "no address";
  int fd = -1;
  for (auto* ai = found; ai != nullptr && fd < 0; ai = ai->ai_next)
    fd = connect_one(ai, deadline, why);
  ::freeaddrinfo(found);
  if (fd < 0) return shoal::error(errc::unreachable, why);
  return fd;
}

shoal::expected<http_response> http_get(const std::string& host, uint16_t port,
                                        const std::string& path,
                                        std::chrono::milliseconds timeout) {
  auto deadline = clock::now() + timeout;
  auto fd = tcp_connect(host, port, timeout);
  if (!fd) return std::move(fd.error());
  auto request = "GET " + path + " HTTP/1.0\r\nHost: " + host + ":" + std::to_string(port) +
                 "\r\nConnection: close\r\n\r\n";
  std::string reply;
  std::string failure;
  for (size_t sent = 0; sent < request.size() && failure.empty();) {
    auto n = ::send(*fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n > 0)
      sent += static_cast<size_t>(n);
    else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
      failure = wait_ready(*fd, POLLOUT, deadline) ? "" : "timed out";
    else
      failure = std::strerror(errno);
  }
  char buf[65536];
  while (failure.empty()) {
    auto n = ::recv(*fd, buf, sizeof buf, 0);
    if (n > 0)
      reply.append(buf, static_cast<size_t>(n));
    else if (n == 0)
      break;
    else if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
      failure = wait_ready(*fd, POLLIN, deadline) ? "" : "timed out";
    else
      failure = std::strerror(errno);
  }
  ::close(*fd);
  if (!failure.empty()) return shoal::error(errc::unreachable, failure);
  // "HTTP/1.x NNN reason\r\n" headers "\r\n\r\n" body
  auto end_of_headers = reply.find("\r\n\r\n");
  if (reply.compare(0, 5, "HTTP/") != 0 || end_of_headers == std::string::npos)
    return shoal::error(errc::unreachable, "not an HTTP reply");
  auto space = reply.find(' ');
  http_response out;
  out.status = std::atoi(reply.c_str() + space + 1);
  out.body = reply.substr(end_of_headers + 4);
  return out;
}

}  // namespace shoal::runtime
