#pragma once

// Where finished jobs and their steps are kept after the controller forgets them (MinJobAge):
// the accounting store (accounting/job_store.hpp), with Slurm's AccountingStorage* keys.

#include <cstdint>
#include <string>

namespace shoal::config {

enum class accounting_storage {
  none,      ///< accounting_storage/none: nothing is kept past MinJobAge
  sqlite,    ///< accounting_storage/sqlite (the default): a file beside the controller's state
  postgres,  ///< accounting_storage/postgres: a PostgreSQL server (libpq)
};

/// "accounting_storage/none", ".../sqlite" or ".../postgres".
const char* to_string(accounting_storage type);

struct accounting_settings {
  accounting_storage type = accounting_storage::sqlite;  ///< AccountingStorageType=
  /// AccountingStorageLoc=: SQLite's file (empty: accounting.db in StateSaveLocation), or
  /// PostgreSQL's database name (empty: shoal_acct).
  std::string location;
  std::string host;      ///< AccountingStorageHost=: PostgreSQL's host (empty: libpq's default)
  uint16_t port = 0;     ///< AccountingStoragePort=: PostgreSQL's port (0: libpq's default)
  std::string user;      ///< AccountingStorageUser=
  std::string password;  ///< AccountingStoragePass=
  /// AccountingStorageEnforce=associations (implied by limits, qos and safe): a job's user must
  /// have an association with its account (the user's default account when none is given), or
  /// the submission is refused.
  bool enforce_associations = false;
  bool enforce_limits = false;  ///< AccountingStorageEnforce=limits (and safe)
  bool enforce_qos = false;     ///< AccountingStorageEnforce=qos
};

/// AccountingStorageEnforce's value as `scontrol show config` prints it ("none" when nothing).
std::string enforce_text(const accounting_settings& settings);

/// Applies one AccountingStorage* key (`key` in lower case). False when `key` is not one of
/// them; true otherwise, with `error` set when the value is bad (what is expected, for the
/// config's file:line message).
bool apply_accounting_key(accounting_settings& settings, const std::string& key,
                          const std::string& value, std::string& error);

/// The SQLite file in use: `location`, or accounting.db in `state_save_location`.
std::string sqlite_path(const accounting_settings& settings,
                        const std::string& state_save_location);

}  // namespace shoal::config
