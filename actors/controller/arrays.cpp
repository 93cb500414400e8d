#include "actors/controller/controller_state.hpp"

#include "cluster/clock.hpp"
#include "cluster/submission.hpp"

namespace shoal::actors::ctl {

using cluster::expand_output_path;

namespace {

void set_env(std::vector<std::string>& env, const std::string& key, const std::string& value) {
  auto entry = key + "=" + value;
  for (auto& e : env)
    if (e.compare(0, key.size() + 1, key + "=") == 0) {
      e = std::move(entry);
      return;
    }
  env.push_back(std::move(entry));
}

}  // namespace

/// An array's record: its task template, its listing line and the tasks still pending.
std::pair<msg::job_request, policy::workload_ptr> task_parts(
    const msg::job_request& array_req, const policy::parsed_workload& array_workload) {
  auto req = array_req;
  req.workload.array.clear();
  req.workload.hold = false;
  // Tasks carry the array's dependency, not its array spec: each task is one job.
  auto workload = std::make_shared<policy::parsed_workload>();
  workload->dep = array_workload.dep;
  workload->gres = array_workload.gres;
  workload->licenses = array_workload.licenses;
  return {std::move(req), std::move(workload)};
}

void save_array(controller_self self, uint64_t id) {
  auto& st = self->state;
  auto arr = st.arrays.find(id);
  auto view = st.job_view.find(id);
  if (arr == st.arrays.end() || view == st.job_view.end()) return;
  msg::array_record rec;
  rec.task_template = arr->second.task_template.req;
  rec.info = view->second;
  rec.spec = arr->second.spec_text;
  rec.pending = arr->second.pending_text;
  persist(self, array_key(id), encoded(rec));
}

/// An array is one record here and a range list in the scheduler, whatever its size; task job ids
/// are reserved now (see job_queue) and tasks become actors when they start.
msg::job_info submit_array(controller_self self, msg::job_request req,
                           policy::workload_ptr workload) {
  auto& st = self->state;
  const auto& spec = workload->array;
  auto id = st.next_job_id;
  array_entry arr;
  arr.spec = spec->indices.runs();
  arr.task_count = spec->indices.count();
  arr.min_index = spec->indices.min();
  arr.max_index = spec->indices.max();
  arr.spec_text = req.workload.array;
  arr.pending_text = spec->indices.to_string();
  if (spec->max_running > 0) arr.pending_text += "%" + std::to_string(spec->max_running);
  st.next_job_id += 1 + arr.task_count;
  auto [task_req, task_workload] = task_parts(req, *workload);
  arr.task_template =
      make_setup(self, id, std::move(task_req), std::move(task_workload), caf::actor{});
  arr.task_template.array_job_id = id;
  auto info = initial_job_info(arr.task_template);
  info.array_task_id = -1;
  info.array_tasks = arr.pending_text;
  if (req.workload.hold) info.reason = "JobHeldUser";
  put_view(st, id, info);
  config::log().info("job submit array job={} user={} partition={} tasks={} spec={}", id, req.user,
                     req.partition, arr.task_count, req.workload.array);
  self->send(st.scheduler, msg::enqueue_atom_v, id, req, std::move(workload),
             caf::actor_cast<caf::actor>(self), arr.task_template.submit_time);
  st.arrays.emplace(id, std::move(arr));
  save_array(self, id);
  save_next_job_id(self);
  if (st.cluster) st.cluster->job_submitted();
  msg::job_info reply;
  reply.job_id = id;
  reply.array_job_id = id;
  reply.state = msg::job_state::pending;
  return reply;
}

policy::workload_ptr as_array_task(const policy::workload_ptr& workload, uint64_t array_id,
                                   uint32_t index) {
  auto marked = workload ? std::make_shared<policy::parsed_workload>(*workload)
                         : std::make_shared<policy::parsed_workload>();
  marked->array_task = policy::parsed_workload::array_task_ref{array_id, index};
  return marked;
}

namespace {

/// Task `index` of `arr` as job `task_id`: the array's template with the task's variables and
/// output paths.
job_setup task_setup(const array_entry& arr, uint64_t array_id, uint32_t index, uint64_t task_id) {
  auto setup = arr.task_template;
  setup.id = task_id;
  setup.array_task_id = index;
  setup.workload = as_array_task(setup.workload, array_id, index);
  auto& req = setup.req;
  set_env(req.env, "SHOAL_ARRAY_JOB_ID", std::to_string(array_id));
  set_env(req.env, "SHOAL_ARRAY_TASK_ID", std::to_string(index));
  set_env(req.env, "SHOAL_ARRAY_TASK_COUNT", std::to_string(arr.task_count));
  set_env(req.env, "SHOAL_ARRAY_TASK_MIN", std::to_string(arr.min_index));
  set_env(req.env, "SHOAL_ARRAY_TASK_MAX", std::to_string(arr.max_index));
  req.stdout_path = expand_output_path(req.stdout_path, task_id, req, array_id, index);
  if (!req.stderr_path.empty())
    req.stderr_path = expand_output_path(req.stderr_path, task_id, req, array_id, index);
  return setup;
}

}  // namespace

/// The scheduler started task `index` of an array: give it a job actor, already placed.
void start_array_task(controller_self self, uint64_t array_id, uint32_t index, uint64_t task_id,
                      std::vector<std::string>& names, std::vector<caf::actor>& actors,
                      std::vector<uint32_t>& cpus, std::string& nodelist,
                      std::vector<msg::gres_held>& gres) {
  auto& st = self->state;
  auto it = st.arrays.find(array_id);
  if (it == st.arrays.end()) {
    self->send(st.scheduler, msg::ended_atom_v, task_id, false, int64_t{0});
    return;
  }
  auto& arr = it->second;
  auto setup = task_setup(arr, array_id, index, task_id);
  setup.start_nodes = std::move(names);
  setup.start_node_actors = std::move(actors);
  setup.start_cpus = std::move(cpus);
  setup.start_nodelist = std::move(nodelist);
  setup.start_gres = std::move(gres);
  // Saved before the scheduler's next news of the array's pending tasks, so a restart finds every
  // started task either pending in the array or as a job of its own.
  record_new_job(self, setup);
  auto job = spawn_job(self->system(), std::move(setup));
  st.jobs.emplace(task_id, job);
  arr.running[index] = task_id;
}

void split_array_task(controller_self self, uint64_t array_id, uint32_t index, uint64_t task_id) {
  auto& st = self->state;
  auto it = st.arrays.find(array_id);
  if (it == st.arrays.end()) {
    // Not while the task pended in the array: an array is forgotten only once none pend.
    config::log().error("array {} unknown for its split task {}", array_id, task_id);
    return;
  }
  auto setup = task_setup(it->second, array_id, index, task_id);
  // Recorded before its actor queues it: a restart finds it as a job of its own, not pending
  // in the array (recover_array leaves out the tasks with records).
  record_new_job(self, setup);
  st.jobs.emplace(task_id, spawn_job(self->system(), std::move(setup)));
  it->second.running[index] = task_id;
}

/// The scheduler's news about an array's pending tasks: its reason, or that none are left.
void on_array_view(controller_self self, uint64_t array_id, const std::string& reason,
                   const std::string& folded) {
  auto& st = self->state;
  auto v = st.job_view.find(array_id);
  if (v == st.job_view.end() || msg::is_finished(v->second.state)) return;
  // folded is "[1-3,5%2]": the pending tasks in --array syntax, bracketed. The listing view
  // holds them unbracketed, as Slurm's array_task_str (squeue adds the brackets to %i only).
  auto unbracketed = folded.size() >= 2 ? folded.substr(1, folded.size() - 2) : std::string{};
  auto arr = st.arrays.find(array_id);
  if (arr != st.arrays.end()) arr->second.pending_text = unbracketed;
  if (folded.empty()) {
    // Kept while its tasks run: a restart still knows the array they belong to.
    save_array(self, array_id);
    st.job_view.erase(v);
    return;
  }
  v->second.reason = reason;
  v->second.array_tasks = unbracketed;
  save_array(self, array_id);
}

}  // namespace shoal::actors::ctl
