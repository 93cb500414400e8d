#include "config/memory_size.hpp"

#include <cctype>
#include <string>

#include "messages/errc.hpp"

namespace shoal::config {

shoal::expected<uint64_t> parse_memory_mb(std::string_view text, std::string_view option) {
  auto bad = [&] {
    return shoal::error(errc::invalid_request,
                        "invalid memory size '" + std::string{text} + "' for " +
                            std::string{option} +
                            " (use a number of MB, or a suffix K, M, G or T)");
  };
  size_t digits = 0;
  uint64_t value = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) {
    if (value > (UINT64_MAX - 9) / 10) return bad();
    value = value * 10 + static_cast<uint64_t>(text[digits] - '0');
    ++digits;
  }
  if (digits == 0 || text.size() - digits > 1) return bad();
  char unit = digits < text.size() ? static_cast<char>(std::toupper(text[digits])) : 'M';
  uint64_t factor_kb = 0;
  switch (unit) {
    case 'K':
      return (value + 1023) / 1024;
    case 'M':
      factor_kb = 1;
      break;
    case 'G':
      factor_kb = 1024;
      break;
    case 'T':
      factor_kb = 1024 * 1024;
      break;
    default:
      return bad();
  }
  if (value > UINT64_MAX / factor_kb) return bad();
  return value * factor_kb;
}

}  // namespace shoal::config
