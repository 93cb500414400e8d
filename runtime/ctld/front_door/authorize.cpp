#include "runtime/ctld/front_door/authorize.hpp"

#include <string>
#include <utility>
#include <vector>

#include <caf/all.hpp>

#include "config/log.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "runtime/ctld/front_door/access.hpp"
#include "runtime/ctld/front_door/framing.hpp"

namespace shoal::runtime::door {

namespace {

/// Refuses administration from anyone but root and the admins.
void if_admin(door_self self, const reply_to& to, const msg::client_request& req,
              const std::function<void(grant)>& then, grant g) {
  if (is_admin(self->state.setup, req.uid)) return then(std::move(g));
  config::log().warn("front door: permission denied request={} uid={} peer={}",
                     msg::to_string(static_cast<op>(req.op)), req.uid, peer_of(self, to));
  answer(self, to, refusal(make_error(errc::permission_denied, "Access/permission denied")));
}

/// Asks the target who owns job `req.job_id` and refuses anyone but the owner and the admins.
void if_owner(door_self self, const reply_to& to, const msg::client_request& req,
              std::function<void(grant)> then, grant g) {
  if (!in_control(self, to)) return;
  auto uid = req.uid;
  self->request(self->state.target, self->state.setup.request_timeout, msg::jobs_atom_v, req.job_id)
      .then(
          [self, to, uid, then, g](msg::job_info& job) {
            if (may_act_on(self->state.setup, uid, job)) return then(g);
            config::log().warn("front door: permission denied job={} uid={}", job.job_id, uid);
            msg::client_reply r;
            r.error_code = static_cast<uint8_t>(errc::permission_denied);
            r.error_text = "Access/permission denied: job " + std::to_string(job.job_id) +
                           " belongs to " + job.user;
            answer(self, to, r);
          },
          [self, to](caf::error& err) { answer(self, to, refusal(err)); });
}

/// Under PrivateData=jobs, and for anyone but the admins, asks the target for the active jobs and
/// grants the ids of those the sender may see.
void with_visible_ids(door_self self, const reply_to& to, std::function<void(grant)> then,
                      grant g) {
  if (sees_every_job(self->state.setup, g.uid)) return then(std::move(g));
  if (!in_control(self, to)) return;
  self->request(self->state.target, self->state.setup.request_timeout, msg::jobs_atom_v, false,
                fields_may_see_reads(), msg::job_filter{})
      .then(
          [self, then, g](std::vector<msg::job_info>& jobs) {
            auto mine = std::make_shared<std::set<uint64_t>>();
            for (auto& job : jobs)
              if (may_see(self->state.setup, g.uid, job)) mine->insert(job.job_id);
            auto granted = g;
            granted.visible = std::move(mine);
            then(std::move(granted));
          },
          [self, to](caf::error& err) { answer(self, to, refusal(err)); });
}

}  // namespace

bool grant::sees(const msg::job_info& job) const {
  return may_see(*setup, uid, job);
}

bool grant::sees(const msg::step_info& step) const {
  return may_see(*setup, uid, step);
}

bool in_control(door_self self, const reply_to& to) {
  if (self->state.target) return true;
  answer(self, to,
         refusal(
             make_error(errc::not_in_control, "not in control: this shoalctld is changing roles")));
  return false;
}

void authorize(door_self self, const reply_to& to, const msg::client_request& req, need what,
               std::function<void(grant)> then) {
  grant g{&self->state.setup, req.uid, nullptr};
  switch (what) {
    case need::nothing:
      return then(std::move(g));
    case need::admin:
      return if_admin(self, to, req, then, std::move(g));
    case need::job_owner:
      return if_owner(self, to, req, std::move(then), std::move(g));
    case need::visible_ids:
      return with_visible_ids(self, to, std::move(then), std::move(g));
  }
}

}  // namespace shoal::runtime::door
