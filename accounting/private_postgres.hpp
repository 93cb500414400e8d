#pragma once

// A PostgreSQL server of its own in a directory (initdb, then pg_ctl), for the store's tests and
// benchmarks and for trying accounting_storage/postgres without a site server. It listens on a
// free port of 127.0.0.1 and on a socket in the directory, trusts local connections, and its
// superuser is "shoal". PostgreSQL refuses to run as root: as root, the server runs as `nobody`
// (runuser), which then owns the directory.

#include <cstdint>
#include <string>

#include "accounting/job_store.hpp"
#include "messages/errc.hpp"

namespace shoal::accounting {

/// Debian's server binaries (postgresql-15).
inline const char* const default_postgres_bin = "/usr/lib/postgresql/15/bin";

class private_postgres {
 public:
  /// Creates the cluster in `dir` (which must exist and be empty of it) and starts the server.
  /// As root, `dir` is given to nobody, and every folder above it must let nobody through.
  /// Not `durable`: fsync off, for tests whose data dies with them; benchmarks keep it on, as a
  /// site's server would. Errors: errc::system_error naming the step that failed and where its
  /// log is.
  static expected<private_postgres> start(const std::string& dir, bool durable = false,
                                          const std::string& bin_dir = default_postgres_bin);

  private_postgres(private_postgres&& other) noexcept;
  private_postgres& operator=(private_postgres&&) = delete;
  private_postgres(const private_postgres&) = delete;
  /// Stops the server (fast shutdown) if it runs; the directory stays (the caller removes it).
  ~private_postgres();

  /// Stops the server (fast shutdown: connections are cut). Does nothing when stopped.
  error stop();
  /// Starts the stopped server again, on the same port.
  error restart();

  /// Settings that reach this server over TCP as its superuser, for `database`.
  postgres_settings settings(const std::string& database) const;

  uint16_t port() const { return port_; }
  const std::string& dir() const { return dir_; }

 private:
  private_postgres(std::string dir, std::string bin_dir, uint16_t port, bool as_nobody,
                   bool durable);
  /// Runs `command` (a shell line) as the server's user; error naming `what` otherwise.
  error run(const std::string& command, const char* what) const;

  std::string dir_;
  std::string bin_dir_;
  uint16_t port_ = 0;
  bool as_nobody_ = false;
  bool durable_ = false;
  bool running_ = false;
};

}  // namespace shoal::accounting
