#include "actors/job.hpp"

#include <algorithm>
#include <csignal>
#include <map>
#include <set>
#include <utility>

#include <caf/all.hpp>

#include "actors/clock.hpp"
#include "actors/job_mail.hpp"
#include "actors/metering.hpp"
#include "actors/saved_state.hpp"
#include "actors/scheduling.hpp"
#include "actors/send_to.hpp"
#include "config/duration.hpp"
#include "config/log.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "policy/gres.hpp"
#include "policy/job_lifecycle.hpp"
#include "topology/hostlist.hpp"

namespace shoal::actors {

namespace {

using policy::effect_kind;
using policy::event_kind;
using policy::verdict;

/// An allocation's main step id: none of its steps (they count from 0) ever has it.
constexpr uint32_t no_main_step = 0xfffffffd;

struct step_run {
  std::vector<size_t> nodes;      ///< indices into the job's node list
  std::set<std::string> waiting;  ///< nodes whose tasks have not reported yet
  int32_t exit_code = 0;          ///< highest task exit code so far
  int32_t exit_signal = 0;        ///< the signal behind exit_code (0: the task exited)
  caf::actor client;
  std::string error;           ///< first launch error
  bool out_of_memory = false;  ///< a node killed its tasks for exceeding the memory limit
};

/// The interface plus the actor's own timer ticks (they carry the timer generation).
using job_impl = job_actor::extend<caf::reacts_to<msg::tlimit_atom, uint64_t>,
                                   caf::reacts_to<msg::escalate_atom, uint64_t>,
                                   caf::reacts_to<msg::warn_atom, uint64_t>>;

struct job_state_t {
  static inline const char* name = "job";
  job_setup setup;
  msg::job_info info;  ///< state and reason mirror `life` (to_job_state)
  policy::lifecycle life;
  msg::job_state logged = msg::job_state::pending;  ///< the state last published (and logged)
  std::vector<std::string> nodes;
  std::vector<caf::actor> node_actors;
  std::vector<uint32_t> node_cpus;        ///< CPUs held on each node (shared nodes), else empty
  std::vector<msg::gres_held> node_gres;  ///< devices held (gres_held::node: index in nodes)
  std::map<uint32_t, step_run> steps;
  uint32_t next_step = 0;
  uint32_t main_step = 0;
  uint64_t timer_gen = 0;
  /// Recovered jobs only: node -> the steps it had not reported when the controller stopped,
  /// until the node re-registers and says which it still runs.
  std::map<std::string, std::set<uint32_t>> unconfirmed;
};

using job_self = job_impl::stateful_pointer<job_state_t>;

/// What the message behind an event brought, for the effects that act on it.
struct event_data {
  /// placed: the allocation.
  std::vector<std::string> names;
  std::vector<caf::actor> actors;
  std::vector<uint32_t> cpus;
  std::string nodelist;  ///< as listings show it (box form on a torus)
  std::vector<msg::gres_held> gres;
  /// pending reasons: the scheduler's priority for the job.
  uint64_t priority = 0;
  /// step_ended: the step that ended; step_requested: the new step's id, nodes, request, client.
  uint32_t step_id = 0;
  step_run step;
  std::vector<size_t> step_nodes;
  const msg::job_request* request = nullptr;
  caf::actor client;
};

/// Events that effects lead to (launched, release_done, step ends), handled after the effects.
using follow_ups = std::vector<std::pair<policy::event, event_data>>;

caf::actor handle_of(job_self self) {
  return caf::actor_cast<caf::actor>(self);
}

/// One info line per job state change, worded for the events operators look for.
void log_state_change(const msg::job_info& info, msg::job_state from) {
  auto next = info.state;
  if (next == msg::job_state::running)
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
  for (auto& [id, run] : st.steps) {
    msg::step_record step;
    step.step_id = id;
    for (auto i : run.nodes) step.nodes.push_back(static_cast<uint32_t>(i));
    step.waiting.assign(run.waiting.begin(), run.waiting.end());
    step.exit_code = run.exit_code;
    step.exit_signal = run.exit_signal;
    step.error = run.error;
    step.out_of_memory = run.out_of_memory;
    r.steps.push_back(std::move(step));
  }
  return r;
}

/// Hands the job's record to the state keeper (group-committed there; see launch_step for what
/// waits until it is durable).
void save(job_self self) {
  auto& st = self->state;
  if (st.setup.keeper)
    self->send(st.setup.keeper, msg::persist_atom_v, job_key(st.info.job_id),
               encoded(record_of(st)));
}

/// Sends the listing view and saves the record (unless `save_record` is false: the first view,
/// whose record the controller saved before spawning the job); a changed state is logged here,
/// once per publication.
void publish(job_self self, bool save_record = true) {
  auto& st = self->state;
  if (save_record) save(self);
  if (st.info.state != st.logged) log_state_change(st.info, st.logged);
  st.logged = st.info.state;
  send_to(self, st.setup.controller, msg::view_atom_v, st.info);
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

/// The --signal warning's timer for the run that started at `start` (Unix seconds): WarnTime
/// before the limit, at once when the limit is shorter; none without a limit, a signal or a
/// time (Slurm sends a warning with time 0 never).
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

/// The job's memory on its `node`-th node, as the node daemon enforces it: --mem, or
/// --mem-per-cpu times the CPUs held there; 0 when the job asked for no memory.
uint64_t memory_on(const job_state_t& st, size_t node) {
  auto& work = st.setup.req.workload;
  if (work.mem_per_node_mb > 0) return work.mem_per_node_mb;
  if (work.mem_per_cpu_mb > 0 && node < st.node_cpus.size())
    return work.mem_per_cpu_mb * st.node_cpus[node];
  return 0;
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
    requests.push_back(std::move(lr));
  }
  send_launches(self, std::move(launched), std::move(requests), std::move(client));
}

/// Takes a step whose nodes all reported out of the table: the event its end is.
std::pair<policy::event, event_data> step_done(job_self self, uint32_t step_id) {
  auto& st = self->state;
  auto it = st.steps.find(step_id);
  event_data data;
  data.step_id = step_id;
  data.step = std::move(it->second);
  st.steps.erase(it);
  if (st.setup.interconnect) st.setup.interconnect->release(st.info.job_id, step_id);
  auto& run = data.step;
  SHOAL_DEBUG(trace_jobs, "step done job={} step={} exit_code={} error=\"{}\"", st.info.job_id,
              msg::step_label(step_id), run.exit_code, run.error);
  policy::event ev{step_id == st.main_step ? event_kind::main_step_ended : event_kind::step_ended};
  ev.exit_code = run.exit_code;
  ev.exit_signal = run.exit_signal;
  ev.out_of_memory = run.out_of_memory;
  ev.text = run.error;
  return {std::move(ev), std::move(data)};
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

void run_effect(job_self self, const policy::effect& e, event_data& data, follow_ups& then) {
  auto& st = self->state;
  auto& info = st.info;
  switch (e.kind) {
    case effect_kind::take_allocation:
      st.nodes = std::move(data.names);
      st.node_actors = std::move(data.actors);
      st.node_cpus = std::move(data.cpus);
      st.node_gres = std::move(data.gres);
      info.nodelist = std::move(data.nodelist);
      info.node_count = static_cast<uint32_t>(st.nodes.size());
      info.start_time = unix_now();
      return;
    case effect_kind::start_nodes: {
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
      return;
    }
    case effect_kind::arm_time_limit:
      // Always a new generation: ticks of an earlier run (before a requeue) are stale.
      ++st.timer_gen;
      if (info.time_limit_s > 0)
        self->delayed_send(self, std::chrono::seconds{info.time_limit_s}, msg::tlimit_atom_v,
                           st.timer_gen);
      arm_warning(self, info.start_time);
      return;
    case effect_kind::launch_main_step:
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
      return;
    case effect_kind::launch_step:
      launch_step(self, data.step_id, data.step_nodes, *data.request, data.client);
      return;
    case effect_kind::signal_tasks:
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
      return;
    case effect_kind::nodes_done:
      for (auto& node : st.node_actors) send_to(self, node, msg::done_atom_v, info.job_id);
      return;
    case effect_kind::arm_kill_timer:
      self->delayed_send(self, std::chrono::seconds{st.setup.kill_wait_s}, msg::escalate_atom_v,
                         st.timer_gen);
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
      st.steps.clear();
      st.nodes.clear();
      st.node_actors.clear();
      st.node_cpus.clear();
      info.nodelist.clear();
      info.start_time = 0;
      info.requeue_count++;
      return;
    case effect_kind::enqueue:
      self->send(st.setup.scheduler, msg::enqueue_atom_v, info.job_id, st.setup.req,
                 st.setup.workload, handle_of(self));
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
    case effect_kind::stop:
      self->quit();
      return;
  }
}

/// The lifecycle's answer to `ev` now.
policy::transition decide(job_self self, const policy::event& ev) {
  auto& st = self->state;
  policy::job_facts facts;
  facts.job_id = st.info.job_id;
  facts.steps_running = !st.steps.empty();
  facts.allocation = st.setup.req.workload.allocation;
  facts.warn_signal = st.setup.req.workload.warn_signal;
  facts.warn_batch_only = st.setup.req.workload.warn_batch_only;
  return policy::on_event(st.life, ev, facts);
}

policy::transition handle(job_self self, const policy::event& ev, event_data data = {});

/// Takes the transition's lifecycle and runs its effects in order, then the events they led to.
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
  auto it = st.steps.find(ex.step_id);
  if (it == st.steps.end() || it->second.waiting.erase(ex.node_name) == 0) return;
  auto& run = it->second;
  for (auto& t : ex.tasks) {
    auto code = msg::shell_exit_code(t);
    if (code <= run.exit_code) continue;
    run.exit_code = code;
    run.exit_signal = t.signal;
  }
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
  if (per_node > 0 && req.ntasks > uint64_t{want} * per_node)
    return make_error(errc::unsatisfiable,
                      "requested node configuration is not available: step of " +
                          std::to_string(req.ntasks) + " tasks at most " +
                          std::to_string(per_node) + " per node (--ntasks-per-node) on " +
                          std::to_string(want) + " nodes of job " + std::to_string(st.info.job_id));
  if (want > have)
    return make_error(errc::unsatisfiable, "step needs " + std::to_string(want) +
                                               " nodes but job " + std::to_string(st.info.job_id) +
                                               " has " + std::to_string(have));
  event_data data;
  data.step_nodes.resize(want);
  for (uint32_t i = 0; i < want; ++i) data.step_nodes[i] = i;
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

/// Ok once the job's record (sent before) is durable: the keeper answers the client itself, so
/// the answer comes even when the job has already stopped (a cancelled pending job).
caf::result<caf::ok_atom> once_saved(job_self self) {
  auto& keeper = self->state.setup.keeper;
  if (!keeper) return caf::ok_atom::value;
  return self->delegate(keeper, msg::sync_atom_v);
}

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

caf::result<caf::ok_atom> on_requeue(job_self self, const std::string& op, uint32_t uid) {
  auto& st = self->state;
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

void on_kill_wait(job_self self, uint64_t gen) {
  if (gen != self->state.timer_gen) return;  // a tick of an earlier run
  handle(self, policy::event{event_kind::kill_wait_expired});
}

/// A recovered step `node` no longer runs and never reported: it counts as failed there.
void lose_step(job_self self, const std::string& node, uint32_t step_id) {
  msg::step_exit ex;
  ex.job_id = self->state.info.job_id;
  ex.step_id = step_id;
  ex.node_name = node;
  ex.launch_error =
      "step lost: node " + node + " was not running it after the controller restarted";
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
  for (auto id : expected)
    if (std::find(running.begin(), running.end(), id) == running.end()) {
      config::log().warn("job step lost job={} step={} node={}", st.info.job_id,
                         msg::step_label(id), node);
      lose_step(self, node, id);
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

bool queued(policy::lifecycle_state s) {
  using ls = policy::lifecycle_state;
  return s == ls::pending || s == ls::held || s == ls::dependency_never || s == ls::requeued;
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
  st.main_step = rec.main_step;
  st.next_step = rec.next_step;
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
               handle_of(self));
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
    for (auto& node : step.waiting) st.unconfirmed[node].insert(step.step_id);
    st.steps.emplace(step.step_id, std::move(run));
  }
  self->send(st.setup.scheduler, msg::adopt_atom_v, st.info.job_id, st.setup.req, st.nodes,
             st.node_cpus, st.info.start_time, st.info.array_job_id,
             static_cast<uint32_t>(std::max<int64_t>(0, st.info.array_task_id)), st.node_gres);
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
  ++st.timer_gen;
  if (st.info.time_limit_s > 0) {
    auto left = st.info.start_time + st.info.time_limit_s - unix_now();
    self->delayed_send(self, std::chrono::seconds{std::max<int64_t>(0, left)}, msg::tlimit_atom_v,
                       st.timer_gen);
  }
  arm_warning(self, st.info.start_time);
}

job_impl::behavior_type job_behavior(job_self self, job_setup setup) {
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
               st.setup.workload, handle_of(self));
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
                                      uint32_t uid) { return on_requeue(self, op, uid); }),
      probe.metered("view", [self](msg::view_atom, const std::string& reason,
                                   uint64_t priority) { on_reason(self, reason, priority); }),
      probe.metered(
          "view_sync",
          [self](msg::view_atom, const std::string& reason, uint64_t priority, msg::sync_atom) {
            on_reason(self, reason, priority);
            return once_saved(self);
          }),
      probe.metered("step_exit", [self](const msg::step_exit& ex) { on_step_exit(self, ex); }),
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
      probe.metered("escalate",
                    [self](msg::escalate_atom, uint64_t gen) { on_kill_wait(self, gen); }),
      probe.metered("nodedown", [self](msg::nodedown_atom,
                                       const std::string& node) { on_node_down(self, node); }),
      probe.metered("jobs", [self](msg::jobs_atom) { return self->state.info; }),
      probe.metered("attach", [self](msg::attach_atom,
                                     caf::actor& client) { return on_attach(self, client); }),
      probe.metered(
          "adopt",
          [self](msg::adopt_atom, const std::string& node, const std::vector<uint32_t>& running) {
            on_node_report(self, node, running);
          }),
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
  info.mail_type = req.workload.mail_type;
  info.mail_user = req.workload.mail_user;
  info.ntasks_per_node = req.workload.ntasks_per_node;
  info.min_cpus = req.workload.min_cpus;
  if (setup.workload) info.tres_per_node = policy::tres_per_node(setup.workload->gres);
  info.state = msg::job_state::pending;
  if (req.workload.hold) info.reason = "JobHeldUser";
  return info;
}

job_actor spawn_job(caf::actor_system& sys, job_setup setup) {
  return sys.spawn(job_behavior, std::move(setup));
}

}  // namespace shoal::actors
