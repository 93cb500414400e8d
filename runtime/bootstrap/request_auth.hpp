#pragma once

#include <cstdint>

#include "config/config.hpp"
#include "messages/errc.hpp"
#include "messages/types.hpp"

namespace shoal::runtime {

/// Who sent a request, as far as the receiver can tell: proven by MUNGE under auth/munge, as
/// the request says under auth/none.
struct request_sender {
  uint32_t uid = 0;
  uint32_t gid = 0;
};

/// Signs `req` for the front door. Under auth/munge its credential becomes a MUNGE credential
/// whose payload is the digest of the request's encoding (credential empty), so the credential
/// vouches for this request alone and a request altered on the way fails; under auth/none the
/// credential stays empty. Blocks for one round trip to munged; sign again for every attempt
/// (munged refuses a credential decoded twice). Error: errc::system_error (munged unreachable).
shoal::error sign_request(const config::auth_settings& auth, msg::client_request& req);

/// Checks `req`'s credential and empties it. Under auth/munge: the uid and gid munged proves,
/// provided the credential is genuine, fresh, seen for the first time and made for exactly this
/// request; errc::authentication_failed otherwise. Under auth/none: the uid the request names
/// (and its submission's gid). Blocks for one round trip to munged.
shoal::expected<request_sender> verify_request(const config::auth_settings& auth,
                                               msg::client_request& req);

}  // namespace shoal::runtime
