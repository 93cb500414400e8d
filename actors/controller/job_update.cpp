// scontrol update JobId=N KEY=VALUE ...: the controller reads the changes, asks each job named
// for its record, checks the revised request as a submission is checked (and who may make the
// change), and hands it back to the job, which applies it, saves its record and tells the
// scheduler (actors/job_update.cpp).

#include "actors/controller/controller_state.hpp"

#include <memory>
#include <tuple>
#include <utility>

#include "cluster/association_check.hpp"
#include "cluster/clock.hpp"
#include "cluster/job_ref.hpp"
#include "cluster/submission.hpp"
#include "config/job_update.hpp"
#include "policy/array_spec.hpp"

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

/// What an update names: job actors (jobs, and the running tasks of arrays), and arrays whose
/// pending tasks (one record, the array's) change with them.
struct update_targets {
  std::vector<target> jobs;
  std::vector<uint64_t> arrays;
};

/// The targets `texts` name: `12` is every task of array 12, the pending ones too (Slurm
/// changes them all); `12_4` a task with an actor of its own (running, or split off by
/// split_named_tasks). Only their owners and the admins may change them.
caf::expected<update_targets> targets_of(controller_self self,
                                         const std::vector<std::string>& texts, uint32_t uid) {
  auto& st = self->state;
  update_targets found;
  auto& out = found.jobs;
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
    if (ref->whole && !arr->second.pending_text.empty()) {
      auto view = st.job_view.find(ref->id);
      auto owner = view != st.job_view.end() ? view->second.uid : policy::no_owner;
      if (!policy::may(*st.access, uid, policy::operation::update_job, owner))
        return make_error(errc::permission_denied,
                          "Access/permission denied for job " + std::to_string(ref->id));
      found.arrays.push_back(ref->id);
      any = true;
    }
    if (!any) return make_error(errc::invalid_request, "Invalid job id specified for job " + text);
  }
  return found;
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
  if (rec.info.array_job_id != 0 && rec.info.array_task_id >= 0)
    *workload = as_array_task(*workload, rec.info.array_job_id,
                              static_cast<uint32_t>(rec.info.array_task_id));
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

/// The pending tasks of array `id` take `spec`: the array's one record (its task template,
/// listing and saved record) and the scheduler's. Checked as a pending job is.
caf::error update_array(controller_self self, uint64_t id, const config::job_update_spec& spec,
                        uint32_t uid) {
  auto& st = self->state;
  auto arr = st.arrays.find(id);
  auto view = st.job_view.find(id);
  if (arr == st.arrays.end() || view == st.job_view.end())
    return make_error(errc::unknown_job, "Invalid job id specified for job " + std::to_string(id));
  auto& entry = arr->second;
  msg::job_record rec;
  rec.info = view->second;
  rec.info.state = msg::job_state::pending;
  rec.request = entry.task_template.req;
  rec.request.workload.array = entry.spec_text;
  auto revised = revise(self, rec, spec, uid);
  if (!revised) return for_job(revised.error(), id);
  auto& [req, workload] = *revised;
  self->send(st.scheduler, msg::update_atom_v, id, req, workload);
  std::tie(entry.task_template.req, entry.task_template.workload) = task_parts(req, *workload);
  auto info = initial_job_info(entry.task_template);
  info.array_task_id = -1;
  info.array_tasks = entry.pending_text;
  info.reason = view->second.reason;
  info.priority = view->second.priority;
  put_view(st, id, std::move(info));
  save_array(self, id);
  return caf::none;
}

/// The pending tasks of arrays that `texts` name one by one (`12_5`, `12_[3-5]`; `12` changes
/// them with the array), which must be split off to be changed alone. Only their owners and
/// the admins may.
caf::expected<std::vector<std::pair<uint64_t, uint32_t>>> tasks_to_split(
    controller_self self, const std::vector<std::string>& texts, uint32_t uid) {
  auto& st = self->state;
  std::vector<std::pair<uint64_t, uint32_t>> out;
  for (auto& text : texts) {
    auto ref = parse_job_ref(text);
    if (!ref) return to_caf(ref.error());
    auto arr = st.arrays.find(ref->id);
    if (ref->whole || arr == st.arrays.end() || arr->second.pending_text.empty()) continue;
    auto pending = policy::parse_array_spec(arr->second.pending_text, UINT32_MAX);
    if (!pending) continue;
    size_t before = out.size();
    for (auto [lo, hi] : ref->tasks)
      for (uint64_t i = std::max(lo, arr->second.min_index);
           i <= std::min(hi, arr->second.max_index); ++i)
        if (auto index = static_cast<uint32_t>(i);
            pending->indices.contains(index) && arr->second.running.count(index) == 0)
          out.emplace_back(ref->id, index);
    if (out.size() == before) continue;
    auto view = st.job_view.find(ref->id);
    auto owner = view != st.job_view.end() ? view->second.uid : policy::no_owner;
    if (!policy::may(*st.access, uid, policy::operation::update_job, owner))
      return make_error(errc::permission_denied,
                        "Access/permission denied for job " + std::to_string(ref->id));
  }
  return out;
}

/// Has the scheduler split `tasks` off their arrays and gives each a job actor of its own, then
/// calls `done`. A task that started meanwhile is left to its start (its actor is the target).
void split_named_tasks(controller_self self,
                       const std::vector<std::pair<uint64_t, uint32_t>>& tasks,
                       std::function<void()> done) {
  if (tasks.empty()) return done();
  auto timeout = std::chrono::seconds{self->state.cfg.message_timeout_s};
  auto remaining = std::make_shared<size_t>(tasks.size());
  for (auto [array_id, index] : tasks)
    self->request(self->state.scheduler, timeout, msg::update_atom_v, array_id, index)
        .then(
            [self, array_id = array_id, index = index, remaining, done](uint64_t task_id) {
              split_array_task(self, array_id, index, task_id);
              if (--*remaining == 0) done();
            },
            [remaining, done](caf::error&) {
              if (--*remaining == 0) done();
            });
}

/// Changes what `texts` name as `spec` says, answering `rp` once the changes are saved.
void apply_update(controller_self self, caf::typed_response_promise<caf::ok_atom> rp,
                  const std::vector<std::string>& texts,
                  std::shared_ptr<const config::job_update_spec> spec, uint32_t uid) {
  auto named = targets_of(self, texts, uid);
  if (!named) {
    rp.deliver(std::move(named.error()));
    return;
  }
  config::log().info("job update jobs={} arrays={} keys={} uid={}", named->jobs.size(),
                     named->arrays.size(), config::changed_keys(*spec), uid);
  // The arrays' pending tasks first: their one record is the controller's, changed here.
  caf::error first_error;
  for (auto id : named->arrays)
    if (auto err = update_array(self, id, *spec, uid); err && !first_error)
      first_error = std::move(err);
  if (named->jobs.empty()) {
    if (first_error)
      rp.deliver(std::move(first_error));
    else
      deliver_once_saved(self, rp, caf::ok_atom::value);
    return;
  }
  auto remaining = std::make_shared<size_t>(named->jobs.size());
  auto first = std::make_shared<caf::error>(std::move(first_error));
  for (auto& t : named->jobs) {
    update_one(self, t, spec, uid, [self, rp, remaining, first](caf::error err) mutable {
      if (err && !*first) *first = std::move(err);
      if (--*remaining > 0) return;
      if (*first)
        rp.deliver(*first);
      else
        deliver_once_saved(self, rp, caf::ok_atom::value);
    });
  }
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
  auto splits = tasks_to_split(self, texts, update.uid);
  if (!splits) return std::move(splits.error());
  auto rp = self->make_response_promise<caf::ok_atom>();
  auto shared = std::make_shared<const config::job_update_spec>(std::move(*spec));
  split_named_tasks(self, *splits, [self, rp, texts, shared, uid = update.uid]() mutable {
    apply_update(self, rp, texts, shared, uid);
  });
  return rp;
}

void reconfigure_nodes(controller_self self) {
  auto& nodes = self->state.nodes;
  config::log().info("reconfigure: telling the node daemons nodes={}", nodes.size());
  for (auto& [name, node] : nodes) self->send(node, msg::reconfig_atom_v);
}

}  // namespace shoal::actors::ctl
