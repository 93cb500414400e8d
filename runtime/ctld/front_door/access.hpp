#pragma once

// Who may do and see what at the front door: the door's questions put to the access policy that
// the controller and every job ask too (policy/access.hpp), with the door's rules.
// authorize.hpp applies them, once per request, before it is routed.

#include <cstdint>

#include "messages/field_mask.hpp"
#include "messages/front_door.hpp"
#include "runtime/ctld/front_door.hpp"

namespace shoal::runtime::door {

/// Root, the daemon users and AdminUsers (front_door_setup::access): they may administer the
/// cluster (update nodes and partitions, set debug levels and flags) and act on and
/// see every job.
bool is_admin(const front_door_setup& setup, uint32_t uid);

/// Whether `uid` sees every job: everyone without PrivateData=jobs, root and the admins with it.
bool sees_every_job(const front_door_setup& setup, uint32_t uid);

/// Whether `uid` may see `job` (PrivateData=jobs hides other users' jobs from all but admins).
bool may_see(const front_door_setup& setup, uint32_t uid, const msg::job_info& job);

/// The job fields may_see reads (the owner's uid, and the id it grants), added to a listing's
/// field mask (messages/field_mask.hpp) before the controller fills it.
msg::field_mask fields_may_see_reads();

/// Whether `uid` may see `step` (as its job, by its owner).
bool may_see(const front_door_setup& setup, uint32_t uid, const msg::step_info& step);

/// Whether `uid` may act on `job` (signal it, complete it, attach to it): its owner or an admin.
bool may_act_on(const front_door_setup& setup, uint32_t uid, const msg::job_info& job);

}  // namespace shoal::runtime::door
