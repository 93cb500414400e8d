#pragma once

// Where a store test's database lives: a SQLite file in a private temp dir, or a fresh database
// on a private PostgreSQL server (one per test binary, started at first use and stopped at exit;
// accounting/private_postgres.hpp). The behaviour tests (behaviours.hpp) run against either.

#include <boost/test/unit_test.hpp>

#include <libpq-fe.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "accounting/job_store.hpp"
#include "accounting/private_postgres.hpp"
#include "test/preconditions.hpp"

namespace shoal::test {

/// A private temp dir, removed with everything in it.
struct temp_dir {
  std::filesystem::path path;

  explicit temp_dir(const char* prefix) {
    std::string pattern = (std::filesystem::temp_directory_path() / prefix).string() + "-XXXXXX";
    BOOST_REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path = pattern;
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

/// What went wrong, for a message (Boost.Test builds its messages whether a check fails or not).
template <class T>
std::string why(const expected<T>& x) {
  return x ? std::string{"(no error)"} : describe(x.error());
}

/// One database for one test.
class store_env {
 public:
  virtual ~store_env() = default;
  /// Opens the store on this test's database (again: the same database each time).
  virtual expected<std::unique_ptr<accounting::job_store>> open() = 0;
  /// Runs `sql` on the database behind the store's back; fails the test otherwise.
  virtual void raw_exec(const std::string& sql) = 0;

  /// Makes every later insert of a step named `name` fail inside the database (a trigger).
  virtual void fail_steps_named(const std::string& name) = 0;

  /// Opens or fails the test.
  std::unique_ptr<accounting::job_store> open_ok() {
    auto s = open();
    if (!s) BOOST_FAIL("open: " << describe(s.error()));
    return std::move(*s);
  }
};

class sqlite_env final : public store_env {
 public:
  sqlite_env() : dir_("shoal-acct"), path_((dir_.path / "acct" / "jobs.db").string()) {}

  expected<std::unique_ptr<accounting::job_store>> open() override {
    return accounting::open_sqlite_store(path_);
  }

  void raw_exec(const std::string& sql) override {
    std::filesystem::create_directories(std::filesystem::path{path_}.parent_path());
    sqlite3* db = nullptr;
    BOOST_REQUIRE(sqlite3_open(path_.c_str(), &db) == SQLITE_OK);
    char* message = nullptr;
    int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
    std::string text = message ? message : "";
    sqlite3_free(message);
    sqlite3_close(db);
    BOOST_REQUIRE_MESSAGE(rc == SQLITE_OK, sql << ": " << text);
  }

  void fail_steps_named(const std::string& name) override {
    raw_exec("CREATE TRIGGER refuse BEFORE INSERT ON steps WHEN NEW.name = '" + name +
             "' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
  }

 private:
  temp_dir dir_;
  std::string path_;
};

/// The private server the PostgreSQL tests share.
class shared_postgres {
 public:
  static accounting::private_postgres& get() {
    static shared_postgres instance;
    return *instance.server_;
  }

  /// A database name no test used yet in this run.
  static std::string fresh_database() {
    static int next = 0;
    return "acct_test_" + std::to_string(++next);
  }

 private:
  shared_postgres() : dir_("shoal-pg") {
    auto s = accounting::private_postgres::start(dir_.path.string());
    if (!s) BOOST_FAIL("starting PostgreSQL: " << describe(s.error()));
    server_ = std::make_unique<accounting::private_postgres>(std::move(*s));
  }
  // Members go in reverse: the server stops before its directory is removed.
  temp_dir dir_;
  std::unique_ptr<accounting::private_postgres> server_;
};

/// Runs `sql` on `settings`' database through libpq and returns the number of rows it gave;
/// fails the test when it cannot.
inline int postgres_exec(const accounting::postgres_settings& settings, const std::string& sql) {
  std::string conninfo = "host=" + settings.host + " port=" + std::to_string(settings.port) +
                         " user=" + settings.user + " dbname=" + settings.database;
  PGconn* c = PQconnectdb(conninfo.c_str());
  BOOST_REQUIRE_MESSAGE(PQstatus(c) == CONNECTION_OK, PQerrorMessage(c));
  PGresult* r = PQexec(c, sql.c_str());
  auto status = PQresultStatus(r);
  int rows = PQntuples(r);
  std::string message = PQerrorMessage(c);
  PQclear(r);
  PQfinish(c);
  BOOST_REQUIRE_MESSAGE(status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK,
                        sql << ": " << message);
  return rows;
}

class postgres_env final : public store_env {
 public:
  postgres_env() : settings_(shared_postgres::get().settings(shared_postgres::fresh_database())) {}

  expected<std::unique_ptr<accounting::job_store>> open() override {
    return accounting::open_postgres_store(settings_);
  }

  void raw_exec(const std::string& sql) override {
    // A test may prepare the database before the store first opens (and creates) it.
    auto admin = settings_;
    admin.database = "postgres";
    if (postgres_exec(
            admin, "SELECT 1 FROM pg_database WHERE datname = '" + settings_.database + "'") == 0)
      postgres_exec(admin, "CREATE DATABASE " + settings_.database);
    postgres_exec(settings_, sql);
  }

  void fail_steps_named(const std::string& name) override {
    raw_exec(
        "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.name = '" +
        name + "' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$");
    raw_exec("CREATE TRIGGER refuse BEFORE INSERT ON steps FOR EACH ROW EXECUTE FUNCTION refuse()");
  }

 private:
  accounting::postgres_settings settings_;
};

}  // namespace shoal::test
