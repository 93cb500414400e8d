#include "runtime/bootstrap/front_door_client.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "messages/errc.hpp"
#include "messages/front_door.hpp"

namespace shoal::runtime {

namespace {

using clock = std::chrono::steady_clock;

int millis_left(clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
  return left.count() > 0 ? static_cast<int>(left.count()) : 0;
}

/// Waits until `fd` is ready for `events` or the deadline passes; false on time-out.
bool wait_ready(int fd, short events, clock::time_point deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    int rc = ::poll(&p, 1, millis_left(deadline));
    if (rc > 0) return true;
    if (rc == 0) return false;
    if (errno != EINTR) return true;  // let the read or write report it
  }
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

front_door_client::front_door_client(front_door_client&& other) noexcept : fd_(other.fd_) {
  other.fd_ = -1;
}

front_door_client& front_door_client::operator=(front_door_client&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

front_door_client::~front_door_client() {
  close();
}

void front_door_client::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

caf::expected<front_door_client> front_door_client::connect(const std::string& host, uint16_t port,
                                                            std::chrono::milliseconds timeout) {
  auto deadline = clock::now() + timeout;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  auto service = std::to_string(port);
  if (int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0)
    return make_error(errc::system_error, "cannot resolve " + host + ": " + ::gai_strerror(rc));
  std::string why = "no address";
  int fd = -1;
  for (auto* ai = found; ai != nullptr && fd < 0; ai = ai->ai_next)
    fd = connect_one(ai, deadline, why);
  ::freeaddrinfo(found);
  if (fd < 0) return make_error(errc::unreachable, why);
  return front_door_client{fd};
}

caf::expected<msg::client_reply> front_door_client::call(const msg::client_request& req,
                                                         std::chrono::milliseconds timeout) {
  if (fd_ < 0) return make_error(errc::unreachable, "not connected");
  auto deadline = clock::now() + timeout;
  auto lost = [this](const std::string& why) {
    close();
    return make_error(errc::unreachable, why);
  };
  auto frame = msg::encode_client_frame(req);
  for (size_t sent = 0; sent < frame.size();) {
    auto n = ::send(fd_, frame.data() + sent, frame.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!wait_ready(fd_, POLLOUT, deadline)) return lost("timed out sending the request");
    } else {
      return lost(std::string{"connection lost: "} + std::strerror(errno));
    }
  }
  // The reply: its length, then that many bytes.
  std::vector<char> buf(msg::client_length_size);
  size_t want = buf.size();
  size_t got = 0;
  bool have_length = false;
  for (;;) {
    while (got < want) {
      auto n = ::recv(fd_, buf.data() + got, want - got, 0);
      if (n > 0) {
        got += static_cast<size_t>(n);
      } else if (n == 0) {
        return lost("the controller closed the connection");
      } else if (errno == EINTR) {
        continue;
      } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
        if (!wait_ready(fd_, POLLIN, deadline)) return lost("no reply in time");
      } else {
        return lost(std::string{"connection lost: "} + std::strerror(errno));
      }
    }
    if (have_length) break;
    auto length = msg::client_frame_length(buf.data());
    if (length == 0 || length > msg::max_client_frame)
      return lost("the controller sent a frame of " + std::to_string(length) + " bytes");
    buf.assign(length, 0);
    want = length;
    got = 0;
    have_length = true;
  }
  msg::client_reply reply;
  if (auto err = msg::decode(buf, reply)) {
    close();
    return err;
  }
  return reply;
}

}  // namespace shoal::runtime
