#include "actors/job.hpp"

#include <csignal>
#include <map>
#include <set>

#include <caf/all.hpp>

#include "actors/clock.hpp"
#include "actors/metering.hpp"
#include "actors/scheduling.hpp"
#include "config/duration.hpp"
#include "config/log.hpp"
#include "messages/errc.hpp"
#include "messages/type_ids.hpp"
#include "topology/hostlist.hpp"

namespace shoal::actors {

namespace {

constexpr uint32_t all_steps = 0xffffffff;

struct step_run {
  std::vector<size_t> nodes;      ///< indices into the job's node list
  std::set<std::string> waiting;  ///< nodes whose tasks have not reported yet
  int32_t exit_code = 0;          ///< highest task exit code so far
  caf::actor client;
  std::string error;           ///< first launch error
  bool out_of_memory = false;  ///< a node killed its tasks for exceeding the memory limit
};

struct job_state_t {
  static inline const char* name = "job";
  job_setup setup;
  msg::job_info info;
  bool told_queued = false;
  std::vector<std::string> nodes;
  std::vector<caf::actor> node_actors;
  std::vector<uint32_t> node_cpus;  ///< CPUs held on each node (shared nodes), else empty
  std::map<uint32_t, step_run> steps;
  uint32_t next_step = 0;
  uint32_t main_step = 0;
  caf::optional<msg::job_state> ending;  ///< the final state once termination has begun
  bool requeue_after_kill = false;
  std::string requeue_reason;  ///< the pending reason once requeued (NodeFail, Requeued)
  uint64_t timer_gen = 0;
};

using job_self = caf::stateful_actor<job_state_t>*;

void publish(job_self self) {
  self->send(self->state.setup.controller, msg::view_atom_v, self->state.info);
}

void tell(job_self self, const caf::actor& to, std::string kind, std::string text,
          int32_t exit_code = 0, uint32_t step = 0, uint32_t node_count = 0) {
  if (!to) return;
  msg::job_event ev;
  ev.job_id = self->state.info.job_id;
  ev.step_id = step;
  ev.kind = std::move(kind);
  ev.state = self->state.info.state;
  ev.nodelist = self->state.info.nodelist;
  ev.text = std::move(text);
  ev.exit_code = exit_code;
  ev.node_count = node_count;
  self->send(to, std::move(ev));
}

/// One info line per job state change, worded for the events operators look for.
void log_state_change(const msg::job_info& info, msg::job_state next, const std::string& reason) {
  if (next == msg::job_state::running)
    config::log().info("job started job={} nodes={} node_count={}", info.job_id, info.nodelist,
                       info.node_count);
  else if (msg::is_finished(next))
    config::log().info("job ended job={} state={} exit_code={} nodes={} reason=\"{}\"", info.job_id,
                       msg::to_string(next), info.exit_code, info.nodelist, reason);
  else if (next == msg::job_state::pending && info.state != msg::job_state::pending)
    config::log().info("job requeued job={} reason=\"{}\" requeue_count={}", info.job_id, reason,
                       info.requeue_count);
  else
    config::log().info("job state job={} from={} to={} nodes={} reason=\"{}\"", info.job_id,
                       msg::to_string(info.state), msg::to_string(next), info.nodelist, reason);
}

void set_state(job_self self, msg::job_state next, std::string reason = "") {
  auto& info = self->state.info;
  if (info.state != next) log_state_change(info, next, reason);
  info.state = next;
  info.reason = std::move(reason);
}

void signal_steps(job_self self, uint32_t step, int32_t signo) {
  SHOAL_DEBUG(agent, "signal request job={} step={} signal={} nodes={}", self->state.info.job_id,
              msg::step_label(step), signo, self->state.info.nodelist);
  for (auto& node : self->state.node_actors)
    self->send(node, msg::signal_atom_v, self->state.info.job_id, step, signo);
}

/// Starts one step on the given nodes of the allocation (indices into st.nodes).
/// The job's memory on its `node`-th node, as the node daemon enforces it: --mem, or
/// --mem-per-cpu times the CPUs held there; 0 when the job asked for no memory.
uint64_t memory_on(const job_state_t& st, size_t node) {
  auto& work = st.setup.req.workload;
  if (work.mem_per_node_mb > 0) return work.mem_per_node_mb;
  if (work.mem_per_cpu_mb > 0 && node < st.node_cpus.size())
    return work.mem_per_cpu_mb * st.node_cpus[node];
  return 0;
}

void launch_step(job_self self, uint32_t step_id, std::vector<size_t> nodes,
                 const msg::job_request& req, caf::actor client) {
  auto& st = self->state;
  auto ntasks = req.ntasks > 0 ? req.ntasks : static_cast<uint32_t>(nodes.size());
  if (req.batch) ntasks = 1;
  auto layout = distribute_tasks(ntasks, static_cast<uint32_t>(nodes.size()));
  std::vector<std::string> step_names;
  for (auto i : nodes) step_names.push_back(st.nodes[i]);
  auto step_nodelist = topology::compress_hostlist(step_names);
  step_run run;
  run.client = client;
  for (size_t k = 0; k < nodes.size(); ++k) {
    if (layout[k].empty()) continue;
    run.nodes.push_back(nodes[k]);
    run.waiting.insert(st.nodes[nodes[k]]);
  }
  auto launched = run.nodes;
  SHOAL_DEBUG(steps, "step launch job={} step={} nodes={} tasks={}", st.info.job_id,
              msg::step_label(step_id), step_nodelist, ntasks);
  if (client && client != st.setup.client) self->monitor(client);
  st.steps.emplace(step_id, std::move(run));
  for (size_t k = 0; k < launched.size(); ++k) {
    msg::launch_request lr;
    lr.job_id = st.info.job_id;
    lr.step_id = step_id;
    lr.user = req.user;
    lr.uid = req.uid;
    lr.gid = req.gid;
    lr.argv = req.argv;
    lr.env = req.env;
    lr.cwd = req.cwd;
    lr.nodelist = step_nodelist;
    lr.node_index = static_cast<uint32_t>(k);
    lr.node_count = static_cast<uint32_t>(launched.size());
    lr.ntasks = ntasks;
    lr.ranks = layout[k];
    lr.cpus_per_task = req.cpus_per_task > 0 ? req.cpus_per_task : 1;
    lr.cpu_bind = req.cpu_bind;
    lr.batch = req.batch;
    lr.script = req.script;
    lr.stdout_path = st.info.stdout_path;
    lr.stderr_path = st.info.stderr_path;
    lr.job_nodelist = st.info.nodelist;
    lr.job_name = st.info.name;
    lr.partition = st.info.partition;
    lr.job_node_count = static_cast<uint32_t>(st.nodes.size());
    lr.mem_limit_mb = memory_on(st, launched[k]);
    SHOAL_DEBUG(agent, "launch request job={} step={} node={}", st.info.job_id,
                msg::step_label(step_id), st.nodes[launched[k]]);
    self->send(st.node_actors[launched[k]], msg::launch_atom_v, std::move(lr), client,
               caf::actor{self});
  }
}

/// Frees the nodes, settles the final state and tells everyone; the actor then quits.
void finish(job_self self) {
  auto& st = self->state;
  // Steps still running when the main one ends (e.g. the batch script returned) are killed.
  if (!st.steps.empty()) signal_steps(self, all_steps, SIGKILL);
  auto& main_run = st.info;
  for (auto& node : st.node_actors) self->send(node, msg::release_atom_v, main_run.job_id);
  if (st.requeue_after_kill) {
    self->send(st.setup.scheduler, msg::release_atom_v, main_run.job_id);
    st.requeue_after_kill = false;
    st.ending = caf::none;
    st.steps.clear();
    st.nodes.clear();
    st.node_actors.clear();
    st.info.nodelist.clear();
    st.info.start_time = 0;
    st.info.requeue_count++;
    set_state(self, msg::job_state::pending, st.requeue_reason);
    publish(self);
    self->send(st.setup.scheduler, msg::enqueue_atom_v, st.info.job_id, st.setup.req,
               caf::actor{self});
    return;
  }
  msg::job_state final_state =
      st.ending ? *st.ending
                : (st.info.exit_code == 0 ? msg::job_state::completed : msg::job_state::failed);
  st.info.end_time = unix_now();
  set_state(self, final_state, st.info.reason);
  self->send(st.setup.scheduler, msg::ended_atom_v, main_run.job_id,
             final_state == msg::job_state::completed, main_run.start_time);
  publish(self);
  tell(self, st.setup.client, "ended", msg::to_string(final_state), st.info.exit_code, st.main_step,
       static_cast<uint32_t>(st.nodes.size()));
  self->quit();
}

void step_done(job_self self, uint32_t step_id) {
  auto& st = self->state;
  auto it = st.steps.find(step_id);
  auto run = std::move(it->second);
  st.steps.erase(it);
  SHOAL_DEBUG(trace_jobs, "step done job={} step={} exit_code={} error=\"{}\"", st.info.job_id,
              msg::step_label(step_id), run.exit_code, run.error);
  if (step_id == st.main_step) {
    st.info.exit_code = run.exit_code;
    if (!run.error.empty() && st.info.reason.empty()) st.info.reason = run.error;
    if (run.out_of_memory && !st.ending) st.ending = msg::job_state::out_of_memory;
    return finish(self);
  }
  tell(self, run.client, "ended", run.error, run.exit_code, step_id,
       static_cast<uint32_t>(run.nodes.size()));
}

/// Begins the end of a running job: SIGTERM now, SIGKILL after KillWait.
void terminate(job_self self, msg::job_state final_state, std::string reason) {
  auto& st = self->state;
  if (st.info.state == msg::job_state::pending) {
    self->send(st.setup.scheduler, msg::cancel_atom_v, st.info.job_id);
    st.ending = final_state;
    st.info.reason = std::move(reason);
    return finish(self);
  }
  if (st.ending) return;  // already on its way out
  st.ending = final_state;
  set_state(self, msg::job_state::completing, std::move(reason));
  publish(self);
  for (auto& node : st.node_actors) self->send(node, msg::done_atom_v, st.info.job_id);
  signal_steps(self, all_steps, SIGTERM);
  self->delayed_send(self, std::chrono::seconds{st.setup.kill_wait_s}, msg::escalate_atom_v,
                     st.timer_gen);
}

void on_start(job_self self, std::vector<std::string> names, std::vector<caf::actor> actors,
              std::vector<uint32_t> cpus, std::string nodelist) {
  auto& st = self->state;
  // A job cancelled while the scheduler placed it has already told the scheduler it ended,
  // which frees the nodes there.
  if (st.info.state != msg::job_state::pending) return;
  st.nodes = std::move(names);
  st.node_actors = std::move(actors);
  st.node_cpus = std::move(cpus);
  st.info.nodelist = std::move(nodelist);
  st.info.node_count = static_cast<uint32_t>(st.nodes.size());
  st.info.start_time = unix_now();
  set_state(self, msg::job_state::running);
  publish(self);
  // A whole-node job tells its nodes 0 CPUs ("all"); a shared one what it holds.
  bool shared = !st.setup.req.workload.exclusive && st.node_cpus.size() == st.nodes.size() &&
                st.setup.shared_nodes;
  for (size_t i = 0; i < st.node_actors.size(); ++i)
    self->send(st.node_actors[i], msg::start_atom_v, st.info.job_id,
               shared ? st.node_cpus[i] : uint32_t{0});
  ++st.timer_gen;
  if (st.info.time_limit_s > 0)
    self->delayed_send(self, std::chrono::seconds{st.info.time_limit_s}, msg::tlimit_atom_v,
                       st.timer_gen);
  tell(self, st.setup.client, "allocated", "", 0, 0, st.info.node_count);
  std::vector<size_t> all(st.nodes.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  if (st.setup.req.batch) {
    st.main_step = msg::batch_step_id;
    launch_step(self, msg::batch_step_id, {0}, st.setup.req, caf::actor{});
  } else {
    st.main_step = st.next_step++;
    launch_step(self, st.main_step, all, st.setup.req, st.setup.client);
  }
}

void on_step_exit(job_self self, const msg::step_exit& ex) {
  auto& st = self->state;
  auto it = st.steps.find(ex.step_id);
  if (it == st.steps.end() || it->second.waiting.erase(ex.node_name) == 0) return;
  auto& run = it->second;
  for (auto& t : ex.tasks) run.exit_code = std::max(run.exit_code, msg::shell_exit_code(t));
  if (!ex.launch_error.empty() && run.error.empty()) run.error = ex.launch_error;
  if (ex.out_of_memory) {
    run.out_of_memory = true;
    if (run.error.empty()) run.error = "OutOfMemory: over the memory limit on " + ex.node_name;
  }
  SHOAL_DEBUG(steps, "step exit job={} step={} node={} tasks={} error=\"{}\"", ex.job_id,
              msg::step_label(ex.step_id), ex.node_name, ex.tasks.size(), ex.launch_error);
  if (run.waiting.empty()) step_done(self, ex.step_id);
}

void on_node_down(job_self self, const std::string& node) {
  auto& st = self->state;
  if (std::find(st.nodes.begin(), st.nodes.end(), node) == st.nodes.end()) return;
  if (msg::is_finished(st.info.state) || st.info.state == msg::job_state::pending) return;
  config::log().warn("job node failed job={} node={} requeue={}", st.info.job_id, node,
                     st.setup.req.requeue);
  if (!st.ending) {
    if (st.setup.req.requeue) {
      st.requeue_after_kill = true;
      st.requeue_reason = "NodeFail";
    }
    st.ending = msg::job_state::node_fail;
    set_state(self, msg::job_state::completing, "NodeFail: " + node);
    publish(self);
    tell(self, st.setup.client, "message", "node " + node + " failed; the job is ending");
    signal_steps(self, all_steps, SIGKILL);
  }
  // The failed node will never report: count its tasks as gone.
  std::vector<uint32_t> finished;
  for (auto& [id, run] : st.steps) {
    if (run.waiting.erase(node) > 0 && run.error.empty()) run.error = "node " + node + " failed";
    if (run.waiting.empty()) finished.push_back(id);
  }
  for (auto id : finished) step_done(self, id);
}

caf::result<msg::job_event> on_step_request(job_self self, msg::job_request& req,
                                            caf::actor& client) {
  auto& st = self->state;
  if (st.info.state != msg::job_state::running || st.ending)
    return make_error(errc::invalid_request,
                      "job " + std::to_string(st.info.job_id) + " is not running");
  auto have = static_cast<uint32_t>(st.nodes.size());
  auto want = req.min_nodes;
  if (want == 0) want = req.ntasks > 0 ? std::min(req.ntasks, have) : have;
  if (want > have)
    return make_error(errc::unsatisfiable, "step needs " + std::to_string(want) +
                                               " nodes but job " + std::to_string(st.info.job_id) +
                                               " has " + std::to_string(have));
  std::vector<size_t> nodes(want);
  for (uint32_t i = 0; i < want; ++i) nodes[i] = i;
  auto step_id = st.next_step++;
  st.info.step_count = st.next_step;
  launch_step(self, step_id, nodes, req, client);
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
    if (msg::is_finished(st.info.state) || st.ending) return;
    config::log().info("job client gone job={}", st.info.job_id);
    st.setup.client = nullptr;
    terminate(self, msg::job_state::cancelled, "ClientGone");
    return;
  }
  for (auto& [id, run] : st.steps) {
    if (run.client && run.client.address() == who && id != st.main_step) {
      run.client = nullptr;
      signal_steps(self, id, SIGKILL);
    }
  }
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
  info.submit_time = unix_now();
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
  info.state = msg::job_state::pending;
  if (req.workload.hold) info.reason = "JobHeldUser";
  return info;
}

namespace {

caf::result<caf::ok_atom> on_requeue(job_self self, const std::string& op, uint32_t uid) {
  auto& st = self->state;
  if (op != "requeue") return make_error(errc::invalid_request, "unknown job command '" + op + "'");
  if (uid != 0 && uid != st.info.uid && uid != st.setup.admin_uid)
    return make_error(errc::permission_denied, "Access/permission denied: job " +
                                                   std::to_string(st.info.job_id) + " belongs to " +
                                                   st.info.user);
  if (!st.setup.req.batch)
    return make_error(errc::invalid_request, "only batch jobs can be requeued (job " +
                                                 std::to_string(st.info.job_id) +
                                                 " is an interactive `shoal run`)");
  if (st.info.state == msg::job_state::pending) return caf::ok_atom::value;  // already queued
  if (st.info.state != msg::job_state::running || st.ending)
    return make_error(errc::invalid_request, std::string{"Job is not running (it is "} +
                                                 msg::to_string(st.info.state) + ")");
  config::log().info("job requeue job={} uid={}", st.info.job_id, uid);
  st.requeue_after_kill = true;
  st.requeue_reason = "Requeued";
  st.ending = msg::job_state::cancelled;
  set_state(self, msg::job_state::completing, "Requeued");
  publish(self);
  for (auto& node : st.node_actors) self->send(node, msg::done_atom_v, st.info.job_id);
  signal_steps(self, all_steps, SIGTERM);
  self->delayed_send(self, std::chrono::seconds{st.setup.kill_wait_s}, msg::escalate_atom_v,
                     st.timer_gen);
  return caf::ok_atom::value;
}

caf::behavior job_behavior(job_self self, job_setup setup) {
  actor_probe probe{self, setup.meters, "job"};
  auto& st = self->state;
  auto& info = st.info;
  info = initial_job_info(setup);
  st.setup = std::move(setup);
  // srun semantics: when the waiting `shoal run` goes away, so does its job (or step).
  if (st.setup.client) self->monitor(st.setup.client);
  self->set_down_handler([self](const caf::down_msg& dm) { on_client_down(self, dm.source); });
  publish(self);
  if (!st.setup.start_nodes.empty()) {
    // An array task: placed before it was spawned.
    on_start(self, std::move(st.setup.start_nodes), std::move(st.setup.start_node_actors),
             std::move(st.setup.start_cpus), std::move(st.setup.start_nodelist));
  } else {
    self->send(st.setup.scheduler, msg::enqueue_atom_v, info.job_id, st.setup.req,
               caf::actor{self});
  }
  return {
      probe.metered(
          "start",
          [self](msg::start_atom, std::vector<std::string>& names, std::vector<caf::actor>& actors,
                 std::vector<uint32_t>& cpus, std::string& nodelist) {
            on_start(self, std::move(names), std::move(actors), std::move(cpus),
                     std::move(nodelist));
          }),
      probe.metered("requeue", [self](msg::jobctl_atom, const std::string& op,
                                      uint32_t uid) { return on_requeue(self, op, uid); }),
      probe.metered("view",
                    [self](msg::view_atom, const std::string& reason, uint64_t priority) {
                      auto& st = self->state;
                      if (st.info.state != msg::job_state::pending) return;
                      if (st.info.reason == reason && st.info.priority == priority) return;
                      st.info.reason = reason;
                      st.info.priority = priority;
                      SHOAL_DEBUG(trace_jobs, "job pending job={} reason={}", st.info.job_id,
                                  reason);
                      publish(self);
                      if (!st.told_queued && (reason == "Resources" || reason == "Priority")) {
                        st.told_queued = true;
                        tell(self, st.setup.client, "queued", reason);
                      }
                    }),
      probe.metered("step_exit", [self](const msg::step_exit& ex) { on_step_exit(self, ex); }),
      probe.metered("step",
                    [self](msg::step_atom, msg::job_request& req, caf::actor& client) {
                      return on_step_request(self, req, client);
                    }),
      probe.metered(
          "cancel",
          [self](msg::cancel_atom, int32_t signo, uint32_t uid) -> caf::result<caf::ok_atom> {
            auto& st = self->state;
            if (uid != 0 && uid != st.info.uid && uid != st.setup.admin_uid)
              return make_error(errc::permission_denied,
                                "job " + std::to_string(st.info.job_id) + " belongs to " +
                                    st.info.user + "; only its owner or an admin may cancel it");
            if (signo != 0) {
              if (st.info.state != msg::job_state::running)
                return make_error(errc::invalid_request,
                                  "job " + std::to_string(st.info.job_id) + " is not running");
              config::log().info("job signalled job={} signal={} uid={}", st.info.job_id, signo,
                                 uid);
              signal_steps(self, all_steps, signo);
              return caf::ok_atom::value;
            }
            config::log().info("job cancelled job={} uid={} state={}", st.info.job_id, uid,
                               msg::to_string(st.info.state));
            terminate(self, msg::job_state::cancelled, "");
            return caf::ok_atom::value;
          }),
      probe.metered("signal",
                    [self](msg::signal_atom, int32_t signo) {
                      if (self->state.info.state == msg::job_state::running)
                        signal_steps(self, all_steps, signo);
                    }),
      probe.metered("tlimit",
                    [self](msg::tlimit_atom, uint64_t gen) {
                      auto& st = self->state;
                      if (gen != st.timer_gen || st.info.state != msg::job_state::running) return;
                      config::log().info("job time limit job={} limit={}", st.info.job_id,
                                         config::format_duration(st.info.time_limit_s));
                      tell(self, st.setup.client, "message",
                           "*** JOB " + std::to_string(st.info.job_id) +
                               " CANCELLED DUE TO TIME LIMIT ***");
                      terminate(self, msg::job_state::timeout, "TimeLimit");
                    }),
      probe.metered("escalate",
                    [self](msg::escalate_atom, uint64_t gen) {
                      if (gen == self->state.timer_gen && !self->state.steps.empty())
                        signal_steps(self, all_steps, SIGKILL);
                    }),
      probe.metered("nodedown", [self](msg::nodedown_atom,
                                       const std::string& node) { on_node_down(self, node); }),
      probe.metered("jobs", [self](msg::jobs_atom) { return self->state.info; }),
  };
}

}  // namespace

caf::actor spawn_job(caf::actor_system& sys, job_setup setup) {
  return sys.spawn(job_behavior, std::move(setup));
}

}  // namespace shoal::actors
