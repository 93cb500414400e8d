#pragma once

// What shoalrestd answers, in slurmrestd's data model of version v0.0.41 (Slurm 24.05): the
// same field names and shapes, so a client written for slurmrestd changes only its base URL.
// Each record's fields are a table (name, type, description, value): the answers are rendered
// from it and the OpenAPI document (openapi.hpp) is generated from it, so the two cannot
// drift. Pure: records in, JSON out.

#include <cstdint>
#include <string>
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

/// v0.0.41's optional number: {"set":true,"infinite":false,"number":N}.
nlohmann::json number(int64_t value);
/// Not set: {"set":false,"infinite":false,"number":0}.
nlohmann::json unset_number();
/// Infinite: {"set":false,"infinite":true,"number":0}.
nlohmann::json infinite_number();

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
  nlohmann::json (*value)(const Record&, const render_context&);
};

/// The tables (rest_json.cpp).
const std::vector<field_of<msg::job_info>>& job_fields();
const std::vector<field_of<msg::node_info>>& node_fields();
const std::vector<field_of<msg::partition_info>>& partition_fields();

/// A record as its table renders it.
template <class Record>
nlohmann::json render(const Record& r, const std::vector<field_of<Record>>& table,
                      const render_context& ctx) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& f : table) out[f.name] = f.value(r, ctx);
  return out;
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

}  // namespace shoal::restd
