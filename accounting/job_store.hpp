#pragma once

// The accounting store (AccountingStorageType): finished jobs and their steps, kept after the
// controller forgets them, for sacct. SQLite (accounting_storage/sqlite, the default: one file,
// nothing to install) or PostgreSQL (accounting_storage/postgres, through libpq). Both keep the
// same schema (accounting/schema.hpp) and migrate an older one when they open it.
//
// Blocking and not thread-safe: one owner calls it from a thread of its own.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "accounting/rows.hpp"
#include "messages/errc.hpp"
#include "messages/types.hpp"

namespace shoal::accounting {

/// The schema version this build writes. A database at an older version is migrated on open; a
/// newer one is refused (errc::incompatible_version naming both).
/// Version 2 added sacctmgr's objects (accounting/assoc_schema.hpp).
constexpr int current_schema_version = 3;

class job_store {
 public:
  virtual ~job_store() = default;

  /// Writes `jobs` and `steps` in one transaction: all or nothing. Idempotent: a row with the
  /// key of a stored one (cluster + job_id + submit_time, and step_id for steps) replaces it, so
  /// writing a running job and again when it ended, or the same batch twice, leaves one row each.
  /// A step needs no job row in the same call. Empty input does nothing. Errors come back as
  /// values, never as exceptions: errc::system_error naming the store and the database's message
  /// (for PostgreSQL also a lost connection; the next call connects again).
  virtual error write(const std::vector<job_row>& jobs, const std::vector<step_row>& steps) = 0;

  /// The jobs `q` selects, ordered by job_id, then submit_time, then cluster, each with its
  /// steps (in step_order) unless q.with_steps is false. Errors: errc::invalid_hostlist for a bad
  /// q.nodes item, errc::system_error as for write.
  virtual expected<std::vector<job_record>> query(const job_query& q) = 0;

  /// sacctmgr's objects: every cluster, account, user, association and QOS, each table in key
  /// order. Errors: errc::system_error as for write.
  virtual expected<msg::association_data> read_associations() = 0;

  /// Replaces every cluster, account, user, association and QOS with `data`'s, in one
  /// transaction: all or nothing. Keys must be distinct within each table (errc::system_error
  /// otherwise, and nothing changes).
  virtual error replace_associations(const msg::association_data& data) = 0;

  /// The schema version of the open database (current_schema_version once open succeeded).
  virtual int schema_version() const = 0;

  /// "sqlite:PATH" or "postgres:HOST:PORT/DATABASE", for messages.
  virtual std::string describe() const = 0;
};

/// Opens (creating the file, its folder and the schema on first use) the SQLite store at `path`,
/// in WAL mode with a busy timeout, and migrates an older schema. Errors: errc::system_error
/// naming the path and SQLite's message, errc::incompatible_version for a newer schema.
expected<std::unique_ptr<job_store>> open_sqlite_store(const std::string& path);

/// Where the PostgreSQL store is (AccountingStorageHost/Port/User/Pass/Loc). Empty fields take
/// libpq's defaults (PGHOST, a local socket, the login name, ...).
struct postgres_settings {
  std::string host;  ///< a name, an address, or a socket directory (starting with '/')
  uint16_t port = 0;
  std::string user;
  std::string password;
  std::string database = "shoal_acct";
  /// When the database does not exist, create it through the "postgres" database (the user
  /// needs CREATEDB).
  bool create_database = true;
  unsigned connect_timeout_s = 10;
};

/// Connects, creates the database when it is missing and allowed, creates or migrates the
/// schema. Errors: errc::system_error with libpq's message (server down, authentication,
/// permission), errc::incompatible_version for a newer schema. Once open, a lost connection makes
/// calls fail with an error value and the next call reconnects.
expected<std::unique_ptr<job_store>> open_postgres_store(const postgres_settings& settings);

}  // namespace shoal::accounting
