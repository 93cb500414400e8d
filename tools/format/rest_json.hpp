#pragma once

// What shoalrestd answers, in slurmrestd's data model of version v0.0.41 (Slurm 24.05): the
// same field names and shapes, so a client written for slurmrestd changes only its base URL.
// Each record's fields are a table (name, type, description, value): the answers are rendered
// from it and the OpenAPI document (openapi.hpp) is generated from it, so the two cannot
// drift. Pure: records in, JSON out.

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "messages/types.hpp"

namespace shoal::restd {

/// The data model's version, as it appears in every path (/slurm/v0.0.41/...).
inline constexpr const char* api_version = "v0.0.41";

/// The shapes a field's value takes, as the OpenAPI document describes them.
enum class value_type {
  string,
  integer,
  boolean,
  number_struct,  ///< {"set","infinite","number"}: v0.0.41's optional integer
  string_list,    ///< an array of strings (job_state, flags, ...)
  exit_code,      ///< {"status":[...],"return_code":number_struct,"signal":{...}}
  object,         ///< a nested object described by its own table
};

/// v0.0.41's optional number, {"set","infinite","number"}; converts to JSON where one is needed.
struct number_value {
  bool set = false;
  bool infinite = false;
  int64_t number = 0;
};
void to_json(nlohmann::json& out, const number_value& v);
/// Appends `v` as JSON text.
void write_number(std::string& out, const number_value& v);

/// Set: {"set":true,"infinite":false,"number":N}.
inline number_value number(int64_t value) {
  return {true, false, value};
}
/// Not set: {"set":false,"infinite":false,"number":0}.
inline number_value unset_number() {
  return {};
}
/// Infinite: {"set":false,"infinite":true,"number":0}.
inline number_value infinite_number() {
  return {false, true, 0};
}

/// What a field's function gives: a number struct, written straight to text (a job has twenty,
/// and one as a JSON object is a sorted map of three), or any other JSON value.
struct field_value {
  field_value(number_value n) : kind(number_kind), num(n) {}
  field_value(std::string s) : kind(string_kind), text(std::move(s)) {}
  field_value(const char* s) : kind(string_kind), text(s) {}
  field_value(nlohmann::json v) : value(std::move(v)) {}
  /// Numbers, booleans and lists, as JSON.
  template <class T, class = std::enable_if_t<!std::is_same_v<std::decay_t<T>, number_value> &&
                                              !std::is_same_v<std::decay_t<T>, nlohmann::json> &&
                                              !std::is_convertible_v<T, std::string>>>
  field_value(T&& v) : value(std::forward<T>(v)) {}
  enum { json_kind, number_kind, string_kind } kind = json_kind;
  number_value num;
  std::string text;
  nlohmann::json value;
};

/// "a,b" as {"a","b"}; empty items dropped.
std::vector<std::string> comma_words(const std::string& text);

/// Appends `s` as a JSON string. Invalid UTF-8 becomes U+FFFD rather than an exception: a job's
/// name or comment is whatever bytes its user sent.
void write_string(std::string& out, const std::string& s);
/// Appends `v` as JSON text, invalid UTF-8 replaced as write_string does.
void write_json(std::string& out, const nlohmann::json& v);

/// What a record's rendering may need beyond the record.
struct render_context {
  std::string cluster;                ///< ClusterName
  std::vector<msg::node_info> nodes;  ///< for a partition's CPU total
};

/// One field of a record's table.
template <class Record>
struct field_of {
  const char* name;
  value_type type;
  const char* description;
  field_value (*value)(const Record&, const render_context&);
};

/// The tables (rest_json.cpp).
const std::vector<field_of<msg::job_info>>& job_fields();
const std::vector<field_of<msg::node_info>>& node_fields();
const std::vector<field_of<msg::partition_info>>& partition_fields();
const std::vector<field_of<msg::reservation_info>>& reservation_fields();
/// /slurmdb/: the accounting store's jobs (with their steps), accounts and QOS.
const std::vector<field_of<msg::accounted_job>>& accounted_job_fields();
const std::vector<field_of<msg::acct_account>>& account_fields();
const std::vector<field_of<msg::qos_info>>& qos_fields();

/// A record as its table renders it, appended to `out` as compact JSON text in the table's
/// order (slurmrestd's). Written field by field rather than as one object: a listing renders
/// thousands of records of a hundred fields, and an object's sorted map per record was most of
/// shoalrestd's time (docs/benchmarks.md, "REST API").
template <class Record>
void render_to(std::string& out, const Record& r, const std::vector<field_of<Record>>& table,
               const render_context& ctx) {
  char separator = '{';
  for (const auto& f : table) {
    out += separator;
    separator = ',';
    out += '"';
    out += f.name;  // table names are plain identifiers: nothing to escape
    out += "\":";
    auto v = f.value(r, ctx);
    if (v.kind == field_value::number_kind)
      write_number(out, v.num);
    else if (v.kind == field_value::string_kind)
      write_string(out, v.text);
    else
      write_json(out, v.value);
  }
  out += separator == '{' ? "{}" : "}";
}

/// One error of a response's "errors" list.
struct rest_error {
  std::string description;  ///< what the user is shown
  int error_number = 0;     ///< shoal's errc
  std::string error;        ///< its short name
  std::string source;       ///< the path or field it is about
};

/// The envelope every answer has: meta (plugin, client, Slurm version and cluster), errors and
/// warnings; the caller adds the payload.
nlohmann::json envelope(const std::string& cluster, const std::string& user,
                        const std::vector<rest_error>& errors,
                        const std::vector<std::string>& warnings);

/// Records rendered one at a time into JSON text under `key`, so that a long list (thousands of
/// jobs of a hundred fields each) is never one tree in memory, nor copied into the envelope.
class rendered_list {
 public:
  explicit rendered_list(const char* key = nullptr) : key_(key) {}
  template <class Record>
  void add(const Record& r, const std::vector<field_of<Record>>& table, const render_context& ctx) {
    text_ += text_.empty() ? '[' : ',';
    render_to(text_, r, table, ctx);
  }
  bool empty() const { return text_.empty(); }
  size_t size() const { return text_.size(); }
  const char* key() const { return key_; }
  /// The records so far, "[a,b" (no closing bracket); empties the list.
  std::string take() { return std::move(text_); }

 private:
  const char* key_;
  std::string text_;
};

/// `body` (an object: the envelope and the answer's fields) as compact JSON text with `list`
/// as its last member under the list's key (none without a key), and a newline.
std::string answer_text(const nlohmann::json& body, rendered_list list);

}  // namespace shoal::restd
