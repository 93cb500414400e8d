#pragma once

#include <string>
#include <string_view>

namespace shoal::runtime {

/// The SHA-256 digest of `data` (FIPS 180-4), as 64 lower-case hex digits. What a MUNGE
/// credential carries to bind itself to one request (request_auth.hpp): MUNGE caps a payload at
/// about 1 MB, a request may be larger, and no crypto library is linked for this one function.
std::string sha256_hex(std::string_view data);

}  // namespace shoal::runtime
