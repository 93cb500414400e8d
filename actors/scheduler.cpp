#include "actors/scheduler.hpp"
#include "actors/scheduler_internals.hpp"

#include <algorithm>
#include <ctime>
#include <map>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include <caf/all.hpp>

#include "actors/metering.hpp"
#include "actors/saved_state.hpp"
#include "actors/send_to.hpp"
#include "actors/unexpected.hpp"
#include "cluster/clock.hpp"
#include "cluster/fair_share.hpp"
#include "cluster/limit_rules.hpp"
#include "cluster/qos_numbering.hpp"
#include "config/duration.hpp"
#include "config/log.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "policy/job_queue.hpp"
#include "topology/hostlist.hpp"

namespace shoal::actors {

using cluster::unix_now;

namespace sched {

void request_pass(scheduler_self self) {
  if (self->state.pass_requested) return;
  self->state.pass_requested = true;
  if (!self->state.pass_in_flight) self->send(self, msg::schedule_atom_v);
}

}  // namespace sched

namespace {

using sched::calc_tick;
using sched::charge_usage;
using sched::list_shares;
using sched::request_pass;
using sched::scheduler_impl;
using sched::scheduler_self;
using sched::scheduler_state;
using sched::shares_changed;

/// While jobs pend, a pass also runs this often: ages raise priorities, `after:ID+MIN`
/// dependencies come due and backfill reservations move with the clock.
constexpr auto periodic_pass = std::chrono::seconds{5};

/// At most this many tasks of one array are offered to a pass (the rest wait for the next).
constexpr size_t array_tasks_per_pass = 256;

/// preempt/qos: the number of the QOS a job of `user` in `account` asking `qos` runs under (its
/// association's default without -q), fixed when it queues as Slurm fixes it at submission.
uint32_t qos_number_of(scheduler_state& st, const std::string& user, const std::string& account,
                       const std::string& qos) {
  if (!st.settings.preempt_qos) return 0;
  auto shares = st.shares ? st.shares->shares() : nullptr;
  return st.qos.number(shares        ? shares->qos_name_of(user, account, qos)
                       : qos.empty() ? std::string{"normal"}
                                     : qos);
}

void tell_reason(scheduler_self self, policy::queued_job& q, const std::string& reason) {
  auto& st = self->state;
  if (q.is_array) {
    auto folded = policy::folded_tasks(q.pending, q.max_running);
    if (q.reason == reason && st.told_folded[q.id] == folded) return;
    st.told_folded[q.id] = folded;
    q.reason = reason;
    send_to(self, st.controller, msg::view_atom_v, q.id, reason, folded);
    return;
  }
  auto priority = static_cast<uint64_t>(std::max<int64_t>(0, q.factors.total));
  if (q.reason == reason && q.told_priority == priority) return;
  q.reason = reason;
  q.told_priority = priority;
  auto it = st.job_actors.find(q.id);
  if (it != st.job_actors.end()) send_to(self, it->second, msg::view_atom_v, reason, priority);
}

/// Starts what the pass decided at `site`; returns the id of the job that started (for an
/// array, the task's).
uint64_t start_job(scheduler_self self, const policy::start_decision& d, start_site& site,
                   int64_t now) {
  auto& st = self->state;
  bool array = st.queue.is_array(d.job);
  uint64_t cpus = 0;
  for (auto c : site.cpus) cpus += c;
  auto [job_id, index] = st.queue.start(d, now, cpus);
  std::vector<caf::actor> actors;
  actors.reserve(site.nodes.size());
  for (auto node : site.nodes) actors.push_back(st.node_actors[node]);
  SHOAL_DEBUG(select_type, "job selected job={} nodes={}", job_id, site.nodelist);
  if (array) {
    send_to(self, st.controller, msg::arraytask_atom_v, d.job, index, job_id, std::move(site.names),
            std::move(actors), std::move(site.cpus), std::move(site.nodelist),
            std::move(site.devices));
    auto* q = st.queue.find(d.job);
    if (q == nullptr) {
      // The last pending task started: the array's pending line goes away.
      st.told_folded.erase(d.job);
      send_to(self, st.controller, msg::view_atom_v, d.job, std::string{}, std::string{});
      self->send(st.topology, msg::cancel_atom_v, d.job);
    }
    return job_id;
  }
  auto it = st.job_actors.find(d.job);
  if (it == st.job_actors.end()) return 0;
  send_to(self, it->second, msg::start_atom_v, std::move(site.names), std::move(actors),
          std::move(site.cpus), std::move(site.nodelist), std::move(site.devices));
  st.job_actors.erase(it);
  self->send(st.topology, msg::cancel_atom_v, d.job);  // no longer queued: its needs can go
  return d.job;
}

void arm_wakeup(scheduler_self self, int64_t at, int64_t now) {
  auto& st = self->state;
  if (at == 0 || (st.wakeup_at != 0 && st.wakeup_at <= at && st.wakeup_at > now)) return;
  st.wakeup_at = at;
  self->delayed_send(self, std::chrono::seconds{std::max<int64_t>(1, at - now)},
                     msg::schedule_atom_v);
}

/// True while `job` may still start as the pass decided: the queue changed while the pass was
/// at the topology actor (a cancel, a hold, the array's last task gone to an earlier start).
bool still_startable(scheduler_self self, uint64_t job) {
  auto* q = self->state.queue.find(job);
  return q != nullptr && q->hold == policy::hold_kind::none && !(q->is_array && q->pending.empty());
}

void apply_pass(scheduler_self self, placed_pass& placed, int64_t now,
                const std::vector<uint64_t>& arrays) {
  auto& st = self->state;
  auto& result = placed.result;
  // The task ids each array's starts got, in decision order (0: did not start), so that the
  // topology actor follows every task.
  std::map<uint64_t, std::vector<uint64_t>> array_tasks;
  for (size_t i = 0; i < result.started.size(); ++i) {
    auto& d = result.started[i];
    bool array = std::find(arrays.begin(), arrays.end(), d.job) != arrays.end();
    uint64_t started = 0;
    if (still_startable(self, d.job)) started = start_job(self, d, placed.sites[i], now);
    if (array)
      array_tasks[d.job].push_back(started);
    else if (started == 0)
      self->send(st.topology, msg::release_atom_v, d.job);
  }
  bool array_started = false;
  for (auto& [array, tasks] : array_tasks) {
    array_started = array_started || std::any_of(tasks.begin(), tasks.end(),
                                                 [](uint64_t task) { return task != 0; });
    self->send(st.topology, msg::arraytask_atom_v, array, std::move(tasks));
  }
  // The arrays' pending lines must lose the tasks that started, and say JobArrayTaskLimit where
  // the throttle is reached: the next pass tells each array's reason again.
  if (array_started) st.pass_requested = true;  // run_pass's answer handler sends it
  for (auto& p : result.planned)
    if (auto* q = st.queue.find(p.job)) q->expected_start = p.start;
  for (auto& w : result.waiting)
    if (auto* q = st.queue.find(w.job, w.position)) tell_reason(self, *q, w.reason);
  // The waiter left the queue meanwhile (cancelled, held): nobody needs the nodes any more.
  for (auto& p : result.preempted)
    if (still_startable(self, p.for_job))
      send_to(self, st.controller, msg::preempt_atom_v, p.job, p.for_job,
              static_cast<uint8_t>(p.mode), p.grace_time);
  for (auto id : result.resumed) {
    st.lent.erase(id);
    send_to(self, st.controller, msg::resume_atom_v, id);
  }
}

void observe_pass(scheduler_self self, std::chrono::steady_clock::time_point started_at,
                  size_t candidates, const placed_pass& placed) {
  auto& st = self->state;
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                                  started_at)
                .count();
  if (st.cycle) {
    auto seconds = static_cast<double>(us) / 1e6;
    st.cycle->observe(seconds);
    st.last_cycle->set(seconds);
    st.max_cycle->raise_to(seconds);
    st.queue_length->set(static_cast<double>(candidates));
  }
  SHOAL_DEBUG(select_type, "schedule pass candidates={} started={} waiting={} tested={} us={}",
              candidates, placed.result.started.size(), placed.result.waiting.size(),
              placed.result.tested, us);
}

/// One pass: the queue's order goes to the topology actor in one message, and its answer
/// starts jobs. Events that arrive meanwhile are applied to the queue at once; a pass they ask
/// for runs after this one's answer.
void run_pass(scheduler_self self) {
  auto& st = self->state;
  if (st.pass_in_flight) {
    st.pass_requested = true;  // runs when the answer is in
    return;
  }
  st.pass_requested = false;
  if (st.queue.queue().empty() && st.lent.empty()) return;
  auto started_at = std::chrono::steady_clock::now();
  auto now = unix_now();
  if (st.wakeup_at != 0 && st.wakeup_at <= now) st.wakeup_at = 0;
  auto plan = st.queue.prepare(now, array_tasks_per_pass);
  for (auto id : plan.to_cancel) {
    config::log().info(
        "job dependency never satisfiable job={}: cancelling (--kill-on-invalid-dep)", id);
    caf::anon_send(st.controller, msg::cancel_atom_v, std::to_string(id), int32_t{0}, uint32_t{0});
  }
  for (auto& [id, reason] : plan.blocked)
    if (auto* q = st.queue.find(id)) tell_reason(self, *q, reason);
  arm_wakeup(self, plan.next_wakeup, now);
  if (plan.offered == 0 && st.lent.empty()) return;
  auto order = std::make_shared<pass_order>();
  order->candidates = std::move(plan.candidates);
  // Only suspended jobs to look at: an empty list, never none.
  if (!order->candidates)
    order->candidates = std::make_shared<const std::vector<policy::pending_job>>();
  order->arrays = std::move(plan.arrays);
  order->now = now;
  if (st.settings.preempt_qos) order->qos = st.qos.rules();
  order->limits = std::move(plan.limits);
  auto candidates = plan.offered;
  st.pass_in_flight = true;
  self->request(st.topology, caf::infinite, msg::schedule_atom_v, order)
      .then(
          [self, order, now, started_at, candidates](placed_pass_ptr& placed) {
            self->state.pass_in_flight = false;
            apply_pass(self, *placed, now, order->arrays);
            observe_pass(self, started_at, candidates, *placed);
            if (self->state.pass_requested) self->send(self, msg::schedule_atom_v);
          },
          [self](caf::error& err) {
            self->state.pass_in_flight = false;
            config::log().error("scheduling pass failed: {}", to_string(err));
          });
}

/// What `req` asks of placement beyond counts, when it asks anything (or the grid is a torus).
std::optional<placement_needs> needs_of(scheduler_self self, const msg::job_request& req,
                                        const policy::workload_ptr& workload, uint32_t node_count) {
  bool gres = workload && !workload->gres.empty();
  bool constraint = workload && workload->constraint;
  if (req.nodelist.empty() && req.exclude.empty() && !gres && !constraint &&
      req.workload.reservation.empty() && !self->state.torus)
    return std::nullopt;
  placement_needs needs;
  needs.nodelist = req.nodelist;
  needs.exclude = req.exclude;
  if (gres) needs.gres = workload->gres;
  if (constraint) needs.constraint = workload->constraint;
  needs.shape = req.shape;
  needs.node_count = node_count;
  needs.reservation = req.workload.reservation;
  return needs;
}

policy::queued_job to_queued(scheduler_self self, uint64_t id, const msg::job_request& req,
                             const policy::workload_ptr& workload, int64_t submit_time) {
  auto& st = self->state;
  policy::queued_job q;
  q.id = id;
  q.name = req.name;
  q.user = req.user;
  q.uid = req.uid;
  q.account = req.workload.account;
  q.qos = req.workload.qos;
  q.nice = req.nice;
  q.submit_time = submit_time;
  q.begin_time = req.workload.begin_time;
  q.kill_on_invalid_dep = req.workload.kill_on_invalid_dep;
  q.hold = req.workload.hold ? policy::hold_kind::user : policy::hold_kind::none;
  q.fixed_priority = req.workload.priority;
  if (workload && workload->dep) q.dependency = *workload->dep;
  auto& pj = q.pass;
  pj.id = id;
  // A partition the config no longer has (a job recovered after the file changed) is an index
  // past every partition: the job waits with PartitionDown instead of taking the actor down.
  auto slot = st.partition_index.find(req.partition);
  pj.partition = slot != st.partition_index.end() ? slot->second : SIZE_MAX;
  pj.time_limit = req.time_limit_s > 0 ? req.time_limit_s : 0;
  if (workload) pj.licenses = workload->licenses;
  pj.qos = qos_number_of(st, req.user, req.workload.account, req.workload.qos);
  auto& r = pj.request;
  r.min_nodes = std::max<uint32_t>(1, req.min_nodes);
  r.max_nodes = req.nodes_max;
  r.tasks = std::max(req.ntasks, r.min_nodes);
  r.cpus_per_task = std::max<uint32_t>(1, req.cpus_per_task);
  r.mem_per_node_mb = req.workload.mem_per_node_mb;
  r.mem_per_cpu_mb = req.workload.mem_per_cpu_mb;
  r.tasks_per_node = req.workload.ntasks_per_node;
  r.min_cpus = req.workload.min_cpus;
  r.exclusive = req.workload.exclusive || !st.settings.consumable;
  r.sharing = req.workload.exclusive       ? policy::share_request::exclusive
              : req.workload.oversubscribe ? policy::share_request::oversubscribe
                                           : policy::share_request::as_partition;
  if (!st.settings.consumable) {
    // Whole nodes: the node count decides (tasks may outnumber CPUs, as before backfill).
    r.max_nodes = r.min_nodes;
    r.tasks = r.min_nodes;
    r.cpus_per_task = 1;
  }
  if (st.torus) r.exclusive = true;
  if (workload && workload->array) {
    const auto& spec = *workload->array;
    q.is_array = true;
    q.max_running = spec.max_running;
    st.queue.add_array(id, spec.indices.runs(), spec.max_running);
    q.pending = workload->pending_tasks ? *workload->pending_tasks : spec.indices;
  } else if (workload && workload->array_task) {
    q.array_id = workload->array_task->array_id;
    q.array_index = workload->array_task->index;
  }
  return q;
}

void enqueue(scheduler_self self, uint64_t id, const msg::job_request& req,
             const policy::workload_ptr& workload, caf::actor& job, int64_t submit_time) {
  auto& st = self->state;
  auto q = to_queued(self, id, req, workload, submit_time);
  if (auto needs = needs_of(self, req, workload, q.pass.request.min_nodes))
    self->send(st.topology, msg::enqueue_atom_v, id, std::move(*needs));
  if (!q.is_array) st.job_actors[id] = std::move(job);
  st.queue.enqueue(std::move(q));
  request_pass(self);
  if (!st.tick_armed) {
    st.tick_armed = true;
    self->delayed_send(self, periodic_pass, msg::check_atom_v);
  }
}

/// A pending job's request changed (`scontrol update`): queued again with it, in its place.
void replace(scheduler_self self, uint64_t id, const msg::job_request& req,
             const policy::workload_ptr& workload) {
  auto& st = self->state;
  auto* old = st.queue.find(id);
  if (old == nullptr) return;  // started, or gone, since the job asked
  // An array keeps its pending tasks and its history (to_queued would start both afresh).
  auto plain = workload;
  if (old->is_array && workload && workload->array) {
    auto copy = std::make_shared<policy::parsed_workload>(*workload);
    copy->array.reset();
    copy->pending_tasks.reset();
    plain = std::move(copy);
  }
  auto q = to_queued(self, id, req, plain, old->submit_time);
  if (old->is_array) {
    q.is_array = true;
    q.pending = old->pending;
    q.max_running = old->max_running;
  }
  q.array_id = old->array_id;
  q.array_index = old->array_index;
  q.hold = old->hold;
  q.top_rank = old->top_rank;
  q.reason = old->reason;
  q.told_priority = old->told_priority;
  // Its placement needs (nodelist, exclusions, features) are told again.
  self->send(st.topology, msg::cancel_atom_v, id);
  if (auto needs = needs_of(self, req, workload, q.pass.request.min_nodes))
    self->send(st.topology, msg::enqueue_atom_v, id, std::move(*needs));
  st.queue.enqueue(std::move(q));
  request_pass(self);
}

/// Takes task `index` out of array `array_id` (see the interface); the array's line loses it
/// before the caller hears its job id.
caf::result<uint64_t> detach_task(scheduler_self self, uint64_t array_id, uint32_t index) {
  auto& st = self->state;
  auto task = st.queue.detach(array_id, index);
  if (!task) return make_error(errc::invalid_request, "Job is no longer pending execution");
  if (auto* q = st.queue.find(array_id)) {
    tell_reason(self, *q, q->reason);
  } else {
    st.told_folded.erase(array_id);
    send_to(self, st.controller, msg::view_atom_v, array_id, std::string{}, std::string{});
    self->send(st.topology, msg::cancel_atom_v, array_id);
  }
  config::log().info("job detach array={} task={} job={}", array_id, index, *task);
  return *task;
}

caf::result<caf::ok_atom> job_command(scheduler_self self, const std::string& op, uint64_t id,
                                      uint32_t uid, bool admin) {
  auto& queue = self->state.queue;
  auto* q = queue.find(id);
  if (q == nullptr) return make_error(errc::invalid_request, "Job is no longer pending execution");
  if (!admin && q->uid != uid)
    return make_error(errc::permission_denied, "Access/permission denied: job " +
                                                   std::to_string(id) + " belongs to " + q->user);
  std::string err;
  if (op == "hold")
    err = queue.hold(id, admin ? policy::hold_kind::admin : policy::hold_kind::user);
  else if (op == "uhold")
    err = queue.hold(id, policy::hold_kind::user);
  else if (op == "release")
    err = queue.release(id, admin);
  else if (op == "top")
    err = queue.top(id);
  else
    return make_error(errc::invalid_request, "unknown job command '" + op + "'");
  if (!err.empty()) return make_error(errc::invalid_request, err);
  config::log().info("job {} job={} uid={}", op, id, uid);
  request_pass(self);
  if (op == "top") return caf::ok_atom::value;
  // A hold or release is told at once, not at the next pass, so that the record holding it is
  // durable before the client hears ok. Released, the reason is "None" until the pass gives
  // one (as in Slurm).
  std::string reason = q->hold == policy::hold_kind::none   ? "None"
                       : q->hold == policy::hold_kind::user ? "JobHeldUser"
                                                            : "JobHeldAdmin";
  auto& st = self->state;
  auto job = st.job_actors.find(id);
  if (q->is_array || job == st.job_actors.end()) {
    // An array's line is the controller's, which saves it on this news; the controller makes
    // it durable before it answers the client (its messages from here arrive in order).
    tell_reason(self, *q, reason);
    return caf::ok_atom::value;
  }
  q->reason = reason;
  q->told_priority = static_cast<uint64_t>(std::max<int64_t>(0, q->factors.total));
  auto rp = self->make_response_promise<caf::ok_atom>();
  self->request(job->second, caf::infinite, msg::view_atom_v, reason, q->told_priority,
                msg::sync_atom_v)
      .then([rp](caf::ok_atom) mutable { rp.deliver(caf::ok_atom::value); },
            [rp](caf::error& e) mutable { rp.deliver(std::move(e)); });
  return rp;
}

/// A job recovered from saved state: the queue counts it as running, and the topology actor
/// gives it its nodes back.
void adopt(scheduler_self self, uint64_t id, const msg::job_request& req,
           const policy::workload_ptr& workload, const std::vector<std::string>& names,
           const std::vector<uint32_t>& cpus, int64_t start, uint64_t array_id, uint32_t index,
           const std::vector<msg::gres_held>& gres) {
  auto& st = self->state;
  policy::started_job run;
  run.start = start;
  if (req.time_limit_s > 0) run.end = start + req.time_limit_s;
  run.name = req.name;
  run.user = req.user;
  run.array_id = array_id;
  run.index = index;
  run.account = req.workload.account;
  for (size_t i = 0; i < names.size(); ++i) {
    auto it = st.node_cpus.find(names[i]);
    run.cpus += cpus.size() == names.size() ? cpus[i] : it != st.node_cpus.end() ? it->second : 1;
  }
  run.qos = req.workload.qos;
  if (auto slot = st.partition_index.find(req.partition); slot != st.partition_index.end())
    run.partition = slot->second;
  run.nodes = static_cast<uint32_t>(names.size());
  run.memory_mb = req.workload.mem_per_node_mb > 0 ? req.workload.mem_per_node_mb * run.nodes
                                                   : req.workload.mem_per_cpu_mb * run.cpus;
  held_nodes held;
  held.names = names;
  held.cpus = cpus;
  held.mem_per_node_mb = req.workload.mem_per_node_mb;
  held.mem_per_cpu_mb = req.workload.mem_per_cpu_mb;
  held.end = run.end;
  held.devices = gres;
  if (workload) held.licenses = workload->licenses;
  // A recovered job stays preemptable: its partition's tier counts; its priority is the one it
  // was submitted with (the factors that made it are not saved), 0 for most jobs.
  auto slot = st.partition_index.find(req.partition);
  held.partition = slot != st.partition_index.end() ? slot->second : SIZE_MAX;
  held.priority = static_cast<int64_t>(req.workload.priority);
  held.start = start;
  held.qos = qos_number_of(st, req.user, req.workload.account, req.workload.qos);
  st.queue.adopt(id, std::move(run));
  self->send(st.topology, msg::adopt_atom_v, id, std::move(held));
}

caf::result<msg::start_estimate> will_run(scheduler_self self, uint64_t id,
                                          const msg::job_request& req,
                                          const policy::workload_ptr& workload) {
  auto& st = self->state;
  // Of the workload only the devices and the constraint: an array is estimated as one task, and
  // dependencies and holds are the submitter's to know, as in Slurm's will_run.
  auto devices = std::make_shared<policy::parsed_workload>();
  if (workload) {
    devices->gres = workload->gres;
    devices->constraint = workload->constraint;
  }
  auto q = to_queued(self, id, req, devices, unix_now());
  auto needs = needs_of(self, req, devices, q.pass.request.min_nodes).value_or(placement_needs{});
  auto rp = self->make_response_promise<msg::start_estimate>();
  self->request(st.topology, caf::infinite, msg::willrun_atom_v, q.pass, std::move(needs))
      .then(
          [rp, id, req](cluster::start_estimate& est) mutable {
            if (!est.found) {
              rp.deliver(
                  make_error(errc::unsatisfiable,
                             "no start time found for the job: " +
                                 (est.reason.empty() || est.reason == std::string{"Resources"}
                                      ? std::string{"the nodes it needs are held by jobs without a "
                                                    "time limit"}
                                      : est.reason)));
              return;
            }
            msg::start_estimate out;
            out.job_id = id;
            out.start_time = std::max(est.start, req.workload.begin_time);
            out.nodelist = est.nodelist;
            out.node_count = static_cast<uint32_t>(est.alloc.size());
            for (auto& share : est.alloc) out.cpus += share.cpus;
            out.partition = req.partition;
            SHOAL_DEBUG(select_type, "will run job={} start={} nodes={}", id, out.start_time,
                        out.nodelist);
            rp.deliver(std::move(out));
          },
          [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
  return rp;
}

std::vector<msg::pending_detail> pending_details(scheduler_self self) {
  std::vector<msg::pending_detail> out;
  for (auto& [id, q] : self->state.queue.queue()) {
    msg::pending_detail d;
    d.job_id = id;
    d.reason = q.reason;
    d.expected_start = q.expected_start;
    d.priority = static_cast<uint64_t>(std::max<int64_t>(0, q.factors.total));
    d.age_factor = static_cast<uint64_t>(std::max<int64_t>(0, q.factors.age));
    d.size_factor = static_cast<uint64_t>(std::max<int64_t>(0, q.factors.job_size));
    d.partition_factor = static_cast<uint64_t>(std::max<int64_t>(0, q.factors.partition));
    d.fairshare_factor = static_cast<uint64_t>(std::max<int64_t>(0, q.factors.fairshare));
    d.qos_factor = static_cast<uint64_t>(std::max<int64_t>(0, q.factors.qos));
    d.nice = q.factors.nice;
    out.push_back(std::move(d));
  }
  return out;
}

/// The partitions as they are now, at their slots: the priority factors follow.
void set_partitions(scheduler_self self, const partition_table& table) {
  auto& st = self->state;
  std::vector<uint32_t> factors(table->size(), 0);
  uint32_t max_factor = 1;
  for (size_t slot = 0; slot < table->size(); ++slot) {
    auto& part = (*table)[slot];
    if (!part) continue;
    st.partition_index[part->name] = slot;
    factors[slot] = part->job_factor;
    max_factor = std::max(max_factor, part->job_factor);
  }
  st.scale.max_partition_job_factor = max_factor;
  st.queue.set_scale(st.scale, std::move(factors));
}

/// Each node's CPUs (as configured, at least 1) and the cluster's size for the job-size factor.
void count_nodes(scheduler_self self, const std::vector<config::node_config>& nodes) {
  auto& st = self->state;
  st.node_cpus.clear();
  uint64_t cpus = 0;
  for (auto& n : nodes) {
    cpus += std::max<uint32_t>(1, n.cpus);
    st.node_cpus[n.name] = std::max<uint32_t>(1, n.cpus);
  }
  st.scale.cluster_nodes = static_cast<uint32_t>(std::max<size_t>(1, nodes.size()));
  st.scale.cluster_cpus = std::max<uint64_t>(1, cpus);
}

/// A reconfigure's nodes: the new ones' actors go last, as the topology actor numbers them (a
/// removed node keeps its place, never placed on again); the cluster's size for the job-size
/// factor follows, applied with the partition table the controller sends next.
void adopt_reconfigured_nodes(scheduler_self self, const config::cluster_config& fresh,
                              std::vector<caf::actor>& added) {
  auto& st = self->state;
  for (auto& node : added) st.node_actors.push_back(std::move(node));
  count_nodes(self, fresh.nodes);
}

void configure(scheduler_self self, const config::cluster_config& cfg) {
  auto& st = self->state;
  st.settings = cfg.scheduling;
  st.torus = cfg.torus3d;
  st.enforce_limits = cfg.accounting.enforce_limits;
  st.cluster_name = cfg.cluster_name;
  policy::priority_config prio;
  prio.weight_age = cfg.scheduling.weight_age;
  prio.weight_job_size = cfg.scheduling.weight_job_size;
  prio.weight_partition = cfg.scheduling.weight_partition;
  prio.weight_fairshare = cfg.scheduling.weight_fairshare;
  prio.weight_qos = cfg.scheduling.weight_qos;
  prio.max_age = cfg.scheduling.priority_max_age_s;
  prio.favor_small = cfg.scheduling.favor_small;
  st.queue = policy::job_queue{prio, cfg.scheduling.multifactor};
  count_nodes(self, cfg.nodes);
  std::unordered_map<std::string, size_t> slots;  // the first table: the config's order
  set_partitions(self, slotted(cfg.partitions, slots));
}

scheduler_impl::behavior_type scheduler_behavior(
    scheduler_self self, const config::cluster_config& cfg, std::vector<caf::actor> node_actors,
    caf::actor controller, topology_actor topology, metrics::registry* meters,
    state_keeper_actor keeper, const std::optional<msg::usage_record>& saved) {
  auto& st = self->state;
  tolerate_strays(self);
  actor_probe probe{self, meters, "scheduler"};
  if (meters) {
    st.cycle = &meters->histogram_of("shoal_scheduler_cycle_seconds",
                                     "Time of each scheduling pass, placement included (sdiag's "
                                     "main schedule cycles).");
    st.last_cycle = &meters->gauge_of("shoal_scheduler_last_cycle_seconds",
                                      "Time of the latest scheduling pass.");
    st.max_cycle = &meters->gauge_of("shoal_scheduler_max_cycle_seconds",
                                     "Longest scheduling pass since start or diag reset.");
    st.queue_length = &meters->gauge_of("shoal_scheduler_queue_jobs",
                                        "Pending jobs the latest scheduling pass offered.");
  }
  st.node_actors = std::move(node_actors);
  st.controller = std::move(controller);
  st.topology = std::move(topology);
  self->send(st.topology, msg::register_atom_v, caf::actor_cast<caf::actor>(self));
  configure(self, cfg);
  st.keeper = std::move(keeper);
  st.shares.emplace(cfg.scheduling, cfg.cluster_name, unix_now(), saved);
  self->delayed_send(self, std::chrono::seconds{std::max<int64_t>(1, st.settings.calc_period_s)},
                     msg::usage_atom_v);
  return {
      probe.metered(
          "enqueue",
          [self](msg::enqueue_atom, uint64_t id, const msg::job_request& req,
                 const policy::workload_ptr& workload, caf::actor& job,
                 int64_t submit_time) { enqueue(self, id, req, workload, job, submit_time); }),
      probe.metered("cancel",
                    [self](msg::cancel_atom, uint64_t id) {
                      self->state.queue.cancel(id, 0, UINT32_MAX, unix_now());
                      self->state.job_actors.erase(id);
                      self->send(self->state.topology, msg::cancel_atom_v, id);
                      request_pass(self);
                    }),
      probe.metered("cancel_tasks",
                    [self](msg::cancel_atom, uint64_t id, uint32_t lo, uint32_t hi) -> uint64_t {
                      auto& st = self->state;
                      auto removed = st.queue.cancel(id, lo, hi, unix_now());
                      if (auto* q = st.queue.find(id)) {
                        tell_reason(self, *q, q->reason);
                      } else if (removed > 0) {
                        send_to(self, st.controller, msg::view_atom_v, id, "", std::string{});
                        self->send(st.topology, msg::cancel_atom_v, id);
                      }
                      request_pass(self);
                      return removed;
                    }),
      probe.metered("detach",
                    [self](msg::update_atom, uint64_t array_id, uint32_t index)
                        -> caf::result<uint64_t> { return detach_task(self, array_id, index); }),
      probe.metered("release",
                    [self](msg::release_atom, uint64_t id) {
                      charge_usage(self, id, unix_now());  // a requeued run counts too
                      self->state.queue.release(id);
                      self->state.lent.erase(id);
                      self->send(self->state.topology, msg::release_atom_v, id);
                      request_pass(self);
                    }),
      probe.metered("lent",
                    [self](msg::lent_atom, uint64_t id) {
                      self->state.lent.insert(id);
                      self->send(self->state.topology, msg::lent_atom_v, id);
                      request_pass(self);
                    }),
      probe.metered(
          "adopt",
          [self](msg::adopt_atom, uint64_t id, const msg::job_request& req,
                 const policy::workload_ptr& workload, const std::vector<std::string>& names,
                 const std::vector<uint32_t>& cpus, int64_t start, uint64_t array_id,
                 uint32_t index, const std::vector<msg::gres_held>& gres) {
            adopt(self, id, req, workload, names, cpus, start, array_id, index, gres);
          }),
      probe.metered("ended",
                    [self](msg::ended_atom, uint64_t id, bool ok, int64_t started) {
                      auto now = unix_now();
                      charge_usage(self, id, now);
                      self->state.queue.ended(id, ok, started, now);
                      self->state.lent.erase(id);
                      self->send(self->state.topology, msg::release_atom_v, id);
                      request_pass(self);
                    }),
      probe.metered(
          "update",
          [self](msg::update_atom, uint64_t id, const msg::job_request& req,
                 const policy::workload_ptr& workload) { replace(self, id, req, workload); }),
      probe.metered("jobctl",
                    [self](msg::jobctl_atom, const std::string& op, uint64_t id, uint32_t uid,
                           bool admin) { return job_command(self, op, id, uid, admin); }),
      probe.metered("pending", [self](msg::pending_atom) { return pending_details(self); }),
      probe.metered("partitions",
                    [self](msg::parts_atom, const partition_table& parts) {
                      set_partitions(self, parts);
                      request_pass(self);
                    }),
      probe.metered(
          "nodes",
          [self](msg::reconfig_atom, const config_ptr& fresh, std::vector<caf::actor>& added) {
            adopt_reconfigured_nodes(self, *fresh, added);
          }),
      probe.metered("willrun",
                    [self](msg::willrun_atom, uint64_t id, const msg::job_request& req,
                           const policy::workload_ptr& workload) {
                      return will_run(self, id, req, workload);
                    }),
      probe.metered("schedule", [self](msg::schedule_atom) { run_pass(self); }),
      probe.metered("assocs",
                    [self](msg::assocs_atom, msg::association_data& data) {
                      auto& st = self->state;
                      if (st.enforce_limits)
                        st.queue.set_limits(
                            cluster::limit_rules_of(data, st.cluster_name, st.partition_index));
                      st.qos.set_table(data.qos);
                      self->state.shares->set_associations(std::move(data));
                      shares_changed(self, false);
                    }),
      probe.metered("shares", [self](msg::shares_atom) { return list_shares(self); }),
      probe.metered("calc", [self](msg::usage_atom) { calc_tick(self); }),
      probe.metered("tick",
                    [self](msg::check_atom) {
                      auto& st = self->state;
                      st.tick_armed = !st.queue.queue().empty();
                      if (!st.tick_armed) return;
                      request_pass(self);
                      self->delayed_send(self, periodic_pass, msg::check_atom_v);
                    }),
  };
}

}  // namespace

scheduler_actor spawn_scheduler(caf::actor_system& sys, const config::cluster_config& cfg,
                                std::vector<caf::actor> node_actors, caf::actor controller,
                                topology_actor topology, metrics::registry* meters,
                                state_keeper_actor keeper, std::optional<msg::usage_record> saved) {
  return sys.spawn(scheduler_behavior, cfg, std::move(node_actors), std::move(controller),
                   std::move(topology), meters, std::move(keeper), std::move(saved));
}

}  // namespace shoal::actors
