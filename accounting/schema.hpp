#pragma once

// The tables both stores keep, and the SQL they run, written once for the two dialects. The
// field lists below are the only place that names a column: the tables, the upserts, the
// selects and the reading of a result all follow them.
//
//   jobs             one row per job, key (cluster, job_id, submit_time)
//   steps            one row per step, key (cluster, job_id, submit_time, step_id)
//   job_nodes        the expansion of each job's nodelist, one row per node name (for -N)
//   schema_version   one row: the version of the tables above

#include <cstdint>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "accounting/rows.hpp"
#include "messages/errc.hpp"

namespace shoal::accounting {

enum class dialect { sqlite, postgres };

/// A bound parameter or a column's value: every column is an integer or text.
using sql_value = std::variant<int64_t, std::string>;

/// Calls f(column_name, field) for each field of a job_row (or const job_row), key first.
template <class Row, class F>
void visit_job_fields(Row& r, F&& f) {
  static_assert(std::is_same_v<std::remove_const_t<Row>, job_row>);
  f("cluster", r.cluster);
  f("job_id", r.job_id);
  f("submit_time", r.submit_time);
  f("array_job_id", r.array_job_id);
  f("array_task_id", r.array_task_id);
  f("name", r.name);
  f("user_name", r.user);
  f("uid", r.uid);
  f("gid", r.gid);
  f("group_name", r.group);
  f("account", r.account);
  f("partition_name", r.partition);
  f("qos", r.qos);
  f("state", r.state);
  f("reason", r.reason);
  f("exit_code", r.exit_code);
  f("exit_signal", r.exit_signal);
  f("derived_exit_code", r.derived_exit_code);
  f("eligible_time", r.eligible_time);
  f("start_time", r.start_time);
  f("end_time", r.end_time);
  f("time_limit_s", r.time_limit_s);
  f("node_count", r.node_count);
  f("nodelist", r.nodelist);
  f("req_cpus", r.req_cpus);
  f("alloc_cpus", r.alloc_cpus);
  f("req_mem_mb", r.req_mem_mb);
  f("req_mem_per_cpu", r.req_mem_per_cpu);
  f("req_tres", r.req_tres);
  f("alloc_tres", r.alloc_tres);
  f("work_dir", r.work_dir);
  f("submit_line", r.submit_line);
  f("priority", r.priority);
  f("requeue_count", r.requeue_count);
}

/// The job key's columns: the first ones visit_job_fields names.
constexpr int job_key_columns = 3;

/// Calls f(column_name, field) for each field of a step_row, key first.
template <class Row, class F>
void visit_step_fields(Row& r, F&& f) {
  static_assert(std::is_same_v<std::remove_const_t<Row>, step_row>);
  f("cluster", r.cluster);
  f("job_id", r.job_id);
  f("submit_time", r.submit_time);
  f("step_id", r.step_id);
  f("name", r.name);
  f("nodelist", r.nodelist);
  f("node_count", r.node_count);
  f("ntasks", r.ntasks);
  f("state", r.state);
  f("exit_code", r.exit_code);
  f("exit_signal", r.exit_signal);
  f("start_time", r.start_time);
  f("end_time", r.end_time);
  f("user_cpu_us", r.user_cpu_us);
  f("system_cpu_us", r.system_cpu_us);
  f("max_rss_bytes", r.max_rss_bytes);
  f("max_rss_node", r.max_rss_node);
  f("max_rss_task", r.max_rss_task);
  f("ave_rss_bytes", r.ave_rss_bytes);
  f("max_vsize_bytes", r.max_vsize_bytes);
  f("read_bytes", r.read_bytes);
  f("written_bytes", r.written_bytes);
}

constexpr int step_key_columns = 4;

// -- values ---------------------------------------------------------------------------------------

inline sql_value to_sql(const std::string& v) {
  return v;
}
inline sql_value to_sql(bool v) {
  return int64_t{v ? 1 : 0};
}
template <class T, class = std::enable_if_t<std::is_integral_v<T>>>
sql_value to_sql(T v) {
  // uint64 counters stay below 2^63 (bytes, microseconds); the cast keeps their bits anyway.
  return static_cast<int64_t>(v);
}

/// The parameters of an upsert of `r`, in column order.
template <class Row>
std::vector<sql_value> row_values(const Row& r) {
  std::vector<sql_value> out;
  auto add = [&](const char*, const auto& field) { out.push_back(to_sql(field)); };
  if constexpr (std::is_same_v<Row, job_row>)
    visit_job_fields(r, add);
  else
    visit_step_fields(r, add);
  return out;
}

/// Fills `r` from one result row; `reader` has integer(column) and text(column), columns in the
/// order of the select (select_columns).
template <class Row, class Reader>
void read_row(Row& r, const Reader& reader) {
  int column = 0;
  auto take = [&](const char*, auto& field) {
    using T = std::decay_t<decltype(field)>;
    if constexpr (std::is_same_v<T, std::string>)
      field = reader.text(column);
    else if constexpr (std::is_same_v<T, bool>)
      field = reader.integer(column) != 0;
    else
      field = static_cast<T>(reader.integer(column));
    ++column;
  };
  if constexpr (std::is_same_v<Row, job_row>)
    visit_job_fields(r, take);
  else
    visit_step_fields(r, take);
}

// -- statements -----------------------------------------------------------------------------------

/// The statements that take a database from `version` to current_schema_version (none when it
/// is there already), run in one transaction. The caller creates schema_version beforehand.
std::vector<std::string> migration_statements(int version, dialect d);

/// "CREATE TABLE IF NOT EXISTS schema_version (...)".
std::string create_version_table_sql(dialect d);

/// Replaces the one row of schema_version with current_schema_version.
std::vector<std::string> record_version_sql();

/// The error for a database at a schema newer than this build's.
error newer_schema_error(const std::string& where, int found);

/// An upsert of `rows` job rows: parameters row_values(job_row) of each in turn. The rows
/// must have distinct keys (PostgreSQL refuses to update one row twice in a statement).
std::string upsert_job_sql(dialect d, size_t rows = 1);
/// An upsert of `rows` step rows, as upsert_job_sql.
std::string upsert_step_sql(dialect d, size_t rows = 1);
/// Deletes the node names of `rows` jobs: parameters cluster, job_id, submit_time of each.
std::string delete_job_nodes_sql(dialect d, size_t rows = 1);
/// Adds `rows` node names: parameters cluster, job_id, submit_time, node_name of each.
std::string insert_job_node_sql(dialect d, size_t rows = 1);

/// The node names of a job's nodelist for the job_nodes table; none when it is empty, Slurm's
/// "None assigned", or not a hostlist: such a job matches no -N.
std::vector<std::string> node_names_of(const std::string& nodelist);

/// A statement and its parameters.
struct bound_sql {
  std::string text;
  std::vector<sql_value> params;
};

/// The select of the jobs `q` selects, in order (columns as visit_job_fields). Errors: a bad
/// q.nodes item (errc::invalid_hostlist).
expected<bound_sql> select_jobs_sql(const job_query& q, dialect d);

/// The select of those jobs' steps (columns as visit_step_fields), grouped by job in no
/// particular order.
expected<bound_sql> select_steps_sql(const job_query& q, dialect d);

/// Attaches `steps` to their jobs in `jobs` (those of other jobs are dropped) and sorts each
/// job's steps in step_order.
std::vector<job_record> assemble(std::vector<job_row> jobs, std::vector<step_row> steps);

}  // namespace shoal::accounting
