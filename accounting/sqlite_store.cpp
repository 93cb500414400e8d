// accounting_storage/sqlite: the store in one SQLite file, in WAL mode so sacct's readers never
// wait for the writer (nor it for them) and a crash leaves the last committed write.

#include <sqlite3.h>

#include <filesystem>
#include <memory>

#include "accounting/assoc_schema.hpp"
#include "accounting/job_store.hpp"
#include "accounting/schema.hpp"

namespace shoal::accounting {

namespace {

/// How long a call waits for another process's write lock (sacct's readers take none in WAL).
constexpr int busy_timeout_ms = 10000;

struct statement_closer {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using statement = std::unique_ptr<sqlite3_stmt, statement_closer>;

struct database_closer {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using database = std::unique_ptr<sqlite3, database_closer>;

/// Reads the current row of a statement for read_row().
struct sqlite_column {
  sqlite3_stmt* s;
  int64_t integer(int column) const { return sqlite3_column_int64(s, column); }
  std::string text(int column) const {
    auto p = sqlite3_column_text(s, column);
    return p ? std::string{reinterpret_cast<const char*>(p),
                           static_cast<size_t>(sqlite3_column_bytes(s, column))}
             : std::string{};
  }
};

class sqlite_store final : public job_store {
 public:
  sqlite_store(std::string path, database db) : path_(std::move(path)), db_(std::move(db)) {}

  /// Sets the file's modes, creates or migrates the schema and prepares the write statements.
  error start() {
    if (auto err = exec("PRAGMA journal_mode = WAL", "setting WAL mode")) return err;
    // One fsync per transaction: a write that returned is on disk, so the writer may forget it.
    if (auto err = exec("PRAGMA synchronous = FULL", "setting synchronous")) return err;
    if (auto err = migrate()) return err;
    for (auto [slot, sql] : {std::pair{&upsert_job_, upsert_job_sql(dialect::sqlite)},
                             std::pair{&upsert_step_, upsert_step_sql(dialect::sqlite)},
                             std::pair{&delete_nodes_, delete_job_nodes_sql(dialect::sqlite)},
                             std::pair{&insert_node_, insert_job_node_sql(dialect::sqlite)}}) {
      auto s = prepare(sql);
      if (!s) return s.error();
      *slot = std::move(*s);
    }
    return {};
  }

  error write(const std::vector<job_row>& jobs, const std::vector<step_row>& steps) override {
    if (jobs.empty() && steps.empty()) return {};
    if (auto err = exec("BEGIN IMMEDIATE", "starting a write")) return err;
    auto err = write_rows(jobs, steps);
    if (!err) err = exec("COMMIT", "committing a write");
    if (err) exec("ROLLBACK", "rolling back");
    return err;
  }

  expected<std::vector<job_record>> query(const job_query& q) override {
    // One read transaction: one WAL snapshot for both selects, so the steps read are those of
    // the jobs read.
    if (auto err = exec("BEGIN", "starting a read")) return err;
    auto jobs = select<job_row>(select_jobs_sql(q, dialect::sqlite));
    std::vector<step_row> steps;
    if (jobs && q.with_steps && !jobs->empty()) {
      auto found = select<step_row>(select_steps_sql(q, dialect::sqlite));
      if (!found)
        jobs = found.error();
      else
        steps = std::move(*found);
    }
    if (exec("COMMIT", "ending a read")) exec("ROLLBACK", "rolling back");
    if (!jobs) return jobs.error();
    return assemble(std::move(*jobs), std::move(steps));
  }

  expected<msg::association_data> read_associations() override {
    if (auto err = exec("BEGIN", "starting a read")) return err;
    msg::association_data data;
    error err;
    for_each_assoc_table(data, [&](auto& rows) {
      using Row = typename std::decay_t<decltype(rows)>::value_type;
      if (err) return;
      auto s = prepare(assoc_select_sql<Row>());
      if (!s) {
        err = s.error();
        return;
      }
      int rc;
      while ((rc = sqlite3_step(s->get())) == SQLITE_ROW) {
        rows.emplace_back();
        read_assoc_row(rows.back(), sqlite_column{s->get()});
      }
      if (rc != SQLITE_DONE) err = failure(std::string{"reading "} + assoc_table<Row>());
    });
    if (exec("COMMIT", "ending a read")) exec("ROLLBACK", "rolling back");
    if (err) return err;
    return data;
  }

  error replace_associations(const msg::association_data& data) override {
    if (auto err = exec("BEGIN IMMEDIATE", "starting a write")) return err;
    error err;
    for_each_assoc_table(data, [&](const auto& rows) {
      using Row = typename std::decay_t<decltype(rows)>::value_type;
      if (err) return;
      if ((err = exec(assoc_delete_sql<Row>(), "clearing a table"))) return;
      auto s = prepare(assoc_insert_sql<Row>(dialect::sqlite));
      if (!s) {
        err = s.error();
        return;
      }
      for (auto& row : rows) {
        auto values = assoc_values(row);
        if ((err = run(s->get(), values, assoc_table<Row>()))) return;
      }
    });
    if (!err) err = exec("COMMIT", "committing a write");
    if (err) exec("ROLLBACK", "rolling back");
    return err;
  }

  int schema_version() const override { return version_; }

  std::string describe() const override { return "sqlite:" + path_; }

 private:
  error failure(const std::string& what) const {
    return {errc::system_error,
            "accounting store " + describe() + ": " + what + ": " + sqlite3_errmsg(db_.get())};
  }

  error exec(const std::string& sql, const char* what) {
    if (sqlite3_exec(db_.get(), sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK)
      return failure(what);
    return {};
  }

  expected<statement> prepare(const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v3(db_.get(), sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &s, nullptr) !=
        SQLITE_OK)
      return failure("preparing " + sql.substr(0, sql.find(' ', 12)));
    return statement{s};
  }

  /// Binds `values` (which must outlive the step) to `s` and steps it to its end.
  error run(sqlite3_stmt* s, const std::vector<sql_value>& values, const char* what) {
    sqlite3_reset(s);
    for (size_t i = 0; i < values.size(); ++i) {
      int column = static_cast<int>(i + 1);
      if (auto n = std::get_if<int64_t>(&values[i]))
        sqlite3_bind_int64(s, column, *n);
      else {
        auto& t = std::get<std::string>(values[i]);
        sqlite3_bind_text(s, column, t.data(), static_cast<int>(t.size()), SQLITE_STATIC);
      }
    }
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    }
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) return failure(what);
    return {};
  }

  error write_rows(const std::vector<job_row>& jobs, const std::vector<step_row>& steps) {
    for (auto& j : jobs) {
      if (auto err = run(upsert_job_.get(), row_values(j), "writing a job")) return err;
      std::vector<sql_value> key{j.cluster, int64_t{j.job_id}, j.submit_time};
      if (auto err = run(delete_nodes_.get(), key, "writing a job's nodes")) return err;
      key.emplace_back(std::string{});
      for (auto& node : node_names_of(j.nodelist)) {
        key.back() = node;
        if (auto err = run(insert_node_.get(), key, "writing a job's nodes")) return err;
      }
    }
    for (auto& s : steps)
      if (auto err = run(upsert_step_.get(), row_values(s), "writing a step")) return err;
    return {};
  }

  template <class Row>
  expected<std::vector<Row>> select(const expected<bound_sql>& sql) {
    if (!sql) return sql.error();
    auto s = prepare(sql->text);
    if (!s) return s.error();
    std::vector<Row> rows;
    for (size_t i = 0; i < sql->params.size(); ++i) {
      int column = static_cast<int>(i + 1);
      if (auto n = std::get_if<int64_t>(&sql->params[i]))
        sqlite3_bind_int64(s->get(), column, *n);
      else
        sqlite3_bind_text(s->get(), column, std::get<std::string>(sql->params[i]).c_str(), -1,
                          SQLITE_STATIC);
    }
    int rc;
    while ((rc = sqlite3_step(s->get())) == SQLITE_ROW) {
      rows.emplace_back();
      read_row(rows.back(), sqlite_column{s->get()});
    }
    if (rc != SQLITE_DONE) return failure("reading jobs");
    return rows;
  }

  /// Brings the schema to current_schema_version in one transaction, so two processes opening
  /// a new file at once create it once.
  error migrate() {
    if (auto err = exec("BEGIN IMMEDIATE", "starting the schema check")) return err;
    auto err = migrate_in_transaction();
    if (!err) err = exec("COMMIT", "committing the schema");
    if (err) exec("ROLLBACK", "rolling back");
    return err;
  }

  error migrate_in_transaction() {
    if (auto err = exec(create_version_table_sql(dialect::sqlite), "creating schema_version"))
      return err;
    int found = 0;
    {
      auto read = prepare("SELECT COALESCE(MAX(version), 0) FROM schema_version");
      if (!read) return read.error();
      if (sqlite3_step(read->get()) != SQLITE_ROW) return failure("reading the schema version");
      found = static_cast<int>(sqlite3_column_int64(read->get(), 0));
    }
    if (found > current_schema_version) return newer_schema_error(describe(), found);
    if (found == current_schema_version) {
      version_ = found;
      return {};
    }
    for (auto& sql : migration_statements(found, dialect::sqlite))
      if (auto err = exec(sql, "migrating the schema")) return err;
    for (auto& sql : record_version_sql())
      if (auto err = exec(sql, "recording the schema version")) return err;
    version_ = current_schema_version;
    return {};
  }

  std::string path_;
  database db_;
  int version_ = 0;
  statement upsert_job_;
  statement upsert_step_;
  statement delete_nodes_;
  statement insert_node_;
};

}  // namespace

expected<std::unique_ptr<job_store>> open_sqlite_store(const std::string& path) {
  auto folder = std::filesystem::path{path}.parent_path();
  std::error_code ec;
  if (!folder.empty()) std::filesystem::create_directories(folder, ec);
  if (ec)
    return error{errc::system_error, "accounting store sqlite:" + path + ": creating " +
                                         folder.string() + ": " + ec.message()};
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  database db{raw};
  if (rc != SQLITE_OK)
    return error{errc::system_error, "accounting store sqlite:" + path + ": opening: " +
                                         (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc))};
  sqlite3_busy_timeout(db.get(), busy_timeout_ms);
  auto store = std::make_unique<sqlite_store>(path, std::move(db));
  if (auto err = store->start()) return err;
  return std::unique_ptr<job_store>{std::move(store)};
}

}  // namespace shoal::accounting
