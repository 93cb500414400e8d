#include "actors/job.hpp"
#include "actors/job_internals.hpp"

#include <algorithm>
#include <csignal>
#include <map>
#include <set>
#include <utility>

#include <caf/all.hpp>

#include "actors/exchange_tree.hpp"
#include "actors/job_mail.hpp"
#include "actors/metering.hpp"
#include "actors/saved_state.hpp"
#include "actors/send_to.hpp"
#include "actors/unexpected.hpp"
#include "cluster/clock.hpp"
#include "cluster/scheduling.hpp"
#include "cluster/step_nodes.hpp"
#include "cluster/step_usage.hpp"
#include "config/duration.hpp"
#include "config/log.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "policy/gres.hpp"
#include "policy/job_lifecycle.hpp"
#include "topology/hostlist.hpp"

namespace shoal::actors {

using cluster::distribute_tasks;
using cluster::unix_now;

namespace {

// The job's state and the effects of its transitions (job_effects.cpp).
using namespace job_detail;

void on_start(job_self self, std::vector<std::string> names, std::vector<caf::actor> actors,
              std::vector<uint32_t> cpus, std::string nodelist, std::vector<msg::gres_held> gres) {
  event_data data;
  data.gres = std::move(gres);
  data.names = std::move(names);
  data.actors = std::move(actors);
  data.cpus = std::move(cpus);
  data.nodelist = std::move(nodelist);
  handle(self, policy::event{event_kind::placed}, std::move(data));
}

void on_step_exit(job_self self, const msg::step_exit& ex) {
  auto& st = self->state;
  if (ex.prolog_failed) on_prolog_failed(self, ex.node_name, ex.launch_error);
  auto it = st.steps.find(ex.step_id);
  if (it == st.steps.end() || it->second.waiting.erase(ex.node_name) == 0) return;
  auto& run = it->second;
  for (auto& t : ex.tasks) {
    auto code = msg::shell_exit_code(t);
    if (code <= run.exit_code) continue;
    run.exit_code = code;
    run.exit_signal = t.signal;
  }
  cluster::add_node_usage(run.usage, ex.usage, ex.node_name);
  if (!ex.launch_error.empty() && run.error.empty()) run.error = ex.launch_error;
  if (ex.out_of_memory) {
    run.out_of_memory = true;
    if (run.error.empty()) run.error = "OutOfMemory: over the memory limit on " + ex.node_name;
  }
  SHOAL_DEBUG(steps, "step exit job={} step={} node={} tasks={} error=\"{}\"", ex.job_id,
              msg::step_label(ex.step_id), ex.node_name, ex.tasks.size(), ex.launch_error);
  if (!run.waiting.empty()) return;
  auto [ev, data] = step_done(self, ex.step_id);
  handle(self, ev, std::move(data));
}

void on_node_down(job_self self, const std::string& node) {
  auto& st = self->state;
  if (std::find(st.nodes.begin(), st.nodes.end(), node) == st.nodes.end()) return;
  policy::event ev{event_kind::node_failed};
  ev.text = node;
  ev.requeue = st.setup.req.requeue;
  auto t = decide(self, ev);
  if (t.outcome == verdict::ignored) return;
  config::log().warn("job node failed job={} node={} requeue={}", st.info.job_id, node,
                     st.setup.req.requeue);
  event_data data;
  execute(self, t, data);
}

caf::result<msg::job_event> on_step_request(job_self self, msg::job_request& req,
                                            caf::actor& client) {
  auto& st = self->state;
  auto t = decide(self, policy::event{event_kind::step_requested});
  if (t.outcome != verdict::applied)
    return make_error(errc::invalid_request,
                      "job " + std::to_string(st.info.job_id) + " is not running");
  auto have = static_cast<uint32_t>(st.nodes.size());
  auto want = req.min_nodes;
  const auto per_node = req.workload.ntasks_per_node;
  if (want == 0 && req.ntasks > 0 && per_node > 0)
    want = std::min((req.ntasks + per_node - 1) / per_node, have);
  if (want == 0) want = req.ntasks > 0 ? std::min(req.ntasks, have) : have;
  // srun -w/-x inside a job choose among its nodes: MPI launchers name the nodes that need a
  // daemon (mpirun leaves out its own), and each daemon's rank follows its node's place.
  auto picked =
      cluster::pick_step_nodes(st.nodes, want, req.min_nodes > 0, req.nodelist, req.exclude);
  if (!picked) return to_caf(picked.error());
  want = static_cast<uint32_t>(picked->size());
  if (per_node > 0 && req.ntasks > uint64_t{want} * per_node)
    return make_error(errc::unsatisfiable,
                      "Requested node configuration is not available: step of " +
                          std::to_string(req.ntasks) + " tasks at most " +
                          std::to_string(per_node) + " per node (--ntasks-per-node) on " +
                          std::to_string(want) + " nodes of job " + std::to_string(st.info.job_id));
  if (want > have)
    return make_error(errc::unsatisfiable, "step needs " + std::to_string(want) +
                                               " nodes but job " + std::to_string(st.info.job_id) +
                                               " has " + std::to_string(have));
  event_data data;
  data.step_nodes = std::move(*picked);
  data.step_id = st.next_step++;
  data.request = &req;
  data.client = client;
  st.info.step_count = st.next_step;
  auto step_id = data.step_id;
  auto nodes = data.step_nodes;
  execute(self, t, data);
  msg::job_event ev;
  ev.job_id = st.info.job_id;
  ev.step_id = step_id;
  ev.kind = "launched";
  ev.state = st.info.state;
  std::vector<std::string> names;
  for (auto i : nodes) names.push_back(st.nodes[i]);
  ev.nodelist = topology::compress_hostlist(names);
  ev.node_count = static_cast<uint32_t>(st.steps[step_id].nodes.size());
  return ev;
}

void on_client_down(job_self self, const caf::actor_addr& who) {
  auto& st = self->state;
  if (who == st.setup.client.address()) {
    auto t = decide(self, policy::event{event_kind::client_gone});
    if (t.outcome != verdict::applied) return;
    config::log().info("job client gone job={}", st.info.job_id);
    event_data data;
    execute(self, t, data);
    return;
  }
  // A step's own client (srun inside an allocation): only its step ends.
  for (auto& [id, run] : st.steps) {
    if (run.client && run.client.address() == who && id != st.main_step) {
      run.client = nullptr;
      signal_steps(self, id, SIGKILL);
    }
  }
}

}  // namespace

namespace job_detail {

// Ok once the job's record (sent before) is durable (a cancelled pending job's too).

bool queued(policy::lifecycle_state s) {
  using ls = policy::lifecycle_state;
  return s == ls::pending || s == ls::held || s == ls::dependency_never || s == ls::requeued;
}

caf::result<caf::ok_atom> once_saved(job_self self) {
  auto& keeper = self->state.setup.keeper;
  if (!keeper) return caf::ok_atom::value;
  return self->delegate(keeper, msg::sync_atom_v);
}

}  // namespace job_detail

namespace {

bool may_act_on(job_self self, uint32_t uid) {
  auto& st = self->state;
  static const policy::access_rules root_only;
  const auto& rules = st.setup.access ? *st.setup.access : root_only;
  return policy::may(rules, uid, policy::operation::act_on_job, st.info.uid);
}

caf::result<caf::ok_atom> on_cancel(job_self self, int32_t signo, uint32_t uid) {
  auto& st = self->state;
  if (!may_act_on(self, uid))
    return make_error(errc::permission_denied, "Access/permission denied: job " +
                                                   std::to_string(st.info.job_id) + " belongs to " +
                                                   st.info.user);
  if (signo != 0) {
    policy::event ev{event_kind::signal};
    ev.signo = signo;
    auto t = decide(self, ev);
    if (t.outcome == verdict::refused)
      return make_error(errc::invalid_request,
                        "job " + std::to_string(st.info.job_id) + " is not running");
    config::log().info("job signalled job={} signal={} uid={}", st.info.job_id, signo, uid);
    event_data data;
    execute(self, t, data);
    return caf::ok_atom::value;
  }
  config::log().info("job cancelled job={} uid={} state={}", st.info.job_id, uid,
                     msg::to_string(st.info.state));
  handle(self, policy::event{event_kind::cancel});
  return once_saved(self);
}

/// scontrol suspend|resume (the controller let only admins through): Slurm's refusals.
caf::result<caf::ok_atom> on_suspend(job_self self, bool suspend, uint32_t uid) {
  auto& st = self->state;
  auto t = decide(self, policy::event{suspend ? event_kind::suspend : event_kind::resume});
  if (t.outcome == verdict::applied) {
    config::log().info("job {} job={} uid={}", suspend ? "suspended" : "resumed", st.info.job_id,
                       uid);
    event_data data;
    execute(self, t, data);
    return once_saved(self);
  }
  auto s = st.info.state;
  if (!suspend && st.life.lent)
    return make_error(errc::invalid_request,
                      "Job is suspended for a preempting job; it resumes once its CPUs are free");
  const char* why = s == msg::job_state::pending ? "Job is pending execution"
                    : s == msg::job_state::completing || msg::is_finished(s)
                        ? "Job/step already completing or completed"
                    : suspend ? "Job is not running"
                              : "Job is not suspended";
  return make_error(errc::invalid_request, why);
}

caf::result<caf::ok_atom> on_job_command(job_self self, const std::string& op, uint32_t uid) {
  auto& st = self->state;
  if (op == "suspend" || op == "resume") return on_suspend(self, op == "suspend", uid);
  if (op != "requeue") return make_error(errc::invalid_request, "unknown job command '" + op + "'");
  if (!may_act_on(self, uid))
    return make_error(errc::permission_denied, "Access/permission denied: job " +
                                                   std::to_string(st.info.job_id) + " belongs to " +
                                                   st.info.user);
  if (!st.setup.req.batch)
    return make_error(errc::invalid_request, "only batch jobs can be requeued (job " +
                                                 std::to_string(st.info.job_id) +
                                                 " is an interactive `shoal run`)");
  auto t = decide(self, policy::event{event_kind::admin_requeue});
  if (t.outcome == verdict::refused)
    return make_error(errc::invalid_request, std::string{"Job is not running (it is "} +
                                                 msg::to_string(st.info.state) + ")");
  if (t.outcome == verdict::applied) {
    config::log().info("job requeue job={} uid={}", st.info.job_id, uid);
    // Slurm holds a suspended job it requeues (scontrol(1), requeue).
    if (st.life.state == policy::lifecycle_state::suspended) st.hold_when_queued = "JobHeldAdmin";
    event_data data;
    execute(self, t, data);
  }
  return once_saved(self);  // applied, or still queued (ignored)
}

void on_reason(job_self self, const std::string& reason, uint64_t priority) {
  auto& st = self->state;
  auto t = decide(
      self, policy::pending_reason_event(st.life.state, reason, priority != st.info.priority));
  if (t.outcome != verdict::applied) return;
  SHOAL_DEBUG(trace_jobs, "job pending job={} reason={}", st.info.job_id, reason);
  event_data data;
  data.priority = priority;
  execute(self, t, data);
}

void on_time_limit(job_self self, uint64_t gen) {
  auto& st = self->state;
  if (gen != st.timer_gen) return;  // a tick of an earlier run
  auto t = decide(self, policy::event{event_kind::time_limit});
  if (t.outcome != verdict::applied) return;
  config::log().info("job time limit job={} limit={}", st.info.job_id,
                     config::format_duration(st.info.time_limit_s));
  event_data data;
  execute(self, t, data);
}

void on_warning(job_self self, uint64_t gen) {
  auto& st = self->state;
  if (gen != st.timer_gen) return;  // a tick of an earlier run
  auto t = decide(self, policy::event{event_kind::warning_due});
  if (t.outcome != verdict::applied) return;
  config::log().info("job warning signal job={} signal={} batch_only={}", st.info.job_id,
                     st.setup.req.workload.warn_signal, st.setup.req.workload.warn_batch_only);
  event_data data;
  execute(self, t, data);
}

/// A step's shepherd with a PMI server: it hears its parent's handle in the all-gather's tree,
/// and its children already known hear its own. Only introductions pass through the job; the
/// rounds go between the shepherds.
void introduce_shepherd(job_self self, uint32_t step, uint32_t index, step_peer peer) {
  auto it = self->state.steps.find(step);
  if (it == self->state.steps.end() || !peer.handle || index >= it->second.nodes.size()) return;
  auto& known = it->second.shepherds;
  if (!known.emplace(index, peer).second) return;
  // Both ends of each tie hear of the other: a child's parent (and its door, so the two shoalds
  // connect directly), and a parent its child, so that a child whose step ends before it ever
  // joined a round still fails the round at its parent.
  auto tie = [self](uint32_t child, const caf::actor& child_handle, const step_peer& parent) {
    send_to(self, child_handle, msg::peers_atom_v, parent.handle, parent.door_host,
            parent.door_port);
    send_to(self, parent.handle, msg::peers_atom_v, child, child_handle);
  };
  if (index > 0)
    if (auto parent = known.find(exchange_tree::parent_of(index)); parent != known.end())
      tie(index, peer.handle, parent->second);
  for (auto& [other, other_peer] : known)
    if (other > 0 && other != index && exchange_tree::parent_of(other) == index)
      tie(other, other_peer.handle, peer);
}

caf::result<caf::ok_atom> on_complete(job_self self, int32_t code, int32_t signo, uint32_t uid) {
  auto& st = self->state;
  if (!may_act_on(self, uid))
    return make_error(errc::permission_denied, "Access/permission denied: job " +
                                                   std::to_string(st.info.job_id) + " belongs to " +
                                                   st.info.user);
  policy::event ev{event_kind::released};
  ev.exit_code = code;
  ev.exit_signal = signo;
  auto t = decide(self, ev);
  if (t.outcome == verdict::refused)
    return make_error(errc::invalid_request, "job " + std::to_string(st.info.job_id) +
                                                 " is not an allocation (shoal alloc)");
  if (t.outcome == verdict::applied) {
    config::log().info("job allocation released job={} exit_code={} signal={}", st.info.job_id,
                       code, signo);
    event_data data;
    execute(self, t, data);
  }
  return once_saved(self);
}

/// The scheduler preempts the job: only a batch job is queued again (Slurm requeues batch jobs
/// only; the others are killed).
void on_preempt(job_self self, policy::preempt_mode mode, int64_t grace_s) {
  auto& st = self->state;
  policy::event ev{event_kind::preempt};
  ev.requeue = mode == policy::preempt_mode::requeue && st.setup.req.batch;
  ev.by_preemption = mode == policy::preempt_mode::suspend;
  ev.grace_time = grace_s;
  auto t = decide(self, ev);
  if (t.outcome != verdict::applied) return;  // queued again, or ending already
  config::log().info("job preempt job={} mode={} grace_time={}", st.info.job_id,
                     ev.by_preemption ? "SUSPEND"
                     : ev.requeue     ? "REQUEUE"
                                      : "CANCEL",
                     grace_s);
  st.info.preempt_time = unix_now();  // scontrol's PreemptTime
  event_data data;
  execute(self, t, data);
}

/// What a job suspended for a preemptor lent is free again.
void on_scheduler_resume(job_self self) {
  policy::event ev{event_kind::resume};
  ev.by_preemption = true;
  auto t = decide(self, ev);
  if (t.outcome != verdict::applied) return;  // ended, or requeued, meanwhile
  config::log().info("job resumed job={} after preemption", self->state.info.job_id);
  event_data data;
  execute(self, t, data);
}

void on_kill_wait(job_self self, uint64_t gen) {
  if (gen != self->state.timer_gen) return;  // a tick of an earlier run
  handle(self, policy::event{event_kind::kill_wait_expired});
}

/// A step `node` no longer runs and never reported: it counts as failed there, for `why`.
void lose_step(job_self self, const std::string& node, uint32_t step_id, const std::string& why) {
  msg::step_exit ex;
  ex.job_id = self->state.info.job_id;
  ex.step_id = step_id;
  ex.node_name = node;
  ex.launch_error = "step lost: " + why;
  ex.tasks.push_back({0, 1, 0});
  on_step_exit(self, ex);
}

/// A node re-registered after the controller restarted and runs `running` of this job's steps.
void on_node_report(job_self self, const std::string& node, const std::vector<uint32_t>& running) {
  auto& st = self->state;
  auto it = st.unconfirmed.find(node);
  if (it == st.unconfirmed.end()) return;
  auto expected = std::move(it->second);
  st.unconfirmed.erase(it);
  for (auto id : expected) {
    // Reported ended in the same registration (it comes first): not lost.
    auto step = st.steps.find(id);
    if (step == st.steps.end() || step->second.waiting.count(node) == 0) continue;
    if (std::find(running.begin(), running.end(), id) != running.end()) {
      // Confirmed: any later registration of this node must know it too (on_daemon_report),
      // as for a step launched in this run of the controller.
      step->second.sent_ns = std::max<int64_t>(step->second.sent_ns, 1);
    } else {
      config::log().warn("job step lost job={} step={} node={}", st.info.job_id,
                         msg::step_label(id), node);
      lose_step(self, node, id,
                "node " + node + " was not running it after the controller restarted");
    }
  }
}

/// The node's daemon registered again with a report taken at or after `since_ns`: a step
/// launched there before that, which it neither runs nor reported ended, died with the previous
/// daemon (a simulated step, or a step whose shoal-stepd went too) and is lost.
void on_daemon_report(job_self self, const std::string& node, const std::vector<uint32_t>& running,
                      int64_t since_ns) {
  std::vector<uint32_t> lost;
  for (auto& [id, run] : self->state.steps)
    if (run.waiting.count(node) != 0 && run.sent_ns != 0 && run.sent_ns < since_ns &&
        std::find(running.begin(), running.end(), id) == running.end())
      lost.push_back(id);
  for (auto id : lost) {
    config::log().warn(
        "job step lost job={} step={} node={}: its shoald registered again without it",
        self->state.info.job_id, msg::step_label(id), node);
    lose_step(self, node, id, "the shoald of node " + node + " registered again without it");
  }
}

/// The job's `shoal run` is back after a controller restart: it hears the job's end from now
/// on, and its main step's output goes to it again.
msg::job_info on_attach(job_self self, caf::actor& client) {
  auto& st = self->state;
  if (st.setup.client) self->demonitor(st.setup.client);
  st.setup.client = client;
  self->monitor(client);
  config::log().info("job client reattached job={}", st.info.job_id);
  auto main = st.steps.find(st.main_step);
  if (main != st.steps.end() && !st.setup.req.batch) {
    main->second.client = client;
    for (auto i : main->second.nodes)
      send_to(self, st.node_actors[i], msg::attach_atom_v, st.info.job_id, st.main_step, client);
  }
  return st.info;
}

/// A step's `shoal run` is back after a controller restart: its step's output and end go to it
/// from now on, and it ends the step again if it goes away (srun's rule). When the step ended
/// while it was away, it hears that end now.
caf::result<msg::job_info> on_step_attach(job_self self, uint32_t step_id, caf::actor& client) {
  auto& st = self->state;
  auto label = std::to_string(st.info.job_id) + "." + msg::step_label(step_id);
  if (auto ended = st.unheard_ends.find(step_id); ended != st.unheard_ends.end()) {
    config::log().info("step client reattached job={} step={} ended=true", st.info.job_id,
                       msg::step_label(step_id));
    msg::job_event ev;
    ev.job_id = st.info.job_id;
    ev.step_id = step_id;
    ev.kind = "ended";
    ev.state = st.info.state;
    ev.nodelist = st.info.nodelist;
    ev.text = ended->second.error;
    ev.exit_code = ended->second.exit_code;
    // No node reports its tasks to this client any more: it need not wait for them.
    ev.node_count = 0;
    st.unheard_ends.erase(ended);
    send_to(self, client, std::move(ev));
    return st.info;
  }
  auto it = st.steps.find(step_id);
  if (it == st.steps.end() || step_id == st.main_step)
    return make_error(errc::unknown_job, "step " + label + " is not known to the controller");
  auto& run = it->second;
  if (run.client && run.client != st.setup.client) self->demonitor(run.client);
  run.client = client;
  if (client != st.setup.client) self->monitor(client);
  config::log().info("step client reattached job={} step={} ended=false", st.info.job_id,
                     msg::step_label(step_id));
  for (auto i : run.nodes)
    send_to(self, st.node_actors[i], msg::attach_atom_v, st.info.job_id, step_id, client);
  return st.info;
}

/// Resumes a job from its saved record: queued jobs queue again (with their holds), placed
/// ones take their allocation back and wait for their nodes to report their steps; time limits
/// count from the original start.
void restore(job_self self) {
  auto& st = self->state;
  auto rec = std::move(*st.setup.restored);
  st.setup.restored.reset();
  st.setup.req = rec.request;
  st.info = rec.info;
  st.logged = st.info.state;
  st.life.state = static_cast<policy::lifecycle_state>(rec.life_state);
  st.life.reason = rec.life_reason;
  st.life.ending = static_cast<policy::lifecycle_state>(rec.life_ending);
  st.life.requeue_reason = rec.requeue_reason;
  st.life.told_queued = true;
  st.life.warned = rec.life_warned;
  st.life.lent = rec.life_lent;
  st.main_step = rec.main_step;
  st.next_step = rec.next_step;
  st.done_steps = std::move(rec.done_steps);
  config::log().info("job recovered job={} state={} nodes={}", st.info.job_id,
                     msg::to_string(st.info.state), st.info.nodelist);
  // (An allocation has no main step: it runs with no step at all.)
  if (!queued(st.life.state) && st.life.state != policy::lifecycle_state::completing &&
      rec.steps.empty() && !st.setup.req.workload.allocation) {
    // Placed, but its first step was never launched (launches wait for the record naming
    // them): it never ran, so it queues again rather than launch on nodes not yet back.
    st.life = policy::initial_lifecycle(false);
    st.life.told_queued = true;
    st.info.state = policy::to_job_state(st.life.state);
    st.info.reason = st.life.reason;
    st.info.nodelist.clear();
    st.info.start_time = 0;
    st.logged = st.info.state;
    publish(self);
  }
  if (queued(st.life.state)) {
    // Holds come back from the reason the scheduler last gave, not the submission's -H.
    auto req = st.setup.req;
    req.workload.hold = false;
    self->send(st.setup.scheduler, msg::enqueue_atom_v, st.info.job_id, req, st.setup.workload,
               handle_of(self), st.info.submit_time);
    hold_again(self, st.setup.scheduler, st.info.job_id, st.life.reason);
    return;
  }
  st.nodes = std::move(rec.nodes);
  st.node_cpus = std::move(rec.cpus);
  st.node_gres = std::move(rec.gres);
  st.node_actors = std::move(st.setup.start_node_actors);
  st.setup.start_nodes.clear();
  for (auto& step : rec.steps) {
    step_run run;
    for (auto i : step.nodes) run.nodes.push_back(i);
    run.waiting.insert(step.waiting.begin(), step.waiting.end());
    run.exit_code = step.exit_code;
    run.exit_signal = step.exit_signal;
    run.error = step.error;
    run.out_of_memory = step.out_of_memory;
    run.usage = step.usage;
    run.start_time = step.start_time;
    run.ntasks = step.ntasks;
    run.nodelist = step.nodelist;
    run.listing = step.listing;
    for (auto& node : step.waiting) st.unconfirmed[node].insert(step.step_id);
    st.steps.emplace(step.step_id, std::move(run));
  }
  publish_steps(self);
  self->send(st.setup.scheduler, msg::adopt_atom_v, st.info.job_id, st.setup.req, st.setup.workload,
             st.nodes, st.node_cpus, st.info.start_time, st.info.array_job_id,
             static_cast<uint32_t>(std::max<int64_t>(0, st.info.array_task_id)), st.node_gres);
  // Suspended for a preemptor: its CPUs stay lent (the preemptor was recovered holding them).
  if (st.life.lent) self->send(st.setup.scheduler, msg::lent_atom_v, st.info.job_id);
  policy::effect start{effect_kind::start_nodes};
  event_data none;
  follow_ups then;
  run_effect(self, start, none, then);
  if (st.life.state == policy::lifecycle_state::completing) {
    run_effect(self, policy::effect{effect_kind::nodes_done}, none, then);
    run_effect(self, policy::effect{effect_kind::arm_kill_timer}, none, then);
    // An allocation that was ending with no step left: nothing will report to end it.
    if (st.setup.req.workload.allocation && st.steps.empty())
      run_effect(self, policy::effect{effect_kind::release_nodes}, none, then);
    for (auto& [ev, data] : then) handle(self, ev, std::move(data));
    return;
  }
  // In its GraceTime when the controller went: the grace time is not saved, so KillWait is what
  // it gets from here before the SIGKILL.
  if (st.life.state == policy::lifecycle_state::preempting) {
    run_effect(self, policy::effect{effect_kind::arm_kill_timer}, none, then);
    return;
  }
  // A suspended job's clock stays stopped until it is resumed.
  if (st.life.state != policy::lifecycle_state::suspended) arm_remaining_time(self);
}

job_impl::behavior_type job_behavior(job_self self, job_setup setup) {
  tolerate_strays(self);
  actor_probe probe{self, setup.meters, "job"};
  auto& st = self->state;
  st.info = initial_job_info(setup);
  st.life = policy::initial_lifecycle(setup.req.workload.hold);
  st.setup = std::move(setup);
  if (st.setup.req.workload.allocation) st.main_step = no_main_step;
  // srun semantics: when the waiting `shoal run` goes away, so does its job (or step).
  if (st.setup.client) self->monitor(st.setup.client);
  self->set_down_handler([self](const caf::down_msg& dm) { on_client_down(self, dm.source); });
  if (st.setup.restored) {
    restore(self);
  } else if (publish(self, false); !st.setup.start_nodes.empty()) {
    // An array task: placed before it was spawned.
    on_start(self, std::move(st.setup.start_nodes), std::move(st.setup.start_node_actors),
             std::move(st.setup.start_cpus), std::move(st.setup.start_nodelist),
             std::move(st.setup.start_gres));
  } else {
    self->send(st.setup.scheduler, msg::enqueue_atom_v, st.info.job_id, st.setup.req,
               st.setup.workload, handle_of(self), st.info.submit_time);
  }
  return {
      probe.metered("start",
                    [self](msg::start_atom, std::vector<std::string>& names,
                           std::vector<caf::actor>& actors, std::vector<uint32_t>& cpus,
                           std::string& nodelist, std::vector<msg::gres_held>& gres) {
                      on_start(self, std::move(names), std::move(actors), std::move(cpus),
                               std::move(nodelist), std::move(gres));
                    }),
      probe.metered("requeue", [self](msg::jobctl_atom, const std::string& op,
                                      uint32_t uid) { return on_job_command(self, op, uid); }),
      probe.metered("view", [self](msg::view_atom, const std::string& reason,
                                   uint64_t priority) { on_reason(self, reason, priority); }),
      probe.metered(
          "view_sync",
          [self](msg::view_atom, const std::string& reason, uint64_t priority, msg::sync_atom) {
            on_reason(self, reason, priority);
            return once_saved(self);
          }),
      probe.metered("step_exit", [self](const msg::step_exit& ex) { on_step_exit(self, ex); }),
      probe.metered("prolog_failed",
                    [self](msg::prolog_atom, const std::string& node, const std::string& reason) {
                      on_prolog_failed(self, node, reason);
                    }),
      probe.metered("step",
                    [self](msg::step_atom, msg::job_request& req, caf::actor& client) {
                      return on_step_request(self, req, client);
                    }),
      probe.metered("cancel", [self](msg::cancel_atom, int32_t signo,
                                     uint32_t uid) { return on_cancel(self, signo, uid); }),
      probe.metered("signal",
                    [self](msg::signal_atom, int32_t signo) {
                      policy::event ev{event_kind::signal};
                      ev.signo = signo;
                      handle(self, ev);  // refused unless running: nobody to tell
                    }),
      probe.metered("tlimit", [self](msg::tlimit_atom, uint64_t gen) { on_time_limit(self, gen); }),
      probe.metered("warn", [self](msg::warn_atom, uint64_t gen) { on_warning(self, gen); }),
      probe.metered("complete",
                    [self](msg::complete_atom, int32_t code, int32_t signo, uint32_t uid) {
                      return on_complete(self, code, signo, uid);
                    }),
      probe.metered("stored",
                    [self](msg::stored_atom, std::vector<uint32_t>& ids) {
                      auto& done = self->state.done_steps;
                      done.erase(std::remove_if(done.begin(), done.end(),
                                                [&](const msg::step_record& s) {
                                                  return std::find(ids.begin(), ids.end(),
                                                                   s.step_id) != ids.end();
                                                }),
                                 done.end());
                    }),
      probe.metered("peers",
                    [self](msg::peers_atom, uint32_t step, uint32_t index, caf::actor& shepherd,
                           std::string& door_host, uint16_t door_port) {
                      introduce_shepherd(
                          self, step, index,
                          step_peer{std::move(shepherd), std::move(door_host), door_port});
                    }),
      probe.metered("escalate",
                    [self](msg::escalate_atom, uint64_t gen) { on_kill_wait(self, gen); }),
      probe.metered("preempt",
                    [self](msg::preempt_atom, uint8_t mode, int64_t grace_s) {
                      on_preempt(self, static_cast<policy::preempt_mode>(mode), grace_s);
                    }),
      probe.metered("resume", [self](msg::resume_atom) { on_scheduler_resume(self); }),
      probe.metered("nodedown", [self](msg::nodedown_atom,
                                       const std::string& node) { on_node_down(self, node); }),
      probe.metered("jobs", [self](msg::jobs_atom) { return self->state.info; }),
      probe.metered("update_query", [self](msg::update_atom) { return record_of(self->state); }),
      probe.metered(
          "update",
          [self](msg::update_atom, msg::job_request& req, policy::workload_ptr& workload) {
            return on_update(self, req, workload);
          }),
      probe.metered("usage",
                    [self](msg::usage_atom, uint32_t step) { return live_usage(self, step); }),
      probe.metered("attach", [self](msg::attach_atom,
                                     caf::actor& client) { return on_attach(self, client); }),
      probe.metered("attach_step",
                    [self](msg::attach_atom, uint32_t step, caf::actor& client) {
                      return on_step_attach(self, step, client);
                    }),
      probe.metered(
          "adopt",
          [self](msg::adopt_atom, const std::string& node, const std::vector<uint32_t>& running) {
            on_node_report(self, node, running);
          }),
      probe.metered(
          "adopt",
          [self](msg::adopt_atom, const std::string& node, const std::vector<uint32_t>& running,
                 int64_t since_ns) { on_daemon_report(self, node, running, since_ns); }),
  };
}

}  // namespace

msg::job_info initial_job_info(const job_setup& setup) {
  const auto& req = setup.req;
  msg::job_info info;
  info.job_id = setup.id;
  info.name = req.name;
  info.user = req.user;
  info.uid = req.uid;
  info.partition = req.partition;
  info.submit_time = setup.submit_time;
  info.time_limit_s = req.time_limit_s;
  info.node_count = req.min_nodes;
  info.ntasks = req.ntasks;
  info.cpus_per_task = req.cpus_per_task > 0 ? req.cpus_per_task : 1;
  info.batch = req.batch;
  info.work_dir = req.cwd;
  info.command = req.batch ? req.argv.empty() ? "(script)" : req.argv.front() : "";
  if (!req.batch)
    for (auto& a : req.argv) info.command += (info.command.empty() ? "" : " ") + a;
  info.stdout_path = req.stdout_path;
  info.stderr_path = req.stderr_path;
  info.requeue = req.requeue;
  info.exclude_nodes = req.exclude;
  info.required_nodes = req.nodelist;
  info.array_job_id = setup.array_job_id;
  info.array_task_id = setup.array_task_id;
  info.dependency = req.workload.dependency;
  info.begin_time = req.workload.begin_time;
  info.mem_per_node_mb = req.workload.mem_per_node_mb;
  info.over_subscribe = req.workload.exclusive ? "NO" : req.workload.oversubscribe ? "YES" : "OK";
  info.account = req.workload.account;
  info.qos = req.workload.qos;
  info.comment = req.workload.comment;
  info.features = req.constraint;
  info.mail_type = req.workload.mail_type;
  info.mail_user = req.workload.mail_user;
  info.ntasks_per_node = req.workload.ntasks_per_node;
  info.min_cpus = req.workload.min_cpus;
  if (setup.workload) info.tres_per_node = policy::tres_per_node(setup.workload->gres);
  if (setup.workload) info.licenses = policy::licenses_text(setup.workload->licenses);
  info.reservation = req.workload.reservation;
  info.state = msg::job_state::pending;
  if (req.workload.hold) info.reason = "JobHeldUser";
  return info;
}

job_actor spawn_job(caf::actor_system& sys, job_setup setup) {
  return sys.spawn(job_behavior, std::move(setup));
}

}  // namespace shoal::actors
