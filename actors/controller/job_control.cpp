#include "actors/controller/controller_state.hpp"

#include "cluster/clock.hpp"
#include "cluster/job_ref.hpp"

namespace shoal::actors::ctl {

using cluster::names_task;
using cluster::parse_job_ref;
using cluster::unix_now;

namespace {

bool may_act_on(controller_self self, uint32_t owner, uint32_t uid) {
  return policy::may(*self->state.access, uid, policy::operation::act_on_job, owner);
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

/// scancel of `12`, `12_4` or `12_[1-5]`: running tasks get the signal (or are cancelled), pending
/// ones leave the scheduler's range list.
caf::result<caf::ok_atom> cancel(controller_self self, const std::string& text, int32_t signo,
                                 uint32_t uid) {
  auto& st = self->state;
  auto ref = parse_job_ref(text);
  if (!ref) return to_caf(ref.error());
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
    if (v != st.job_view.end() && v->second.array_tasks.empty()) {
      // Every task had started: no pending line is left to show as cancelled.
      it->second.pending_text.clear();
      save_array(self, ref->id);
      st.job_view.erase(v);
    } else if (v != st.job_view.end()) {
      // The pending line stays, CANCELLED, with the tasks that never started (sacct's
      // `12_[3-8%2] CANCELLED`).
      v->second.state = msg::job_state::cancelled;
      v->second.end_time = unix_now();
      it->second.pending_text.clear();
      save_array(self, ref->id);
    }
  } else {
    for (auto& [lo, hi] : ref->tasks)
      caf::anon_send(st.scheduler, msg::cancel_atom_v, ref->id, lo, hi);
  }
  return caf::ok_atom::value;
}

}  // namespace

/// `shoal alloc` releases its allocation (salloc's slurm_complete_job).
caf::result<caf::ok_atom> complete(controller_self self, uint64_t id, int32_t code, int32_t signo,
                                   uint32_t uid) {
  config::log().info("job allocation released job={} exit_code={} uid={}", id, code, uid);
  auto& st = self->state;
  if (auto job = st.jobs.find(id); job != st.jobs.end())
    return self->delegate(job->second, msg::complete_atom_v, code, signo, uid);
  // Ended already (cancelled, timed out): Slurm's ESLURM_ALREADY_DONE, which salloc ignores.
  if (st.job_view.count(id) > 0) return caf::ok_atom::value;
  return make_error(errc::unknown_job, "invalid job id " + std::to_string(id));
}

/// hold, uhold, release, top (the scheduler's) and requeue, suspend, resume (running jobs'), on
/// each job named; one reply for all, the first error if any.
caf::result<caf::ok_atom> control_jobs(controller_self self, const msg::job_control& ctl) {
  self->state.attribute_to(uid_label(self->state, ctl.uid));
  auto& st = self->state;
  static const std::vector<std::string> ops = {"hold",    "uhold",   "release", "top",
                                               "requeue", "suspend", "resume"};
  if (std::find(ops.begin(), ops.end(), ctl.op) == ops.end())
    return make_error(errc::invalid_request, "unknown job command '" + ctl.op + "'");
  if (ctl.jobs.empty()) return make_error(errc::invalid_request, ctl.op + " needs a job list");
  bool for_running = ctl.op == "requeue" || ctl.op == "suspend" || ctl.op == "resume";
  if ((ctl.op == "suspend" || ctl.op == "resume") &&
      !policy::may(*st.access, ctl.uid, policy::operation::suspend_job))
    return make_error(errc::permission_denied,
                      "Access/permission denied: only an administrator may " + ctl.op + " jobs");
  bool admin = policy::may(*st.access, ctl.uid, policy::operation::hold_as_admin);
  std::vector<std::pair<caf::actor, caf::message>> requests;
  for (auto& text : ctl.jobs) {
    auto ref = parse_job_ref(text);
    if (!ref) return to_caf(ref.error());
    auto arr = st.arrays.find(ref->id);
    if (!for_running) {
      auto to_scheduler = [&](uint64_t id) {
        requests.emplace_back(caf::actor_cast<caf::actor>(st.scheduler),
                              caf::make_message(msg::jobctl_atom_v, ctl.op, id, ctl.uid, admin));
      };
      if (arr == st.arrays.end()) {
        to_scheduler(ref->id);
        continue;
      }
      // An array's tasks pending as jobs of their own (split off, requeued) are held with it,
      // or alone when named; the tasks still pending in its record are held as one (a task of
      // them named alone holds them all: shoal does not split a task off for a hold).
      size_t before = requests.size();
      for (auto& [index, task] : arr->second.running) {
        auto view = st.job_view.find(task);
        if (names_task(*ref, index) && view != st.job_view.end() &&
            view->second.state == msg::job_state::pending)
          to_scheduler(task);
      }
      bool tasks_alone = requests.size() > before;
      if (ref->whole ? !arr->second.pending_text.empty() || !tasks_alone : !tasks_alone)
        to_scheduler(ref->id);
      continue;
    }
    if (arr != st.arrays.end()) {
      for (auto& [index, task] : arr->second.running)
        if (names_task(*ref, index) && st.jobs.count(task) > 0)
          requests.emplace_back(caf::actor_cast<caf::actor>(st.jobs[task]),
                                caf::make_message(msg::jobctl_atom_v, ctl.op, ctl.uid));
      continue;
    }
    auto job = st.jobs.find(ref->id);
    if (job == st.jobs.end() && ctl.op != "requeue" && st.job_view.count(ref->id) > 0)
      return make_error(errc::invalid_request, "Job/step already completing or completed");
    if (job == st.jobs.end())
      return make_error(errc::unknown_job,
                        "Invalid job id specified: " + text + " (not pending or running)");
    requests.emplace_back(caf::actor_cast<caf::actor>(job->second),
                          caf::make_message(msg::jobctl_atom_v, ctl.op, ctl.uid));
  }
  if (requests.empty()) return caf::ok_atom::value;
  return all_ok(self, std::move(requests));
}

caf::result<caf::ok_atom> cancel_by_text(controller_self self, const std::string& job,
                                         int32_t signo, uint32_t uid) {
  self->state.attribute_to(uid_label(self->state, uid));
  SHOAL_DEBUG(msg, "rpc cancel job={} signal={} uid={}", job, signo, uid);
  return cancel(self, job, signo, uid);
}

caf::result<caf::ok_atom> cancel_by_id(controller_self self, uint64_t id, int32_t signo,
                                       uint32_t uid) {
  self->state.attribute_to(uid_label(self->state, uid));
  return cancel(self, std::to_string(id), signo, uid);
}

void signal_job(controller_self self, uint64_t id, int32_t signo) {
  auto it = self->state.jobs.find(id);
  if (it != self->state.jobs.end()) self->send(it->second, msg::signal_atom_v, signo);
}

void preempt_job(controller_self self, uint64_t id, uint64_t for_job, uint8_t mode,
                 int64_t grace_s) {
  auto it = self->state.jobs.find(id);
  if (it == self->state.jobs.end()) return;  // ended meanwhile: its nodes are free already
  config::log().info("job preempted job={} for={} mode={} grace_time={}", id, for_job,
                     policy::to_string(static_cast<policy::preempt_mode>(mode)), grace_s);
  self->send(it->second, msg::preempt_atom_v, mode, grace_s);
}

void resume_preempted(controller_self self, uint64_t id) {
  auto it = self->state.jobs.find(id);
  if (it != self->state.jobs.end()) self->send(it->second, msg::resume_atom_v);
}

caf::result<msg::job_info> attach(controller_self self, uint64_t id, uint32_t step,
                                  caf::actor& client) {
  auto& st = self->state;
  if (auto job = st.jobs.find(id); job != st.jobs.end()) {
    if (step == msg::all_steps)
      return self->delegate(job->second, msg::attach_atom_v, std::move(client));
    return self->delegate(job->second, msg::attach_atom_v, step, std::move(client));
  }
  if (auto view = st.job_view.find(id); view != st.job_view.end()) return view->second;
  return make_error(errc::unknown_job,
                    "job " + std::to_string(id) + " is not known to the controller");
}

void relay_node_down(controller_self self, const std::string& node, uint64_t job) {
  auto it = self->state.jobs.find(job);
  if (it != self->state.jobs.end()) self->send(it->second, msg::nodedown_atom_v, node);
}

void relay_step_exit(controller_self self, msg::step_exit& ex) {
  auto it = self->state.jobs.find(ex.job_id);
  if (it == self->state.jobs.end()) {
    config::log().warn("step exit for an unknown job dropped job={} step={} node={}", ex.job_id,
                       msg::step_label(ex.step_id), ex.node_name);
    return;
  }
  self->send(it->second, std::move(ex));
}

}  // namespace shoal::actors::ctl
