#include "tools/restd/openapi.hpp"

#include <algorithm>
#include <cctype>
#include <string>

#include "tools/restd/endpoints.hpp"
#include "tools/restd/job_submit.hpp"
#include "tools/format/rest_json.hpp"

namespace shoal::restd {

namespace {

using nlohmann::json;

const std::string prefix = std::string(api_version) + "_";

json schema_ref(const std::string& name) {
  return {{"$ref", "#/components/schemas/" + name}};
}

json schema_of(value_type type) {
  switch (type) {
    case value_type::string:
      return {{"type", "string"}};
    case value_type::integer:
      return {{"type", "integer"}};
    case value_type::boolean:
      return {{"type", "boolean"}};
    case value_type::number_struct:
      return schema_ref(prefix + "uint64_no_val_struct");
    case value_type::string_list:
      return {{"type", "array"}, {"items", {{"type", "string"}}}};
    case value_type::exit_code:
      return schema_ref(prefix + "process_exit_code_verbose");
    case value_type::object:
      return {{"type", "object"}};
  }
  return json::object();
}

template <class Record>
json record_schema(const std::vector<field_of<Record>>& table) {
  json props = json::object();
  for (const auto& f : table) {
    auto s = schema_of(f.type);
    if (s.contains("$ref"))
      s = {{"allOf", json::array({s})}, {"description", f.description}};
    else
      s["description"] = f.description;
    props[f.name] = std::move(s);
  }
  return {{"type", "object"}, {"properties", props}};
}

/// A response: the envelope's fields plus `payload`'s.
json response(json payload, json required = json::array()) {
  json props = {
      {"meta", schema_ref(prefix + "openapi_meta")},
      {"errors", {{"type", "array"}, {"items", schema_ref(prefix + "openapi_error")}}},
      {"warnings", {{"type", "array"}, {"items", schema_ref(prefix + "openapi_warning")}}}};
  for (auto it = payload.begin(); it != payload.end(); ++it) props[it.key()] = *it;
  required.push_back("errors");
  return {{"type", "object"}, {"properties", props}, {"required", required}};
}

json array_of(const std::string& schema) {
  return {{"type", "array"}, {"items", schema_ref(schema)}};
}

json schemas() {
  json s = json::object();
  s[prefix + "uint64_no_val_struct"] = {
      {"type", "object"},
      {"properties",
       {{"set", {{"type", "boolean"}, {"description", "True if number has been set"}}},
        {"infinite",
         {{"type", "boolean"}, {"description", "True if number has been set to infinite"}}},
        {"number",
         {{"type", "integer"},
          {"description", "If set is True the number will be set with value"}}}}}};
  s[prefix + "process_exit_code_verbose"] = {
      {"type", "object"},
      {"properties",
       {{"status",
         {{"type", "array"},
          {"items",
           {{"type", "string"},
            {"enum", json::array({"INVALID", "PENDING", "SUCCESS", "ERROR", "SIGNALED",
                                  "CORE_DUMPED"})}}}}},
        {"return_code", schema_ref(prefix + "uint64_no_val_struct")},
        {"signal",
         {{"type", "object"},
          {"properties",
           {{"id", schema_ref(prefix + "uint64_no_val_struct")},
            {"name", {{"type", "string"}}}}}}}}}};
  s[prefix + "openapi_error"] = {{"type", "object"},
                                 {"properties",
                                  {{"description", {{"type", "string"}}},
                                   {"error_number", {{"type", "integer"}}},
                                   {"error", {{"type", "string"}}},
                                   {"source", {{"type", "string"}}}}}};
  s[prefix + "openapi_warning"] = {
      {"type", "object"},
      {"properties", {{"description", {{"type", "string"}}}, {"source", {{"type", "string"}}}}}};
  s[prefix + "openapi_meta"] = {{"type", "object"},
                                {"properties",
                                 {{"plugin", {{"type", "object"}}},
                                  {"client", {{"type", "object"}}},
                                  {"command", {{"type", "array"}, {"items", {{"type", "string"}}}}},
                                  {"slurm", {{"type", "object"}}}}}};
  s[prefix + "job_info"] = record_schema(job_fields());
  s[prefix + "node"] = record_schema(node_fields());
  s[prefix + "partition_info"] = record_schema(partition_fields());
  s[prefix + "ping"] = {{"type", "object"},
                        {"properties",
                         {{"hostname", {{"type", "string"}}},
                          {"pinged", {{"type", "string"}}},
                          {"responding", {{"type", "boolean"}}},
                          {"latency", {{"type", "integer"}}},
                          {"mode", {{"type", "string"}}},
                          {"primary", {{"type", "boolean"}}}}}};
  auto stamp = schema_ref(prefix + "uint64_no_val_struct");
  s[prefix + "openapi_resp"] = response(json::object());
  s[prefix + "openapi_ping_array_resp"] =
      response({{"pings", array_of(prefix + "ping")}}, {"pings"});
  s[prefix + "openapi_job_info_resp"] = response(
      {{"jobs", array_of(prefix + "job_info")}, {"last_backfill", stamp}, {"last_update", stamp}},
      {"jobs"});
  s[prefix + "openapi_nodes_resp"] =
      response({{"nodes", array_of(prefix + "node")}, {"last_update", stamp}}, {"nodes"});
  s[prefix + "openapi_partition_resp"] =
      response({{"partitions", array_of(prefix + "partition_info")}, {"last_update", stamp}},
               {"partitions"});
  s[prefix + "openapi_job_submit_response"] =
      response({{"job_id", {{"type", "integer"}}},
                {"step_id", {{"type", "string"}}},
                {"job_submit_user_msg", {{"type", "string"}}},
                {"result", {{"type", "object"}}}},
               {"job_id"});
  s[prefix + "openapi_job_post_response"] =
      response({{"job_id", {{"type", "integer"}}},
                {"step_id", {{"type", "string"}}},
                {"job_submit_user_msg", {{"type", "string"}}}});
  s[prefix + "openapi_kill_job_resp"] =
      response({{"status", {{"type", "array"}, {"items", {{"type", "object"}}}}}});
  s[prefix + "reservation_info"] = record_schema(reservation_fields());
  s[prefix + "job"] = record_schema(accounted_job_fields());
  s[prefix + "account"] = record_schema(account_fields());
  s[prefix + "qos"] = record_schema(qos_fields());
  s[prefix + "openapi_reservation_resp"] =
      response({{"reservations", array_of(prefix + "reservation_info")}, {"last_update", stamp}},
               {"reservations"});
  s[prefix + "openapi_slurmdbd_jobs_resp"] =
      response({{"jobs", array_of(prefix + "job")}}, {"jobs"});
  s[prefix + "openapi_accounts_resp"] =
      response({{"accounts", array_of(prefix + "account")}}, {"accounts"});
  s[prefix + "openapi_slurmdbd_qos_resp"] = response({{"qos", array_of(prefix + "qos")}}, {"qos"});
  json count = {{"type", "integer"}};
  json rpc_props = {{"count", count}, {"total_time", count}, {"average_time", stamp}};
  auto rpc_type = rpc_props;
  rpc_type["message_type"] = {{"type", "string"}};
  auto rpc_user = rpc_props;
  rpc_user["user"] = {{"type", "string"}};
  json stat_props = {
      {"req_time", stamp},
      {"req_time_start", stamp},
      {"job_states_ts", stamp},
      {"rpcs_by_message_type",
       {{"type", "array"}, {"items", {{"type", "object"}, {"properties", rpc_type}}}}},
      {"rpcs_by_user",
       {{"type", "array"}, {"items", {{"type", "object"}, {"properties", rpc_user}}}}}};
  for (const char* name :
       {"parts_packed", "server_thread_count", "schedule_cycle_max", "schedule_cycle_last",
        "schedule_cycle_sum", "schedule_cycle_total", "schedule_cycle_mean",
        "schedule_queue_length", "jobs_submitted", "jobs_started", "jobs_completed",
        "jobs_canceled", "jobs_failed", "jobs_pending", "jobs_running"})
    stat_props[name] = count;
  s[prefix + "stats_msg"] = {{"type", "object"}, {"properties", stat_props}};
  s[prefix + "openapi_diag_resp"] =
      response({{"statistics", schema_ref(prefix + "stats_msg")}}, {"statistics"});
  s[prefix + "job_submit_req"] = job_submit_schema();
  s[prefix + "job_update_req"] = job_update_schema();
  s[prefix + "update_node_msg"] = node_update_schema();
  return s;
}

/// "/job/{job_id}"'s parameters.
json path_parameters(const std::string& path) {
  json out = json::array();
  for (auto open = path.find('{'); open != std::string::npos; open = path.find('{', open + 1)) {
    auto name = path.substr(open + 1, path.find('}', open) - open - 1);
    out.push_back(
        {{"name", name}, {"in", "path"}, {"required", true}, {"schema", {{"type", "string"}}}});
  }
  return out;
}

std::string operation_id(const endpoint& e) {
  std::string id = e.method;
  std::transform(id.begin(), id.end(), id.begin(), [](unsigned char c) { return std::tolower(c); });
  if (std::string(e.api) != "slurm") id += std::string("_") + e.api;
  for (char c : std::string(e.path)) id += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return id;
}

}  // namespace

json openapi_document() {
  json paths = json::object();
  for (const auto& e : endpoints()) {
    std::string method = e.method;
    std::transform(method.begin(), method.end(), method.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    json op = {{"summary", e.summary},
               {"operationId", operation_id(e)},
               {"tags", json::array({e.api})},
               {"responses",
                {{"200",
                  {{"description", "done"},
                   {"content", {{"application/json", {{"schema", schema_ref(e.response)}}}}}}},
                 {"default",
                  {{"description", "refused: the errors say why"},
                   {"content",
                    {{"application/json", {{"schema", schema_ref(prefix + "openapi_resp")}}}}}}}}}};
    auto params = path_parameters(e.path);
    if (std::string(e.api) == "slurmdb" && std::string(e.path) == "/jobs")
      for (const char* name : {"users", "account", "partition"})
        params.push_back({{"name", name},
                          {"in", "query"},
                          {"required", false},
                          {"schema", {{"type", "string"}}},
                          {"description", "comma-separated list, as sacct's -u, -A, -r"}});
    if (method == "delete")
      params.push_back(
          {{"name", "signal"},
           {"in", "query"},
           {"required", false},
           {"schema", {{"type", "string"}}},
           {"description", "the signal for the job's tasks (SIGUSR1, USR1, 10); none cancels"}});
    if (!params.empty()) op["parameters"] = params;
    if (e.request != nullptr)
      op["requestBody"] = {
          {"required", true},
          {"content", {{"application/json", {{"schema", schema_ref(e.request)}}}}}};
    paths[served_path(e)][method] = std::move(op);
  }
  return {{"openapi", "3.0.3"},
          {"info",
           {{"title", "Slurm REST API (shoalrestd)"},
            {"version", api_version},
            {"description",
             "slurmrestd's data model " + std::string(api_version) +
                 " as shoal serves it; every request needs X-SLURM-USER-TOKEN (docs/rest.md)"}}},
          {"paths", paths},
          {"components",
           {{"schemas", schemas()},
            {"securitySchemes",
             {{"user", {{"type", "apiKey"}, {"in", "header"}, {"name", "X-SLURM-USER-NAME"}}},
              {"token", {{"type", "apiKey"}, {"in", "header"}, {"name", "X-SLURM-USER-TOKEN"}}}}}}},
          {"security", json::array({{{"token", json::array()}},
                                    {{"user", json::array()}, {"token", json::array()}}})}};
}

}  // namespace shoal::restd
