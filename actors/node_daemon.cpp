#include "actors/node_daemon.hpp"

#include "actors/node_daemon_internals.hpp"

#include <functional>
#include <map>
#include <optional>
#include <set>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/daemon_transport.hpp"
#include "actors/metering.hpp"
#include "actors/node_scripts.hpp"
#include "actors/node_usage_meters.hpp"
#include "actors/send_to.hpp"
#include "actors/shepherd.hpp"
#include "actors/unexpected.hpp"
#include "cluster/clock.hpp"
#include "config/log.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "messages/codec.hpp"
#include "process/node_usage.hpp"
#include "process/simulated_step.hpp"

namespace shoal::actors {

namespace {

void connect(daemon_self self);

void retry_later(daemon_self self) {
  self->delayed_send(self, std::chrono::seconds{1}, caf::connect_atom::value);
}

const config::controller_host& current_line(daemon_self self) {
  return self->state.setup.controllers[self->state.line];
}

/// "NAME at ADDRESS:PORT" of the line being tried.
std::string line_text(daemon_self self) {
  const auto& line = current_line(self);
  return line.name + " at " + line.address + ":" + std::to_string(line.port);
}

/// The line being tried is down or not in control: try the next one at once, or after a
/// second once every line was tried (a backup takes SlurmctldTimeout to take over).
void try_next_line(daemon_self self) {
  auto& st = self->state;
  st.line = (st.line + 1) % st.setup.controllers.size();
  if (st.line == 0)
    retry_later(self);
  else
    self->send(self, caf::connect_atom::value);
}

void start_heartbeats(daemon_self self) {
  self->send(self, msg::heartbeat_atom_v, ++self->state.beat_gen);
}

/// This node is the collector it was told to beat to: its collector's rounds vouch for it.
bool own_collector(const node_daemon_state& st) {
  return st.collector_name == st.setup.status.node_name;
}

/// Tries the collector again in a second, unless another assignment came meanwhile.
void retry_collector(daemon_self self) {
  self->delayed_send(self, std::chrono::seconds{1}, msg::collector_atom_v,
                     self->state.collector_gen);
}

/// Connects to the collector we were told to beat to; retried every second while it is the one.
void connect_collector(daemon_self self) {
  auto& st = self->state;
  if (st.collector_name.empty() || st.collector || own_collector(st)) return;
  auto mm = daemon_transport(self->system());
  self->request(mm, std::chrono::seconds{5}, caf::connect_atom::value, st.collector_host,
                st.collector_port)
      .then(
          [self, gen = st.collector_gen](const caf::node_id&, caf::strong_actor_ptr& ptr,
                                         const std::set<std::string>&) {
            auto& st = self->state;
            if (gen != st.collector_gen || st.collector) return;
            if (!ptr) return retry_collector(self);
            st.collector = caf::actor_cast<caf::actor>(std::move(ptr));
            self->monitor(st.collector);
            st.warned_collector = false;
            config::log().info("beating to collector node={} collector={}",
                               st.setup.status.node_name, st.collector_name);
          },
          [self, gen = st.collector_gen](caf::error& err) {
            auto& st = self->state;
            if (gen != st.collector_gen) return;
            if (!st.warned_collector)
              config::log().warn(
                  "collector unreachable node={} collector={} at {}:{}: {}; "
                  "retrying every second",
                  st.setup.status.node_name, st.collector_name, st.collector_host,
                  st.collector_port, describe(err));
            st.warned_collector = true;
            retry_collector(self);
          });
}

/// A CollectorNode's daemon tells the controller where its collector listens, once registered.
void announce_collector(daemon_self self) {
  auto& st = self->state;
  if (!st.setup.collector || !st.controller) return;
  self->request(st.controller, std::chrono::seconds{st.setup.message_timeout_s},
                msg::collector_atom_v, st.setup.status.node_name, st.setup.collector_port,
                st.setup.collector)
      .then([](caf::ok_atom) {},
            [self](caf::error& err) {
              config::log().error("collector not announced node={}: {}",
                                  self->state.setup.status.node_name, describe(err));
            });
}

void register_with(daemon_self self, caf::actor ctl);

/// A failed health check's reason goes to the node actor (which drains the node) once there is
/// one: a check at start ends before the daemon registers.
void report_health_failure(daemon_self self) {
  auto& st = self->state;
  if (!st.node || !st.health_failure) return;
  send_to(self, st.node, msg::check_atom_v, *st.health_failure);
  st.health_failure.reset();
}

/// The controller's wire version came with CAF's handshake (its published interface): with
/// another major the registration itself could not be decoded and would only show as a timeout,
/// so the daemon stops with both versions named instead. A shoalctld out of control says so
/// there too: the daemon moves on to the next line.
void check_version_then_register(daemon_self self, caf::actor ctl,
                                 const std::set<std::string>& ifs) {
  auto& st = self->state;
  auto who = "the controller " + line_text(self);
  auto version = msg::version_of_interface(ifs, who);
  auto err = version ? msg::check_peer_version(*version, who) : std::move(version.error());
  if (err) {
    config::log().error("cannot register node={}: {}", st.setup.status.node_name, describe(err));
    self->quit(to_caf(err));
    return;
  }
  if (ifs.count(msg::standby_interface) != 0) {
    SHOAL_DEBUG(init, "not in control node={} controller={}", st.setup.status.node_name,
                line_text(self));
    self->demonitor(ctl);
    try_next_line(self);
    return;
  }
  register_with(self, std::move(ctl));
}

/// The steps this daemon runs and those that ended since their job last released the node.
msg::node_report report_of(const node_daemon_state& st) {
  msg::node_report report;
  for (auto& [key, shepherd] : st.shepherds)
    if (st.ended.count(key) == 0) report.running.push_back({key.first, key.second});
  for (auto& [key, step] : st.simulated) report.running.push_back({key.first, key.second});
  for (auto& [key, ex] : st.ended) report.ended.push_back(ex);
  return report;
}

void register_with(daemon_self self, caf::actor ctl) {
  auto& st = self->state;
  auto status = st.setup.status;
  auto report = report_of(st);
  if (st.setup.sign_registration) {
    if (auto err = st.setup.sign_registration(status, report)) {
      config::log().error("registration not signed node={}: {}; retrying",
                          st.setup.status.node_name, describe(err));
      self->demonitor(ctl);
      retry_later(self);
      return;
    }
  }
  self->request(ctl, std::chrono::seconds{st.setup.message_timeout_s}, msg::register_atom_v,
                std::move(status), caf::actor_cast<caf::actor>(self), std::move(report))
      .then(
          [self, ctl](caf::actor& node) {
            auto& st = self->state;
            st.node = std::move(node);
            st.sent_usage = {};  // a new node actor (a restarted controller) has none
            auto role = st.line == 0                       ? std::string{"primary"}
                        : st.setup.controllers.size() == 2 ? std::string{"backup"}
                                                           : "backup" + std::to_string(st.line);
            config::log().info("registered node={} controller={} role={}",
                               st.setup.status.node_name, line_text(self), role);
            st.controller = ctl;
            st.registered = true;
            st.warned_unreachable = false;
            // After a drop, the primary is tried first again.
            st.line = 0;
            start_heartbeats(self);
            announce_collector(self);
            report_health_failure(self);
          },
          [self, ctl](caf::error& err) {
            // Refusals that a retry cannot change: a name the controller lacks, a credential it
            // rejects, a node whose shoald is alive elsewhere (invalid_request; one that died
            // is replaced, see the node actor). The process ends with code 1.
            if (err.category() == error_category &&
                (static_cast<errc>(err.code()) == errc::unknown_node ||
                 static_cast<errc>(err.code()) == errc::authentication_failed ||
                 static_cast<errc>(err.code()) == errc::invalid_request)) {
              config::log().error("controller refused registration node={}: {}",
                                  self->state.setup.status.node_name, describe(err));
              self->quit(std::move(err));
              return;
            }
            self->demonitor(ctl);
            if (err.category() == error_category &&
                static_cast<errc>(err.code()) == errc::not_in_control) {
              SHOAL_DEBUG(init, "not in control node={} controller={}: {}",
                          self->state.setup.status.node_name, line_text(self), describe(err));
            } else {
              config::log().warn("registration failed node={} controller={}: {}; retrying",
                                 self->state.setup.status.node_name, line_text(self),
                                 describe(err));
            }
            try_next_line(self);
          });
}

void connect(daemon_self self) {
  auto& st = self->state;
  if (st.registered) return;  // a stale retry
  auto mm = daemon_transport(self->system());
  const auto& line = current_line(self);
  SHOAL_DEBUG(init, "connecting node={} controller={}", st.setup.status.node_name, line_text(self));
  self->request(mm, std::chrono::seconds{5}, caf::connect_atom::value, line.address, line.port)
      .then(
          [self](const caf::node_id&, caf::strong_actor_ptr& ptr,
                 const std::set<std::string>& ifs) {
            if (!ptr) return try_next_line(self);
            auto ctl = caf::actor_cast<caf::actor>(std::move(ptr));
            self->monitor(ctl);
            check_version_then_register(self, ctl, ifs);
          },
          [self](caf::error& err) {
            auto& st = self->state;
            if (!st.warned_unreachable) {
              config::log().warn(
                  "controller unreachable node={} controller={}: {}; retrying "
                  "every second",
                  st.setup.status.node_name, line_text(self), self->system().render(err));
              st.warned_unreachable = true;
            }
            try_next_line(self);
          });
}

/// Says how passing a step's end on went: no error once it is on its way.
using step_exit_outcome = std::function<void(caf::error)>;

void pass_step_exit(daemon_self self, msg::step_exit ex, step_exit_outcome done);

/// For a step end found here (simulated, or refused before it ran), where nobody waits for the
/// outcome: it is kept in `ended` for the next registration when the controller is not there.
void pass_own_step_exit(daemon_self self, msg::step_exit ex) {
  pass_step_exit(self, std::move(ex), [](const caf::error&) {});
}

/// A simulated step ends: its tasks with `exit_code`, or killed by `signo`; reported as a
/// shepherd reports a real one (the sink first, then the job through on_step_exit).
void end_simulated(daemon_self self, std::pair<uint64_t, uint32_t> key, int32_t exit_code,
                   int32_t signo) {
  auto& st = self->state;
  auto it = st.simulated.find(key);
  if (it == st.simulated.end()) return;  // ended already (signalled before its time was up)
  auto step = std::move(it->second);
  st.simulated.erase(it);
  auto ex = exit_of_all(step.req, st.setup.status.node_name, "", exit_code, signo);
  if (step.sink) send_to(self, step.sink, ex);
  pass_own_step_exit(self, std::move(ex));
}

/// `shoald --simulate`: the step "runs" until simulate_step's time is up.
void launch_simulated(daemon_self self, msg::launch_request& req, caf::actor& sink) {
  auto& st = self->state;
  if (st.setup.check_launch) {
    if (auto refused = st.setup.check_launch(req)) {
      auto ex = refused_launch(req, st.setup.status.node_name, refused);
      if (sink) send_to(self, sink, ex);
      pass_own_step_exit(self, std::move(ex));
      return;
    }
  }
  auto key = std::make_pair(req.job_id, req.step_id);
  auto outcome = process::simulate_step(req);
  st.simulated[key] = {std::move(req), std::move(sink), outcome.exit_code};
  if (outcome.runs_for.count() == 0) {
    end_simulated(self, key, outcome.exit_code, 0);
    return;
  }
  // A signal that ends a task may end the step first; the timer then finds nothing.
  self->delayed_send(self, outcome.runs_for, simdone_atom::value, key.first, key.second);
}

void launch_now(daemon_self self, msg::launch_request& req, caf::actor& sink, caf::actor& job);

/// Starts a Prolog or Epilog, or queues it under PrologFlags=Serial while another runs.
void start_script(daemon_self self, node_script script) {
  auto& st = self->state;
  if (st.setup.prologs.serial && st.script_running) {
    st.serial_queue.push_back(std::move(script));
    return;
  }
  st.script_running = true;
  run_node_script(self->system(), caf::actor_cast<caf::actor>(self), std::move(script));
}

/// The job's Prolog or Epilog as this node runs it.
node_script script_for(daemon_self self, const msg::launch_request& job, bool prolog) {
  auto& st = self->state;
  node_script s;
  s.job_id = job.job_id;
  s.prolog = prolog;
  s.program = prolog ? st.setup.prologs.prolog : st.setup.prologs.epilog;
  s.env = node_script_env(job, st.setup.status.node_name, st.setup.cluster_name, st.setup.conf_path,
                          !prolog);
  s.timeout = std::chrono::seconds{st.setup.prologs.timeout_s};
  return s;
}

/// The job as this node's scripts see it: noted at its first word here.
node_daemon_state::job_scripts& note_job(daemon_self self, const msg::launch_request& req) {
  auto& entry = self->state.scripts[req.job_id];
  if (entry.job.job_id == 0) {
    entry.job = req;
    entry.job.env.clear();  // the caller's environment never reaches a root script
    entry.job.script.clear();
  }
  return entry;
}

void start_prolog(daemon_self self, node_daemon_state::job_scripts& entry) {
  entry.prolog = node_daemon_state::job_scripts::phase::running;
  config::log().info("prolog start job={} node={} prog={}", entry.job.job_id,
                     self->state.setup.status.node_name, self->state.setup.prologs.prolog);
  start_script(self, script_for(self, entry.job, true));
}

/// A launch that a failed Prolog keeps from starting: it fails for the job as prolog_failed;
/// or, `signo` not 0, one the job's end killed while its Prolog ran.
void refuse_for_prolog(daemon_self self, msg::launch_request& req, caf::actor& sink,
                       caf::actor& job, const std::string& why, int32_t signo = 0) {
  auto& st = self->state;
  st.step_jobs[{req.job_id, req.step_id}] = job;
  auto ex = exit_of_all(req, st.setup.status.node_name, why, signo == 0 ? 1 : 0, signo);
  ex.prolog_failed = signo == 0;
  if (sink) send_to(self, sink, ex);
  pass_own_step_exit(self, std::move(ex));
}

/// A launch waits for the job's Prolog here (started now at its first launch, unless
/// PrologFlags=Alloc started it at the job's start); without a Prolog it goes at once.
void launch(daemon_self self, msg::launch_request& req, caf::actor& sink, caf::actor& job) {
  auto& st = self->state;
  using phase = node_daemon_state::job_scripts::phase;
  const auto& p = st.setup.prologs;
  if (st.setup.simulate || (p.prolog.empty() && p.epilog.empty()))
    return launch_now(self, req, sink, job);
  auto& entry = note_job(self, req);
  if (p.prolog.empty() || entry.prolog == phase::done) return launch_now(self, req, sink, job);
  if (entry.prolog == phase::failed) return refuse_for_prolog(self, req, sink, job, entry.failure);
  entry.held.push_back({std::move(req), std::move(sink), std::move(job)});
  if (entry.prolog == phase::idle) start_prolog(self, entry);
}

/// The node actor relayed the job's start: noted for its Epilog; its Prolog starts now under
/// PrologFlags=Alloc.
void on_job_start(daemon_self self, const msg::launch_request& req) {
  auto& st = self->state;
  if (st.setup.simulate) return;
  auto& entry = note_job(self, req);
  using phase = node_daemon_state::job_scripts::phase;
  if (st.setup.prologs.alloc && !st.setup.prologs.prolog.empty() && entry.prolog == phase::idle)
    start_prolog(self, entry);
}

void run_epilog(daemon_self self, uint64_t job) {
  auto& st = self->state;
  auto it = st.scripts.find(job);
  if (it == st.scripts.end()) return;
  if (st.setup.prologs.epilog.empty()) return (void)st.scripts.erase(it);
  config::log().info("epilog start job={} node={} prog={}", job, st.setup.status.node_name,
                     st.setup.prologs.epilog);
  auto script = script_for(self, it->second.job, false);
  st.scripts.erase(it);
  start_script(self, std::move(script));
}

/// A Prolog or Epilog ended: held launches go (or fail), a failure drains the node (through
/// its node actor, which also requeues the job for a Prolog's), and a queued script starts.
void on_script_done(daemon_self self, uint64_t job, bool prolog, bool ok, std::string& reason) {
  auto& st = self->state;
  st.script_running = false;
  if (!st.serial_queue.empty()) {
    auto next = std::move(st.serial_queue.front());
    st.serial_queue.erase(st.serial_queue.begin());
    start_script(self, std::move(next));
  }
  if (!ok && st.node && prolog) send_to(self, st.node, msg::prolog_atom_v, job, reason);
  if (!ok && st.node && !prolog) send_to(self, st.node, msg::epilog_atom_v, job, reason);
  if (!prolog) return;
  auto it = st.scripts.find(job);
  if (it == st.scripts.end()) return;
  auto& entry = it->second;
  using phase = node_daemon_state::job_scripts::phase;
  entry.prolog = ok ? phase::done : phase::failed;
  entry.failure = reason;
  auto held = std::move(entry.held);
  bool released = entry.released;
  auto killed = entry.killed;
  for (auto& h : held)
    if (ok && killed == 0)
      launch_now(self, h.req, h.sink, h.job);
    else
      refuse_for_prolog(self, h.req, h.sink, h.job, killed != 0 ? "" : reason, killed);
  if (released) run_epilog(self, job);
}

void launch_now(daemon_self self, msg::launch_request& req, caf::actor& sink, caf::actor& job) {
  auto& st = self->state;
  auto key = std::make_pair(req.job_id, req.step_id);
  config::log().info("step launch job={} step={} node={} ranks={}", req.job_id,
                     msg::step_label(req.step_id), st.setup.status.node_name, req.ranks.size());
  st.step_jobs[key] = job;
  if (st.setup.simulate) return launch_simulated(self, req, sink);
  shepherd_setup where;
  where.step_owner = std::move(job);
  where.node_name = st.setup.status.node_name;
  where.spool_dir = st.setup.spool_dir;
  where.cores = st.setup.cores;
  where.meters = st.setup.meters;
  where.spares = st.setup.spares;
  where.check_launch = st.setup.check_launch;
  where.door_host = st.setup.door_host;
  where.door_port = st.setup.door_port;
  where.task_prolog = st.setup.prologs.task_prolog;
  where.task_epilog = st.setup.prologs.task_epilog;
  where.script_timeout_s = static_cast<uint32_t>(st.setup.prologs.timeout_s);
  // The daemon hears every step's end first (on_step_exit), then passes it to the job.
  auto shepherd = spawn_shepherd(self->system(), std::move(req), std::move(sink),
                                 caf::actor_cast<caf::actor>(self), where);
  self->monitor(shepherd);
  st.shepherds[key] = shepherd;
}

void relay_step_exit(daemon_self self, msg::step_exit ex, step_exit_outcome done);

/// A step ended: kept until its job releases the node (the next registration reports it), and
/// passed to the job: straight to its handle, or by job id through the node actor when the
/// handle predates a controller restart or the step was adopted. `done` hears once it is on its
/// way (relayed: once the controller has it), or errc::unreachable while no controller is
/// connected.
void pass_step_exit(daemon_self self, msg::step_exit ex, step_exit_outcome done) {
  auto& st = self->state;
  auto key = std::make_pair(ex.job_id, ex.step_id);
  st.ended[key] = ex;
  auto job = st.step_jobs.find(key);
  if (st.registered && job != st.step_jobs.end()) {
    send_to(self, job->second, std::move(ex));
    st.step_jobs.erase(job);
    done(caf::error{});
    return;
  }
  relay_step_exit(self, std::move(ex), std::move(done));
}

/// A shepherd's report of its step's end, answered as pass_step_exit's `done` hears.
caf::result<caf::ok_atom> on_step_exit(daemon_self self, msg::step_exit& ex) {
  auto rp = self->make_response_promise<caf::ok_atom>();
  pass_step_exit(self, std::move(ex), [rp](caf::error err) mutable {
    if (err)
      rp.deliver(std::move(err));
    else
      rp.deliver(caf::ok_atom::value);
  });
  return rp;
}

caf::result<msg::step_usage> step_usage_of(daemon_self self, uint64_t job, uint32_t step) {
  auto& st = self->state;
  auto key = std::make_pair(job, step);
  if (auto ended = st.ended.find(key); ended != st.ended.end()) return ended->second.usage;
  if (auto sim = st.simulated.find(key); sim != st.simulated.end()) {
    msg::step_usage zeros;
    zeros.tasks = sim->second.req.batch ? 1 : static_cast<uint32_t>(sim->second.req.ranks.size());
    return zeros;
  }
  auto it = st.shepherds.find(key);
  if (it == st.shepherds.end())
    return make_error(errc::unknown_job, "step " + std::to_string(job) + "." +
                                             msg::step_label(step) + " does not run on " +
                                             st.setup.status.node_name);
  auto rp = self->make_response_promise<msg::step_usage>();
  self->request(it->second, std::chrono::seconds{st.setup.message_timeout_s}, msg::usage_atom_v)
      .then([rp](msg::step_usage& usage) mutable { rp.deliver(std::move(usage)); },
            [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
  return rp;
}

void on_release(daemon_self self, uint64_t job) {
  auto& ended = self->state.ended;
  for (auto it = ended.lower_bound({job, 0}); it != ended.end() && it->first.first == job;)
    it = ended.erase(it);
  // The Epilog runs once the job is gone here, after its Prolog if that still runs.
  auto it = self->state.scripts.find(job);
  if (it == self->state.scripts.end()) return;
  if (it->second.prolog == node_daemon_state::job_scripts::phase::running)
    it->second.released = true;
  else
    run_epilog(self, job);
}

void forward_signal(daemon_self self, uint64_t job, uint32_t step, int32_t signo) {
  for (auto& [key, shepherd] : self->state.shepherds)
    if (key.first == job && (step == msg::all_steps || key.second == step))
      self->send(shepherd, msg::signal_atom_v, signo);
  if (!process::ends_a_task(signo)) return;
  // Launches held for the job's Prolog never start: they end killed once it is done.
  if (auto it = self->state.scripts.find(job); it != self->state.scripts.end())
    if (step == msg::all_steps) it->second.killed = signo;
  std::vector<std::pair<uint64_t, uint32_t>> hit;
  for (auto& [key, simulated] : self->state.simulated)
    if (key.first == job && (step == msg::all_steps || key.second == step)) hit.push_back(key);
  for (auto& key : hit) end_simulated(self, key, 0, signo);
}

/// The steps the previous shoald left running are ours now: signals reach them, and their ends
/// come back here to be relayed.
void take_adopted(daemon_self self) {
  auto& st = self->state;
  for (auto& step : st.setup.adopted) {
    self->monitor(step.shepherd);
    self->send(step.shepherd, msg::adopt_atom_v, caf::actor_cast<step_report_actor>(self));
    st.shepherds[{step.job_id, step.step_id}] = std::move(step.shepherd);
  }
  st.setup.adopted.clear();
}

/// An adopted step's end goes the way of every node report: to our node actor, which hands it
/// to the controller, which hands it to the job.
void relay_step_exit(daemon_self self, msg::step_exit ex, step_exit_outcome done) {
  auto& st = self->state;
  if (!st.node) {
    done(make_error(errc::unreachable,
                    "node " + st.setup.status.node_name + " is not registered with a controller"));
    return;
  }
  self->request(st.node, std::chrono::seconds{st.setup.message_timeout_s}, std::move(ex))
      .then([done](caf::ok_atom) { done(caf::error{}); },
            [done](caf::error& err) { done(std::move(err)); });
}

/// The node's own figures (seed 001: kernel and idle time, load), read at each beat: into this
/// daemon's /metrics, and to the node actor when they moved (process::usage_moved), so an idle
/// node sends nothing more than its beats. A simulated node has none of its own. Reading these
/// /proc files costs microseconds and never waits on a device.
void note_node_usage(daemon_self self) {
  auto& st = self->state;
  if (st.setup.simulate) return;
  auto now = process::to_wire(process::read_node_usage(), cluster::unix_now());
  if (st.gauges) st.gauges->set(now);
  if (!st.node || !process::usage_moved(st.sent_usage, now)) return;
  send_to(self, st.node, msg::usage_atom_v, now);
  st.sent_usage = now;
}

/// HealthCheckProgram, unless one runs: at start, then each time the controller asks.
void start_health_check(daemon_self self) {
  auto& st = self->state;
  if (st.health_running || st.setup.health.program.empty()) return;
  st.health_running = true;
  run_health_check(self->system(), caf::actor_cast<caf::actor>(self), st.setup.health.program,
                   st.setup.status.node_name);
}

/// A health check ended: the first lets the daemon register, as slurmd checks before it
/// registers; a failure drains the node through its node actor.
void on_health_done(daemon_self self, bool ok, std::string& reason) {
  auto& st = self->state;
  st.health_running = false;
  if (!ok) st.health_failure = std::move(reason);
  report_health_failure(self);
  if (st.connecting) return;
  st.connecting = true;
  connect(self);
}

/// `scontrol reconfigure`, relayed by the node actor: the process's SIGHUP reconfigure.
void on_reconfigure(daemon_self self) {
  auto& st = self->state;
  config::log().info("reconfigure asked by the controller node={}", st.setup.status.node_name);
  if (st.setup.reconfigure) st.setup.reconfigure();
}

daemon_impl::behavior_type node_daemon_behavior(daemon_self self, node_daemon_setup setup) {
  tolerate_strays(self);
  actor_probe probe{self, setup.meters, "node_daemon"};
  self->state.setup = std::move(setup);
  if (!self->state.setup.simulate)
    self->state.gauges =
        make_node_usage_gauges(self->state.setup.meters, self->state.setup.status.node_name);
  take_adopted(self);
  self->set_down_handler([self](const caf::down_msg& dm) {
    auto& st = self->state;
    if (st.controller && dm.source == st.controller.address()) {
      config::log().warn("controller connection lost node={}; reconnecting",
                         st.setup.status.node_name);
      st.controller = nullptr;
      st.node = nullptr;
      st.registered = false;
      // Job handles die with the controller's process; ends then go by job id (on_step_exit).
      st.step_jobs.clear();
      ++st.beat_gen;
      retry_later(self);
      return;
    }
    if (st.collector && dm.source == st.collector.address()) {
      config::log().warn("collector connection lost node={} collector={}; reconnecting",
                         st.setup.status.node_name, st.collector_name);
      st.collector = nullptr;
      retry_collector(self);
      return;
    }
    for (auto it = st.shepherds.begin(); it != st.shepherds.end(); ++it) {
      if (it->second.address() == dm.source) {
        st.shepherds.erase(it);
        break;
      }
    }
  });
  if (self->state.setup.health.enabled() && !self->state.setup.simulate) {
    start_health_check(self);
  } else {
    self->state.connecting = true;
    connect(self);
  }
  return {
      probe.metered("connect", [self](caf::connect_atom) { connect(self); }),
      probe.metered(
          "heartbeat",
          [self](msg::heartbeat_atom, uint64_t gen) {
            auto& st = self->state;
            if (gen != st.beat_gen || !st.node) return;
            SHOAL_DEBUG(heartbeat, "heartbeat sent node={}", st.setup.status.node_name);
            if (st.collector_name.empty())
              send_to(self, st.node, msg::heartbeat_atom_v);
            else if (st.collector)
              send_to(self, st.collector, msg::heartbeat_atom_v, st.setup.status.node_name);
            note_node_usage(self);
            self->delayed_send(self, std::chrono::milliseconds{st.setup.heartbeat_interval_ms},
                               msg::heartbeat_atom_v, gen);
          }),
      probe.metered("launch", [self](msg::launch_atom, msg::launch_request& req, caf::actor& sink,
                                     caf::actor& job) { launch(self, req, sink, job); }),
      probe.metered("release", [self](msg::release_atom, uint64_t job) { on_release(self, job); }),
      probe.metered("reconfig", [self](msg::reconfig_atom) { on_reconfigure(self); }),
      probe.metered("health_check", [self](msg::check_atom) { start_health_check(self); }),
      probe.metered("reboot",
                    [self](msg::reboot_atom) {
                      const auto& st = self->state;
                      run_reboot_program(self->system(), st.setup.health.reboot_program,
                                         st.setup.status.node_name);
                    }),
      probe.metered("health_done",
                    [self](msg::check_atom, bool ok, std::string& reason) {
                      on_health_done(self, ok, reason);
                    }),
      probe.metered(
          "job_start",
          [self](msg::prolog_atom, const msg::launch_request& req) { on_job_start(self, req); }),
      probe.metered("script_done",
                    [self](script_done_atom, uint64_t job, bool prolog, bool ok,
                           std::string& reason) { on_script_done(self, job, prolog, ok, reason); }),
      probe.metered("usage", [self](msg::usage_atom, uint64_t job,
                                    uint32_t step) { return step_usage_of(self, job, step); }),
      probe.metered("simdone",
                    [self](simdone_atom, uint64_t job, uint32_t step) {
                      auto it = self->state.simulated.find({job, step});
                      if (it != self->state.simulated.end())
                        end_simulated(self, {job, step}, it->second.exit_code, 0);
                    }),
      probe.metered("attach",
                    [self](msg::attach_atom, uint64_t job, uint32_t step, caf::actor& sink) {
                      auto it = self->state.shepherds.find({job, step});
                      config::log().info("step output reattached job={} step={} node={} found={}",
                                         job, msg::step_label(step),
                                         self->state.setup.status.node_name,
                                         it != self->state.shepherds.end());
                      if (it != self->state.shepherds.end())
                        self->send(it->second, msg::attach_atom_v, std::move(sink));
                    }),
      probe.metered("signal",
                    [self](msg::signal_atom, uint64_t job, uint32_t step, int32_t signo,
                           const std::string& credential) {
                      auto& st = self->state;
                      SHOAL_DEBUG(steps, "step signal job={} step={} signal={} node={}", job,
                                  msg::step_label(step), signo, st.setup.status.node_name);
                      if (st.setup.check_signal) {
                        if (auto refused = st.setup.check_signal(job, step, signo, credential)) {
                          config::log().warn("signal refused job={} step={} signal={} node={}: {}",
                                             job, msg::step_label(step), signo,
                                             st.setup.status.node_name, describe(refused));
                          return;
                        }
                      }
                      forward_signal(self, job, step, signo);
                    }),
      probe.metered("step_exit", [self](msg::step_exit& ex) { return on_step_exit(self, ex); }),
      probe.metered("collector_retry",
                    [self](msg::collector_atom, uint64_t gen) {
                      if (gen == self->state.collector_gen) connect_collector(self);
                    }),
      probe.metered(
          "collector",
          [self](msg::collector_atom, std::string& name, std::string& host, uint16_t port) {
            auto& st = self->state;
            if (name == st.collector_name && host == st.collector_host &&
                port == st.collector_port) {
              connect_collector(self);  // the same word again (a registration)
              return;
            }
            // Stop beating to the old collector before beating to the new one.
            if (st.collector) self->demonitor(st.collector);
            st.collector = nullptr;
            ++st.collector_gen;
            st.collector_name = std::move(name);
            st.collector_host = std::move(host);
            st.collector_port = port;
            st.warned_collector = false;
            if (st.collector_name.empty())
              config::log().info("beating to the controller node={}", st.setup.status.node_name);
            connect_collector(self);
          }),
  };
}

}  // namespace

node_daemon_actor spawn_node_daemon(caf::actor_system& sys, node_daemon_setup setup) {
  return sys.spawn(node_daemon_behavior, std::move(setup));
}

}  // namespace shoal::actors
