#include "runtime/bootstrap/front_door_client.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "messages/errc.hpp"
#include "messages/front_door.hpp"
#include "runtime/bootstrap/tcp_connect.hpp"

namespace shoal::runtime {

namespace {

using clock = std::chrono::steady_clock;

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

shoal::expected<front_door_client> front_door_client::connect(const std::string& host,
                                                              uint16_t port,
                                                              std::chrono::milliseconds timeout) {
  auto fd = tcp_connect(host, port, timeout);
  if (!fd) return std::move(fd.error());
  return front_door_client{*fd};
}

shoal::expected<msg::client_reply> front_door_client::call(const msg::client_request& req,
                                                           std::chrono::milliseconds timeout) {
  if (auto err = send(req, timeout)) return err;
  return receive(timeout);
}

shoal::error front_door_client::send(const msg::client_request& req,
                                     std::chrono::milliseconds timeout) {
  if (fd_ < 0) return shoal::error(errc::unreachable, "not connected");
  auto deadline = clock::now() + timeout;
  auto lost = [this](const std::string& why) {
    close();
    return shoal::error(errc::unreachable, why);
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
  return {};
}

shoal::expected<msg::client_reply> front_door_client::receive(std::chrono::milliseconds timeout) {
  if (fd_ < 0) return shoal::error(errc::unreachable, "not connected");
  auto deadline = clock::now() + timeout;
  auto lost = [this](const std::string& why) {
    close();
    return shoal::error(errc::unreachable, why);
  };
  // The frame: its length, then that many bytes.
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
