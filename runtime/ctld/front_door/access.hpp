#pragma once

// Who may do and see what at the front door: administration is for root and the admins, a job
// is acted on by its owner or an admin, and PrivateData=jobs hides other users' jobs.

#include <cstdint>
#include <memory>
#include <set>
#include <string>

#include <caf/all.hpp>

#include "config/log.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "messages/front_door.hpp"
#include "runtime/ctld/front_door/door_state.hpp"
#include "runtime/ctld/front_door/framing.hpp"

namespace shoal::runtime::door {

/// Root, and the users front_door_setup::admin_uids names.
bool is_admin(const door_state& st, uint32_t uid);

/// Whether `uid` may see `job` (PrivateData=jobs hides other users' jobs from all but admins).
bool may_see(const door_state& st, uint32_t uid, const msg::job_info& job);

/// Node and partition updates, debug levels and flags: root's and the admins'. (The diagnostics'
/// reset is the controller's to refuse: root's and SlurmUser's only, as sdiag --reset.)
bool is_administration(op o);

/// The map as `visible` lets its user see it: other users' jobs leave no id behind.
void hide_others(msg::topology_view& view, const std::set<uint64_t>& visible);

/// Runs `then` when `uid` may act on job `id` (its owner or an admin); answers the refusal
/// otherwise.
template <class Then>
void if_owner(door_self self, connection_handle hdl, uint64_t serial, uint64_t number, uint64_t id,
              uint32_t uid, Then then) {
  self->request(self->state.target, self->state.setup.request_timeout, msg::jobs_atom_v, id)
      .then(
          [self, hdl, serial, number, uid, then](msg::job_info& job) {
            if (job.uid == uid || is_admin(self->state, uid)) return then();
            config::log().warn("front door: permission denied job={} uid={}", job.job_id, uid);
            msg::client_reply r;
            r.error_code = static_cast<uint8_t>(errc::permission_denied);
            r.error_text = "Access/permission denied: job " + std::to_string(job.job_id) +
                           " belongs to " + job.user;
            answer(self, hdl, serial, number, r);
          },
          [self, hdl, serial, number](caf::error& err) {
            answer(self, hdl, serial, number, refusal(err));
          });
}

/// The ids of the active jobs `uid` may see under PrivateData=jobs, for `then`; null (every job)
/// for an admin or without PrivateData. Answers the refusal when the controller does not tell.
template <class Then>
void visible_jobs(door_self self, connection_handle hdl, uint64_t serial, uint64_t number,
                  uint32_t uid, Then then) {
  auto& st = self->state;
  if (!st.setup.private_jobs || is_admin(st, uid))
    return then(std::shared_ptr<const std::set<uint64_t>>{});
  self->request(st.target, st.setup.request_timeout, msg::jobs_atom_v, false)
      .then(
          [uid, then](std::vector<msg::job_info>& jobs) {
            auto mine = std::make_shared<std::set<uint64_t>>();
            for (auto& job : jobs)
              if (job.uid == uid) mine->insert(job.job_id);
            then(std::shared_ptr<const std::set<uint64_t>>{std::move(mine)});
          },
          [self, hdl, serial, number](caf::error& err) {
            answer(self, hdl, serial, number, refusal(err));
          });
}

}  // namespace shoal::runtime::door
