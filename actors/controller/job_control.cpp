#include "actors/controller/controller_state.hpp"

#include "actors/clock.hpp"
#include "actors/job_ref.hpp"

namespace shoal::actors::ctl {

/// `shoal alloc` releases its allocation (salloc's slurm_complete_job).
caf::result<caf::ok_atom> complete(controller_self self, uint64_t id, int32_t code, int32_t signo,
                                   uint32_t uid) {
  auto& st = self->state;
  if (auto job = st.jobs.find(id); job != st.jobs.end())
    return self->delegate(job->second, msg::complete_atom_v, code, signo, uid);
  // Ended already (cancelled, timed out): Slurm's ESLURM_ALREADY_DONE, which salloc ignores.
  if (st.job_view.count(id) > 0) return caf::ok_atom::value;
  return make_error(errc::unknown_job, "invalid job id " + std::to_string(id));
}

bool may_act_on(controller_self self, uint32_t owner, uint32_t uid) {
  return uid == 0 || uid == owner || uid == self->state.admin_uid;
}

caf::result<caf::ok_atom> cancel_one_job(controller_self self, uint64_t id, int32_t signo,
                                         uint32_t uid) {
  auto& st = self->state;
  auto it = st.jobs.find(id);
  if (it != st.jobs.end()) return self->delegate(it->second, msg::cancel_atom_v, signo, uid);
  auto v = st.job_view.find(id);
  if (v != st.job_view.end())
    return make_error(errc::invalid_request,
                      std::string{"Job/step already completing or completed ("} +
                          msg::to_string(v->second.state) + ")");
  return make_error(errc::unknown_job, "Invalid job id specified");
}

/// scancel of `12`, `12_4` or `12_[1-5]`: running tasks get the signal (or are cancelled),
/// pending ones leave the scheduler's range list.
caf::result<caf::ok_atom> cancel(controller_self self, const std::string& text, int32_t signo,
                                 uint32_t uid) {
  auto& st = self->state;
  auto ref = parse_job_ref(text);
  if (!ref) return std::move(ref.error());
  auto it = st.arrays.find(ref->id);
  if (it == st.arrays.end()) {
    if (!ref->whole)
      return make_error(errc::unknown_job, "job " + std::to_string(ref->id) + " is not an array");
    return cancel_one_job(self, ref->id, signo, uid);
  }
  auto& arr = it->second;
  if (!may_act_on(self, arr.task_template.req.uid, uid))
    return make_error(errc::permission_denied, "Access/permission denied: job " +
                                                   std::to_string(ref->id) + " belongs to " +
                                                   arr.task_template.req.user);
  for (auto& [index, task] : arr.running) {
    if (!names_task(*ref, index)) continue;
    auto job = st.jobs.find(task);
    if (job != st.jobs.end()) caf::anon_send(job->second, msg::cancel_atom_v, signo, uid);
  }
  if (signo != 0) return caf::ok_atom::value;
  config::log().info("job cancel array job={} tasks={} uid={}", ref->id, text, uid);
  if (ref->whole) {
    caf::anon_send(st.scheduler, msg::cancel_atom_v, ref->id, uint32_t{0}, UINT32_MAX);
    auto v = st.job_view.find(ref->id);
    if (v != st.job_view.end()) {
      v->second.state = msg::job_state::cancelled;
      v->second.end_time = unix_now();
      v->second.array_tasks.clear();
      it->second.pending_text.clear();
      save_array(self, ref->id);
    }
  } else {
    for (auto& [lo, hi] : ref->tasks)
      caf::anon_send(st.scheduler, msg::cancel_atom_v, ref->id, lo, hi);
  }
  return caf::ok_atom::value;
}

/// hold, uhold, release, top (the scheduler's) and requeue (running jobs'), on each job named;
/// one reply for all, the first error if any.

caf::result<caf::ok_atom> job_control(controller_self self, const msg::job_control& ctl) {
  auto& st = self->state;
  static const std::vector<std::string> ops = {"hold", "uhold", "release", "top", "requeue"};
  if (std::find(ops.begin(), ops.end(), ctl.op) == ops.end())
    return make_error(errc::invalid_request, "unknown job command '" + ctl.op + "'");
  if (ctl.jobs.empty()) return make_error(errc::invalid_request, ctl.op + " needs a job list");
  bool admin = ctl.uid == 0 || ctl.uid == st.admin_uid;
  std::vector<std::pair<caf::actor, caf::message>> requests;
  for (auto& text : ctl.jobs) {
    auto ref = parse_job_ref(text);
    if (!ref) return std::move(ref.error());
    if (ctl.op != "requeue") {
      requests.emplace_back(caf::actor_cast<caf::actor>(st.scheduler),
                            caf::make_message(msg::jobctl_atom_v, ctl.op, ref->id, ctl.uid, admin));
      continue;
    }
    auto arr = st.arrays.find(ref->id);
    if (arr != st.arrays.end()) {
      for (auto& [index, task] : arr->second.running)
        if (names_task(*ref, index) && st.jobs.count(task) > 0)
          requests.emplace_back(caf::actor_cast<caf::actor>(st.jobs[task]),
                                caf::make_message(msg::jobctl_atom_v, ctl.op, ctl.uid));
      continue;
    }
    auto job = st.jobs.find(ref->id);
    if (job == st.jobs.end())
      return make_error(errc::unknown_job,
                        "Invalid job id specified: " + text + " (not pending or running)");
    requests.emplace_back(caf::actor_cast<caf::actor>(job->second),
                          caf::make_message(msg::jobctl_atom_v, ctl.op, ctl.uid));
  }
  if (requests.empty()) return caf::ok_atom::value;
  return all_ok(self, std::move(requests));
}

}  // namespace shoal::actors::ctl
