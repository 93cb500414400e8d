// auth/jwt's tokens (runtime/ctld/jwt.hpp): what verifies, and every way a token is refused.

#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <cstdlib>
#include <string>

#include "runtime/bootstrap/base64url.hpp"
#include "runtime/ctld/jwt.hpp"

using namespace shoal::runtime;

namespace {

const std::string key(32, 'k');
constexpr int64_t now = 1'800'000'000;

std::string why(const shoal::expected<jwt_claims>& claims) {
  return claims ? std::string{} : claims.error().text();
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// `token` with its middle part replaced by `claims` (the signature left as it was).
std::string with_claims(const std::string& token, const std::string& claims) {
  auto first = token.find('.');
  auto second = token.find('.', first + 1);
  return token.substr(0, first + 1) + base64url(claims) + token.substr(second);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(jwt)

BOOST_AUTO_TEST_CASE(a_minted_token_verifies_with_its_key_until_it_expires) {
  auto token = mint_jwt(key, "alice", now, 600);
  auto claims = verify_jwt(key, token, now + 599);
  BOOST_REQUIRE(claims);
  BOOST_CHECK_EQUAL(claims->user, "alice");
  BOOST_CHECK_EQUAL(claims->expires, now + 600);
  BOOST_CHECK(has(why(verify_jwt(key, token, now + 600)), "expired"));
  BOOST_CHECK_EQUAL(jwt_claimed_user(token).value_or(""), "alice");
}

BOOST_AUTO_TEST_CASE(another_key_or_altered_claims_fail_the_signature) {
  auto token = mint_jwt(key, "alice", now, 600);
  BOOST_CHECK(has(why(verify_jwt(std::string(32, 'x'), token, now)), "bad signature"));
  auto as_root = with_claims(token, R"({"exp":1900000000,"iat":1800000000,"sun":"root"})");
  BOOST_CHECK(has(why(verify_jwt(key, as_root, now)), "bad signature"));
  BOOST_CHECK(has(why(verify_jwt(key, token + "x", now)), "bad signature"));
}

BOOST_AUTO_TEST_CASE(only_hs256_is_accepted_whatever_the_header_says) {
  auto claims = base64url(R"({"exp":1900000000,"iat":1800000000,"sun":"root"})");
  auto none = base64url(R"({"alg":"none","typ":"JWT"})") + "." + claims + ".";
  BOOST_CHECK(has(why(verify_jwt(key, none, now)), "only HS256"));
  auto rs = base64url(R"({"alg":"RS256"})") + "." + claims + "." + base64url("sig");
  BOOST_CHECK(has(why(verify_jwt(key, rs, now)), "only HS256"));
}

BOOST_AUTO_TEST_CASE(what_is_not_a_token_says_so) {
  BOOST_CHECK(has(why(verify_jwt(key, "", now)), "three parts"));
  BOOST_CHECK(has(why(verify_jwt(key, "a.b", now)), "three parts"));
  BOOST_CHECK(has(why(verify_jwt(key, "a.b.c.d", now)), "three parts"));
  BOOST_CHECK(has(why(verify_jwt(key, "a!.b.c", now)), "base64url"));
  BOOST_CHECK(has(why(verify_jwt(key, base64url("[]") + "..", now)), "JSON objects"));
  BOOST_CHECK(!jwt_claimed_user("not a token"));
  BOOST_CHECK(looks_like_jwt("eyJhbGciOi.x.y"));
  BOOST_CHECK(!looks_like_jwt("MUNGE:AwQFAAA"));
  BOOST_CHECK(!looks_like_jwt(""));
}

BOOST_AUTO_TEST_CASE(a_token_without_a_user_is_refused) {
  auto token = mint_jwt(key, "", now, 600);
  BOOST_CHECK(has(why(verify_jwt(key, token, now)), "sun"));
}

BOOST_AUTO_TEST_CASE(the_key_file_must_exist_and_be_long_enough) {
  auto missing = read_jwt_key("/nonexistent/jwt_hs256.key");
  BOOST_REQUIRE(!missing);
  BOOST_CHECK(has(missing.error().text(), "dd if=/dev/random"));
  char path[] = "/tmp/shoal-jwt-key-XXXXXX";
  int fd = ::mkstemp(path);
  BOOST_REQUIRE(fd >= 0);
  BOOST_REQUIRE(::write(fd, "short", 5) == 5);
  ::close(fd);
  auto short_key = read_jwt_key(path);
  ::unlink(path);
  BOOST_REQUIRE(!short_key);
  BOOST_CHECK(has(short_key.error().text(), "at least 32"));
}

BOOST_AUTO_TEST_SUITE_END()
