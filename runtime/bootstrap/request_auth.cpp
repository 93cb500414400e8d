#include "runtime/bootstrap/request_auth.hpp"

#include <string>

#include "messages/codec.hpp"
#include "messages/errc.hpp"
#include "runtime/bootstrap/munge.hpp"
#include "runtime/bootstrap/sha256.hpp"

namespace shoal::runtime {

namespace {

/// What a client request's credential carries: its purpose and the digest of the request
/// without its credential.
std::string request_payload(const msg::client_request& unsigned_req) {
  auto bytes = msg::encode(unsigned_req);
  return "shoal-client-request sha256=" + sha256_hex({bytes.data(), bytes.size()});
}

}  // namespace

shoal::error sign_request(const config::auth_settings& auth, msg::client_request& req) {
  req.credential.clear();
  if (!auth.munge) return {};
  auto cred = make_munge_credential(auth.munge_socket, request_payload(req));
  if (!cred) return std::move(cred.error());
  req.credential = std::move(*cred);
  return {};
}

shoal::expected<request_sender> verify_request(const config::auth_settings& auth,
                                               msg::client_request& req) {
  auto credential = std::move(req.credential);
  req.credential.clear();
  if (!auth.munge) return request_sender{req.uid, req.submission.gid};
  auto who = decode_munge_credential(auth.munge_socket, credential);
  if (!who) return std::move(who.error());
  if (who->payload != request_payload(req))
    return shoal::error(errc::authentication_failed,
                        "Protocol authentication error (the credential was made for another "
                        "request)");
  return request_sender{who->uid, who->gid};
}

}  // namespace shoal::runtime
