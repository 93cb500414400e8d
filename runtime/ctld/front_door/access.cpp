#include "runtime/ctld/front_door/access.hpp"

namespace shoal::runtime::door {

bool is_admin(const front_door_setup& setup, uint32_t uid) {
  return policy::is_admin(setup.access, uid);
}

bool sees_every_job(const front_door_setup& setup, uint32_t uid) {
  return policy::may(setup.access, uid, policy::operation::view_job);
}

bool may_see(const front_door_setup& setup, uint32_t uid, const msg::job_info& job) {
  return policy::may(setup.access, uid, policy::operation::view_job, job.uid);
}

msg::field_mask fields_may_see_reads() {
  return msg::fields_of(&msg::job_info::uid, &msg::job_info::job_id);
}

bool may_see(const front_door_setup& setup, uint32_t uid, const msg::step_info& step) {
  return policy::may(setup.access, uid, policy::operation::view_job, step.uid);
}

bool may_act_on(const front_door_setup& setup, uint32_t uid, const msg::job_info& job) {
  return policy::may(setup.access, uid, policy::operation::act_on_job, job.uid);
}

}  // namespace shoal::runtime::door
