#include "accounting/private_postgres.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace shoal::accounting {

namespace {

/// A port of 127.0.0.1 nobody listens on now (the kernel's pick of an ephemeral one).
expected<uint16_t> free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return error{errc::system_error, std::string{"socket: "} + std::strerror(errno)};
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
            ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
  int saved = errno;
  ::close(fd);
  if (!ok)
    return error{errc::system_error, std::string{"bind 127.0.0.1:0: "} + std::strerror(saved)};
  return ntohs(addr.sin_port);
}

/// `text` as one single-quoted shell word.
std::string shell_word(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string{"'\\''"} : std::string(1, c);
  return out + "'";
}

}  // namespace

private_postgres::private_postgres(std::string dir, std::string bin_dir, uint16_t port,
                                   bool as_nobody, bool durable)
    : dir_(std::move(dir)),
      bin_dir_(std::move(bin_dir)),
      port_(port),
      as_nobody_(as_nobody),
      durable_(durable) {}

private_postgres::private_postgres(private_postgres&& other) noexcept
    : dir_(std::move(other.dir_)),
      bin_dir_(std::move(other.bin_dir_)),
      port_(other.port_),
      as_nobody_(other.as_nobody_),
      durable_(other.durable_),
      running_(other.running_) {
  other.running_ = false;
}

private_postgres::~private_postgres() {
  stop();
}

error private_postgres::run(const std::string& command, const char* what) const {
  auto line = (as_nobody_ ? "runuser -u nobody -- " : "") + command + " >>" +
              shell_word(dir_ + "/setup.log") + " 2>&1";
  int status = std::system(line.c_str());
  if (status == 0) return {};
  return {errc::system_error, std::string{"private PostgreSQL server: "} + what + " failed (" +
                                  (WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                                     : "status " + std::to_string(status)) +
                                  "); see " + dir_ + "/setup.log and " + dir_ + "/server.log"};
}

expected<private_postgres> private_postgres::start(const std::string& dir, bool durable,
                                                   const std::string& bin_dir) {
  auto port = free_port();
  if (!port) return port.error();
  bool as_nobody = ::geteuid() == 0;
  if (as_nobody) {
    // initdb refuses root; the server's user must own its directory and reach it.
    auto* pw = ::getpwnam("nobody");
    if (pw == nullptr || ::chown(dir.c_str(), pw->pw_uid, pw->pw_gid) != 0)
      return error{errc::system_error, "private PostgreSQL server: giving " + dir +
                                           " to user nobody: " + std::strerror(errno)};
    std::error_code ec;
    std::filesystem::permissions(dir, std::filesystem::perms::owner_all, ec);
  }
  private_postgres server{dir, bin_dir, *port, as_nobody, durable};
  if (auto err = server.run(shell_word(bin_dir + "/initdb") + " -D " + shell_word(dir + "/data") +
                                " -U shoal --auth=trust --no-sync -E UTF8 --locale=C",
                            "initdb"))
    return err;
  if (auto err = server.restart()) return err;
  return server;
}

error private_postgres::restart() {
  if (running_) return {};
  auto options = "-p " + std::to_string(port_) + " -k " + dir_ + " -c listen_addresses=127.0.0.1";
  if (!durable_) options += " -c fsync=off -c full_page_writes=off";
  if (auto err = run(shell_word(bin_dir_ + "/pg_ctl") + " -D " + shell_word(dir_ + "/data") +
                         " -l " + shell_word(dir_ + "/server.log") + " -w -t 60 -o " +
                         shell_word(options) + " start",
                     "pg_ctl start"))
    return err;
  running_ = true;
  return {};
}

error private_postgres::stop() {
  if (!running_) return {};
  running_ = false;
  return run(
      shell_word(bin_dir_ + "/pg_ctl") + " -D " + shell_word(dir_ + "/data") + " -m fast -w stop",
      "pg_ctl stop");
}

postgres_settings private_postgres::settings(const std::string& database) const {
  postgres_settings s;
  s.host = "127.0.0.1";
  s.port = port_;
  s.user = "shoal";
  s.database = database;
  s.connect_timeout_s = 5;
  return s;
}

}  // namespace shoal::accounting
