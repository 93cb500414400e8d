#include "runtime/bootstrap/base64url.hpp"

#include <cstdint>

#include <nlohmann/json.hpp>

namespace shoal::runtime {

namespace {

constexpr std::string_view alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

}  // namespace

std::string base64url(std::string_view bytes) {
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (unsigned char c : bytes) {
    bits = (bits << 8) | c;
    count += 8;
    while (count >= 6) {
      count -= 6;
      out += alphabet[(bits >> count) & 0x3f];
    }
  }
  if (count > 0) out += alphabet[(bits << (6 - count)) & 0x3f];
  return out;
}

std::optional<std::string> from_base64url(std::string_view text) {
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    auto at = alphabet.find(c);
    if (at == std::string_view::npos) return std::nullopt;
    bits = (bits << 6) | static_cast<uint32_t>(at);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out += static_cast<char>((bits >> count) & 0xff);
    }
  }
  return out;
}

std::optional<std::string> jwt_claimed_user(std::string_view token) {
  auto first = token.find('.');
  if (first == std::string_view::npos) return std::nullopt;
  auto second = token.find('.', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  auto claims_text = from_base64url(token.substr(first + 1, second - first - 1));
  if (!claims_text) return std::nullopt;
  auto claims = nlohmann::json::parse(*claims_text, nullptr, false);
  if (!claims.is_object()) return std::nullopt;
  auto sun = claims.find("sun");
  if (sun == claims.end() || !sun->is_string()) return std::nullopt;
  return sun->get<std::string>();
}

}  // namespace shoal::runtime
