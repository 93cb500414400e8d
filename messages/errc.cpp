#include "messages/errc.hpp"

#include <caf/message.hpp>
#include <caf/sec.hpp>

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

caf::error make_error(errc code) {
  return caf::error{static_cast<uint8_t>(code), error_category};
}

caf::error make_error(errc code, std::string text) {
  return caf::error{static_cast<uint8_t>(code), error_category, caf::make_message(std::move(text))};
}

std::string describe(const caf::error& err) {
  if (!err) return "no error";
  const auto& ctx = err.context();
  if (ctx.size() == 1 && ctx.match_element<std::string>(0)) return ctx.get_as<std::string>(0);
  if (err.category() == error_category) return to_string(static_cast<errc>(err.code()));
  if (err.category() == caf::atom("system"))
    return caf::to_string(static_cast<caf::sec>(err.code()));
  return caf::to_string(err);
}

}  // namespace shoal
