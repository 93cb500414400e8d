#include "runtime/ctld/front_door/access.hpp"

#include <algorithm>

namespace shoal::runtime::door {

bool is_admin(const front_door_setup& setup, uint32_t uid) {
  return uid == 0 ||
         std::find(setup.admin_uids.begin(), setup.admin_uids.end(), uid) != setup.admin_uids.end();
}

bool sees_every_job(const front_door_setup& setup, uint32_t uid) {
  return !setup.private_jobs || is_admin(setup, uid);
}

bool may_see(const front_door_setup& setup, uint32_t uid, const msg::job_info& job) {
  return job.uid == uid || sees_every_job(setup, uid);
}

bool may_act_on(const front_door_setup& setup, uint32_t uid, const msg::job_info& job) {
  return job.uid == uid || is_admin(setup, uid);
}

}  // namespace shoal::runtime::door
