#include "actors/controller.hpp"

#include <unistd.h>

#include <csignal>
#include <deque>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

#include <caf/all.hpp>

#include "actors/clock.hpp"
#include "actors/cluster_meters.hpp"
#include "actors/collector_manager.hpp"
#include "actors/job.hpp"
#include "actors/job_ref.hpp"
#include "actors/metering.hpp"
#include "actors/node.hpp"
#include "actors/saved_state.hpp"
#include "actors/scheduler.hpp"
#include "actors/submission.hpp"
#include "config/duration.hpp"
#include "config/log.hpp"
#include "config/partition_edit.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "policy/array_spec.hpp"
#include "policy/dependency.hpp"
#include "policy/job_lifecycle.hpp"
#include "topology/hostlist.hpp"
#include "topology/partition_summary.hpp"
#include "topology/torus.hpp"

namespace shoal::actors {

namespace {

constexpr const char* diag_reset_help =
    "When `shoal diag --reset` last zeroed the statistics (Unix seconds; the start at first).";

/// Finished jobs stay visible this long (Slurm's MinJobAge default).
constexpr int64_t min_job_age_s = 300;

/// A job array: the request its tasks are made from, and which tasks run now. Pending tasks are
/// the scheduler's (a range list there); a task gets an actor only when it starts.
struct array_entry {
  job_setup task_template;
  std::vector<policy::index_range> spec;
  uint64_t task_count = 0;
  uint32_t min_index = 0;
  uint32_t max_index = 0;
  std::map<uint32_t, uint64_t> running;  ///< index -> task job id, while the task's actor lives
  std::string spec_text;                 ///< the --array it was submitted with
  std::string pending_text;  ///< the tasks not started yet, in --array syntax ("": none)
};

struct controller_state {
  static inline const char* name = "controller";
  config::cluster_config cfg;
  std::unordered_map<std::string, node_actor> nodes;
  std::map<std::string, msg::node_info> node_view;
  std::map<uint64_t, job_actor> jobs;
  std::map<uint64_t, msg::job_info> job_view;
  /// The ids of job_view whose job may not have finished: every view put in since the last
  /// purge, plus those unfinished at it. A listing of the unfinished walks these, not every job
  /// kept for MinJobAge, and drops the ones it finds finished or gone.
  std::set<uint64_t> maybe_unfinished;
  /// When purge_old_jobs last walked job_view: listings come many times a second, and ages are
  /// in whole seconds, so one walk a second is enough.
  int64_t last_purge = 0;
  scheduler_actor scheduler;
  collector_manager_actor collectors;  ///< null without CollectorNodes
  std::map<uint64_t, array_entry> arrays;
  uint64_t next_job_id = 1;
  uint32_t admin_uid = 0;
  daemon_gate_actor gate;  ///< null: registrations are believed and launches go unsigned
  /// Submission tokens seen recently -> job id, so a client that lost a reply and retries gets
  /// its job back instead of a second one. Oldest first, for pruning.
  std::unordered_map<std::string, uint64_t> tokens;
  std::deque<std::pair<int64_t, std::string>> token_order;
  metrics::registry* meters = nullptr;                         ///< null: CollectMetrics=NO
  std::shared_ptr<interconnect::switch_manager> interconnect;  ///< SwitchType's plugin
  std::optional<cluster_meters> cluster;                       ///< set with `meters`
  state_keeper_actor keeper;  ///< where the state a restart must not lose goes; null: nowhere
  /// Recovered jobs whose steps a node has not yet confirmed: node -> job ids. The node's next
  /// registration reports what it still runs.
  std::map<std::string, std::set<uint64_t>> unconfirmed;
  /// The partition edits made at run time, as a restart replays them (short: see
  /// config::record_partition_edit).
  std::vector<msg::partition_edit> partition_edits;
};

using controller_self = controller_actor::stateful_pointer<controller_state>;

/// Hands one record to the state keeper (null value: forget the key).
void persist(controller_self self, std::string key, state::value_ptr value) {
  if (self->state.keeper)
    self->send(self->state.keeper, msg::persist_atom_v, std::move(key), std::move(value));
}

void save_next_job_id(controller_self self) {
  msg::controller_record rec;
  rec.next_job_id = self->state.next_job_id;
  persist(self, controller_key, encoded(rec));
}

/// Answers `reply` once everything handed to the keeper so far is durable; with the disk
/// failing, the client hears why instead of an acknowledgement that would be a lie.
template <class T>
caf::result<T> once_saved(controller_self self, T reply) {
  auto& st = self->state;
  if (!st.keeper) return reply;
  auto rp = self->make_response_promise<T>();
  self->request(st.keeper, caf::infinite, msg::sync_atom_v)
      .then([rp, reply](caf::ok_atom) mutable { rp.deliver(std::move(reply)); },
            [rp](caf::error& err) mutable {
              rp.deliver(make_error(errc::system_error,
                                    "the controller cannot save its state: " + describe(err)));
            });
  return rp;
}

/// A partition as listings show it. Partitions are the configuration's (no actor owns them
/// until partitions change at run time).
msg::partition_info partition_view(const config::partition_config& cfg) {
  msg::partition_info info;
  info.name = cfg.name;
  info.state = cfg.state;
  info.is_default = cfg.is_default;
  info.max_time_s = cfg.max_time_s;
  info.default_time_s = cfg.default_time_s;
  info.max_nodes = cfg.max_nodes;
  info.nodes = cfg.nodes;
  info.priority = cfg.priority;
  info.over_subscribe = config::over_subscribe_text(cfg);
  return info;
}

/// Puts a job's listing view in place: the one way views are added or replaced.
void put_view(controller_state& st, uint64_t id, msg::job_info info) {
  st.job_view[id] = std::move(info);
  st.maybe_unfinished.insert(id);
}

void purge_old_jobs(controller_self self) {
  auto now = unix_now();
  if (now == self->state.last_purge) return;
  self->state.last_purge = now;
  auto cutoff = now - min_job_age_s;
  auto& view = self->state.job_view;
  auto& unfinished = self->state.maybe_unfinished;
  unfinished.clear();
  for (auto it = view.begin(); it != view.end();) {
    if (msg::is_finished(it->second.state) && it->second.end_time < cutoff) {
      if (self->state.cluster) self->state.cluster->job_forgotten(it->second.state);
      persist(self,
              self->state.arrays.count(it->first) > 0 ? array_key(it->first) : job_key(it->first),
              nullptr);
      it = view.erase(it);
      continue;
    }
    if (!msg::is_finished(it->second.state)) unfinished.insert(unfinished.end(), it->first);
    ++it;
  }
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

/// How long a submission token is remembered: far longer than any client retries.
constexpr int64_t token_memory_s = 600;

void remember_token(controller_self self, const std::string& token, uint64_t id) {
  auto& st = self->state;
  auto now = unix_now();
  while (!st.token_order.empty() && st.token_order.front().first < now - token_memory_s) {
    st.tokens.erase(st.token_order.front().second);
    st.token_order.pop_front();
  }
  st.tokens.emplace(token, id);
  st.token_order.emplace_back(now, token);
}

/// Every job the controller knows, in id order; finished ones (kept MinJobAge) only on request,
/// so a plain `shoal queue` stays cheap after thousands of jobs.
std::vector<msg::job_info> list_jobs(controller_self self, bool include_finished) {
  purge_old_jobs(self);
  auto& st = self->state;
  std::vector<msg::job_info> out;
  if (include_finished) {
    out.reserve(st.job_view.size());
    for (auto& [id, info] : st.job_view) out.push_back(info);
    return out;
  }
  out.reserve(st.jobs.size());
  for (auto it = st.maybe_unfinished.begin(); it != st.maybe_unfinished.end();) {
    auto view = st.job_view.find(*it);
    if (view == st.job_view.end() || msg::is_finished(view->second.state)) {
      it = st.maybe_unfinished.erase(it);
      continue;
    }
    out.push_back(view->second);
    ++it;
  }
  return out;
}

/// Parses the job's --array and --dependency, the one place they are parsed in shoalctld, before
/// a job exists, so a bad value is the submitter's error, not a job stuck pending.
caf::expected<policy::workload_ptr> parse_workload(controller_self self,
                                                   const msg::job_request& req) {
  auto& st = self->state;
  const auto& w = req.workload;
  auto parsed = std::make_shared<policy::parsed_workload>();
  if (!w.array.empty()) {
    if (!req.batch) return make_error(errc::invalid_request, "--array is for batch jobs only");
    auto spec = policy::parse_array_spec(w.array, st.cfg.scheduling.max_array_size);
    if (!spec)
      return make_error(errc::invalid_request,
                        "Invalid job array specification: " + describe(spec.error()));
    parsed->array = std::move(*spec);
  }
  if (!w.dependency.empty()) {
    auto dep = policy::parse_dependency(w.dependency);
    if (!dep) return to_caf(dep.error());
    policy::dependency_view known;
    known.outcome = [&st](uint64_t job, std::optional<uint32_t>) {
      policy::job_outcome o;
      o.known = st.job_view.count(job) > 0 || st.arrays.count(job) > 0;
      return o;
    };
    known.singleton_busy = [] { return false; };
    auto unknown = policy::unknown_targets(*dep, known);
    if (!unknown.empty())
      return make_error(errc::invalid_request,
                        "Job dependency problem: job " + std::to_string(unknown.front().job) +
                            " is not known (it never existed or ended more than " +
                            std::to_string(min_job_age_s) + " s ago)");
    parsed->dep = std::move(*dep);
  }
  return policy::workload_ptr{std::move(parsed)};
}

job_setup make_setup(controller_self self, uint64_t id, msg::job_request req,
                     policy::workload_ptr workload, caf::actor client) {
  auto& st = self->state;
  job_setup setup;
  setup.id = id;
  setup.req = std::move(req);
  setup.workload = std::move(workload);
  setup.kill_wait_s = st.cfg.kill_wait_s;
  setup.mail_prog = st.cfg.mail_prog;
  setup.cluster_name = st.cfg.cluster_name;
  setup.meters = st.meters;
  setup.admin_uid = st.admin_uid;
  setup.client = std::move(client);
  setup.controller = caf::actor_cast<caf::actor>(self);
  setup.scheduler = st.scheduler;
  setup.shared_nodes = st.cfg.scheduling.consumable;
  setup.interconnect = st.interconnect;
  setup.keeper = st.keeper;
  return setup;
}

/// A job's record as first saved, before its actor runs: the submission is durable before the
/// client hears of it, and the job's own later records replace this one.
void save_new_job(controller_self self, const job_setup& setup) {
  msg::job_record rec;
  rec.request = setup.req;
  rec.info = initial_job_info(setup);
  rec.life_state = static_cast<uint32_t>(policy::initial_lifecycle(setup.req.workload.hold).state);
  rec.life_reason = rec.info.reason;
  persist(self, job_key(setup.id), encoded(rec));
}

/// Lists a new job from now, not from its actor's first news: a `queue` or `show job` sent right
/// after the submission's reply must find it.
void record_initial_view(controller_self self, const job_setup& setup) {
  auto& st = self->state;
  auto info = initial_job_info(setup);
  if (st.cluster) st.cluster->job_changed(std::nullopt, info.state);
  put_view(st, setup.id, std::move(info));
}

/// An array's record: its task template, its listing line and the tasks still pending.
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

/// An array is one record here and a range list in the scheduler, whatever its size; task job
/// ids are reserved now (see job_queue) and tasks become actors when they start.
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
  auto task_req = req;
  task_req.workload.array.clear();
  task_req.workload.hold = false;
  // Tasks carry the array's dependency, not its array spec: each task is one job.
  auto task_workload = std::make_shared<policy::parsed_workload>();
  task_workload->dep = workload->dep;
  arr.task_template =
      make_setup(self, id, std::move(task_req), std::move(task_workload), caf::actor{});
  arr.task_template.array_job_id = id;
  auto info = initial_job_info(arr.task_template);
  info.array_task_id = -1;
  info.array_tasks = policy::folded_tasks(spec->indices, spec->max_running);
  if (req.workload.hold) info.reason = "JobHeldUser";
  put_view(st, id, info);
  config::log().info("job submit array job={} user={} partition={} tasks={} spec={}", id, req.user,
                     req.partition, arr.task_count, req.workload.array);
  self->send(st.scheduler, msg::enqueue_atom_v, id, req, std::move(workload),
             caf::actor_cast<caf::actor>(self));
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

caf::result<msg::job_info> submit_job(controller_self self, msg::job_request& req,
                                      caf::actor& client) {
  auto& st = self->state;
  if (!req.submit_token.empty()) {
    auto known = st.tokens.find(req.submit_token);
    if (known != st.tokens.end()) {
      config::log().info("job submit retried job={} user={}", known->second, req.user);
      msg::job_info info;
      info.job_id = known->second;
      auto view = st.job_view.find(known->second);
      info.state = view != st.job_view.end() ? view->second.state : msg::job_state::pending;
      return info;
    }
  }
  auto resolved = resolve_submission(st.cfg, st.node_view, req);
  caf::expected<policy::workload_ptr> workload{policy::workload_ptr{}};
  if (resolved) workload = parse_workload(self, *resolved);
  if (resolved && !workload) resolved = workload.error();
  if (!resolved) {
    config::log().info("job rejected user={} reason=\"{}\"", req.user, describe(resolved.error()));
    return std::move(resolved.error());
  }
  auto token = resolved->submit_token;
  if (!resolved->workload.array.empty()) {
    auto info = submit_array(self, std::move(*resolved), std::move(*workload));
    if (!token.empty()) remember_token(self, token, info.job_id);
    return once_saved(self, std::move(info));
  }
  auto id = st.next_job_id++;
  auto setup = make_setup(self, id, std::move(*resolved), std::move(*workload), client);
  if (setup.req.batch) {
    setup.req.stdout_path = expand_output_path(setup.req.stdout_path, setup.id, setup.req);
    if (!setup.req.stderr_path.empty())
      setup.req.stderr_path = expand_output_path(setup.req.stderr_path, setup.id, setup.req);
  }
  config::log().info("job submit job={} user={} partition={} nodes={} tasks={} batch={}", id,
                     setup.req.user, setup.req.partition, setup.req.min_nodes, setup.req.ntasks,
                     setup.req.batch);
  save_new_job(self, setup);
  save_next_job_id(self);
  record_initial_view(self, setup);
  // Not linked: unlinking is linear in the links held, paid at every job's end, and shoalctld
  // exits without tearing its actors down anyway.
  auto job = spawn_job(self->system(), std::move(setup));
  st.jobs.emplace(id, job);
  if (!token.empty()) remember_token(self, token, id);
  if (st.cluster) st.cluster->job_submitted();
  msg::job_info info;
  info.job_id = id;
  info.state = msg::job_state::pending;
  return once_saved(self, std::move(info));
}

/// --test-only: the job as a submission would make it, placed by the scheduler against what
/// runs now; nothing is recorded, and the id it would get is not taken.
caf::result<msg::start_estimate> will_run(controller_self self, msg::job_request& req) {
  auto& st = self->state;
  req.job_id = 0;
  req.workload.array.clear();  // estimated as one task, as Slurm's will_run does
  auto resolved = resolve_submission(st.cfg, st.node_view, req);
  if (!resolved) return std::move(resolved.error());
  auto workload = parse_workload(self, *resolved);
  if (!workload) return std::move(workload.error());
  return self->delegate(st.scheduler, msg::willrun_atom_v, st.next_job_id, std::move(*resolved),
                        std::move(*workload));
}

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

void set_env(std::vector<std::string>& env, const std::string& key, const std::string& value) {
  auto entry = key + "=" + value;
  for (auto& e : env)
    if (e.compare(0, key.size() + 1, key + "=") == 0) {
      e = std::move(entry);
      return;
    }
  env.push_back(std::move(entry));
}

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
  auto setup = arr.task_template;
  setup.id = task_id;
  setup.array_task_id = index;
  auto& req = setup.req;
  set_env(req.env, "SHOAL_ARRAY_JOB_ID", std::to_string(array_id));
  set_env(req.env, "SHOAL_ARRAY_TASK_ID", std::to_string(index));
  set_env(req.env, "SHOAL_ARRAY_TASK_COUNT", std::to_string(arr.task_count));
  set_env(req.env, "SHOAL_ARRAY_TASK_MIN", std::to_string(arr.min_index));
  set_env(req.env, "SHOAL_ARRAY_TASK_MAX", std::to_string(arr.max_index));
  req.stdout_path = expand_output_path(req.stdout_path, task_id, req, array_id, index);
  if (!req.stderr_path.empty())
    req.stderr_path = expand_output_path(req.stderr_path, task_id, req, array_id, index);
  setup.start_nodes = std::move(names);
  setup.start_node_actors = std::move(actors);
  setup.start_cpus = std::move(cpus);
  setup.start_nodelist = std::move(nodelist);
  setup.start_gres = std::move(gres);
  // Saved before the scheduler's next news of the array's pending tasks, so a restart finds
  // every started task either pending in the array or as a job of its own.
  save_new_job(self, setup);
  record_initial_view(self, setup);
  auto job = spawn_job(self->system(), std::move(setup));
  st.jobs.emplace(task_id, job);
  arr.running[index] = task_id;
}

/// The scheduler's news about an array's pending tasks: its reason, or that none are left.
void on_array_view(controller_self self, uint64_t array_id, const std::string& reason,
                   const std::string& folded) {
  auto& st = self->state;
  auto v = st.job_view.find(array_id);
  if (v == st.job_view.end() || msg::is_finished(v->second.state)) return;
  auto arr = st.arrays.find(array_id);
  if (arr != st.arrays.end()) {
    // folded is "[1-3,5%2]": the pending tasks in --array syntax, bracketed.
    arr->second.pending_text =
        folded.size() >= 2 ? folded.substr(1, folded.size() - 2) : std::string{};
  }
  if (folded.empty()) {
    // Kept while its tasks run: a restart still knows the array they belong to.
    save_array(self, array_id);
    st.job_view.erase(v);
    return;
  }
  v->second.reason = reason;
  v->second.array_tasks = folded;
  save_array(self, array_id);
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

/// Sends every request and answers ok once all answered ok and everything handed to the keeper
/// so far (the controller's own records the answers brought, such as an array's held line) is
/// durable; else the first error.
caf::result<caf::ok_atom> all_ok(controller_self self,
                                 std::vector<std::pair<caf::actor, caf::message>> requests) {
  auto rp = self->make_response_promise<caf::ok_atom>();
  auto remaining = std::make_shared<size_t>(requests.size());
  auto failed = std::make_shared<bool>(false);
  for (auto& [to, m] : requests) {
    self->request(to, std::chrono::seconds{10}, std::move(m))
        .then(
            [self, rp, remaining, failed](caf::ok_atom) mutable {
              if (--*remaining > 0 || *failed) return;
              auto& keeper = self->state.keeper;
              if (!keeper) {
                rp.deliver(caf::ok_atom::value);
                return;
              }
              self->request(keeper, caf::infinite, msg::sync_atom_v)
                  .then([rp](caf::ok_atom) mutable { rp.deliver(caf::ok_atom::value); },
                        [rp](caf::error& err) mutable {
                          rp.deliver(
                              make_error(errc::system_error,
                                         "the controller cannot save its state: " + describe(err)));
                        });
            },
            [rp, failed](caf::error& err) mutable {
              if (!*failed) {
                *failed = true;
                rp.deliver(std::move(err));
              }
            });
  }
  return rp;
}

/// hold, uhold, release, top (the scheduler's) and requeue (running jobs'), on each job named;
/// one reply for all, the first error if any.
/// Under AuthType=auth/munge a client's request counts only when it came through this process's
/// front door, where its MUNGE credential was checked: CAF's own port authenticates nobody, so a
/// request from another host's actor system proves nothing. (Node daemons send none of these.)
caf::error unproven(controller_self self) {
  if (!self->state.cfg.auth.munge) return caf::none;
  const auto& sender = self->current_sender();
  if (!sender || sender->node() == self->node()) return caf::none;
  config::log().warn(
      "request refused: it came over the CAF port from {}, not through the front door",
      to_string(sender->node()));
  return make_error(errc::authentication_failed,
                    "Protocol authentication error (send requests through the front door, the "
                    "port after SlurmctldPort, with a MUNGE credential)");
}

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

caf::result<caf::ok_atom> update_nodes(controller_self self, const msg::node_update& up) {
  auto& st = self->state;
  auto names = topology::expand_hostlist(up.nodes);
  if (!names) return to_caf(names.error());
  if (names->empty()) return make_error(errc::invalid_request, "no node names given");
  for (auto& n : *names)
    if (st.nodes.count(n) == 0)
      return make_error(errc::unknown_node, "invalid node name '" + n + "'");
  std::vector<std::pair<caf::actor, caf::message>> requests;
  for (auto& n : *names)
    requests.emplace_back(caf::actor_cast<caf::actor>(st.nodes[n]),
                          caf::make_message(msg::nodeupd_atom_v, up));
  return all_ok(self, std::move(requests));
}

/// The key the partition edits are saved under; they are replayed over the config's partitions
/// when a controller starts from saved state.
const std::string partitions_key = "partitions";

/// `shoal control update|create|delete partitionname=`: the controller owns the partition table;
/// the scheduler (placement, priorities) and the nodes that joined or left a partition hear the
/// new one, and the edit is durable before the client hears ok. Deleting a partition that pending
/// or running jobs use is refused, as Slurm does.
caf::result<caf::ok_atom> edit_partitions(controller_self self, const msg::partition_edit& edit) {
  auto& st = self->state;
  auto parts = config::apply_partition_edit(st.cfg, edit);
  if (!parts) return to_caf(parts.error());
  if (edit.action == "delete")
    for (auto& [id, job] : st.job_view)
      if (job.partition == edit.name && !msg::is_finished(job.state))
        return make_error(errc::invalid_request, "Partition is in use (job " + std::to_string(id) +
                                                     " is " + msg::to_string(job.state) +
                                                     " in it)");
  std::map<std::string, std::vector<std::string>> before;
  for (auto& n : st.cfg.nodes) before[n.name] = n.partitions;
  st.cfg.partitions = std::move(*parts);
  config::assign_node_partitions(st.cfg);
  for (auto& n : st.cfg.nodes)
    if (before[n.name] != n.partitions)
      self->send(st.nodes.at(n.name), msg::parts_atom_v, n.partitions);
  self->send(st.scheduler, msg::parts_atom_v,
             std::make_shared<const std::vector<config::partition_config>>(st.cfg.partitions));
  config::record_partition_edit(st.partition_edits, edit);
  msg::partition_edits_record rec;
  rec.edits = st.partition_edits;
  persist(self, partitions_key, encoded(rec));
  std::string settings;
  for (auto& w : edit.settings) settings += (settings.empty() ? "" : " ") + w;
  config::log().info("partition {} name={} settings=\"{}\" user={}", edit.action, edit.name,
                     settings, edit.user);
  return once_saved(self, caf::ok_atom::value);
}

/// The partitions as the saved edits left them (before any actor is spawned from the config).
void replay_partitions(controller_state& st, const state::record_map& saved) {
  auto rec = saved.find(partitions_key);
  if (rec == saved.end()) return;
  auto edits = decoded<msg::partition_edits_record>(rec->second);
  if (!edits) {
    config::log().error("saved state: record {} unreadable, skipped: {}", partitions_key,
                        describe(edits.error()));
    return;
  }
  std::vector<std::string> skipped;
  config::replay_partition_edits(st.cfg, edits->edits, skipped);
  for (auto& why : skipped)
    config::log().warn("saved partition edit no longer applies, dropped: {}", why);
  st.partition_edits = std::move(edits->edits);
  config::log().info("partition edits replayed edits={} dropped={}", st.partition_edits.size(),
                     skipped.size());
}

/// `shoal control setdebug`: the new level's name, or errc::invalid_request naming the levels.
caf::result<std::string> on_setdebug(const std::string& text, const std::string& user) {
  auto level = config::parse_debug_level(text);
  if (!level) return make_error(errc::invalid_request, describe(level.error()));
  auto before = config::log_level();
  // Written while the more verbose of the two levels is in force, so it shows in either case.
  auto note = [&] {
    config::log().info("debug level changed from={} to={} user={}", config::to_string(before),
                       config::to_string(*level), user);
  };
  if (*level < before) note();
  config::set_log_level(*level);
  if (*level >= before) note();
  return std::string{config::to_string(*level)};
}

/// `shoal control setdebugflags +Flag -Flag`: the flags now on ("" for none), or
/// errc::invalid_request.
caf::result<std::string> on_setdebugflags(const std::string& changes, const std::string& user) {
  std::vector<std::string> words;
  std::istringstream in{changes};
  for (std::string w; in >> w;) words.push_back(w);
  auto flags = config::change_debug_flags(config::debug_flags(), words);
  if (!flags) return to_caf(flags.error());
  auto before = config::render_debug_flags(config::debug_flags());
  config::set_debug_flags(*flags);
  auto now = config::render_debug_flags(*flags);
  config::log().info("debug flags changed from=\"{}\" to=\"{}\" user={}", before, now, user);
  return now;
}

/// How RPCs that carry only a uid are attributed: "uid:N" (no user-database lookup in a handler).
std::string uid_label(uint32_t uid) {
  return "uid:" + std::to_string(uid);
}

/// `shoal diag --reset` (sdiag -r): zeroes the RPC, scheduler and job-count statistics.
/// Control passes to another shoalctld: see controller_actor's handover_atom. The ok comes once
/// everything saved so far is durable, so the next controller loads all of it.
caf::result<caf::ok_atom> hand_over(controller_self self) {
  // Job actors are not linked to the controller (see submit_job), so killing the controller
  // would leave them running: stop them here. Their tasks keep running on the nodes.
  config::log().info("controller handing over jobs={}", self->state.jobs.size());
  for (auto& [id, job] : self->state.jobs) self->send_exit(job, caf::exit_reason::kill);
  self->state.jobs.clear();
  return once_saved(self, caf::ok_atom::value);
}

caf::result<caf::ok_atom> reset_diag(controller_self self, uint32_t uid) {
  auto& st = self->state;
  if (uid != 0 && uid != st.admin_uid)
    return make_error(errc::permission_denied,
                      "only root or the controller's user may reset the statistics");
  if (!st.meters) return make_error(errc::invalid_request, "metrics are off (CollectMetrics=NO)");
  for (auto prefix : diag_reset_prefixes) st.meters->reset(prefix);
  st.meters->gauge_of("shoal_diag_reset_time_seconds", diag_reset_help)
      .set(static_cast<double>(unix_now()));
  config::log().info("diag statistics reset uid={}", uid);
  return caf::ok_atom::value;
}

/// A recovered queued job's dependency, parsed again (its targets were checked at submission).
policy::workload_ptr recovered_workload(const msg::job_request& req) {
  auto parsed = std::make_shared<policy::parsed_workload>();
  if (!req.workload.dependency.empty())
    if (auto dep = policy::parse_dependency(req.workload.dependency)) parsed->dep = std::move(*dep);
  return parsed;
}

/// Records that failed to decode are logged and skipped: one bad record must not cost the rest.
template <class T>
std::optional<T> decode_record(const std::string& key, const state::value_ptr& value) {
  auto rec = decoded<T>(value);
  if (!rec) {
    config::log().error("saved state: record {} unreadable, skipped: {}", key,
                        describe(rec.error()));
    return std::nullopt;
  }
  return std::move(*rec);
}

/// Resumes an array: its task template, its line, and the tasks still pending (less those that
/// have a job record: they started before the array's record caught up).
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
  st.arrays.emplace(id, std::move(arr));
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
             caf::actor_cast<caf::actor>(self));
  hold_again(self, st.scheduler, id, rec.info.reason);
}

/// Resumes one job from its record: finished ones only for listings and dependencies, the rest
/// as job actors that carry on (see job.cpp's restore).
void recover_job(controller_self self, uint64_t id, msg::job_record& rec) {
  auto& st = self->state;
  if (msg::is_finished(rec.info.state)) {
    put_view(st, id, rec.info);
    return;
  }
  auto setup = make_setup(self, id, rec.request, recovered_workload(rec.request), caf::actor{});
  setup.array_job_id = rec.info.array_job_id;
  setup.array_task_id = rec.info.array_task_id;
  for (auto& name : rec.nodes) {
    auto node = st.nodes.find(name);
    setup.start_node_actors.push_back(
        node != st.nodes.end() ? caf::actor_cast<caf::actor>(node->second) : caf::actor{});
  }
  for (auto& step : rec.steps)
    for (auto& node : step.waiting) st.unconfirmed[node].insert(id);
  if (rec.info.array_job_id != 0) {
    auto arr = st.arrays.find(rec.info.array_job_id);
    if (arr != st.arrays.end() && !rec.nodes.empty())
      arr->second.running[static_cast<uint32_t>(rec.info.array_task_id)] = id;
  }
  put_view(st, id, rec.info);
  setup.restored = std::move(rec);
  st.jobs.emplace(id, spawn_job(self->system(), std::move(setup)));
}

/// The controller's state before it stopped: the job id counter, arrays, jobs (finished ones
/// first, so dependencies see their outcomes before anything queues).
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
    recover_job(self, id, rec);
  }
  for (auto& [id, info] : st.job_view)
    if (st.cluster) st.cluster->job_changed(std::nullopt, info.state);
  config::log().info("state recovered jobs={} live={} arrays={} next_job_id={}", jobs.size(), live,
                     arrays.size(), st.next_job_id);
}

/// A registering daemon's report: ended steps reach their jobs, recovered jobs learn which of
/// their steps the node still runs, and tasks of jobs this controller does not know are killed.
void reconcile(controller_self self, const std::string& node, const caf::actor& daemon,
               msg::node_report& report) {
  auto& st = self->state;
  for (auto& ex : report.ended) {
    auto job = st.jobs.find(ex.job_id);
    if (job != st.jobs.end()) self->send(job->second, std::move(ex));
  }
  std::map<uint64_t, std::vector<uint32_t>> running;
  for (auto& ref : report.running) {
    if (st.jobs.count(ref.job_id) > 0) {
      running[ref.job_id].push_back(ref.step_id);
      continue;
    }
    config::log().warn("job unknown to the controller node={} job={} step={}: killing its tasks",
                       node, ref.job_id, msg::step_label(ref.step_id));
    if (st.gate)
      self->send(st.gate, msg::signal_atom_v, ref.job_id, ref.step_id, int32_t{SIGKILL}, daemon);
    else
      caf::anon_send(daemon, msg::signal_atom_v, ref.job_id, ref.step_id, int32_t{SIGKILL},
                     std::string{});
  }
  auto waiting = st.unconfirmed.find(node);
  if (waiting == st.unconfirmed.end()) return;
  for (auto id : waiting->second) {
    auto job = st.jobs.find(id);
    if (job != st.jobs.end()) self->send(job->second, msg::adopt_atom_v, node, running[id]);
  }
  st.unconfirmed.erase(waiting);
}

/// The node actor a daemon's registration goes to, once the steps it reports are reconciled;
/// errc::unknown_node for a name the config lacks.
caf::expected<node_actor> admit(controller_self self, const msg::machine_status& rep,
                                const caf::actor& daemon, msg::node_report* report) {
  SHOAL_DEBUG(init, "registration node={} host={} pid={} cpus={}", rep.node_name, rep.hostname,
              rep.daemon_pid, rep.cpus);
  auto it = self->state.nodes.find(rep.node_name);
  if (it == self->state.nodes.end()) {
    config::log().warn("registration refused node={} host={}", rep.node_name, rep.hostname);
    return make_error(errc::unknown_node,
                      "node '" + rep.node_name + "' is not in the controller's configuration");
  }
  if (report) reconcile(self, rep.node_name, daemon, *report);
  return it->second;
}

/// Registration: with a gate, only once it vouched for the daemon (a crafted peer on the CAF
/// port cannot pose as a node); then the node actor answers with its handle.
caf::result<caf::actor> on_register(controller_self self, msg::machine_status& rep,
                                    caf::actor& daemon, msg::node_report* report) {
  auto& st = self->state;
  if (!st.gate) {
    rep.credential.clear();
    auto node = admit(self, rep, daemon, report);
    if (!node) return std::move(node.error());
    return self->delegate(*node, msg::register_atom_v, std::move(rep), std::move(daemon));
  }
  auto rp = self->make_response_promise<caf::actor>();
  auto kept = report ? std::optional<msg::node_report>{std::move(*report)} : std::nullopt;
  auto checked = kept ? *kept : msg::node_report{};
  self->request(st.gate, std::chrono::seconds{10}, msg::register_atom_v, rep, std::move(checked))
      .then(
          [self, rp, rep, daemon, kept](caf::ok_atom) mutable {
            rep.credential.clear();
            auto node = admit(self, rep, daemon, kept ? &*kept : nullptr);
            if (!node)
              rp.deliver(std::move(node.error()));
            else
              rp.delegate(*node, msg::register_atom_v, std::move(rep), std::move(daemon));
          },
          [rp, rep](caf::error& err) mutable {
            config::log().warn("registration refused node={} host={} pid={}: {}", rep.node_name,
                               rep.hostname, rep.daemon_pid, describe(err));
            rp.deliver(std::move(err));
          });
  return rp;
}

controller_actor::behavior_type controller_behavior(
    controller_self self, config::cluster_config cfg, metrics::registry* meters,
    std::shared_ptr<interconnect::switch_manager> interconnect, controller_recovery recovery,
    daemon_gate_actor gate) {
  auto& st = self->state;
  st.cfg = std::move(cfg);
  st.gate = std::move(gate);
  if (st.gate) self->link_to(st.gate);
  st.keeper = std::move(recovery.keeper);
  st.interconnect = std::move(interconnect);
  if (!st.interconnect) {
    auto plugin = interconnect::make_switch_manager(st.cfg.switch_type);
    if (!plugin) plugin = interconnect::make_switch_manager("switch/none");
    st.interconnect = std::shared_ptr<interconnect::switch_manager>{std::move(*plugin)};
  }
  st.meters = meters;
  if (meters) {
    st.cluster.emplace(*meters);
    meters->gauge_of("shoal_diag_reset_time_seconds", diag_reset_help)
        .set(static_cast<double>(unix_now()));
  }
  actor_probe probe{self, meters, "controller"};
  st.admin_uid = static_cast<uint32_t>(::getuid());
  replay_partitions(st, recovery.saved);
  std::vector<caf::actor> ordered_nodes;
  for (auto& n : st.cfg.nodes) {
    std::optional<msg::node_record> saved;
    if (auto rec = recovery.saved.find(node_key(n.name)); rec != recovery.saved.end())
      saved = decode_record<msg::node_record>(rec->first, rec->second);
    auto node = spawn_node(self->system(), n, caf::actor_cast<caf::actor>(self),
                           st.cfg.heartbeat_timeout_ms, st.cfg.heartbeat_interval_ms, meters,
                           st.keeper, std::move(saved), st.gate);
    self->link_to(node);
    st.nodes.emplace(n.name, node);
    ordered_nodes.push_back(caf::actor_cast<caf::actor>(node));
  }
  st.scheduler = spawn_scheduler(self->system(), st.cfg, std::move(ordered_nodes),
                                 caf::actor_cast<caf::actor>(self), meters);
  self->link_to(st.scheduler);
  if (!st.cfg.collector_nodes.empty()) {
    collector_manager_setup cs;
    cs.collectors = st.cfg.collector_nodes;
    std::set<std::string> is_collector(cs.collectors.begin(), cs.collectors.end());
    for (auto& n : st.cfg.nodes) {
      if (is_collector.count(n.name) != 0)
        cs.hosts[n.name] = n.address.empty() ? n.name : n.address;
      else
        cs.nodes.push_back(n.name);
    }
    for (auto& [name, node] : st.nodes) cs.node_actors.emplace(name, node);
    cs.heartbeat_interval_ms = st.cfg.heartbeat_interval_ms;
    cs.heartbeat_timeout_ms = st.cfg.heartbeat_timeout_ms;
    cs.settle_ms = std::min<int64_t>(st.cfg.heartbeat_interval_ms, 10000);
    cs.meters = meters;
    cs.keeper = st.keeper;
    if (auto rec = recovery.saved.find("collectors"); rec != recovery.saved.end())
      cs.saved = decode_record<msg::collector_map_record>(rec->first, rec->second);
    st.collectors = spawn_collector_manager(self->system(), std::move(cs));
    self->link_to(st.collectors);
  }
  if (!recovery.saved.empty()) recover(self, recovery.saved);
  config::log().info("controller up cluster={} nodes={} partitions={}", st.cfg.cluster_name,
                     st.cfg.nodes.size(), st.cfg.partitions.size());
  SHOAL_DEBUG(init,
              "controller settings heartbeat_interval_ms={} heartbeat_timeout_ms={} "
              "kill_wait_s={} debug_flags={}",
              st.cfg.heartbeat_interval_ms, st.cfg.heartbeat_timeout_ms, st.cfg.kill_wait_s,
              config::render_debug_flags(config::debug_flags()));
  return {
      probe.rpc("register",
                [self](msg::register_atom, msg::machine_status& rep, caf::actor& daemon)
                    -> caf::result<caf::actor> { return on_register(self, rep, daemon, nullptr); }),
      probe.rpc("register",
                [self](msg::register_atom, msg::machine_status& rep, caf::actor& daemon,
                       msg::node_report& report) -> caf::result<caf::actor> {
                  return on_register(self, rep, daemon, &report);
                }),
      probe.metered("view_node",
                    [self](msg::view_atom, msg::node_info& info) {
                      auto& st = self->state;
                      self->send(st.scheduler, msg::view_atom_v, info);
                      auto known = st.node_view.find(info.name);
                      if (st.cluster)
                        st.cluster->node_changed(
                            known != st.node_view.end()
                                ? std::optional<msg::node_state>{known->second.state}
                                : std::nullopt,
                            info.state);
                      st.node_view[info.name] = std::move(info);
                    }),
      probe.metered("view_job",
                    [self](msg::view_atom, msg::job_info& info) {
                      auto& st = self->state;
                      if (msg::is_finished(info.state)) {
                        st.jobs.erase(info.job_id);
                        if (info.array_job_id != 0) {
                          auto arr = st.arrays.find(info.array_job_id);
                          if (arr != st.arrays.end())
                            arr->second.running.erase(static_cast<uint32_t>(info.array_task_id));
                        }
                      }
                      auto known = st.job_view.find(info.job_id);
                      if (st.cluster)
                        st.cluster->job_changed(
                            known != st.job_view.end()
                                ? std::optional<msg::job_state>{known->second.state}
                                : std::nullopt,
                            info.state);
                      put_view(st, info.job_id, std::move(info));
                    }),
      probe.metered(
          "view_array",
          [self](msg::view_atom, uint64_t array_id, const std::string& reason,
                 const std::string& folded) { on_array_view(self, array_id, reason, folded); }),
      probe.metered("arraytask",
                    [self](msg::arraytask_atom, uint64_t array_id, uint32_t index, uint64_t task_id,
                           std::vector<std::string>& names, std::vector<caf::actor>& actors,
                           std::vector<uint32_t>& cpus, std::string& nodelist,
                           std::vector<msg::gres_held>& gres) {
                      start_array_task(self, array_id, index, task_id, names, actors, cpus,
                                       nodelist, gres);
                    }),
      probe.rpc("jobctl",
                [self, probe](msg::jobctl_atom, const msg::job_control& ctl) {
                  probe.attribute_to(uid_label(ctl.uid));
                  if (auto err = unproven(self)) return caf::result<caf::ok_atom>{std::move(err)};
                  return job_control(self, ctl);
                }),
      probe.rpc("pending",
                [self](msg::pending_atom) -> caf::result<std::vector<msg::pending_detail>> {
                  return self->delegate(self->state.scheduler, msg::pending_atom_v);
                }),
      probe.rpc("map",
                [self](msg::map_atom) -> caf::result<msg::topology_view> {
                  return self->delegate(self->state.scheduler, msg::map_atom_v);
                }),
      probe.rpc("collector",
                [self](msg::collector_atom, std::string& name, uint16_t port,
                       caf::actor& collector) -> caf::result<caf::ok_atom> {
                  if (!self->state.collectors)
                    return make_error(errc::invalid_request, "node " + name +
                                                                 " announced a collector, but "
                                                                 "CollectorNodes is empty");
                  return self->delegate(self->state.collectors, msg::collector_atom_v,
                                        std::move(name), port, std::move(collector));
                }),
      probe.rpc("collectors",
                [self](msg::collectors_atom) -> caf::result<std::vector<msg::collector_info>> {
                  if (!self->state.collectors) return std::vector<msg::collector_info>{};
                  return self->delegate(self->state.collectors, msg::collectors_atom_v);
                }),
      probe.metered("nodedown",
                    [self](msg::nodedown_atom, const std::string& node, uint64_t job) {
                      auto it = self->state.jobs.find(job);
                      if (it != self->state.jobs.end())
                        self->send(it->second, msg::nodedown_atom_v, node);
                    }),
      probe.metered("step_exit",
                    [self](msg::step_exit& ex) {
                      // A step known by job id only ended; its node actor relayed it.
                      auto it = self->state.jobs.find(ex.job_id);
                      if (it == self->state.jobs.end()) {
                        config::log().warn(
                            "step exit for an unknown job dropped job={} step={} "
                            "node={}",
                            ex.job_id, msg::step_label(ex.step_id), ex.node_name);
                        return;
                      }
                      self->send(it->second, std::move(ex));
                    }),
      probe.rpc("submit",
                [self, probe](msg::submit_atom, msg::job_request& req,
                              caf::actor& client) -> caf::result<msg::job_info> {
                  probe.attribute_to(req.user);
                  if (auto err = unproven(self)) return err;
                  SHOAL_DEBUG(msg, "rpc submit user={} uid={} job={} batch={}", req.user, req.uid,
                              req.job_id, req.batch);
                  if (req.job_id == 0) return submit_job(self, req, client);
                  auto it = self->state.jobs.find(req.job_id);
                  if (it == self->state.jobs.end())
                    return make_error(errc::unknown_job,
                                      "job " + std::to_string(req.job_id) +
                                          " is not running (steps need a running job)");
                  auto rp = self->make_response_promise<msg::job_info>();
                  auto job_id = req.job_id;
                  self->request(it->second, std::chrono::seconds{30}, msg::step_atom_v,
                                std::move(req), client)
                      .then(
                          [rp, job_id](msg::job_event& ev) mutable {
                            msg::job_info info;
                            info.job_id = job_id;
                            info.state = ev.state;
                            info.step_count = ev.step_id;
                            info.nodelist = ev.nodelist;
                            info.node_count = ev.node_count;
                            rp.deliver(std::move(info));
                          },
                          [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
                  return rp;
                }),
      probe.rpc("jobs",
                [self](msg::jobs_atom) {
                  SHOAL_DEBUG(msg, "rpc jobs finished=true");
                  return list_jobs(self, true);
                }),
      probe.rpc("jobs",
                [self](msg::jobs_atom, bool include_finished) {
                  return list_jobs(self, include_finished);
                }),
      probe.rpc("job",
                [self](msg::jobs_atom, uint64_t id) -> caf::result<msg::job_info> {
                  auto it = self->state.job_view.find(id);
                  if (it == self->state.job_view.end())
                    return make_error(errc::unknown_job, "invalid job id " + std::to_string(id));
                  return it->second;
                }),
      probe.rpc("nodes",
                [self](msg::nodes_atom) {
                  std::vector<msg::node_info> out;
                  // find, not operator[]: a node not heard of yet must not get a view
                  // (cluster_meters counts each view's first appearance).
                  auto& view = self->state.node_view;
                  for (auto& n : self->state.cfg.nodes) {
                    auto it = view.find(n.name);
                    out.push_back(it != view.end() ? it->second : msg::node_info{});
                  }
                  return out;
                }),
      probe.rpc("parts",
                [self](msg::parts_atom) {
                  std::vector<msg::partition_info> out;
                  for (auto& p : self->state.cfg.partitions) out.push_back(partition_view(p));
                  return out;
                }),
      probe.rpc("summary",
                [self](msg::summary_atom) {
                  auto& view = self->state.node_view;
                  std::vector<msg::partition_info> parts;
                  for (auto& p : self->state.cfg.partitions) parts.push_back(partition_view(p));
                  auto state_of = [&view](const std::string& name) {
                    auto it = view.find(name);
                    return it != view.end() ? it->second.state : msg::node_state::unknown;
                  };
                  const auto& cfg = self->state.cfg;
                  if (!cfg.torus3d)
                    return topology::summarize_partitions(std::move(parts), state_of);
                  // A torus's groups in Blue Gene/L's box form: a few boxes, not 512 names.
                  auto boxes = [&cfg](const std::vector<std::string>& names) {
                    auto text = topology::box_hostlist(cfg.torus.prefix, cfg.torus.dims, names);
                    return text ? *text : topology::compress_hostlist_sorted(names);
                  };
                  return topology::summarize_partitions(std::move(parts), state_of, boxes);
                }),
      probe.rpc("config",
                [self](msg::config_atom) { return config::render_config(self->state.cfg); }),
      probe.rpc("cancel",
                [self, probe](msg::cancel_atom, const std::string& job, int32_t signo,
                              uint32_t uid) -> caf::result<caf::ok_atom> {
                  probe.attribute_to(uid_label(uid));
                  SHOAL_DEBUG(msg, "rpc cancel job={} signal={} uid={}", job, signo, uid);
                  if (auto err = unproven(self)) return err;
                  return cancel(self, job, signo, uid);
                }),
      probe.rpc("cancel",
                [self, probe](msg::cancel_atom, uint64_t id, int32_t signo,
                              uint32_t uid) -> caf::result<caf::ok_atom> {
                  probe.attribute_to(uid_label(uid));
                  if (auto err = unproven(self)) return err;
                  return cancel(self, std::to_string(id), signo, uid);
                }),
      probe.rpc(
          "attach",
          [self](msg::attach_atom, uint64_t id, caf::actor& client) -> caf::result<msg::job_info> {
            auto& st = self->state;
            if (auto err = unproven(self)) return err;
            if (auto job = st.jobs.find(id); job != st.jobs.end())
              return self->delegate(job->second, msg::attach_atom_v, std::move(client));
            if (auto view = st.job_view.find(id); view != st.job_view.end()) return view->second;
            return make_error(errc::unknown_job,
                              "job " + std::to_string(id) + " is not known to the controller");
          }),
      probe.rpc(
          "willrun",
          [self](msg::willrun_atom, msg::job_request& req) -> caf::result<msg::start_estimate> {
            if (auto err = unproven(self)) return err;
            return will_run(self, req);
          }),
      probe.rpc("complete",
                [self](msg::complete_atom, uint64_t id, int32_t code, int32_t signo,
                       uint32_t uid) -> caf::result<caf::ok_atom> {
                  if (auto err = unproven(self)) return err;
                  config::log().info("job allocation released job={} exit_code={} uid={}", id, code,
                                     uid);
                  return complete(self, id, code, signo, uid);
                }),
      probe.rpc("signal",
                [self](msg::signal_atom, uint64_t id, int32_t signo) {
                  if (unproven(self)) return;
                  auto it = self->state.jobs.find(id);
                  if (it != self->state.jobs.end())
                    self->send(it->second, msg::signal_atom_v, signo);
                }),
      probe.rpc("nodeupd",
                [self, probe](msg::nodeupd_atom, const msg::node_update& up) {
                  probe.attribute_to(up.user);
                  SHOAL_DEBUG(msg, "rpc update nodes={} state={} user={}", up.nodes, up.state,
                              up.user);
                  if (auto err = unproven(self)) return caf::result<caf::ok_atom>{std::move(err)};
                  return update_nodes(self, up);
                }),
      probe.rpc("partedit",
                [self, probe](msg::partedit_atom,
                              const msg::partition_edit& edit) -> caf::result<caf::ok_atom> {
                  probe.attribute_to(edit.user);
                  if (auto err = unproven(self)) return err;
                  return edit_partitions(self, edit);
                }),
      probe.rpc("setdebug",
                [self, probe](msg::setdebug_atom, const std::string& level,
                              const std::string& user) -> caf::result<std::string> {
                  probe.attribute_to(user);
                  if (auto err = unproven(self)) return err;
                  return on_setdebug(level, user);
                }),
      probe.rpc("dbgflags",
                [self, probe](msg::dbgflags_atom, const std::string& changes,
                              const std::string& user) -> caf::result<std::string> {
                  probe.attribute_to(user);
                  if (auto err = unproven(self)) return err;
                  return on_setdebugflags(changes, user);
                }),
      probe.rpc("diagreset",
                [self](msg::diagreset_atom, uint32_t uid) -> caf::result<caf::ok_atom> {
                  if (auto err = unproven(self)) return err;
                  return reset_diag(self, uid);
                }),
      probe.rpc("ping",
                [](caf::ping_atom) {
                  msg::controller_status status;
                  status.in_control = true;
                  return status;
                }),
      probe.rpc("handover", [self](msg::handover_atom) { return hand_over(self); }),
  };
}

}  // namespace

controller_actor spawn_controller(caf::actor_system& sys, config::cluster_config cfg,
                                  metrics::registry* meters,
                                  std::shared_ptr<interconnect::switch_manager> interconnect,
                                  controller_recovery recovery, daemon_gate_actor daemon_gate) {
  return sys.spawn(controller_behavior, std::move(cfg), meters, std::move(interconnect),
                   std::move(recovery), std::move(daemon_gate));
}

}  // namespace shoal::actors
