#include "actors/controller/controller_state.hpp"

#include <malloc.h>

#include <algorithm>

#include "cluster/clock.hpp"
#include "messages/field_mask.hpp"
#include "messages/job_filter.hpp"

namespace shoal::actors::ctl {

using cluster::unix_now;

/// Puts a job's listing view in place: the one way views are added or replaced.
void put_view(controller_state& st, uint64_t id, msg::job_info info) {
  st.job_view[id] = std::move(info);
  st.maybe_unfinished.insert(id);
}

std::chrono::seconds purge_interval(const config::cluster_config& cfg) {
  return std::chrono::seconds{std::clamp<int64_t>(cfg.min_job_age_s, 1, 60)};
}

void purge_old_jobs(controller_self self) {
  auto now = unix_now();
  if (now == self->state.last_purge) return;
  self->state.last_purge = now;
  auto cutoff = now - self->state.cfg.min_job_age_s;
  auto& view = self->state.job_view;
  auto& unfinished = self->state.maybe_unfinished;
  unfinished.clear();
  size_t forgotten = 0;
  for (auto it = view.begin(); it != view.end();) {
    // With a store, a job goes only once it is in it (an array's line is no job: its tasks are).
    auto& st = self->state;
    bool array_line = st.arrays.count(it->first) > 0;
    if (msg::is_finished(it->second.state) && it->second.end_time < cutoff &&
        (!st.accounting || array_line || st.stored.erase(it->first) > 0)) {
      if (self->state.cluster) self->state.cluster->job_forgotten(it->second.state);
      persist(self, array_line ? array_key(it->first) : job_key(it->first), nullptr);
      it = view.erase(it);
      ++forgotten;
      continue;
    }
    if (!msg::is_finished(it->second.state)) unfinished.insert(unfinished.end(), it->first);
    ++it;
  }
  // A finished job's records are many small blocks amid newer ones: freed, glibc keeps them in
  // the heap. After a large purge, hand the free pages back so the RSS follows what is kept
  // (a few milliseconds, at most once a second and only after thousands of jobs went).
  if (forgotten >= 4096) ::malloc_trim(0);
  // An array is forgotten once nothing of it pends or runs and its line has gone.
  auto& arrays = self->state.arrays;
  for (auto it = arrays.begin(); it != arrays.end();) {
    auto meta = view.find(it->first);
    bool pending = meta != view.end() && !msg::is_finished(meta->second.state);
    if (!pending && it->second.running.empty() && meta == view.end()) {
      persist(self, array_key(it->first), nullptr);
      it = arrays.erase(it);
    } else
      ++it;
  }
}

/// Every job the controller knows, in id order; finished ones (kept MinJobAge) only on request, so
/// a plain `shoal queue` stays cheap after thousands of jobs.
std::vector<msg::job_info> list_jobs(controller_self self, bool include_finished) {
  return list_job_fields(self, include_finished, msg::all_fields, {});
}

std::vector<msg::job_info> list_job_fields(controller_self self, bool include_finished,
                                           msg::field_mask fields, const msg::job_filter& filter) {
  purge_old_jobs(self);
  auto& st = self->state;
  std::vector<msg::job_info> out;
  bool all = msg::keeps_all(filter);
  if (include_finished) {
    out.reserve(all ? st.job_view.size() : 0);
    for (auto& [id, info] : st.job_view)
      if (all || msg::passes(filter, info)) out.push_back(msg::copy_fields(info, fields));
    return out;
  }
  out.reserve(st.jobs.size());
  for (auto it = st.maybe_unfinished.begin(); it != st.maybe_unfinished.end();) {
    auto view = st.job_view.find(*it);
    if (view == st.job_view.end() || msg::is_finished(view->second.state)) {
      it = st.maybe_unfinished.erase(it);
      continue;
    }
    if (all || msg::passes(filter, view->second))
      out.push_back(msg::copy_fields(view->second, fields));
    ++it;
  }
  return out;
}

void on_job_view(controller_self self, msg::job_info& info) {
  auto& st = self->state;
  if (msg::is_finished(info.state)) {
    st.jobs.erase(info.job_id);
    if (info.array_job_id != 0) {
      auto arr = st.arrays.find(info.array_job_id);
      if (arr != st.arrays.end())
        arr->second.running.erase(static_cast<uint32_t>(info.array_task_id));
    }
  }
  if (msg::is_finished(info.state)) st.step_view.erase(info.job_id);
  auto known = st.job_view.find(info.job_id);
  if (st.cluster)
    st.cluster->job_changed(known != st.job_view.end()
                                ? std::optional<msg::job_state>{known->second.state}
                                : std::nullopt,
                            info.state);
  put_view(st, info.job_id, std::move(info));
}

void on_step_view(controller_self self, uint64_t job_id, std::vector<msg::step_info>& steps) {
  auto& st = self->state;
  auto view = st.job_view.find(job_id);
  if (steps.empty() || (view != st.job_view.end() && msg::is_finished(view->second.state))) {
    st.step_view.erase(job_id);
    return;
  }
  st.step_view[job_id] = std::move(steps);
}

caf::result<std::vector<msg::step_info>> list_steps(controller_self self, uint64_t job_id,
                                                    uint32_t step_id) {
  auto& st = self->state;
  SHOAL_DEBUG(msg, "rpc steps job={} step={}", job_id, msg::step_label(step_id));
  std::vector<msg::step_info> out;
  auto take = [&](const std::vector<msg::step_info>& steps) {
    for (auto& x : steps)
      if (step_id == msg::all_steps || x.step_id == step_id) out.push_back(x);
  };
  if (job_id == 0) {
    for (auto& [id, steps] : st.step_view) take(steps);
    return out;
  }
  // As slurmctld: the job itself, or every task of the array it names.
  bool known = st.job_view.count(job_id) > 0 || st.arrays.count(job_id) > 0;
  for (auto& [id, steps] : st.step_view)
    if (id == job_id || (!steps.empty() && steps.front().array_job_id == job_id)) {
      known = true;
      take(steps);
    }
  // (slurmctld finds no job invalid only when it holds some.)
  if (!known && !st.job_view.empty())
    return make_error(errc::unknown_job, "Invalid job id specified");
  return out;
}

std::vector<msg::job_info> list_all_jobs(controller_self self) {
  SHOAL_DEBUG(msg, "rpc jobs finished=true");
  return list_jobs(self, true);
}

caf::result<msg::job_info> show_job(controller_self self, uint64_t id) {
  auto it = self->state.job_view.find(id);
  if (it == self->state.job_view.end())
    return make_error(errc::unknown_job, "invalid job id " + std::to_string(id));
  return it->second;
}

caf::result<msg::accounted_job> live_step_usage(controller_self self, uint64_t id, uint32_t step) {
  auto& st = self->state;
  if (auto job = st.jobs.find(id); job != st.jobs.end())
    return self->delegate(job->second, msg::usage_atom_v, step);
  auto it = st.job_view.find(id);
  if (it == st.job_view.end())
    return make_error(errc::unknown_job, "invalid job id " + std::to_string(id));
  msg::accounted_job out;
  out.info = it->second;
  return out;
}

}  // namespace shoal::actors::ctl
