// scontrol update JobId=N KEY=VALUE ...: the controller reads the changes, asks each job named
// for its record, checks the revised request as a submission is checked (and who may make the
// change), and hands it back to the job, which applies it, saves its record and tells the
// scheduler (actors/job_update.cpp).

#include "actors/controller/controller_state.hpp"

#include <memory>
#include <utility>

#include "cluster/association_check.hpp"
#include "cluster/clock.hpp"
#include "cluster/job_ref.hpp"
#include "cluster/submission.hpp"
#include "config/job_update.hpp"

namespace shoal::actors::ctl {

using cluster::names_task;
using cluster::parse_job_ref;

namespace {

struct target {
  uint64_t id = 0;
  job_actor job;
};

/// `err` as scontrol prints an update's refusal: Slurm's words, then " for job N".
caf::error for_job(const caf::error& err, uint64_t id) {
  auto code = err.category() == error_category ? static_cast<errc>(err.code()) : errc::system_error;
  return make_error(code, describe(err) + " for job " + std::to_string(id));
}

/// The job actors `texts` name: jobs, and the running tasks of arrays (an array's pending tasks
/// have no job of their own to change yet). Only their owners and the admins may change them.
caf::expected<std::vector<target>> targets_of(controller_self self,
                                              const std::vector<std::string>& texts, uint32_t uid) {
  auto& st = self->state;
  std::vector<target> out;
  auto add = [&](uint64_t id) -> caf::error {
    auto view = st.job_view.find(id);
    auto job = st.jobs.find(id);
    if (job == st.jobs.end()) {
      if (view != st.job_view.end())
        return make_error(errc::invalid_request,
                          "Job has already finished for job " + std::to_string(id));
      return make_error(errc::unknown_job,
                        "Invalid job id specified for job " + std::to_string(id));
    }
    auto owner = view != st.job_view.end() ? view->second.uid : policy::no_owner;
    if (!policy::may(*st.access, uid, policy::operation::update_job, owner))
      return make_error(errc::permission_denied,
                        "Access/permission denied for job " + std::to_string(id));
    out.push_back({id, job->second});
    return caf::none;
  };
  for (auto& text : texts) {
    auto ref = parse_job_ref(text);
    if (!ref) return to_caf(ref.error());
    auto arr = st.arrays.find(ref->id);
    if (arr == st.arrays.end()) {
      if (auto err = add(ref->id)) return err;
      continue;
    }
    bool any = false;
    for (auto& [index, task] : arr->second.running) {
      if (!names_task(*ref, index)) continue;
      any = true;
      if (auto err = add(task)) return err;
    }
    if (!any)
      return make_error(errc::invalid_request,
                        "Requested operation not supported on this system for job " + text +
                            " (the pending tasks of a job array are not updated yet)");
  }
  return out;
}

int64_t partition_max_s(const controller_state& st, const std::string& name) {
  for (auto& p : st.cfg.partitions)
    if (p.name == name) return p.max_time_s;
  return -1;
}

using revision = std::pair<msg::job_request, policy::workload_ptr>;

/// The request job `rec` is to run with after `spec`, checked as a submission is (a queued job
/// only: a running one changes its time limit, name, comment, nice and priority alone, and
/// keeps its workload, the null here), or the refusal in Slurm's words.
caf::expected<revision> revise(controller_self self, const msg::job_record& rec,
                               const config::job_update_spec& spec, uint32_t uid) {
  auto& st = self->state;
  const auto& before = rec.request;
  auto state = rec.info.state;
  if (msg::is_finished(state) || state == msg::job_state::completing)
    return make_error(errc::invalid_request, "Job has already finished");
  auto after = config::apply_job_update(spec, before);
  if (!after) return to_caf(after.error());
  bool queued = state == msg::job_state::pending;
  if (!queued && !config::pending_only_changes(before, *after).empty())
    return make_error(errc::invalid_request, "Job is no longer pending execution");
  if (config::needs_admin(before, *after, queued, partition_max_s(st, after->partition),
                          spec.priority.has_value()) &&
      !policy::may(*st.access, uid, policy::operation::update_job_as_admin))
    return make_error(errc::permission_denied, "Access/permission denied");
  if (!queued) return revision{std::move(*after), nullptr};
  // Checked with the limit it had: a user's raise was checked above (up to MaxTime), and an
  // admin may set any limit, as Slurm's operators.
  auto check = *after;
  check.time_limit_s = before.time_limit_s;
  auto workload = parse_workload(self, check);
  if (!workload) return std::move(workload.error());
  auto resolved = cluster::resolve_submission(st.cfg, st.node_view, std::move(check),
                                              (*workload)->gres, (*workload)->constraint);
  if (resolved)
    resolved = cluster::check_association(st.cfg, st.associations.get(), std::move(*resolved));
  if (!resolved) return to_caf(resolved.error());
  resolved->time_limit_s = after->time_limit_s;
  return revision{std::move(*resolved), std::move(*workload)};
}

/// Asks `t`'s job for its record, revises it and hands it back; `done` hears the outcome.
void update_one(controller_self self, const target& t,
                std::shared_ptr<const config::job_update_spec> spec, uint32_t uid,
                std::function<void(caf::error)> done) {
  auto timeout = std::chrono::seconds{self->state.cfg.message_timeout_s};
  auto id = t.id;
  auto job = t.job;
  self->request(job, timeout, msg::update_atom_v)
      .then(
          [self, job, id, spec, uid, done, timeout](msg::job_record& rec) {
            auto revised = revise(self, rec, *spec, uid);
            if (!revised) return done(for_job(revised.error(), id));
            self->request(job, timeout, msg::update_atom_v, std::move(revised->first),
                          std::move(revised->second))
                .then([done](caf::ok_atom) { done(caf::none); },
                      [done, id](caf::error& err) { done(for_job(err, id)); });
          },
          [done, id](caf::error& err) { done(for_job(err, id)); });
}

}  // namespace

caf::result<caf::ok_atom> update_jobs(controller_self self, const msg::job_update& update) {
  auto& st = self->state;
  st.attribute_to(uid_label(st, update.uid));
  auto spec = config::parse_job_update(update.settings, 0);
  if (!spec) return to_caf(spec.error());
  if (update.begin_time != 0) spec->begin_time = std::max(update.begin_time, cluster::unix_now());
  auto texts = update.jobs;
  texts.insert(texts.end(), spec->jobs.begin(), spec->jobs.end());
  if (texts.empty()) return make_error(errc::invalid_request, "No job ID specified");
  if (spec->start_text && !spec->begin_time)
    return make_error(errc::invalid_request, "Invalid StartTime value: " + *spec->start_text);
  auto targets = targets_of(self, texts, update.uid);
  if (!targets) return std::move(targets.error());
  config::log().info("job update jobs={} keys={} uid={}", targets->size(),
                     config::changed_keys(*spec), update.uid);
  auto rp = self->make_response_promise<caf::ok_atom>();
  auto remaining = std::make_shared<size_t>(targets->size());
  auto first = std::make_shared<caf::error>();
  auto shared = std::make_shared<const config::job_update_spec>(std::move(*spec));
  for (auto& t : *targets) {
    update_one(self, t, shared, update.uid, [rp, remaining, first](caf::error err) mutable {
      if (err && !*first) *first = std::move(err);
      if (--*remaining > 0) return;
      if (*first)
        rp.deliver(*first);
      else
        rp.deliver(caf::ok_atom::value);
    });
  }
  return rp;
}

void reconfigure_nodes(controller_self self) {
  auto& nodes = self->state.nodes;
  config::log().info("reconfigure: telling the node daemons nodes={}", nodes.size());
  for (auto& [name, node] : nodes) self->send(node, msg::reconfig_atom_v);
}

}  // namespace shoal::actors::ctl
