#include "runtime/ctld/jwt.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>
#include <fstream>
#include <iterator>
#include <string_view>

#include <nlohmann/json.hpp>

#include "runtime/bootstrap/base64url.hpp"

namespace shoal::runtime {

namespace {

std::string hmac_sha256(const std::string& key, std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest.data(), &length);
  return std::string(reinterpret_cast<const char*>(digest.data()), length);
}

shoal::error refused(const std::string& why) {
  return shoal::error(errc::authentication_failed, "Invalid authentication token: " + why);
}

}  // namespace

std::string mint_jwt(const std::string& key, const std::string& user, int64_t now,
                     int64_t lifespan_s) {
  auto header = base64url(R"({"alg":"HS256","typ":"JWT"})");
  nlohmann::json claims = {{"exp", now + lifespan_s}, {"iat", now}, {"sun", user}};
  auto signed_part = header + "." + base64url(claims.dump());
  return signed_part + "." + base64url(hmac_sha256(key, signed_part));
}

shoal::expected<jwt_claims> verify_jwt(const std::string& key, const std::string& token,
                                       int64_t now) {
  auto first = token.find('.');
  auto second = first == std::string::npos ? first : token.find('.', first + 1);
  if (second == std::string::npos || token.find('.', second + 1) != std::string::npos)
    return refused("not a JSON Web Token (three parts separated by dots)");
  auto header_text = from_base64url(std::string_view(token).substr(0, first));
  auto claims_text = from_base64url(std::string_view(token).substr(first + 1, second - first - 1));
  auto signature = from_base64url(std::string_view(token).substr(second + 1));
  if (!header_text || !claims_text || !signature) return refused("not base64url");
  auto header = nlohmann::json::parse(*header_text, nullptr, false);
  auto claims = nlohmann::json::parse(*claims_text, nullptr, false);
  if (!header.is_object() || !claims.is_object()) return refused("its parts are not JSON objects");
  // The algorithm is fixed here, never taken from the token: "none" or RS256 with the HS256
  // key as a public key are the classic forgeries.
  auto alg = header.find("alg");
  if (alg == header.end() || !alg->is_string() || *alg != "HS256")
    return refused("only HS256 tokens are accepted");
  auto expected_signature = hmac_sha256(key, std::string_view(token).substr(0, second));
  if (signature->size() != expected_signature.size() ||
      CRYPTO_memcmp(signature->data(), expected_signature.data(), signature->size()) != 0)
    return refused("bad signature");
  auto exp = claims.find("exp");
  auto sun = claims.find("sun");
  if (exp == claims.end() || !exp->is_number_integer()) return refused("no exp claim");
  if (sun == claims.end() || !sun->is_string() || sun->get<std::string>().empty())
    return refused("no sun (user name) claim");
  jwt_claims out{sun->get<std::string>(), exp->get<int64_t>()};
  if (out.expires <= now) return refused("expired");
  return out;
}

bool looks_like_jwt(const std::string& credential) {
  return !credential.empty() && credential.rfind("MUNGE:", 0) != 0;
}

shoal::expected<std::string> read_jwt_key(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return shoal::error(errc::system_error,
                        "cannot read the auth/jwt key " + path +
                            " (AuthAltParameters=jwt_key=PATH): make one with `dd if=/dev/random "
                            "of=" +
                            path + " bs=32 count=1`, readable only by SlurmUser");
  std::string key((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (key.size() < 32)
    return shoal::error(errc::system_error, "the auth/jwt key " + path + " has " +
                                                std::to_string(key.size()) +
                                                " bytes; HS256 needs at least 32");
  return key;
}

}  // namespace shoal::runtime
