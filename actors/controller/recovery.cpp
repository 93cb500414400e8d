#include "actors/controller/controller_state.hpp"

#include "policy/array_spec.hpp"
#include "policy/dependency.hpp"

namespace shoal::actors::ctl {

namespace {

/// A recovered job's dependency, devices, constraint and licenses, parsed again from its saved
/// request (all were checked at submission).
policy::workload_ptr recovered_workload(const msg::job_request& req) {
  auto parsed = std::make_shared<policy::parsed_workload>();
  if (!req.workload.dependency.empty())
    if (auto dep = policy::parse_dependency(req.workload.dependency)) parsed->dep = std::move(*dep);
  if (auto gres = policy::parse_gres_request(req.gres)) parsed->gres = std::move(*gres);
  if (!req.constraint.empty())
    if (auto c = policy::parse_constraint(req.constraint)) parsed->constraint = std::move(*c);
  if (auto l = policy::parse_licenses(req.licenses)) parsed->licenses = std::move(*l);
  return parsed;
}

/// Resumes an array: its task template, its line, and the tasks still pending (less those that have
/// a job record: they started before the array's record caught up).
void recover_array(controller_self self, uint64_t id, msg::array_record& rec,
                   const std::set<std::pair<uint64_t, uint32_t>>& tasks_with_records) {
  auto& st = self->state;
  auto spec = policy::parse_array_spec(rec.spec, UINT32_MAX);
  if (!spec) {
    config::log().error("saved state: array {} has a bad spec '{}': {}", id, rec.spec,
                        describe(spec.error()));
    return;
  }
  array_entry arr;
  arr.spec = spec->indices.runs();
  arr.task_count = spec->indices.count();
  arr.min_index = spec->indices.min();
  arr.max_index = spec->indices.max();
  arr.spec_text = rec.spec;
  arr.pending_text = rec.pending;
  auto task_workload = recovered_workload(rec.task_template);
  arr.task_template = make_setup(self, id, rec.task_template, task_workload, caf::actor{});
  arr.task_template.array_job_id = id;
  arr.task_template.submit_time = rec.info.submit_time;
  st.arrays.emplace(id, std::move(arr));
  // Saved before the listing view held the pending tasks unbracketed.
  auto& tasks = rec.info.array_tasks;
  if (tasks.size() >= 2 && tasks.front() == '[' && tasks.back() == ']')
    tasks = tasks.substr(1, tasks.size() - 2);
  if (msg::is_finished(rec.info.state) || rec.pending.empty()) {
    if (msg::is_finished(rec.info.state)) put_view(st, id, rec.info);
    return;
  }
  auto pending = policy::parse_array_spec(rec.pending, UINT32_MAX);
  if (!pending) return;
  for (auto& [array, index] : tasks_with_records)
    if (array == id) pending->indices.erase(index);
  if (pending->indices.empty()) return;
  put_view(st, id, rec.info);
  auto workload = std::make_shared<policy::parsed_workload>(*task_workload);
  workload->array = std::move(*spec);
  workload->pending_tasks = pending->indices;
  auto req = rec.task_template;
  req.workload.array = rec.spec;
  self->send(st.scheduler, msg::enqueue_atom_v, id, req, policy::workload_ptr{std::move(workload)},
             caf::actor_cast<caf::actor>(self), rec.info.submit_time);
  hold_again(self, st.scheduler, id, rec.info.reason);
}

/// Resumes one job from its record: finished ones only for listings and dependencies, the rest as
/// job actors that carry on (see job.cpp's restore).
void recover_job(controller_self self, uint64_t id, msg::job_record& rec) {
  auto& st = self->state;
  if (msg::is_finished(rec.info.state)) {
    put_view(st, id, rec.info);
    // It may have ended after the store last heard: written again (idempotent), and forgotten
    // only once stored.
    if (st.accounting) self->send(st.accounting, msg::account_atom_v, rec);
    return;
  }
  auto workload = recovered_workload(rec.request);
  bool task = rec.info.array_job_id != 0 && rec.info.array_task_id >= 0;
  if (task)
    workload = as_array_task(workload, rec.info.array_job_id,
                             static_cast<uint32_t>(rec.info.array_task_id));
  auto setup = make_setup(self, id, rec.request, std::move(workload), caf::actor{});
  setup.array_job_id = rec.info.array_job_id;
  setup.array_task_id = rec.info.array_task_id;
  for (auto& name : rec.nodes) {
    auto node = st.nodes.find(name);
    setup.start_node_actors.push_back(
        node != st.nodes.end() ? caf::actor_cast<caf::actor>(node->second) : caf::actor{});
  }
  for (auto& step : rec.steps)
    for (auto& node : step.waiting) st.unconfirmed[node].insert(id);
  if (task) {
    // Running, or pending as a job of its own: cancels and updates of its array reach it.
    auto arr = st.arrays.find(rec.info.array_job_id);
    if (arr != st.arrays.end())
      arr->second.running[static_cast<uint32_t>(rec.info.array_task_id)] = id;
  }
  put_view(st, id, rec.info);
  setup.restored = std::move(rec);
  st.jobs.emplace(id, spawn_job(self->system(), std::move(setup)));
}

/// Gives the interconnect plugin its saved state back before any job actor can allocate or
/// release: what steps of jobs that are still live hold stays held, the rest is free.
void restore_interconnect(controller_self self, const state::record_map& saved,
                          const std::vector<std::pair<uint64_t, msg::job_record>>& jobs) {
  auto& st = self->state;
  auto value = saved.find(switch_key);
  if (!st.interconnect || value == saved.end() || !value->second) return;
  std::set<interconnect::step_key> live;
  for (auto& [id, rec] : jobs)
    if (!msg::is_finished(rec.info.state))
      for (auto& step : rec.steps) live.emplace(id, step.step_id);
  if (auto err = st.interconnect->restore_state(*value->second, live))
    config::log().error("interconnect state not restored switch={}: {}", st.interconnect->name(),
                        describe(err));
}

}  // namespace

/// The controller's state before it stopped: the job id counter, arrays, jobs (finished ones first,
/// so dependencies see their outcomes before anything queues).
void recover(controller_self self, state::record_map& saved) {
  auto& st = self->state;
  std::vector<std::pair<uint64_t, msg::job_record>> jobs;
  std::vector<std::pair<uint64_t, msg::array_record>> arrays;
  std::set<std::pair<uint64_t, uint32_t>> tasks_with_records;
  for (auto& [key, value] : saved) {
    if (key == controller_key) {
      if (auto rec = decode_record<msg::controller_record>(key, value))
        st.next_job_id = std::max(st.next_job_id, rec->next_job_id);
    } else if (key.rfind("job/", 0) == 0) {
      if (auto rec = decode_record<msg::job_record>(key, value)) {
        auto id = rec->info.job_id;
        st.next_job_id = std::max(st.next_job_id, id + 1);
        if (rec->info.array_job_id != 0)
          tasks_with_records.emplace(rec->info.array_job_id,
                                     static_cast<uint32_t>(rec->info.array_task_id));
        jobs.emplace_back(id, std::move(*rec));
      }
    } else if (key.rfind("array/", 0) == 0) {
      if (auto rec = decode_record<msg::array_record>(key, value))
        arrays.emplace_back(rec->info.job_id, std::move(*rec));
    }
  }
  restore_interconnect(self, saved, jobs);
  size_t live = 0;
  for (auto& [id, rec] : jobs) {
    if (!msg::is_finished(rec.info.state)) continue;
    bool ok = rec.info.state == msg::job_state::completed && rec.info.exit_code == 0;
    self->send(st.scheduler, msg::ended_atom_v, id, ok, rec.info.start_time);
  }
  // A client retrying a submission across the restart gets its job back, not a second one.
  for (auto& [id, rec] : arrays)
    if (!rec.task_template.submit_token.empty())
      remember_token(self, rec.task_template.submit_token, id);
  for (auto& [id, rec] : jobs)
    if (!rec.request.submit_token.empty() && rec.info.array_job_id == 0)
      remember_token(self, rec.request.submit_token, id);
  for (auto& [id, rec] : arrays) recover_array(self, id, rec, tasks_with_records);
  for (auto& [id, rec] : jobs) {
    live += msg::is_finished(rec.info.state) ? 0 : 1;
    if (!rec.request.user.empty()) st.user_names[rec.request.uid] = rec.request.user;
    recover_job(self, id, rec);
  }
  for (auto& [id, info] : st.job_view)
    if (st.cluster) st.cluster->job_recovered(info.state);
  config::log().info("state recovered jobs={} live={} arrays={} next_job_id={}", jobs.size(), live,
                     arrays.size(), st.next_job_id);
}

}  // namespace shoal::actors::ctl
