#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace shoal::runtime {

/// RFC 4648's URL-safe base64 without padding, as JSON Web Tokens are written.
std::string base64url(std::string_view bytes);

/// The bytes of `text`, or nothing when it is not URL-safe base64 (padding is tolerated).
std::optional<std::string> from_base64url(std::string_view text);

/// The `sun` (user name) a JSON Web Token's claims name, read without checking its signature:
/// for shoalrestd to compare with X-SLURM-USER-NAME before it passes the token on (the front
/// door verifies it). Nothing when the token's middle part is not JSON naming a user.
std::optional<std::string> jwt_claimed_user(std::string_view token);

}  // namespace shoal::runtime
