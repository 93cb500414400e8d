#pragma once

#include <nlohmann/json.hpp>

namespace shoal::restd {

/// shoalrestd's OpenAPI 3.0 document (GET /openapi/v3): its paths from the endpoint table
/// (endpoints.hpp), its record schemas from the field tables (rest_json.hpp) and the request
/// bodies from the tables that read them (job_submit.hpp, endpoints.hpp), so what it says is
/// what the server does.
nlohmann::json openapi_document();

}  // namespace shoal::restd
