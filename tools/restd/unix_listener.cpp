#include "tools/restd/unix_listener.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "config/log.hpp"

namespace shoal::restd {

namespace {

thread_local int64_t peer_uid_of_thread = -1;

shoal::error socket_error(const std::string& what, const std::string& path) {
  return shoal::error(errc::system_error,
                      "cannot listen on unix:" + path + ": " + what + ": " + std::strerror(errno));
}

/// True when something still accepts on `path` (a shoalrestd that is running).
bool someone_listens(const sockaddr_un& addr) {
  int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (probe < 0) return false;
  bool live = ::connect(probe, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
  ::close(probe);
  return live;
}

}  // namespace

int64_t unix_peer_uid() {
  return peer_uid_of_thread;
}

unix_listener::~unix_listener() {
  stop();
}

shoal::error unix_listener::bind(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof addr.sun_path)
    return shoal::error(errc::invalid_request, "unix:" + path + ": a socket path needs 1 to " +
                                                   std::to_string(sizeof addr.sun_path - 1) +
                                                   " characters");
  std::memcpy(addr.sun_path, path.c_str(), path.size());
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode))
      return shoal::error(errc::system_error, "cannot listen on unix:" + path +
                                                  ": a file that is not a socket is there");
    if (someone_listens(addr))
      return shoal::error(errc::system_error, "cannot listen on unix:" + path +
                                                  ": another shoalrestd is listening there");
    ::unlink(path.c_str());
  }
  fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return socket_error("socket", path);
  if (::bind(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 ||
      ::chmod(path.c_str(), 0666) != 0 || ::listen(fd_, SOMAXCONN) != 0) {
    auto err = socket_error("bind", path);
    ::close(fd_);
    fd_ = -1;
    return err;
  }
  path_ = path;
  return {};
}

void unix_listener::start(size_t threads, connection_handler handle) {
  if (fd_ < 0) return;
  handle_ = std::move(handle);
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { accept_loop(); });
}

void unix_listener::accept_loop() {
  while (!stopping_) {
    int conn = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (conn < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE) {
        // Out of descriptors: let the connections being served finish.
        ::poll(nullptr, 0, 100);
        continue;
      }
      break;  // shut down by stop()
    }
    ucred peer{};
    socklen_t len = sizeof peer;
    if (::getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &peer, &len) != 0) {
      config::log().warn("rest: unix:{}: no SO_PEERCRED for a connection: {}", path_,
                         std::strerror(errno));
      ::close(conn);
      continue;
    }
    peer_uid_of_thread = peer.uid;
    handle_(conn);
    peer_uid_of_thread = -1;
    ::close(conn);
  }
}

void unix_listener::stop() {
  if (fd_ < 0) return;
  stopping_ = true;
  // Wakes every thread blocked in accept (it returns EINVAL on a socket shut down).
  ::shutdown(fd_, SHUT_RDWR);
  for (auto& t : threads_) t.join();
  threads_.clear();
  ::close(fd_);
  fd_ = -1;
  ::unlink(path_.c_str());
}

}  // namespace shoal::restd
