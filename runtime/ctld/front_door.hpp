#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/atom.hpp>
#include <caf/expected.hpp>

#include "config/config.hpp"
#include "messages/caf/error.hpp"
#include "messages/front_door.hpp"
#include "policy/access.hpp"
#include "runtime/bootstrap/reconfigure.hpp"

namespace shoal::runtime {

/// Where the front door listens and how patient it is with clients.
struct front_door_setup {
  std::string address;  ///< "" for every address
  uint16_t port = 0;    ///< 0: any (tests); shoalctld uses its line's port + 1
  /// A frame begun must be whole within this, else the peer is dropped (a slow client must not
  /// hold a connection and its buffer forever).
  std::chrono::milliseconds frame_patience{msg::frame_patience};
  /// How long the controller's actors may take to answer one request.
  std::chrono::seconds request_timeout{60};
  /// Who may do and see what (policy/access.hpp): the same rules the controller and every job
  /// ask. Administration (update nodes and partitions, debug levels and flags) is root's, the
  /// daemon users' (the user shoalctld runs as, SlurmUser) and AdminUsers'; PrivateData=jobs
  /// shows a user only their own jobs, and asking for another user's job is refused
  /// (Access/permission denied); the cluster's TLS identity goes to root and the daemon users only.
  policy::access_rules access;
  /// How requests prove their sender (AuthType=, AuthInfo=): under auth/munge each request's
  /// credential is checked (runtime/bootstrap/request_auth.hpp) by `checkers` actors of their
  /// own threads, as munged's answer is waited for, and the proven uid and gid replace the
  /// ones the request names; a request that fails is refused with errc::authentication_failed.
  config::auth_settings auth;
  unsigned checkers = 2;
  /// Replies written and not yet taken by a client that keeps sending requests: past this many
  /// bytes the door stops reading from it until it has drained (a client that never reads must
  /// not grow the controller's memory without bound).
  size_t max_unread_reply_bytes = 64u << 20;
  /// Under auth/munge, the cluster's TLS identity (runtime/tls/cluster_identity.hpp): a
  /// cluster_identity request from a daemon user (`access`) gets it in a MUNGE credential only
  /// that uid may decode; anyone else is refused.
  std::string cluster_identity;
  /// Under AuthAltTypes=auth/jwt, the HS256 key (runtime/ctld/jwt.hpp): a request whose
  /// credential is a token is proven by it (the token's user is the sender), and `token`
  /// requests mint one. Empty: tokens are refused.
  std::string jwt_key;
  /// `scontrol reconfigure` (admins only): shoalctld's SIGHUP reconfigure
  /// (runtime/bootstrap/reconfigure.hpp), run on a thread of its own; its answer or its error
  /// goes to the client. Empty: refused.
  std::function<shoal::expected<reread>()> reconfigure;
};

/// `(retarget_atom, actor)` tells the front door which actor answers requests now: the
/// controller in control, the standby while out of control, or a null handle while shoalctld
/// changes roles (requests are then refused with errc::not_in_control, and clients try the next
/// SlurmctldHost line). Answered with ok once in effect: a broker handles socket events as they
/// come, not in its mailbox's order, so a request read after the send may still see the old
/// target until then.
using retarget_atom = caf::atom_constant<caf::atom("retarget")>;

/// The CLI's front door (issue 17): a broker that speaks the framed Cap'n Proto protocol of
/// messages/shoal.capnp's ClientRequest and ClientReply on a TCP port of its own, and turns each
/// request into the actor message the controller answers (actors/controller.hpp), so a client
/// needs no actor system, and replies travel on the connection that asked. Each connection is
/// served in order, one request after another. A frame that is too long, does not decode, or
/// comes too slowly is logged with the peer's address and the connection is closed; other
/// connections carry on. The port is the returned actor's for its whole life.
///
/// Administration requests from anyone but the admins of `access` are refused here, with
/// errc::permission_denied "Access/permission denied" and a log line naming the uid; requests on
/// jobs carry the uid to the controller's actors, which let users act only on their own jobs.
/// Under auth/none the uid is the one the request names (single-user clusters only).
struct front_door {
  caf::actor actor;
  uint16_t port = 0;  ///< the port it listens on (the one asked for, or the one chosen)
};

/// Opens the port and spawns the door (blocking: for shoalctld's failover thread and tests).
/// Error: errc::system_error naming the address and port.
caf::expected<front_door> open_front_door(caf::actor_system& sys, const front_door_setup& setup);

}  // namespace shoal::runtime
