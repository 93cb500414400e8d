// accounting_storage/postgres: the store in a PostgreSQL database, through libpq. A write is a
// handful of multi-row statements in one transaction, so a batch costs a few round trips
// whatever its size. A lost connection fails the call with an error value; the next call
// connects again.

#include <libpq-fe.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <tuple>

#include "accounting/assoc_schema.hpp"
#include "accounting/job_store.hpp"
#include "accounting/schema.hpp"

namespace shoal::accounting {

namespace {

/// Rows per statement: PostgreSQL takes at most 65535 parameters in one.
constexpr size_t rows_per_statement = 500;
/// The advisory lock that makes two stores opening one database at once migrate it once.
constexpr int64_t migration_lock_key = 0x73686f616c616363;  // "shoalacc"

struct connection_closer {
  void operator()(PGconn* c) const { PQfinish(c); }
};
using connection = std::unique_ptr<PGconn, connection_closer>;

struct result_clearer {
  void operator()(PGresult* r) const { PQclear(r); }
};
using result = std::unique_ptr<PGresult, result_clearer>;

/// Reads one row of a text-format result for read_row().
struct pg_column {
  const PGresult* r;
  int row;
  int64_t integer(int column) const {
    return std::strtoll(PQgetvalue(r, row, column), nullptr, 10);
  }
  std::string text(int column) const {
    return {PQgetvalue(r, row, column), static_cast<size_t>(PQgetlength(r, row, column))};
  }
};

/// The rows of `rows` whose keys differ, the last of each kept in its place: one statement may
/// not update a row twice.
template <class Row, class Key>
std::vector<const Row*> last_of_each_key(const std::vector<Row>& rows, Key key) {
  std::map<decltype(key(rows.front())), size_t> last;
  for (size_t i = 0; i < rows.size(); ++i) last[key(rows[i])] = i;
  std::vector<const Row*> out;
  for (size_t i = 0; i < rows.size(); ++i)
    if (last[key(rows[i])] == i) out.push_back(&rows[i]);
  return out;
}

void ignore_notice(void*, const char*) {}

/// `text` with each byte that is not part of valid UTF-8 (and each NUL) replaced by '?'. A
/// UTF8 database refuses such text, and a job name or command line is whatever bytes the user
/// gave: refused, the writer would retry that batch forever.
std::string valid_utf8(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  for (size_t i = 0; i < text.size();) {
    unsigned char c = byte(i);
    size_t len = c < 0x80           ? 1
                 : (c >> 5) == 0x6  ? 2
                 : (c >> 4) == 0xe  ? 3
                 : (c >> 3) == 0x1e ? 4
                                    : 0;
    bool ok = len > 0 && c != 0 && i + len <= text.size();
    for (size_t k = 1; ok && k < len; ++k) ok = (byte(i + k) & 0xc0) == 0x80;
    if (ok && len > 1) {
      // Overlong forms, surrogates and code points past U+10FFFF are invalid too.
      uint32_t cp = c & (0x7f >> len);
      for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (byte(i + k) & 0x3f);
      static const uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
      ok = cp >= smallest[len] && cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff);
    }
    if (ok) {
      out.append(text, i, len);
      i += len;
    } else {
      out += '?';
      ++i;
    }
  }
  return out;
}

class postgres_store final : public job_store {
 public:
  explicit postgres_store(postgres_settings s) : settings_(std::move(s)) {}

  /// Connects (creating the database when allowed) and migrates the schema.
  error start() {
    auto c = connect_to(settings_.database);
    if (!c && settings_.create_database &&
        c.error().text().find("does not exist") != std::string::npos) {
      if (auto err = create_database()) return err;
      c = connect_to(settings_.database);
    }
    if (!c) return c.error();
    conn_ = std::move(*c);
    return migrate();
  }

  error write(const std::vector<job_row>& jobs, const std::vector<step_row>& steps) override {
    if (jobs.empty() && steps.empty()) return {};
    if (auto err = begin()) return err;
    auto err = write_rows(jobs, steps);
    if (!err) err = exec_params("COMMIT", {}, "committing a write");
    if (err) rollback();
    return err;
  }

  expected<std::vector<job_record>> query(const job_query& q) override {
    auto jobs_sql = select_jobs_sql(q, dialect::postgres);
    if (!jobs_sql) return jobs_sql.error();
    // One snapshot for both selects, so the steps read are those of the jobs read.
    if (auto err = begin("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")) return err;
    auto jobs = select<job_row>(*jobs_sql);
    std::vector<step_row> steps;
    if (jobs && q.with_steps && !jobs->empty()) {
      auto found = select<step_row>(*select_steps_sql(q, dialect::postgres));
      if (!found)
        jobs = found.error();
      else
        steps = std::move(*found);
    }
    if (auto err = exec_params("COMMIT", {}, "ending a read"); err && jobs) jobs = err;
    if (!jobs) {
      rollback();
      return jobs.error();
    }
    return assemble(std::move(*jobs), std::move(steps));
  }

  expected<msg::association_data> read_associations() override {
    if (auto err = begin("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")) return err;
    msg::association_data data;
    error err;
    for_each_assoc_table(data, [&](auto& rows) {
      using Row = typename std::decay_t<decltype(rows)>::value_type;
      if (err) return;
      auto r = run(assoc_select_sql<Row>(), {}, std::string{"reading "} + assoc_table<Row>(), true);
      if (!r) {
        err = r.error();
        return;
      }
      rows.resize(static_cast<size_t>(PQntuples(r->get())));
      for (size_t i = 0; i < rows.size(); ++i)
        read_assoc_row(rows[i], pg_column{r->get(), static_cast<int>(i)});
    });
    if (!err) err = exec_params("COMMIT", {}, "ending a read");
    if (err) {
      rollback();
      return err;
    }
    return data;
  }

  error replace_associations(const msg::association_data& data) override {
    if (auto err = begin()) return err;
    error err;
    for_each_assoc_table(data, [&](const auto& rows) {
      using Row = typename std::decay_t<decltype(rows)>::value_type;
      if (err) return;
      if ((err = exec_params(assoc_delete_sql<Row>(), {}, "clearing a table"))) return;
      auto sql = assoc_insert_sql<Row>(dialect::postgres);
      for (auto& row : rows)
        if ((err = exec_params(sql, assoc_values(row), assoc_table<Row>()))) return;
    });
    if (!err) err = exec_params("COMMIT", {}, "committing a write");
    if (err) rollback();
    return err;
  }

  int schema_version() const override { return version_; }

  std::string describe() const override {
    return "postgres:" + (settings_.host.empty() ? std::string{"(default)"} : settings_.host) +
           ":" + (settings_.port ? std::to_string(settings_.port) : std::string{"(default)"}) +
           "/" + settings_.database;
  }

 private:
  error failure(const std::string& what, const PGconn* c) const {
    std::string message = c ? PQerrorMessage(c) : "out of memory";
    while (!message.empty() && (message.back() == '\n' || message.back() == ' '))
      message.pop_back();
    return {errc::system_error, "accounting store " + describe() + ": " + what + ": " + message};
  }

  expected<connection> connect_to(const std::string& database) const {
    std::vector<std::pair<const char*, std::string>> params;
    if (!settings_.host.empty()) params.emplace_back("host", settings_.host);
    if (settings_.port) params.emplace_back("port", std::to_string(settings_.port));
    if (!settings_.user.empty()) params.emplace_back("user", settings_.user);
    if (!settings_.password.empty()) params.emplace_back("password", settings_.password);
    params.emplace_back("dbname", database);
    params.emplace_back("connect_timeout", std::to_string(settings_.connect_timeout_s));
    params.emplace_back("application_name", "shoal");
    params.emplace_back("client_encoding", "UTF8");
    // A server host that vanishes (no RST) fails a call within about a minute, not TCP's hours.
    params.emplace_back("keepalives_idle", "30");
    params.emplace_back("keepalives_interval", "10");
    params.emplace_back("keepalives_count", "3");
    params.emplace_back("tcp_user_timeout", "60000");
    std::vector<const char*> keys, values;
    for (auto& [k, v] : params) {
      keys.push_back(k);
      values.push_back(v.c_str());
    }
    keys.push_back(nullptr);
    values.push_back(nullptr);
    connection c{PQconnectdbParams(keys.data(), values.data(), 0)};
    if (!c || PQstatus(c.get()) != CONNECTION_OK)
      return failure("connecting to database " + database, c.get());
    // "relation already exists, skipping" and the like would land on the daemon's stderr.
    PQsetNoticeProcessor(c.get(), ignore_notice, nullptr);
    return c;
  }

  error create_database() {
    auto admin = connect_to("postgres");
    if (!admin) return admin.error();
    auto quoted =
        PQescapeIdentifier(admin->get(), settings_.database.c_str(), settings_.database.size());
    if (!quoted) return failure("quoting the database name", admin->get());
    std::string sql = std::string{"CREATE DATABASE "} + quoted;
    PQfreemem(quoted);
    result r{PQexec(admin->get(), sql.c_str())};
    auto state = r ? PQresultErrorField(r.get(), PG_DIAG_SQLSTATE) : nullptr;
    // 42P04: another store created it meanwhile.
    if (PQresultStatus(r.get()) != PGRES_COMMAND_OK && !(state && std::string{state} == "42P04"))
      return failure("creating database " + settings_.database, admin->get());
    return {};
  }

  /// Runs `sql` with text parameters; a result with rows when `rows`, else a command. A broken
  /// connection is dropped, so the next call connects again.
  expected<result> run(const std::string& sql, const std::vector<sql_value>& params,
                       const std::string& what, bool rows = false) {
    std::vector<std::string> texts;
    texts.reserve(params.size());
    for (auto& p : params)
      texts.push_back(std::holds_alternative<int64_t>(p) ? std::to_string(std::get<int64_t>(p))
                                                         : valid_utf8(std::get<std::string>(p)));
    std::vector<const char*> values;
    values.reserve(texts.size());
    for (auto& t : texts) values.push_back(t.c_str());
    result r{PQexecParams(conn_.get(), sql.c_str(), static_cast<int>(values.size()), nullptr,
                          values.data(), nullptr, nullptr, 0)};
    auto expected_status = rows ? PGRES_TUPLES_OK : PGRES_COMMAND_OK;
    if (r && PQresultStatus(r.get()) == expected_status) return r;
    auto err = failure(what, conn_.get());
    if (PQstatus(conn_.get()) != CONNECTION_OK) conn_.reset();
    return err;
  }

  error exec_params(const std::string& sql, const std::vector<sql_value>& params,
                    const std::string& what) {
    if (!conn_) return {errc::system_error, "accounting store " + describe() + ": not connected"};
    auto r = run(sql, params, what);
    return r ? error{} : r.error();
  }

  /// Starts a transaction with `statement`, connecting first when there is no connection. A
  /// connection that broke while idle (a server restart) fails there, before anything was
  /// written: that one is replaced at once.
  error begin(const char* statement = "BEGIN") {
    for (int attempt = 0;; ++attempt) {
      if (!conn_) {
        auto c = connect_to(settings_.database);
        if (!c) return c.error();
        conn_ = std::move(*c);
      }
      auto err = exec_params(statement, {}, "starting a transaction");
      if (!err || conn_ || attempt > 0) return err;
    }
  }

  void rollback() {
    if (conn_ && PQtransactionStatus(conn_.get()) != PQTRANS_IDLE)
      exec_params("ROLLBACK", {}, "rolling back");
  }

  /// Runs `make_sql(n)` over `rows` in chunks of rows_per_statement, `values_of` giving each
  /// row's parameters.
  template <class Row, class Values>
  error in_chunks(const std::vector<const Row*>& rows, std::string (*make_sql)(dialect, size_t),
                  Values values_of, const char* what) {
    for (size_t from = 0; from < rows.size(); from += rows_per_statement) {
      size_t n = std::min(rows_per_statement, rows.size() - from);
      std::vector<sql_value> params;
      for (size_t i = from; i < from + n; ++i)
        for (auto& v : values_of(*rows[i])) params.push_back(std::move(v));
      if (auto err = exec_params(make_sql(dialect::postgres, n), params, what)) return err;
    }
    return {};
  }

  error write_rows(const std::vector<job_row>& jobs, const std::vector<step_row>& steps) {
    auto job_key = [](const job_row& j) { return std::tie(j.cluster, j.job_id, j.submit_time); };
    auto step_key = [](const step_row& s) {
      return std::tie(s.cluster, s.job_id, s.submit_time, s.step_id);
    };
    auto unique_jobs = last_of_each_key(jobs, job_key);
    auto key_values = [](const job_row& j) {
      return std::vector<sql_value>{j.cluster, int64_t{j.job_id}, j.submit_time};
    };
    if (auto err = in_chunks(
            unique_jobs, upsert_job_sql, [](const job_row& j) { return row_values(j); },
            "writing jobs"))
      return err;
    if (auto err = in_chunks(unique_jobs, delete_job_nodes_sql, key_values, "writing job nodes"))
      return err;
    std::vector<std::pair<const job_row*, std::string>> nodes;
    for (auto* j : unique_jobs)
      for (auto& n : node_names_of(j->nodelist)) nodes.emplace_back(j, std::move(n));
    std::vector<const std::pair<const job_row*, std::string>*> node_rows;
    for (auto& n : nodes) node_rows.push_back(&n);
    auto node_values = [&](const std::pair<const job_row*, std::string>& n) {
      auto v = key_values(*n.first);
      v.emplace_back(n.second);
      return v;
    };
    if (auto err = in_chunks(node_rows, insert_job_node_sql, node_values, "writing job nodes"))
      return err;
    return in_chunks(
        last_of_each_key(steps, step_key), upsert_step_sql,
        [](const step_row& s) { return row_values(s); }, "writing steps");
  }

  template <class Row>
  expected<std::vector<Row>> select(const bound_sql& sql) {
    if (!conn_)
      return error{errc::system_error, "accounting store " + describe() + ": not connected"};
    auto r = run(sql.text, sql.params, "reading jobs", true);
    if (!r) return r.error();
    std::vector<Row> rows(static_cast<size_t>(PQntuples(r->get())));
    for (size_t i = 0; i < rows.size(); ++i)
      read_row(rows[i], pg_column{r->get(), static_cast<int>(i)});
    return rows;
  }

  error migrate() {
    if (auto err = begin()) return err;
    auto err = migrate_in_transaction();
    if (!err) err = exec_params("COMMIT", {}, "committing the schema");
    if (err) rollback();
    return err;
  }

  error migrate_in_transaction() {
    auto lock = run("SELECT pg_advisory_xact_lock(" + std::to_string(migration_lock_key) + ")", {},
                    "locking the schema", true);
    if (!lock) return lock.error();
    if (auto err =
            exec_params(create_version_table_sql(dialect::postgres), {}, "creating schema_version"))
      return err;
    auto read = run("SELECT COALESCE(MAX(version), 0) FROM schema_version", {},
                    "reading the schema version", true);
    if (!read) return read.error();
    int found = static_cast<int>(pg_column{read->get(), 0}.integer(0));
    if (found > current_schema_version) return newer_schema_error(describe(), found);
    for (auto& sql : migration_statements(found, dialect::postgres))
      if (auto err = exec_params(sql, {}, "migrating the schema")) return err;
    if (found < current_schema_version)
      for (auto& sql : record_version_sql())
        if (auto err = exec_params(sql, {}, "recording the schema version")) return err;
    version_ = current_schema_version;
    return {};
  }

  postgres_settings settings_;
  connection conn_;
  int version_ = 0;
};

}  // namespace

expected<std::unique_ptr<job_store>> open_postgres_store(const postgres_settings& settings) {
  auto store = std::make_unique<postgres_store>(settings);
  if (auto err = store->start()) return err;
  return std::unique_ptr<job_store>{std::move(store)};
}

}  // namespace shoal::accounting
