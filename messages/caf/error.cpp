#include "messages/caf/error.hpp"

#include <caf/message.hpp>
#include <caf/sec.hpp>

namespace shoal {

caf::error make_error(errc code) {
  return caf::error{static_cast<uint8_t>(code), error_category};
}

caf::error make_error(errc code, std::string text) {
  return caf::error{static_cast<uint8_t>(code), error_category, caf::make_message(std::move(text))};
}

caf::error to_caf(const error& err) {
  if (!err) return caf::none;
  if (err.text().empty()) return make_error(err.code());
  return make_error(err.code(), err.text());
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
