#include "accounting/assoc_schema.hpp"

namespace shoal::accounting {

namespace {

template <class Row>
std::vector<std::pair<std::string, bool>> assoc_columns() {
  std::vector<std::pair<std::string, bool>> out;  // name, is text
  Row r;
  visit_assoc_fields(r, [&](const char* name, const auto& field) {
    using T = std::decay_t<decltype(field)>;
    out.emplace_back(name, !std::is_integral_v<T>);
  });
  return out;
}

template <class Row>
std::string create_sql(dialect d) {
  auto columns = assoc_columns<Row>();
  std::string sql = std::string{"CREATE TABLE IF NOT EXISTS "} + assoc_table<Row>() + " (";
  for (auto& [name, text] : columns)
    sql += name + (text ? " TEXT" : d == dialect::sqlite ? " INTEGER" : " BIGINT") + " NOT NULL, ";
  sql += "PRIMARY KEY (";
  for (int i = 0; i < assoc_key_columns<Row>(); ++i)
    sql += (i ? ", " : "") + columns[static_cast<size_t>(i)].first;
  return sql + "))";
}

template <class Row>
std::string names_of() {
  std::string out;
  for (auto& column : assoc_columns<Row>()) out += (out.empty() ? "" : ", ") + column.first;
  return out;
}

}  // namespace

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (auto& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

std::vector<std::string> split_names(const std::string& text) {
  std::vector<std::string> out;
  size_t from = 0;
  while (from <= text.size() && !text.empty()) {
    auto comma = text.find(',', from);
    if (comma == std::string::npos) comma = text.size();
    if (comma > from) out.push_back(text.substr(from, comma - from));
    from = comma + 1;
  }
  return out;
}

std::vector<std::string> create_assoc_tables_sql(dialect d) {
  return {create_sql<msg::acct_cluster>(d), create_sql<msg::acct_account>(d),
          create_sql<msg::acct_user>(d), create_sql<msg::association>(d),
          create_sql<msg::qos_info>(d)};
}

std::vector<std::string> add_qos_preempt_columns_sql() {
  return {"ALTER TABLE acct_qos ADD COLUMN preempt TEXT NOT NULL DEFAULT ''",
          "ALTER TABLE acct_qos ADD COLUMN preempt_mode TEXT NOT NULL DEFAULT ''"};
}

template <class Row>
std::string assoc_insert_sql(dialect d) {
  auto columns = assoc_columns<Row>();
  std::string values;
  for (size_t i = 0; i < columns.size(); ++i)
    values += (i ? ", " : "") + ((d == dialect::sqlite ? "?" : "$") + std::to_string(i + 1));
  return std::string{"INSERT INTO "} + assoc_table<Row>() + " (" + names_of<Row>() + ") VALUES (" +
         values + ")";
}

template <class Row>
std::string assoc_select_sql() {
  auto columns = assoc_columns<Row>();
  std::string key;
  for (int i = 0; i < assoc_key_columns<Row>(); ++i)
    key += (i ? ", " : "") + columns[static_cast<size_t>(i)].first;
  return "SELECT " + names_of<Row>() + " FROM " + assoc_table<Row>() + " ORDER BY " + key;
}

#define SHOAL_ASSOC_TABLE(T)                           \
  template std::string assoc_insert_sql<T>(dialect d); \
  template std::string assoc_select_sql<T>();
SHOAL_ASSOC_TABLE(msg::acct_cluster)
SHOAL_ASSOC_TABLE(msg::acct_account)
SHOAL_ASSOC_TABLE(msg::acct_user)
SHOAL_ASSOC_TABLE(msg::association)
SHOAL_ASSOC_TABLE(msg::qos_info)
#undef SHOAL_ASSOC_TABLE

}  // namespace shoal::accounting
