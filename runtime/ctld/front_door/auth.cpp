#include "runtime/ctld/front_door/auth.hpp"

#include <pwd.h>

#include <algorithm>
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
      [auth = setup.auth, identity = setup.cluster_identity, access = setup.access](
          verify_atom, msg::client_request& req) -> caf::result<msg::client_request> {
        auto who = verify_request(auth, req);
        if (!who) return to_caf(who.error());
        stamp_sender(req, *who);
        if (static_cast<op>(req.op) == op::cluster_identity) {
          if (!policy::may(access, who->uid, policy::operation::fetch_identity)) {
            config::log().warn(
                "front door: cluster identity refused uid={}: not root, SlurmUser nor the user "
                "shoalctld runs as",
                who->uid);
            return make_error(errc::permission_denied, "Access/permission denied");
          }
          auto sealed = make_munge_credential(auth.munge_socket, identity, who->uid);
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
