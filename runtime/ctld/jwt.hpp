#pragma once

// auth/jwt (AuthAltTypes=auth/jwt): JSON Web Tokens signed with HS256 and carrying Slurm's
// claims, so a token `shoal control token` mints works where `scontrol token`'s does, and the
// other way round with the same key.

#include <cstdint>
#include <string>

#include "messages/errc.hpp"

namespace shoal::runtime {

/// What a verified token says: who it is for and until when.
struct jwt_claims {
  std::string user;     ///< `sun`: the user's name
  int64_t expires = 0;  ///< `exp`: Unix seconds
};

/// A token for `user`, issued at `now` and valid for `lifespan_s` seconds, signed with `key`.
std::string mint_jwt(const std::string& key, const std::string& user, int64_t now,
                     int64_t lifespan_s);

/// The claims of `token` when it is an HS256 JWT signed with `key`, not yet expired at `now`,
/// and names a user. Error (errc::authentication_failed) otherwise, saying which: another
/// algorithm (none included), a bad signature, expired, or not a token at all.
shoal::expected<jwt_claims> verify_jwt(const std::string& key, const std::string& token,
                                       int64_t now);

/// Whether a request's credential is a JWT rather than a MUNGE credential ("MUNGE:...").
bool looks_like_jwt(const std::string& credential);

/// Reads auth/jwt's key from `path`. Errors (errc::system_error) name the path and what to do:
/// missing, unreadable, or shorter than 32 bytes (RFC 7518 asks HS256 for a key at least as
/// long as its hash).
shoal::expected<std::string> read_jwt_key(const std::string& path);

}  // namespace shoal::runtime
