#pragma once

// The tables of sacctmgr's objects (schema version 2; 3 added acct_qos's preempt columns), written
// once for both dialects. The field
// lists below are the only place that names a column: the tables, the inserts, the selects and
// the reading of a result all follow them. The objects are msg::association_data's
// (messages/shoal.capnp): the store keeps them as the wire carries them.
//
//   acct_clusters      one row per cluster, key name
//   acct_accounts      one row per account, key name
//   acct_users         one row per user, key name
//   acct_associations  one row per association, key (cluster, account, user, partition)
//   acct_qos           one row per QOS, key name

#include <cstdint>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "accounting/schema.hpp"
#include "messages/types.hpp"

namespace shoal::accounting {

/// Calls f(column_name, field) for each field of one of sacctmgr's objects, key first.
template <class Row, class F>
void visit_assoc_fields(Row& r, F&& f) {
  using T = std::remove_const_t<Row>;
  if constexpr (std::is_same_v<T, msg::acct_cluster>) {
    f("name", r.name);
    f("control_host", r.control_host);
    f("control_port", r.control_port);
  } else if constexpr (std::is_same_v<T, msg::acct_account>) {
    f("name", r.name);
    f("description", r.description);
    f("organization", r.organization);
  } else if constexpr (std::is_same_v<T, msg::acct_user>) {
    f("name", r.name);
    f("default_account", r.default_account);
    f("admin_level", r.admin_level);
  } else if constexpr (std::is_same_v<T, msg::association>) {
    f("cluster", r.cluster);
    f("account", r.account);
    f("user_name", r.user);
    f("partition_name", r.partition);
    f("parent", r.parent);
    f("shares", r.shares);
    f("priority", r.priority);
    f("grp_jobs", r.grp_jobs);
    f("grp_submit", r.grp_submit);
    f("grp_tres", r.grp_tres);
    f("grp_wall_min", r.grp_wall_min);
    f("max_jobs", r.max_jobs);
    f("max_submit", r.max_submit);
    f("max_tres", r.max_tres);
    f("max_wall_min", r.max_wall_min);
    f("qos", r.qos);
    f("default_qos", r.default_qos);
  } else {
    static_assert(std::is_same_v<T, msg::qos_info>);
    f("name", r.name);
    f("description", r.description);
    f("priority", r.priority);
    f("flags", r.flags);
    f("usage_factor", r.usage_factor);
    f("grace_time_s", r.grace_time_s);
    f("grp_jobs", r.grp_jobs);
    f("grp_submit", r.grp_submit);
    f("grp_tres", r.grp_tres);
    f("grp_wall_min", r.grp_wall_min);
    f("max_tres", r.max_tres);
    f("max_wall_min", r.max_wall_min);
    f("max_tres_per_user", r.max_tres_per_user);
    f("max_jobs_per_user", r.max_jobs_per_user);
    f("max_submit_per_user", r.max_submit_per_user);
    f("max_tres_per_account", r.max_tres_per_account);
    f("max_jobs_per_account", r.max_jobs_per_account);
    f("max_submit_per_account", r.max_submit_per_account);
    f("min_tres", r.min_tres);
    f("preempt", r.preempt);  // schema version 3
    f("preempt_mode", r.preempt_mode);
  }
}

/// The table of each object, and how many of its first columns are the key.
template <class Row>
constexpr const char* assoc_table() {
  if constexpr (std::is_same_v<Row, msg::acct_cluster>) return "acct_clusters";
  if constexpr (std::is_same_v<Row, msg::acct_account>) return "acct_accounts";
  if constexpr (std::is_same_v<Row, msg::acct_user>) return "acct_users";
  if constexpr (std::is_same_v<Row, msg::association>) return "acct_associations";
  if constexpr (std::is_same_v<Row, msg::qos_info>) return "acct_qos";
}
template <class Row>
constexpr int assoc_key_columns() {
  return std::is_same_v<Row, msg::association> ? 4 : 1;
}

/// Calls f(rows) for each table's rows of `data`, in the order above.
template <class Data, class F>
void for_each_assoc_table(Data& data, F&& f) {
  f(data.clusters);
  f(data.accounts);
  f(data.users);
  f(data.associations);
  f(data.qos);
}

/// A list of names as one column: comma-separated (names hold no commas).
std::string join_names(const std::vector<std::string>& names);
std::vector<std::string> split_names(const std::string& text);

/// The parameters of an insert of `r`, in column order: texts as they are, lists joined,
/// doubles as text, integers as integers.
template <class Row>
std::vector<sql_value> assoc_values(const Row& r) {
  std::vector<sql_value> out;
  visit_assoc_fields(r, [&](const char*, const auto& field) {
    using T = std::decay_t<decltype(field)>;
    if constexpr (std::is_same_v<T, std::string>)
      out.emplace_back(field);
    else if constexpr (std::is_same_v<T, std::vector<std::string>>)
      out.emplace_back(join_names(field));
    else if constexpr (std::is_floating_point_v<T>)
      out.emplace_back(std::to_string(field));
    else
      out.emplace_back(static_cast<int64_t>(field));
  });
  return out;
}

/// Fills `r` from one result row; `reader` has integer(column) and text(column), columns in the
/// order of assoc_select_sql.
template <class Row, class Reader>
void read_assoc_row(Row& r, const Reader& reader) {
  int column = 0;
  visit_assoc_fields(r, [&](const char*, auto& field) {
    using T = std::decay_t<decltype(field)>;
    if constexpr (std::is_same_v<T, std::string>)
      field = reader.text(column);
    else if constexpr (std::is_same_v<T, std::vector<std::string>>)
      field = split_names(reader.text(column));
    else if constexpr (std::is_floating_point_v<T>)
      field = std::strtod(reader.text(column).c_str(), nullptr);
    else
      field = static_cast<T>(reader.integer(column));
    ++column;
  });
}

/// CREATE TABLE statements of the five tables (migration to version 2).
std::vector<std::string> create_assoc_tables_sql(dialect d);
/// The columns version 3 added to tables made at version 2 (ALTER TABLE ... ADD COLUMN).
std::vector<std::string> add_qos_preempt_columns_sql();

/// "DELETE FROM table", "INSERT INTO table (...) VALUES (...)" and "SELECT ... FROM table ORDER
/// BY key" of each object's table.
template <class Row>
std::string assoc_delete_sql() {
  return std::string{"DELETE FROM "} + assoc_table<Row>();
}
template <class Row>
std::string assoc_insert_sql(dialect d);
template <class Row>
std::string assoc_select_sql();

}  // namespace shoal::accounting
