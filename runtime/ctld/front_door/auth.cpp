#include "runtime/ctld/front_door/auth.hpp"

#include <pwd.h>

#include <algorithm>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "config/log.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "runtime/bootstrap/munge.hpp"
#include "runtime/bootstrap/request_auth.hpp"
#include "runtime/ctld/front_door/framing.hpp"
#include "runtime/ctld/front_door/routing.hpp"
#include "runtime/ctld/jwt.hpp"

namespace shoal::runtime::door {

namespace {

/// The name of `uid` on this host, or the number when it has none.
std::string user_name(uint32_t uid) {
  passwd pw{};
  passwd* found = nullptr;
  std::vector<char> buf(16384);
  if (::getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) == 0 && found != nullptr)
    return found->pw_name;
  return std::to_string(uid);
}

/// Who `user` is on this host, for a token's `sun` claim.
shoal::expected<request_sender> local_user(const std::string& user) {
  passwd pw{};
  passwd* found = nullptr;
  std::vector<char> buf(16384);
  if (::getpwnam_r(user.c_str(), &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr)
    return shoal::error(errc::authentication_failed, "Invalid authentication token: its user " +
                                                         user +
                                                         " is not known on the controller's host");
  return request_sender{found->pw_uid, found->pw_gid};
}

/// The sender as the request's credential proves it: a token under AuthAltTypes=auth/jwt, else
/// AuthType's proof (request_auth.hpp). `by_token` says which.
shoal::expected<request_sender> prove_sender(const front_door_setup& setup,
                                             msg::client_request& req, bool& by_token) {
  by_token = !setup.jwt_key.empty() && looks_like_jwt(req.credential);
  if (!by_token) return verify_request(setup.auth, req);
  auto token = std::move(req.credential);
  req.credential.clear();
  auto claims = verify_jwt(setup.jwt_key, token, std::time(nullptr));
  if (!claims) return std::move(claims.error());
  return local_user(claims->user);
}

/// Slurm's default lifespan of a token scontrol makes (AuthAltParameters' max is not read).
constexpr uint32_t default_token_lifespan_s = 1800;

/// `scontrol token [username=U] [lifespan=N]`: a token for the sender, or for the user the
/// request names when root or SlurmUser asks. Put in the request's text for the route to send.
shoal::error mint_token(const front_door_setup& setup, const request_sender& who, bool by_token,
                        msg::client_request& req) {
  if (setup.jwt_key.empty())
    return shoal::error(errc::invalid_request,
                        "auth/jwt is not configured on this cluster: set AuthAltTypes=auth/jwt "
                        "(and AuthAltParameters=jwt_key=PATH) in the controller's config");
  if (by_token)
    return shoal::error(errc::permission_denied,
                        "Access/permission denied: a token cannot be made with a token "
                        "(authenticate with MUNGE)");
  auto self = user_name(who.uid);
  auto user = req.text.empty() ? self : req.text;
  if (user != self && !policy::is_daemon_user(setup.access, who.uid))
    return shoal::error(errc::permission_denied,
                        "Access/permission denied: only root and SlurmUser may make a token "
                        "for another user");
  auto lifespan = req.lifespan == 0 ? default_token_lifespan_s : req.lifespan;
  req.text = mint_jwt(setup.jwt_key, user, std::time(nullptr), lifespan);
  config::log().info("front door: token for user={} lifespan={}s asked by uid={}", user, lifespan,
                     who.uid);
  return {};
}

/// Puts the proven sender wherever the request names one, so the controller's checks (own jobs
/// only), what it attributes changes to and the job's identity rest on the proof and not on what
/// the client wrote. Every field is stamped whatever the request's kind, so a new kind carrying
/// one of them is covered without a list of kinds here.
void stamp_sender(msg::client_request& req, const request_sender& who) {
  req.uid = who.uid;
  req.control.uid = who.uid;
  req.job_change.uid = who.uid;
  auto name = user_name(who.uid);
  req.user = name;
  req.update.user = name;  // who a node's reason names
  req.partition_change.user = name;
  req.reservation_change.user = name;
  req.submission.uid = who.uid;
  req.submission.gid = who.gid;
  req.submission.user = std::move(name);
}

}  // namespace

caf::behavior credential_checker(caf::event_based_actor*, const front_door_setup& setup) {
  return {
      [setup](verify_atom, msg::client_request& req) -> caf::result<msg::client_request> {
        const auto& access = setup.access;
        bool by_token = false;
        auto who = prove_sender(setup, req, by_token);
        if (!who) return to_caf(who.error());
        stamp_sender(req, *who);
        if (static_cast<op>(req.op) == op::token) {
          if (auto err = mint_token(setup, *who, by_token, req)) return to_caf(err);
        }
        if (static_cast<op>(req.op) == op::cluster_identity) {
          if (!policy::may(access, who->uid, policy::operation::fetch_identity)) {
            config::log().warn(
                "front door: cluster identity refused uid={}: not root, SlurmUser nor the user "
                "shoalctld runs as",
                who->uid);
            return make_error(errc::permission_denied, "Access/permission denied");
          }
          if (!setup.auth.munge)
            return make_error(errc::invalid_request,
                              "the daemons' port speaks no TLS under AuthType=auth/none");
          auto sealed =
              make_munge_credential(setup.auth.munge_socket, setup.cluster_identity, who->uid);
          if (!sealed) return to_caf(sealed.error());
          req.text = std::move(*sealed);
        }
        return std::move(req);
      },
  };
}

void admit(door_self self, const reply_to& to, msg::client_request& req) {
  auto& st = self->state;
  if (st.checkers.empty()) {
    req.credential.clear();
    return serve(self, to, req);
  }
  auto& checker = st.checkers[st.next_checker++ % st.checkers.size()];
  self->request(checker, st.setup.request_timeout, verify_atom::value, std::move(req))
      .then([self, to](msg::client_request& verified) { serve(self, to, verified); },
            [self, to](caf::error& err) {
              config::log().warn("front door: {} peer={}", describe(err), peer_of(self, to));
              answer(self, to, refusal(err));
            });
}

}  // namespace shoal::runtime::door
