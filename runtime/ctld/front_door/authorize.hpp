#pragma once

// The one check of what a request's sender may do, made before the request is routed: it refuses
// what the sender may not ask, and hands the handler a grant saying which jobs it may show.

#include <cstdint>
#include <functional>
#include <memory>
#include <set>

#include "messages/front_door.hpp"
#include "runtime/ctld/front_door/door_state.hpp"

namespace shoal::runtime::door {

/// What a kind of request asks of its sender (routing.cpp names it for each kind).
enum class need {
  nothing,  ///< anyone may ask
  admin,    ///< administration: root's and the admins' (access.hpp's is_admin)
  /// acts on job_id: its owner's or an admin's (access.hpp's may_act_on; the target is asked)
  job_owner,
  /// answers with ids of jobs beside the listing itself (pending reasons, the map): under
  /// PrivateData=jobs, the grant names the active jobs the sender may see (the target is asked)
  visible_ids,
};

/// What the sender may see, for the handlers whose answers name jobs.
struct grant {
  const front_door_setup* setup = nullptr;  ///< the door's, which outlives every request
  uint32_t uid = 0;                         ///< the sender (proven under auth/munge)
  /// need::visible_ids: the ids of the active jobs the sender may see; null for every job
  std::shared_ptr<const std::set<uint64_t>> visible;

  /// Whether the sender may see `job` (access.hpp's may_see).
  bool sees(const msg::job_info& job) const;
  /// Whether the sender may see the step's job (PrivateData=jobs), as above.
  bool sees(const msg::step_info& step) const;

  /// Whether the sender may see the job `id`, as need::visible_ids found it (every job else).
  bool sees(uint64_t id) const { return !visible || visible->count(id) != 0; }
};

/// Whether a target answers requests now. When none does (shoalctld changing roles), answers the
/// request with errc::not_in_control and returns false.
bool in_control(door_self self, const reply_to& to);

/// Runs `then` with what the sender of `req` may see once it meets `what`. Otherwise answers the
/// refusal (errc::permission_denied, logged with the uid), or the target's error when asking it who
/// owns a job or whose jobs are active failed, or errc::not_in_control when a question is due and
/// no target answers. `then` may run now or later, from a reply.
void authorize(door_self self, const reply_to& to, const msg::client_request& req, need what,
               std::function<void(grant)> then);

}  // namespace shoal::runtime::door
