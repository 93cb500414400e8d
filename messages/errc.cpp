#include "messages/errc.hpp"

namespace shoal {

const char* to_string(errc code) {
  switch (code) {
    case errc::invalid_config:
      return "invalid_config";
    case errc::invalid_hostlist:
      return "invalid_hostlist";
    case errc::malformed_message:
      return "malformed_message";
    case errc::unknown_partition:
      return "unknown_partition";
    case errc::unknown_node:
      return "unknown_node";
    case errc::unknown_job:
      return "unknown_job";
    case errc::unsatisfiable:
      return "unsatisfiable";
    case errc::invalid_request:
      return "invalid_request";
    case errc::invalid_time:
      return "invalid_time";
    case errc::permission_denied:
      return "permission_denied";
    case errc::unreachable:
      return "unreachable";
    case errc::system_error:
      return "system_error";
    case errc::incompatible_version:
      return "incompatible_version";
    case errc::not_in_control:
      return "not_in_control";
    case errc::authentication_failed:
      return "authentication_failed";
  }
  return "unknown_error";
}

std::string describe(const error& err) {
  if (!err) return "no error";
  if (!err.text().empty()) return err.text();
  return to_string(err.code());
}

}  // namespace shoal
