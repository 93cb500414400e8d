#include "accounting/schema.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>

#include "accounting/assoc_schema.hpp"
#include "accounting/job_store.hpp"
#include "topology/hostlist.hpp"

namespace shoal::accounting {

namespace {

std::string placeholder(dialect d, size_t index) {
  return (d == dialect::sqlite ? "?" : "$") + std::to_string(index);
}

/// The column types of a row, from its fields' C++ types.
template <class Row>
std::vector<std::pair<std::string, bool>> columns_of() {
  std::vector<std::pair<std::string, bool>> out;  // name, is text
  Row r;
  auto add = [&](const char* name, const auto& field) {
    out.emplace_back(name, std::is_same_v<std::decay_t<decltype(field)>, std::string>);
  };
  if constexpr (std::is_same_v<Row, job_row>)
    visit_job_fields(r, add);
  else
    visit_step_fields(r, add);
  return out;
}

template <class Row>
std::string create_table_sql(const char* table, int key_columns, dialect d) {
  auto columns = columns_of<Row>();
  std::string sql = std::string{"CREATE TABLE IF NOT EXISTS "} + table + " (";
  for (auto& [name, text] : columns) {
    sql += name + (text ? " TEXT" : d == dialect::sqlite ? " INTEGER" : " BIGINT");
    sql += " NOT NULL, ";
  }
  sql += "PRIMARY KEY (";
  for (int i = 0; i < key_columns; ++i) sql += (i ? ", " : "") + columns[i].first;
  return sql + "))";
}

/// "(p1, p2, ...), (...)": `rows` tuples of `width` placeholders, numbered on from 1.
std::string value_tuples(dialect d, size_t rows, size_t width) {
  std::string out;
  for (size_t r = 0; r < rows; ++r) {
    out += r ? ", (" : "(";
    for (size_t i = 0; i < width; ++i) out += (i ? ", " : "") + placeholder(d, r * width + i + 1);
    out += ")";
  }
  return out;
}

template <class Row>
std::string upsert_sql(const char* table, int key_columns, dialect d, size_t rows) {
  auto columns = columns_of<Row>();
  std::string names, updates, key;
  for (size_t i = 0; i < columns.size(); ++i) {
    auto& name = columns[i].first;
    names += (i ? ", " : "") + name;
    if (static_cast<int>(i) < key_columns) {
      key += (i ? ", " : "") + name;
      continue;
    }
    // A job's steps reach the store while it runs, and leave its record once stored: the
    // record written when it ends may no longer hold the step that set the highest code.
    auto value = "excluded." + name;
    if (name == "derived_exit_code")
      value = std::string{d == dialect::sqlite ? "max(" : "GREATEST("} + value + ", " + table +
              "." + name + ")";
    updates += (updates.empty() ? "" : ", ") + name + " = " + value;
  }
  return std::string{"INSERT INTO "} + table + " (" + names + ") VALUES " +
         value_tuples(d, rows, columns.size()) + " ON CONFLICT (" + key + ") DO UPDATE SET " +
         updates;
}

template <class Row>
std::string column_list(const char* alias) {
  std::string out;
  for (auto& column : columns_of<Row>())
    out += (out.empty() ? "" : ", ") + std::string{alias} + column.first;
  return out;
}

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

/// Collects the WHERE clause's conditions and their parameters.
class filter {
 public:
  explicit filter(dialect d) : d_(d) {}

  std::string param(sql_value v) {
    params_.push_back(std::move(v));
    return placeholder(d_, params_.size());
  }

  template <class T>
  void any_of(const std::string& column, const std::vector<T>& values) {
    if (values.empty()) return;
    std::string list;
    for (auto& v : values) list += (list.empty() ? "" : ", ") + param(to_sql(v));
    add(column + " IN (" + list + ")");
  }

  void add(std::string condition) { conditions_.push_back(std::move(condition)); }

  std::string where() const {
    std::string out;
    for (auto& c : conditions_) out += (out.empty() ? " WHERE " : " AND ") + c;
    return out;
  }
  std::vector<sql_value> take_params() { return std::move(params_); }

 private:
  dialect d_;
  std::vector<std::string> conditions_;
  std::vector<sql_value> params_;
};

/// FROM jobs j WHERE ... ORDER BY ... LIMIT ...: the selection both selects share.
expected<std::string> job_selection(const job_query& q, filter& f) {
  if (q.end != 0) f.add("j.submit_time <= " + f.param(q.end));
  if (q.start != 0) f.add("(j.end_time = 0 OR j.end_time >= " + f.param(q.start) + ")");
  std::vector<std::string> states;
  for (auto& s : q.states) states.push_back(upper(s));
  f.any_of("UPPER(j.state)", states);
  if (!q.jobs.empty()) {
    std::string any;
    for (auto& sel : q.jobs) {
      auto id = f.param(to_sql(sel.job_id));
      auto one = sel.array_task_id < 0
                     ? "j.job_id = " + id + " OR j.array_job_id = " + id
                     : "j.array_job_id = " + id +
                           " AND j.array_task_id = " + f.param(to_sql(sel.array_task_id));
      any += (any.empty() ? "(" : " OR (") + one + ")";
    }
    f.add("(" + any + ")");
  }
  f.any_of("j.uid", q.uids);
  f.any_of("j.account", q.accounts);
  f.any_of("j.partition_name", q.partitions);
  f.any_of("j.name", q.names);
  f.any_of("j.cluster", q.clusters);
  if (!q.nodes.empty()) {
    std::string list;
    for (auto& expr : q.nodes) {
      auto names = topology::expand_hostlist(expr);
      if (!names) return names.error();
      for (auto& n : *names) list += (list.empty() ? "" : ", ") + f.param(n);
    }
    f.add(
        "EXISTS (SELECT 1 FROM job_nodes n WHERE n.cluster = j.cluster AND n.job_id = j.job_id "
        "AND n.submit_time = j.submit_time AND n.node_name IN (" +
        list + "))");
  }
  std::string sql = " FROM jobs j" + f.where() + " ORDER BY j.job_id, j.submit_time, j.cluster";
  if (q.limit != 0) sql += " LIMIT " + std::to_string(q.limit);
  return sql;
}

}  // namespace

std::vector<std::string> migration_statements(int version, dialect d) {
  std::vector<std::string> out;
  if (version < 1) {
    out.push_back(create_table_sql<job_row>("jobs", job_key_columns, d));
    out.push_back(create_table_sql<step_row>("steps", step_key_columns, d));
    const char* integer = d == dialect::sqlite ? "INTEGER" : "BIGINT";
    out.push_back(std::string{"CREATE TABLE IF NOT EXISTS job_nodes (cluster TEXT NOT NULL, "
                              "job_id "} +
                  integer + " NOT NULL, submit_time " + integer +
                  " NOT NULL, node_name TEXT NOT NULL, "
                  "PRIMARY KEY (cluster, job_id, submit_time, node_name))");
    // -S/-E, -u, -j on an array, -N: the selections that would otherwise scan every job.
    out.push_back("CREATE INDEX IF NOT EXISTS jobs_by_submit ON jobs (submit_time)");
    out.push_back("CREATE INDEX IF NOT EXISTS jobs_by_end ON jobs (end_time)");
    out.push_back("CREATE INDEX IF NOT EXISTS jobs_by_uid ON jobs (uid)");
    out.push_back("CREATE INDEX IF NOT EXISTS jobs_by_array ON jobs (array_job_id)");
    out.push_back("CREATE INDEX IF NOT EXISTS job_nodes_by_name ON job_nodes (node_name)");
  }
  if (version < 2)
    for (auto& sql : create_assoc_tables_sql(d)) out.push_back(std::move(sql));
  // Tables made at version 2 lack the columns version 3 added (those made above have them).
  if (version == 2)
    for (auto& sql : add_qos_preempt_columns_sql()) out.push_back(std::move(sql));
  return out;
}

std::string create_version_table_sql(dialect d) {
  return std::string{"CREATE TABLE IF NOT EXISTS schema_version (version "} +
         (d == dialect::sqlite ? "INTEGER" : "BIGINT") + " NOT NULL)";
}

std::vector<std::string> record_version_sql() {
  return {"DELETE FROM schema_version", "INSERT INTO schema_version (version) VALUES (" +
                                            std::to_string(current_schema_version) + ")"};
}

error newer_schema_error(const std::string& where, int found) {
  return {errc::incompatible_version,
          "accounting store " + where + " has schema version " + std::to_string(found) +
              ", newer than version " + std::to_string(current_schema_version) +
              " that this shoal knows: run a newer shoal, or point it at another database"};
}

std::string upsert_job_sql(dialect d, size_t rows) {
  return upsert_sql<job_row>("jobs", job_key_columns, d, rows);
}

std::string upsert_step_sql(dialect d, size_t rows) {
  return upsert_sql<step_row>("steps", step_key_columns, d, rows);
}

std::string delete_job_nodes_sql(dialect d, size_t rows) {
  // PostgreSQL joins a VALUES list (typed: it would read untyped parameters there as text);
  // a row-value IN list would be one OR term per job. SQLite takes row values only IN a
  // subquery, and scans the table for that: one equality per job finds the key instead.
  if (d == dialect::postgres) {
    std::string values;
    for (size_t r = 0; r < rows; ++r)
      values += (r ? ", (" : "(") + placeholder(d, 3 * r + 1) + "::text, " +
                placeholder(d, 3 * r + 2) + "::bigint, " + placeholder(d, 3 * r + 3) + "::bigint)";
    return "DELETE FROM job_nodes WHERE (cluster, job_id, submit_time) IN (VALUES " + values + ")";
  }
  std::string any;
  for (size_t r = 0; r < rows; ++r)
    any += (r ? " OR " : "") + ("(cluster = " + placeholder(d, 3 * r + 1)) +
           " AND job_id = " + placeholder(d, 3 * r + 2) +
           " AND submit_time = " + placeholder(d, 3 * r + 3) + ")";
  return "DELETE FROM job_nodes WHERE " + any;
}

std::string insert_job_node_sql(dialect d, size_t rows) {
  return "INSERT INTO job_nodes (cluster, job_id, submit_time, node_name) VALUES " +
         value_tuples(d, rows, 4) + " ON CONFLICT DO NOTHING";
}

std::vector<std::string> node_names_of(const std::string& nodelist) {
  if (nodelist.empty() || nodelist == "None assigned") return {};
  auto names = topology::expand_hostlist(nodelist);
  if (!names) return {};
  return std::move(*names);
}

expected<bound_sql> select_jobs_sql(const job_query& q, dialect d) {
  filter f{d};
  auto selection = job_selection(q, f);
  if (!selection) return selection.error();
  return bound_sql{"SELECT " + column_list<job_row>("j.") + *selection, f.take_params()};
}

expected<bound_sql> select_steps_sql(const job_query& q, dialect d) {
  filter f{d};
  auto selection = job_selection(q, f);
  if (!selection) return selection.error();
  return bound_sql{"SELECT " + column_list<step_row>("s.") +
                       " FROM steps s JOIN (SELECT j.cluster, j.job_id, j.submit_time" +
                       *selection +
                       ") k ON s.cluster = k.cluster AND s.job_id = k.job_id AND "
                       "s.submit_time = k.submit_time",
                   f.take_params()};
}

std::vector<job_record> assemble(std::vector<job_row> jobs, std::vector<step_row> steps) {
  using key = std::tuple<std::string, uint32_t, int64_t>;
  std::map<key, size_t> index;
  std::vector<job_record> out;
  out.reserve(jobs.size());
  for (auto& j : jobs) {
    index.emplace(key{j.cluster, j.job_id, j.submit_time}, out.size());
    out.push_back(job_record{std::move(j), {}});
  }
  for (auto& s : steps) {
    auto it = index.find(key{s.cluster, s.job_id, s.submit_time});
    if (it != index.end()) out[it->second].steps.push_back(std::move(s));
  }
  for (auto& r : out)
    std::sort(r.steps.begin(), r.steps.end(), [](const step_row& a, const step_row& b) {
      return step_order(a.step_id, b.step_id);
    });
  return out;
}

}  // namespace shoal::accounting
