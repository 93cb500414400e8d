#include "actors/job_internals.hpp"

#include <algorithm>
#include <csignal>

#include "actors/job_mail.hpp"
#include "actors/saved_state.hpp"
#include "actors/send_to.hpp"
#include "cluster/clock.hpp"
#include "cluster/scheduling.hpp"
#include "cluster/step_usage.hpp"
#include "config/log.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "policy/gres.hpp"
#include "process/mpi_server.hpp"
#include "topology/hostlist.hpp"
#include "topology/task_layout.hpp"

// The effects of the job's lifecycle transitions (policy/job_lifecycle.hpp): what the actor
// sends, arms and records for each, and the step launches they lead to.

namespace shoal::actors::job_detail {

using cluster::distribute_tasks;
using cluster::unix_now;

namespace {

/// One info line per job state change, worded for the events operators look for.
void log_state_change(const msg::job_info& info, msg::job_state from) {
  auto next = info.state;
  if (next == msg::job_state::running && from != msg::job_state::suspended)
    config::log().info("job started job={} nodes={} node_count={}", info.job_id, info.nodelist,
                       info.node_count);
  else if (msg::is_finished(next))
    config::log().info("job ended job={} state={} exit_code={} nodes={} reason=\"{}\"", info.job_id,
                       msg::to_string(next), info.exit_code, info.nodelist, info.reason);
  else if (next == msg::job_state::pending && from != msg::job_state::pending)
    config::log().info("job requeued job={} reason=\"{}\" requeue_count={}", info.job_id,
                       info.reason, info.requeue_count);
  else
    config::log().info("job state job={} from={} to={} nodes={} reason=\"{}\"", info.job_id,
                       msg::to_string(from), msg::to_string(next), info.nodelist, info.reason);
}

/// A step as the job's record keeps it.
msg::step_record step_record_of(uint32_t id, const step_run& run) {
  msg::step_record step;
  step.step_id = id;
  for (auto i : run.nodes) step.nodes.push_back(static_cast<uint32_t>(i));
  step.waiting.assign(run.waiting.begin(), run.waiting.end());
  step.exit_code = run.exit_code;
  step.exit_signal = run.exit_signal;
  step.error = run.error;
  step.out_of_memory = run.out_of_memory;
  step.usage = run.usage;
  step.start_time = run.start_time;
  step.ntasks = run.ntasks;
  step.nodelist = run.nodelist;
  step.listing = run.listing;
  return step;
}

}  // namespace

/// Everything a restarted controller needs to resume the job.
msg::job_record record_of(const job_state_t& st) {
  msg::job_record r;
  r.request = st.setup.req;
  r.info = st.info;
  r.life_state = static_cast<uint32_t>(st.life.state);
  r.life_reason = st.life.reason;
  r.life_ending = static_cast<uint32_t>(st.life.ending);
  r.requeue_reason = st.life.requeue_reason;
  r.nodes = st.nodes;
  r.cpus = st.node_cpus;
  r.gres = st.node_gres;
  r.main_step = st.main_step;
  r.next_step = st.next_step;
  r.life_warned = st.life.warned;
  r.life_lent = st.life.lent;
  for (auto& [id, run] : st.steps) r.steps.push_back(step_record_of(id, run));
  r.done_steps = st.done_steps;
  return r;
}

namespace {

/// Hands the job's record to the state keeper (group-committed there; see launch_step for what
/// waits until it is durable).
void save(job_self self) {
  auto& st = self->state;
  bool finished = msg::is_finished(st.info.state);
  bool ended = finished && st.setup.accounting;
  if (!st.setup.keeper && !ended) return;
  auto rec = record_of(st);
  // From here the record is only listed and accounted (until MinJobAge, and after a restart):
  // its environment and script, most of its size, are never read again.
  if (finished) {
    rec.request.env = {};
    rec.request.script = {};
  }
  if (st.setup.keeper)
    self->send(st.setup.keeper, msg::persist_atom_v, job_key(st.info.job_id), encoded(rec));
  if (ended) self->send(st.setup.accounting, msg::account_atom_v, std::move(rec));
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
  send_to(self, to, std::move(ev));
}

/// The job's memory on its `node`-th node, as the node daemon enforces it: --mem, or
/// --mem-per-cpu times the CPUs held there; 0 when the job asked for no memory.
uint64_t memory_on(const job_state_t& st, size_t node) {
  auto& work = st.setup.req.workload;
  if (work.mem_per_node_mb > 0) return work.mem_per_node_mb;
  if (work.mem_per_cpu_mb > 0 && node < st.node_cpus.size())
    return work.mem_per_cpu_mb * st.node_cpus[node];
  return 0;
}

/// Puts SHOAL_JOB_CPUS_PER_NODE (the CPUs the job holds on each of its nodes, compressed as
/// SLURM_TASKS_PER_NODE is: `4(x2),2`) and SHOAL_CPUS_ON_NODE (those on its `node`-th node) in a
/// launch's environment, replacing inherited ones; the node daemon gives them Slurm's names.
/// Nothing when the allocation's CPUs are unknown (a job recovered from an older record).
void put_job_cpus(const job_state_t& st, size_t node, std::vector<std::string>& env) {
  if (st.node_cpus.size() != st.nodes.size() || node >= st.node_cpus.size()) return;
  auto put = [&env](const std::string& key, const std::string& value) {
    auto prefix = key + "=";
    env.erase(std::remove_if(env.begin(), env.end(),
                             [&](const std::string& e) { return e.rfind(prefix, 0) == 0; }),
              env.end());
    env.push_back(prefix + value);
  };
  put("SHOAL_JOB_CPUS_PER_NODE", topology::compress_counts(st.node_cpus));
  put("SHOAL_CPUS_ON_NODE", std::to_string(st.node_cpus[node]));
}

/// The interconnect's data for a step (empty without a plugin), or its error.
caf::expected<std::vector<uint8_t>> interconnect_for(
    job_self self, uint32_t step_id, const std::vector<std::string>& names,
    const std::vector<std::vector<uint32_t>>& layout, const msg::job_request& req) {
  auto& st = self->state;
  if (!st.setup.interconnect) return std::vector<uint8_t>{};
  interconnect::step_request sreq;
  sreq.job_id = st.info.job_id;
  sreq.step_id = step_id;
  sreq.nodes = names;
  for (auto& ranks : layout)
    sreq.tasks_per_node = std::max(sreq.tasks_per_node, static_cast<uint32_t>(ranks.size()));
  sreq.cpus_per_task = req.cpus_per_task > 0 ? req.cpus_per_task : 1;
  return to_caf(st.setup.interconnect->allocate(sreq));
}

/// Sends each node its launch request, once the record naming the step is durable: a controller
/// that restarts then knows of every step that may run (and nothing else blocks meanwhile, as
/// the job awaits only the keeper's answer).
void send_launches(job_self self, std::vector<size_t> nodes, std::vector<msg::launch_request> reqs,
                   caf::actor client) {
  auto go = [self, nodes, reqs, client]() mutable {
    auto& st = self->state;
    if (!reqs.empty())
      if (auto step = st.steps.find(reqs.front().step_id); step != st.steps.end())
        step->second.sent_ns = cluster::steady_ns();
    for (size_t k = 0; k < nodes.size(); ++k) {
      SHOAL_DEBUG(agent, "launch request job={} step={} node={}", st.info.job_id,
                  msg::step_label(reqs[k].step_id), st.nodes[nodes[k]]);
      send_to(self, st.node_actors[nodes[k]], msg::launch_atom_v, std::move(reqs[k]), client,
              handle_of(self));
    }
  };
  auto& st = self->state;
  if (!st.setup.keeper) return go();
  save(self);
  self->request(st.setup.keeper, caf::infinite, msg::sync_atom_v)
      .await([go](caf::ok_atom) mutable { go(); },
             [self, go](caf::error& err) mutable {
               // The keeper logged the disk's error; running the step beats stranding the job.
               config::log().error("job step launched unsaved job={}: {}", self->state.info.job_id,
                                   describe(err));
               go();
             });
}

/// What step listings show of a step being launched, as slurmctld's step record has it: the batch
/// script's named "batch" with the CPUs and memory the job holds on its node and no limit; the
/// main step of `shoal run` named as its job; a step inside a job by its -J or its command.
msg::step_info step_listing(const job_state_t& st, uint32_t step_id, const msg::job_request& req,
                            const step_run& run, uint32_t ntasks) {
  msg::step_info x;
  x.step_id = step_id;
  x.start_time = run.start_time;
  x.nodelist = run.nodelist;
  x.node_count = static_cast<uint32_t>(run.nodes.size());
  x.ntasks = ntasks;
  for (auto i : run.nodes) x.mem_mb += memory_on(st, i);
  if (req.batch) {
    x.name = "batch";
    const auto& info = st.info;
    auto nodes = std::max<uint32_t>(1, info.node_count);
    uint64_t held = uint64_t{info.ntasks} * std::max<uint32_t>(1, info.cpus_per_task);
    x.cpus = !st.node_cpus.empty()
                 ? st.node_cpus.front()
                 : static_cast<uint32_t>(std::max<uint64_t>(1, (held + nodes - 1) / nodes));
    return x;
  }
  if (step_id == st.main_step) {
    x.name = st.info.name;
  } else if (!req.name.empty()) {
    x.name = req.name;
  } else if (!req.argv.empty()) {
    auto slash = req.argv.front().rfind('/');
    x.name = slash == std::string::npos ? req.argv.front() : req.argv.front().substr(slash + 1);
  }
  x.cpus = ntasks * std::max<uint32_t>(1, req.cpus_per_task);
  x.time_limit_s = req.time_limit_s > 0 ? req.time_limit_s : -1;
  x.distribution = req.workload.cyclic ? "Cyclic" : "Block";
  x.srun_host = req.submit_host;
  x.srun_pid = req.submit_pid;
  if (auto gres = policy::parse_gres_request(req.gres); gres && !gres->empty())
    x.tres_per_node = policy::tres_per_node(*gres);
  return x;
}

/// Starts one step on the given nodes of the allocation (indices into st.nodes).
void launch_step(job_self self, uint32_t step_id, std::vector<size_t> nodes,
                 const msg::job_request& req, caf::actor client) {
  auto& st = self->state;
  auto ntasks = req.ntasks > 0 ? req.ntasks : static_cast<uint32_t>(nodes.size());
  // A step without -n: nodes x --ntasks-per-node, as srun counts. (A job's own request has its
  // count already, from resolve_submission.)
  if (req.ntasks == 0 && req.workload.ntasks_per_node > 0)
    ntasks = static_cast<uint32_t>(nodes.size()) * req.workload.ntasks_per_node;
  if (req.batch) ntasks = 1;
  auto layout = distribute_tasks(ntasks, static_cast<uint32_t>(nodes.size()), req.workload.cyclic);
  std::vector<std::string> step_names;
  for (auto i : nodes) step_names.push_back(st.nodes[i]);
  auto step_nodelist = topology::compress_hostlist(step_names);
  step_run run;
  run.client = client;
  run.start_time = unix_now();
  run.ntasks = ntasks;
  run.nodelist = step_nodelist;
  for (size_t k = 0; k < nodes.size(); ++k) {
    if (layout[k].empty()) continue;
    run.nodes.push_back(nodes[k]);
    run.waiting.insert(st.nodes[nodes[k]]);
  }
  run.listing = step_listing(st, step_id, req, run, ntasks);
  auto launched = run.nodes;
  SHOAL_DEBUG(steps, "step launch job={} step={} nodes={} tasks={}", st.info.job_id,
              msg::step_label(step_id), step_nodelist, ntasks);
  if (client && client != st.setup.client) self->monitor(client);
  st.steps.emplace(step_id, std::move(run));
  publish_steps(self);
  auto switch_data = interconnect_for(self, step_id, step_names, layout, req);
  if (!switch_data) {
    // No node runs anything: each reports the step failed, as a node without a daemon does.
    for (size_t k = 0; k < launched.size(); ++k) {
      msg::step_exit ex;
      ex.job_id = st.info.job_id;
      ex.step_id = step_id;
      ex.node_name = st.nodes[launched[k]];
      ex.launch_error = "interconnect: " + describe(switch_data.error());
      for (auto r : layout[k]) ex.tasks.push_back({r, 1, 0});
      self->send(self, std::move(ex));
    }
    return;
  }
  // Every rank's node, for the ranks' PMI server (launched[k] runs layout's k-th list).
  std::vector<uint32_t> rank_nodes;
  if (process::wants_pmi_server(req.io.mpi)) {
    rank_nodes.resize(ntasks);
    for (size_t k = 0, at = 0; k < nodes.size(); ++k) {
      if (layout[k].empty()) continue;
      for (auto r : layout[k])
        if (r < ntasks) rank_nodes[r] = static_cast<uint32_t>(at);
      ++at;
    }
  }
  std::vector<msg::launch_request> requests;
  for (size_t k = 0; k < launched.size(); ++k) {
    msg::launch_request lr;
    lr.job_id = st.info.job_id;
    lr.step_id = step_id;
    lr.user = req.user;
    lr.uid = req.uid;
    lr.gid = req.gid;
    lr.argv = req.argv;
    lr.env = req.env;
    put_job_cpus(st, launched[k], lr.env);
    lr.cwd = req.cwd;
    lr.nodelist = step_nodelist;
    lr.node_index = static_cast<uint32_t>(k);
    lr.node_count = static_cast<uint32_t>(launched.size());
    lr.ntasks = ntasks;
    lr.ranks = layout[k];
    lr.cpus_per_task = req.cpus_per_task > 0 ? req.cpus_per_task : 1;
    lr.cpus_per_task_set = req.cpus_per_task > 0;
    lr.job_ntasks = st.setup.req.ntasks;
    lr.cpu_bind = req.cpu_bind;
    lr.io = req.io;
    lr.batch = req.batch;
    lr.script = req.script;
    lr.stdout_path = st.info.stdout_path;
    lr.stderr_path = st.info.stderr_path;
    lr.job_nodelist = st.info.nodelist;
    lr.job_name = st.info.name;
    lr.partition = st.info.partition;
    lr.job_node_count = static_cast<uint32_t>(st.nodes.size());
    lr.mem_limit_mb = memory_on(st, launched[k]);
    lr.open_mode = req.workload.open_mode;
    lr.switch_data = *switch_data;
    lr.node_aliases = st.node_aliases;
    if (process::wants_pmi_server(req.io.mpi)) {
      lr.rank_nodes = rank_nodes;
      lr.pmi_timeout_s = static_cast<uint32_t>(st.setup.pmi_timeout_s);
    }
    requests.push_back(std::move(lr));
  }
  send_launches(self, std::move(launched), std::move(requests), std::move(client));
}

/// The failed node will never report: its tasks count as gone. Other steps end before the main
/// one, whose end ends the job.
void forget_node(job_self self, const std::string& node, follow_ups& then) {
  auto& st = self->state;
  std::vector<uint32_t> finished;
  for (auto& [id, run] : st.steps) {
    if (run.waiting.erase(node) > 0 && run.error.empty()) run.error = "node " + node + " failed";
    if (run.waiting.empty()) finished.push_back(id);
  }
  std::stable_partition(finished.begin(), finished.end(),
                        [&](uint32_t id) { return id != st.main_step; });
  for (auto id : finished) then.push_back(step_done(self, id));
}

void notify(job_self self, const policy::effect& e) {
  auto& st = self->state;
  switch (e.note) {
    case policy::client_note::queued:
      return tell(self, st.setup.client, "queued", e.text);
    case policy::client_note::allocated:
      return tell(self, st.setup.client, "allocated", "", 0, 0, st.info.node_count);
    case policy::client_note::message:
      return tell(self, st.setup.client, "message", e.text);
    case policy::client_note::ended:
      return tell(self, st.setup.client, "ended", msg::to_string(st.info.state), st.info.exit_code,
                  st.main_step, static_cast<uint32_t>(st.nodes.size()));
  }
}

/// Takes the allocation the scheduler placed the job on.
void take_allocation(job_self self, event_data& data) {
  auto& st = self->state;
  auto& info = st.info;
  st.nodes = std::move(data.names);
  st.node_actors = std::move(data.actors);
  st.node_cpus = std::move(data.cpus);
  st.node_gres = std::move(data.gres);
  info.nodelist = std::move(data.nodelist);
  info.node_count = static_cast<uint32_t>(st.nodes.size());
  info.start_time = unix_now();
}

/// Tells each node of the allocation the job starts there, with the CPUs and devices it holds.
void start_nodes(job_self self) {
  auto& st = self->state;
  auto& info = st.info;
  // A whole-node job tells its nodes 0 CPUs ("all"); a shared one what it holds.
  bool shared = !st.setup.req.workload.exclusive && st.node_cpus.size() == st.nodes.size() &&
                st.setup.shared_nodes;
  for (size_t i = 0; i < st.node_actors.size(); ++i) {
    std::vector<msg::gres_held> here;  // the node's devices, for its GresUsed and launches
    for (const auto& held : st.node_gres)
      if (held.node == i) here.push_back({0, held.name, held.indices});
    send_to(self, st.node_actors[i], msg::start_atom_v, info.job_id,
            shared ? st.node_cpus[i] : uint32_t{0}, std::move(here));
  }
  tell_nodes_for_scripts(self);
}

/// Arms the time limit and the --signal warning of a run that starts now.
void arm_time_limit(job_self self) {
  auto& st = self->state;
  auto& info = st.info;
  // Always a new generation: ticks of an earlier run (before a requeue) are stale.
  ++st.timer_gen;
  if (info.time_limit_s > 0)
    self->delayed_send(self, std::chrono::seconds{info.time_limit_s}, msg::tlimit_atom_v,
                       st.timer_gen);
  arm_warning(self, info.start_time);
}

/// Launches the batch script, or the run command on every node.
void launch_main_step(job_self self, follow_ups& then) {
  auto& st = self->state;
  if (st.setup.req.batch) {
    st.main_step = msg::batch_step_id;
    launch_step(self, msg::batch_step_id, {0}, st.setup.req, caf::actor{});
  } else {
    std::vector<size_t> all(st.nodes.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    st.main_step = st.next_step++;
    launch_step(self, st.main_step, all, st.setup.req, st.setup.client);
  }
  then.emplace_back(policy::event{event_kind::launched}, event_data{});
}

/// Asks the power actor for the job's nodes: `nodes_ready` once each is up. A node that misses
/// ResumeTimeout is set DOWN, which reaches the job as node_failed; the error answer adds nothing.
void await_nodes(job_self self) {
  auto& st = self->state;
  power_job job;
  job.job_id = st.info.job_id;
  job.nodes = st.nodes;
  job.features = st.setup.req.constraint;
  job.partition = st.info.partition;
  job.oversubscribe = st.setup.req.workload.exclusive ? "NO" : "OK";
  self->request(st.setup.power, caf::infinite, msg::ready_atom_v, std::move(job))
      .then(
          [self](std::string& aliases) {
            self->state.node_aliases = std::move(aliases);
            handle(self, policy::event{event_kind::nodes_ready}, {});
          },
          [self](caf::error& err) {
            SHOAL_DEBUG(trace_jobs, "job nodes did not resume job={}: {}", self->state.info.job_id,
                        describe(err));
          });
}

/// Signals the steps the effect's scope names.
void signal_tasks(job_self self, const policy::effect& e) {
  auto& st = self->state;
  switch (e.scope) {
    case policy::signal_scope::all:
      signal_steps(self, msg::all_steps, e.signo);
      return;
    case policy::signal_scope::batch_shell:
      if (st.setup.req.batch) signal_steps(self, msg::batch_step_id, e.signo);
      return;
    case policy::signal_scope::steps_only:
      for (auto& [id, run] : st.steps)
        if (id != msg::batch_step_id) signal_steps(self, id, e.signo);
      return;
  }
}

/// Forgets the allocation of a run that ended for a requeue.
void drop_allocation(job_self self) {
  auto& st = self->state;
  auto& info = st.info;
  st.steps.clear();
  publish_steps(self);
  st.nodes.clear();
  st.node_actors.clear();
  st.node_cpus.clear();
  info.nodelist.clear();
  info.start_time = 0;
  info.suspend_time = 0;
  info.suspended_secs = 0;
  info.preempt_time = 0;
  info.secs_pre_suspend = 0;
  info.requeue_count++;
  // What the steps used counts per run, as Slurm's accounting keeps each run apart.
  info.usage = {};
}

}  // namespace

/// Arms what is left of the time limit and of the --signal warning of the current run: its
/// suspended time does not count (after a resume, or a controller restart).
void arm_remaining_time(job_self self) {
  auto& st = self->state;
  auto& info = st.info;
  ++st.timer_gen;
  int64_t started = info.start_time + info.suspended_secs;
  if (info.time_limit_s > 0) {
    auto left = started + info.time_limit_s - unix_now();
    self->delayed_send(self, std::chrono::seconds{std::max<int64_t>(0, left)}, msg::tlimit_atom_v,
                       st.timer_gen);
  }
  arm_warning(self, started);
}

caf::actor handle_of(job_self self) {
  return caf::actor_cast<caf::actor>(self);
}

void publish(job_self self, bool save_record) {
  auto& st = self->state;
  if (save_record) save(self);
  if (st.info.state != st.logged) log_state_change(st.info, st.logged);
  st.logged = st.info.state;
  send_to(self, st.setup.controller, msg::view_atom_v, st.info);
}

void publish_steps(job_self self) {
  auto& st = self->state;
  std::vector<msg::step_info> steps;
  steps.reserve(st.steps.size());
  for (auto& [id, run] : st.steps) {
    auto x = run.listing;
    x.job_id = st.info.job_id;
    x.step_id = id;
    x.user = st.info.user;
    x.uid = st.info.uid;
    x.partition = st.info.partition;
    x.array_job_id = st.info.array_job_id;
    x.array_task_id = st.info.array_job_id != 0 ? st.info.array_task_id : -1;
    if (x.start_time == 0) x.start_time = run.start_time;
    if (x.nodelist.empty()) x.nodelist = run.nodelist;
    if (x.ntasks == 0) x.ntasks = run.ntasks;
    if (x.node_count == 0) x.node_count = static_cast<uint32_t>(run.nodes.size());
    steps.push_back(std::move(x));
  }
  send_to(self, st.setup.controller, msg::view_atom_v, st.info.job_id, std::move(steps));
}

void arm_warning(job_self self, int64_t start) {
  auto& st = self->state;
  const auto& w = st.setup.req.workload;
  if (w.warn_signal == 0 || w.warn_time_s == 0 || st.info.time_limit_s <= 0 || st.life.warned)
    return;
  auto at = start + st.info.time_limit_s - static_cast<int64_t>(w.warn_time_s);
  self->delayed_send(self, std::chrono::seconds{std::max<int64_t>(0, at - unix_now())},
                     msg::warn_atom_v, st.timer_gen);
}

void signal_steps(job_self self, uint32_t step, int32_t signo) {
  SHOAL_DEBUG(agent, "signal request job={} step={} signal={} nodes={}", self->state.info.job_id,
              msg::step_label(step), signo, self->state.info.nodelist);
  for (auto& node : self->state.node_actors)
    send_to(self, node, msg::signal_atom_v, self->state.info.job_id, step, signo);
}

std::pair<policy::event, event_data> step_done(job_self self, uint32_t step_id) {
  auto& st = self->state;
  auto it = st.steps.find(step_id);
  event_data data;
  data.step_id = step_id;
  data.step = std::move(it->second);
  st.steps.erase(it);
  publish_steps(self);
  auto done = step_record_of(step_id, data.step);
  done.end_time = unix_now();
  cluster::add_step_usage(st.info.usage, data.step.usage);
  st.done_steps.push_back(std::move(done));
  // Each ended step goes to the store while the job runs, so the record (saved whole on every
  // change) keeps only the steps not stored yet: a job of thousands of steps stays small.
  if (st.setup.accounting) self->send(st.setup.accounting, msg::account_atom_v, record_of(st));
  if (st.setup.interconnect) st.setup.interconnect->release(st.info.job_id, step_id);
  auto& run = data.step;
  SHOAL_DEBUG(trace_jobs, "step done job={} step={} exit_code={} error=\"{}\"", st.info.job_id,
              msg::step_label(step_id), run.exit_code, run.error);
  if (!run.client && step_id != st.main_step) {
    st.unheard_ends[step_id] = step_outcome{run.exit_code, run.error};
    if (st.unheard_ends.size() > max_unheard_ends) st.unheard_ends.erase(st.unheard_ends.begin());
  }
  policy::event ev{step_id == st.main_step ? event_kind::main_step_ended : event_kind::step_ended};
  ev.exit_code = run.exit_code;
  ev.exit_signal = run.exit_signal;
  ev.out_of_memory = run.out_of_memory;
  ev.text = run.error;
  return {std::move(ev), std::move(data)};
}

void run_effect(job_self self, const policy::effect& e, event_data& data, follow_ups& then) {
  auto& st = self->state;
  auto& info = st.info;
  switch (e.kind) {
    case effect_kind::take_allocation:
      take_allocation(self, data);
      start_prolog_ctld(self);
      return;
    case effect_kind::start_nodes:
      start_nodes(self);
      return;
    case effect_kind::arm_time_limit:
      arm_time_limit(self);
      return;
    case effect_kind::launch_main_step:
      launch_main_step(self, then);
      return;
    case effect_kind::launch_step:
      launch_step(self, data.step_id, data.step_nodes, *data.request, data.client);
      return;
    case effect_kind::signal_tasks:
      signal_tasks(self, e);
      return;
    case effect_kind::nodes_done:
      for (auto& node : st.node_actors) send_to(self, node, msg::done_atom_v, info.job_id);
      return;
    case effect_kind::arm_kill_timer:
      // GraceTime when the job is preempted, KillWait otherwise.
      self->delayed_send(self,
                         std::chrono::seconds{e.seconds > 0 ? e.seconds : st.setup.kill_wait_s},
                         msg::escalate_atom_v, st.timer_gen);
      return;
    case effect_kind::forget_node:
      forget_node(self, e.text, then);
      return;
    case effect_kind::record_exit_code:
      info.exit_code = e.exit_code;
      info.exit_signal = e.signo;
      return;
    case effect_kind::release_nodes:
      for (auto& node : st.node_actors) send_to(self, node, msg::release_atom_v, info.job_id);
      then.emplace_back(policy::event{event_kind::release_done}, event_data{});
      return;
    case effect_kind::dequeue:
      self->send(st.setup.scheduler, msg::cancel_atom_v, info.job_id);
      return;
    case effect_kind::tell_scheduler_ended:
      self->send(st.setup.scheduler, msg::ended_atom_v, info.job_id, e.ok, info.start_time);
      return;
    case effect_kind::tell_scheduler_released:
      self->send(st.setup.scheduler, msg::release_atom_v, info.job_id);
      return;
    case effect_kind::drop_allocation:
      drop_allocation(self);
      return;
    case effect_kind::enqueue:
      self->send(st.setup.scheduler, msg::enqueue_atom_v, info.job_id, st.setup.req,
                 st.setup.workload, handle_of(self), info.submit_time);
      if (st.hold_when_queued)
        hold_again(self, st.setup.scheduler, info.job_id, st.hold_when_queued);
      st.hold_when_queued = nullptr;
      return;
    case effect_kind::stamp_end_time:
      info.end_time = unix_now();
      return;
    case effect_kind::take_priority:
      info.priority = data.priority;
      return;
    case effect_kind::publish:
      publish(self);
      return;
    case effect_kind::notify_client:
      notify(self, e);
      return;
    case effect_kind::notify_step_client:
      tell(self, data.step.client, "ended", data.step.error, data.step.exit_code, data.step_id,
           static_cast<uint32_t>(data.step.nodes.size()));
      return;
    case effect_kind::forget_client:
      st.setup.client = nullptr;
      return;
    case effect_kind::await_nodes:
      await_nodes(self);
      return;
    case effect_kind::stamp_start_time:
      info.start_time = unix_now();
      return;
    case effect_kind::stop_clock:
      info.suspend_time = unix_now();
      info.secs_pre_suspend =
          std::max<int64_t>(0, info.suspend_time - info.start_time - info.suspended_secs);
      ++st.timer_gen;  // the run's time limit and warning ticks are void while it is stopped
      return;
    case effect_kind::resume_clock:
      info.suspended_secs += std::max<int64_t>(0, unix_now() - info.suspend_time);
      if (e.ok) arm_remaining_time(self);
      return;
    case effect_kind::lend_resources:
      self->send(st.setup.scheduler, msg::lent_atom_v, info.job_id);
      return;
    case effect_kind::stop:
      self->quit();
      return;
  }
}

policy::transition decide(job_self self, const policy::event& ev) {
  auto& st = self->state;
  policy::job_facts facts;
  facts.job_id = st.info.job_id;
  facts.steps_running = !st.steps.empty();
  facts.allocation = st.setup.req.workload.allocation;
  facts.power_managed = static_cast<bool>(st.setup.power);
  facts.warn_signal = st.setup.req.workload.warn_signal;
  facts.warn_batch_only = st.setup.req.workload.warn_batch_only;
  return policy::on_event(st.life, ev, facts);
}

void execute(job_self self, const policy::transition& t, event_data& data) {
  if (t.outcome != verdict::applied) return;
  auto& st = self->state;
  auto before = st.info.state;
  st.life = t.next;
  st.info.state = policy::to_job_state(st.life.state);
  st.info.reason = st.life.reason;
  follow_ups then;
  for (auto& e : t.effects) run_effect(self, e, data, then);
  // After the effects, so the start and end times and the exit code are the transition's own.
  if (msg::is_finished(st.info.state) && !msg::is_finished(before)) run_epilog_ctld(self);
  if (!st.setup.mail_prog.empty()) {
    if (auto event = mail_event(st.info.mail_type, before, st.info.state))
      send_mail(self->system(),
                mail_for(st.info, *event, st.setup.cluster_name, st.setup.mail_prog, unix_now()));
  }
  for (auto& [ev, next_data] : then) handle(self, ev, std::move(next_data));
}

policy::transition handle(job_self self, const policy::event& ev, event_data data) {
  auto t = decide(self, ev);
  execute(self, t, data);
  return t;
}

}  // namespace shoal::actors::job_detail
