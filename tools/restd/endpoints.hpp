#pragma once

// shoalrestd's endpoints as one table: the server registers it (rest_server.cpp) and the
// OpenAPI document describes it (openapi.cpp), so the two cannot drift.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.hpp"
#include "tools/format/rest_json.hpp"

namespace httplib {
struct Request;
struct Response;
}  // namespace httplib

namespace shoal::restd {

/// Who a request comes from, as its headers say: the token the front door will check, and the
/// user it names.
struct caller {
  std::string token;
  std::string user;
};

/// One request being answered: its caller, its errors and warnings, and the status to send.
struct exchange {
  const httplib::Request& in;
  httplib::Response& out;
  const config::cluster_config& cfg;
  caller who;
  std::vector<rest_error> errors;
  std::vector<std::string> warnings;
};

/// One endpoint. `path` is below /slurm/v0.0.41 in OpenAPI's form ("/job/{job_id}"); each
/// `{name}` matches one path segment, handed to the handler as in.matches[1].
struct endpoint {
  const char* method;  ///< GET, POST or DELETE
  const char* path;
  const char* summary;
  const char* response;  ///< the OpenAPI schema of its answer (components/schemas)
  const char* request;   ///< the schema of its JSON body; nullptr: none
  void (*handle)(exchange&);
  const char* api = "slurm";  ///< the path's first part: slurm, or slurmdb (the accounting store)
};

/// The path an endpoint is served at: /API/v0.0.41/PATH.
std::string served_path(const endpoint& e);

const std::vector<endpoint>& endpoints();

/// Sends the envelope (meta, errors, warnings) with `payload`'s fields, `list` when it has a key,
/// and `status`. Compact JSON: a client parses it, and a listing is a third the size pretty.
void send(exchange& x, int status, nlohmann::json payload, rendered_list list = rendered_list{});

/// Sends a refusal: its HTTP status from the error's code (401 authentication, 403 permission,
/// 404 unknown job/node/partition, 400 a bad request, 503 no controller, 500 the rest), or
/// `status` when the caller knows better (404 for a name no listed record has).
void refuse(exchange& x, const shoal::error& err, const std::string& source, int status = 0);

/// The caller from X-SLURM-USER-TOKEN and X-SLURM-USER-NAME, or false with a 401 sent: a token
/// is needed, and a name, when given, must be the token's.
bool authenticate(exchange& x);

/// The JSON body schema `POST /job/{job_id}` reads (its fields and the words they become).
nlohmann::json job_update_schema();
/// The JSON body schema `POST /node/{node_name}` reads.
nlohmann::json node_update_schema();

}  // namespace shoal::restd
