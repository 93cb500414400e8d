#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include "messages/errc.hpp"

namespace shoal::runtime {

/// Who a MUNGE credential proves its maker to be, and what it carries.
struct munge_identity {
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string payload;
};

/// A credential from the munged listening on `socket`, carrying `payload` (at most about 1 MB;
/// callers pass a digest). Blocks for one round trip to munged. Error: errc::system_error naming
/// the socket and MUNGE's reason, with the fix (start munged, or AuthType=auth/none).
/// With `only_for`, munged decodes it for that uid alone (MUNGE's uid restriction): the payload,
/// enciphered with the cluster's MUNGE key, is then a secret between this process and that uid.
shoal::expected<std::string> make_munge_credential(const std::string& socket,
                                                   std::string_view payload,
                                                   std::optional<uint32_t> only_for = {});

/// Decodes `credential` with the munged on `socket`: who made it and its payload. Blocks for one
/// round trip to munged (callers keep it off actor threads that serve others). munged itself
/// refuses a credential it decoded before (replayed), an expired one, and one made with another
/// key. Error: errc::authentication_failed "Protocol authentication error (MUNGE: <reason>)",
/// or errc::system_error when munged cannot be reached.
shoal::expected<munge_identity> decode_munge_credential(const std::string& socket,
                                                        const std::string& credential);

}  // namespace shoal::runtime
