#include "actors/power.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <set>

#include <caf/all.hpp>

#include "actors/admin_program.hpp"
#include "actors/daemon_transport.hpp"
#include "actors/metering.hpp"
#include "actors/saved_state.hpp"
#include "actors/unexpected.hpp"
#include "cluster/clock.hpp"
#include "cluster/power_plan.hpp"
#include "config/log.hpp"
#include "messages/caf/error.hpp"
#include "topology/hostlist.hpp"

namespace shoal::actors {

namespace {

using cluster::unix_now;
using msg::power_state;

/// The power actor looks at its nodes this often: deadlines, resumes asked since, and (every
/// power_save_interval) idle nodes to power down.
constexpr auto tick_period = std::chrono::seconds{1};

/// Slurm's reasons, word for word.
constexpr const char* resume_timeout_reason = "ResumeTimeout reached";
constexpr const char* rebooted_reason = "Node unexpectedly rebooted";

const char* shown(power_state s) {
  return *msg::to_string(s) ? msg::to_string(s) : "ON";
}

/// One node: the plan's facts (its power state and latest view) and what the actor adds.
struct tracked_node {
  cluster::power_node plan;
  node_actor actor;
  int64_t since = 0;           ///< when it entered its power state, Unix seconds
  int64_t deadline = 0;        ///< powering up/down: ResumeTimeout/SuspendTimeout ends
  bool program_run = false;    ///< the program of its powering state started
  bool resume_after = false;   ///< asked up while powering down: resumed once down
  bool resume_failed = false;  ///< it missed ResumeTimeout and is DOWN for it
  bool managed = false;        ///< power saving may power it down by itself (SuspendTime set)
  bool down_on_idle = false;   ///< a partition holding it has PowerDownOnIdle=YES
  std::string address;         ///< NodeAddr, from its latest view ("": its name)
  std::string hostname;        ///< NodeHostname, from its latest view ("": its name)
};

/// A job waiting for its nodes.
struct waiter {
  caf::typed_response_promise<std::string> promise;
  power_job job;
  std::set<size_t> left;  ///< nodes not up yet
};

struct power_state_t {
  static inline const char* name = "power";
  config::cluster_config cfg;
  std::vector<tracked_node> nodes;
  std::unordered_map<std::string, size_t> index;
  std::map<uint64_t, waiter> waiters;
  cluster::rate_limit suspend_rate;
  cluster::rate_limit resume_rate;
  int64_t last_suspend_scan = 0;
  state_keeper_actor keeper;
  partition_table parts;
  metrics::registry* meters = nullptr;
};

using power_impl = power_actor::extend<caf::reacts_to<msg::check_atom>>;
using power_self = power_impl::stateful_pointer<power_state_t>;

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// Counts one program call and the nodes it named (shoal_power_program_calls_total and
/// shoal_power_program_nodes_total, by program).
void meter_program(power_self self, const std::string& program, size_t nodes) {
  auto* m = self->state.meters;
  if (!m) return;
  m->counters("shoal_power_program_calls_total",
              "Power saving programs started, by program (SuspendProgram, ResumeProgram, "
              "ResumeFailProgram).",
              {"program"})
      .with({program})
      .inc();
  m->counters("shoal_power_program_nodes_total",
              "Nodes named to power saving programs, by program.", {"program"})
      .with({program})
      .inc(nodes);
}

std::string hostlist_of(power_self self, const std::vector<size_t>& which) {
  std::vector<std::string> names;
  for (auto i : which) names.push_back(self->state.nodes[i].plan.name);
  return topology::compress_hostlist(names);
}

/// Runs one of the admin's programs on `which` (a hostlist argument), killed after `timeout`.
void run_program(power_self self, const std::string& label, const std::string& prog,
                 const std::vector<size_t>& which, int64_t timeout_s,
                 std::string resume_file_text = "") {
  if (prog.empty() || which.empty()) return;
  admin_program p;
  p.label = label;
  p.argv = {prog, hostlist_of(self, which)};
  p.env = inherited_environment();
  if (!resume_file_text.empty()) {
    p.file_text = std::move(resume_file_text);
    p.file_env = {"SLURM_RESUME_FILE", "SHOAL_RESUME_FILE"};
  }
  p.timeout = std::chrono::seconds{std::max<int64_t>(1, timeout_s)};
  config::log().info("power program prog={} nodes={} count={}", label, p.argv[1], which.size());
  meter_program(self, label, which.size());
  run_admin_program(self->system(), std::move(p));
}

/// Saves the node's power state (forgotten when it is plainly on).
void save(power_self self, const tracked_node& n) {
  auto& st = self->state;
  if (!st.keeper) return;
  msg::power_record r;
  r.name = n.plan.name;
  r.state = n.plan.power;
  r.down_asked = n.plan.down_asked;
  r.deadline = n.deadline;
  r.program_run = n.program_run;
  r.since = n.since;
  bool plain = r.state == power_state::on && !r.down_asked;
  self->send(st.keeper, msg::persist_atom_v, power_key(n.plan.name),
             plain ? state::value_ptr{} : encoded(r));
}

/// Tells the node actor its power state, and saves it.
void publish(power_self self, size_t i) {
  auto& n = self->state.nodes[i];
  self->send(n.actor, msg::power_atom_v, static_cast<uint8_t>(n.plan.power), n.plan.down_asked);
  save(self, n);
}

void enter(power_self self, size_t i, power_state next, int64_t deadline = 0) {
  auto& n = self->state.nodes[i];
  SHOAL_DEBUG(power, "power state node={} from={} to={}", n.plan.name, shown(n.plan.power),
              shown(next));
  n.plan.power = next;
  n.since = unix_now();
  n.deadline = deadline;
  n.program_run = false;
}

/// SLURM_NODE_ALIASES for `nodes`: name:addr:host of each CLOUD node among them.
std::string aliases_of(power_self self, const std::vector<std::string>& nodes) {
  auto& st = self->state;
  std::string out;
  for (auto& name : nodes) {
    auto it = st.index.find(name);
    if (it == st.index.end() || !st.nodes[it->second].plan.cloud) continue;
    auto& n = st.nodes[it->second];
    out += (out.empty() ? "" : ",") + name + ":" + (n.address.empty() ? name : n.address) + ":" +
           (n.hostname.empty() ? name : n.hostname);
  }
  return out;
}

/// The node is up: jobs waiting only for it go on.
void node_up(power_self self, size_t i) {
  auto& st = self->state;
  for (auto it = st.waiters.begin(); it != st.waiters.end();) {
    it->second.left.erase(i);
    if (it->second.left.empty()) {
      it->second.promise.deliver(aliases_of(self, it->second.job.nodes));
      it = st.waiters.erase(it);
    } else {
      ++it;
    }
  }
}

/// The node missed its resume: jobs waiting for it hear so (their node is DOWN too).
void node_failed(power_self self, size_t i) {
  auto& st = self->state;
  for (auto it = st.waiters.begin(); it != st.waiters.end();) {
    if (it->second.left.count(i) == 0) {
      ++it;
      continue;
    }
    it->second.promise.deliver(
        make_error(errc::unreachable, "node " + st.nodes[i].plan.name + " did not resume in time"));
    it = st.waiters.erase(it);
  }
}

/// Asks the node up: POWERING_UP now, its ResumeProgram at the next tick (batched, rated).
void want_up(power_self self, size_t i) {
  auto& n = self->state.nodes[i];
  n.plan.down_asked = false;
  if (n.plan.power == power_state::powering_down) {
    n.resume_after = true;  // once it is down
    return;
  }
  if (n.plan.power != power_state::powered_down) return;
  enter(self, i, power_state::powering_up);
  publish(self, i);
}

/// cloud_reg_addrs: a CLOUD node's NodeAddr becomes the address its daemon connected from, its
/// NodeHostname the host name it reported; then `done` runs (at once without the setting), so
/// that jobs waiting for the node hear its new address in their SLURM_NODE_ALIASES.
void take_addresses(power_self self, size_t i, const std::string& hostname,
                    const caf::actor& daemon, std::function<void()> done) {
  auto& n = self->state.nodes[i];
  if (!self->state.cfg.power.cloud_reg_addrs || !n.plan.cloud) return done();
  auto tell = [self, i, hostname, done](const std::string& address) {
    auto& node = self->state.nodes[i];
    if (!address.empty()) node.address = address;
    node.hostname = hostname;
    msg::node_update up;
    up.address = address;
    up.hostname = hostname;
    up.user = "shoal";
    caf::anon_send(node.actor, msg::nodeupd_atom_v, up);
    done();
  };
  if (!daemon || !self->system().has_middleman() || daemon.node() == self->node()) return tell("");
  self->request(daemon_transport(self->system()), std::chrono::seconds{3}, caf::get_atom_v,
                daemon.node())
      .then([tell](const caf::node_id&, const std::string& host, uint16_t) { tell(host); },
            [tell](caf::error&) { tell(""); });
}

/// cloud_reg_addrs: a CLOUD node powered off gets its name back as NodeAddr and NodeHostname.
void reset_addresses(power_self self, size_t i) {
  auto& n = self->state.nodes[i];
  if (!self->state.cfg.power.cloud_reg_addrs || !n.plan.cloud) return;
  msg::node_update up;
  up.address = n.plan.name;
  up.hostname = n.plan.name;
  up.user = "shoal";
  caf::anon_send(n.actor, msg::nodeupd_atom_v, up);
}

// -- the tick -----------------------------------------------------------------------------------

/// Powering nodes past their deadline: a resume that missed ResumeTimeout makes the node DOWN
/// (ResumeFailProgram runs, its jobs are requeued); a power down after SuspendTimeout is done.
void check_deadlines(power_self self, int64_t now) {
  auto& st = self->state;
  std::vector<size_t> failed;
  std::vector<size_t> resume_again;
  for (size_t i = 0; i < st.nodes.size(); ++i) {
    auto& n = st.nodes[i];
    if (!n.program_run || n.deadline == 0 || now < n.deadline) continue;
    if (n.plan.power == power_state::powering_up) {
      config::log().error("node resume failed node={} reason=\"{}\"", n.plan.name,
                          resume_timeout_reason);
      enter(self, i, power_state::powered_down);
      n.resume_failed = true;
      publish(self, i);
      self->send(n.actor, msg::nodedown_atom_v, std::string{resume_timeout_reason});
      node_failed(self, i);
      failed.push_back(i);
    } else if (n.plan.power == power_state::powering_down) {
      enter(self, i, power_state::powered_down);
      publish(self, i);
      reset_addresses(self, i);
      if (st.cfg.power.idle_on_node_suspend) {
        msg::node_update up;
        up.state = "RESUME";
        up.user = "shoal";
        caf::anon_send(n.actor, msg::nodeupd_atom_v, up);
      }
      if (n.resume_after) resume_again.push_back(i);
    }
  }
  for (auto i : resume_again) {
    st.nodes[i].resume_after = false;
    want_up(self, i);
  }
  int64_t timeout = 0;
  for (auto i : failed) timeout = std::max(timeout, st.nodes[i].plan.timing.resume_timeout_s);
  run_program(self, "ResumeFailProgram", st.cfg.power.resume_fail_program, failed, timeout);
}

/// The text of the file ResumeProgram reads: every waiting job with a node among `which` (the
/// program's own thread writes it, no handler here touches the disk).
std::string resume_file_text(power_self self, const std::vector<size_t>& which) {
  auto& st = self->state;
  std::set<size_t> batch(which.begin(), which.end());
  std::vector<cluster::resume_job> jobs;
  for (auto& [id, w] : st.waiters) {
    cluster::resume_job j;
    j.job_id = id;
    j.features = w.job.features;
    j.partition = w.job.partition;
    j.oversubscribe = w.job.oversubscribe;
    j.nodes_alloc = topology::compress_hostlist(w.job.nodes);
    std::vector<std::string> resumed;
    for (auto& name : w.job.nodes)
      if (auto it = st.index.find(name); it != st.index.end() && batch.count(it->second))
        resumed.push_back(name);
    if (resumed.empty()) continue;
    j.nodes_resume = topology::compress_hostlist(resumed);
    jobs.push_back(std::move(j));
  }
  return cluster::resume_file_json(hostlist_of(self, which), jobs);
}

/// Nodes asked up since the last tick: one ResumeProgram for as many as ResumeRate allows,
/// started once their POWERING_UP record is durable (a restart then neither runs it twice nor
/// forgets the node: it waits out ResumeTimeout).
void start_resumes(power_self self, int64_t now) {
  auto& st = self->state;
  std::vector<size_t> batch;
  auto budget = st.resume_rate.available(now_ms());
  int64_t timeout = 0;
  for (size_t i = 0; i < st.nodes.size() && batch.size() < budget; ++i) {
    auto& n = st.nodes[i];
    if (n.plan.power != power_state::powering_up || n.program_run) continue;
    n.program_run = true;
    n.deadline = now + n.plan.timing.resume_timeout_s;
    timeout = std::max(timeout, n.plan.timing.resume_timeout_s);
    save(self, n);
    batch.push_back(i);
  }
  if (batch.empty()) return;
  st.resume_rate.take(batch.size());
  auto file = resume_file_text(self, batch);
  auto start = [self, batch, timeout, file] {
    run_program(self, "ResumeProgram", self->state.cfg.power.resume_program, batch, timeout, file);
  };
  if (!st.keeper) return start();
  self->request(st.keeper, caf::infinite, msg::sync_atom_v)
      .then([start](caf::ok_atom) { start(); },
            [start](caf::error&) {
              // The disk failing must not strand the jobs: resume anyway (logged by the keeper).
              start();
            });
}

/// Idle nodes due to power down: one SuspendProgram for as many as SuspendRate allows.
void start_suspends(power_self self, int64_t now) {
  auto& st = self->state;
  bool scan = now - st.last_suspend_scan >= st.cfg.power.power_save_interval_s;
  std::vector<cluster::power_node> plan;
  plan.reserve(st.nodes.size());
  bool asked = false;
  for (auto& n : st.nodes) {
    plan.push_back(n.plan);
    asked = asked || n.plan.down_asked;
    // Nodes power saving does not manage go only when an admin asks.
    if (!n.managed && !n.plan.down_asked) plan.back().timing.suspend_time_s = config::suspend_never;
  }
  if (!scan && !asked) return;
  if (scan) st.last_suspend_scan = now;
  auto chosen =
      cluster::nodes_to_suspend(plan, st.cfg.power, now, st.suspend_rate.available(now_ms()));
  if (chosen.empty()) return;
  st.suspend_rate.take(chosen.size());
  int64_t timeout = 0;
  for (auto i : chosen) {
    auto& n = st.nodes[i];
    SHOAL_DEBUG(power, "node power down node={} idle_s={} asked={}", n.plan.name,
                now - n.plan.idle_since, n.plan.down_asked);
    enter(self, i, power_state::powering_down, now + n.plan.timing.suspend_timeout_s);
    n.program_run = true;
    n.plan.down_asked = false;
    timeout = std::max(timeout, n.plan.timing.suspend_timeout_s);
    publish(self, i);
  }
  run_program(self, "SuspendProgram", st.cfg.power.suspend_program, chosen, timeout);
}

void on_tick(power_self self) {
  auto now = unix_now();
  check_deadlines(self, now);
  start_resumes(self, now);
  start_suspends(self, now);
  self->delayed_send(self, tick_period, msg::check_atom_v);
}

// -- messages -----------------------------------------------------------------------------------

/// The node's timing and PowerDownOnIdle from the partitions holding it now.
void take_partitions(power_self self, tracked_node& n) {
  auto& st = self->state;
  std::vector<config::partition_power_timing> timings;
  n.down_on_idle = false;
  for (auto& name : n.plan.partitions) {
    const config::partition_config* p = nullptr;
    if (st.parts) {
      for (auto& row : *st.parts)
        if (row && row->name == name) p = &*row;
    } else {
      for (auto& row : st.cfg.partitions)
        if (row.name == name) p = &row;
    }
    if (!p) continue;
    timings.push_back(p->power);
    n.down_on_idle = n.down_on_idle || p->power_down_on_idle;
  }
  n.plan.timing = config::effective_power_timing(st.cfg.power, timings);
  n.managed = n.plan.timing.suspend_time_s != config::suspend_never;
}

void on_view(power_self self, const msg::node_info& info) {
  auto& st = self->state;
  auto it = st.index.find(info.name);
  if (it == st.index.end()) return;
  auto& n = st.nodes[it->second];
  n.plan.state = info.state;
  bool was_busy = n.plan.has_jobs;
  n.plan.has_jobs = !info.job_ids.empty();
  // PowerDownOnIdle: a node its partition's job leaves is asked down at once (POWER_DOWN).
  if (was_busy && !n.plan.has_jobs && n.down_on_idle && !n.plan.down_asked &&
      n.plan.power == power_state::on) {
    n.plan.down_asked = true;
    publish(self, it->second);
  }
  n.plan.not_responding = info.state == msg::node_state::down && info.reason == "Not responding";
  // Powered up (by a job or an admin) counts as busy: SuspendTime runs from the later of the two.
  n.plan.idle_since = std::max(info.last_busy, n.since);
  if (info.state != msg::node_state::down) n.resume_failed = false;
  n.address = info.address;
  n.hostname = info.hostname;
  if (info.partitions != n.plan.partitions) {
    n.plan.partitions = info.partitions;
    take_partitions(self, n);
  }
}

caf::result<std::string> on_ready(power_self self, power_job& job) {
  auto& st = self->state;
  std::set<size_t> left;
  for (auto& name : job.nodes) {
    auto it = st.index.find(name);
    if (it == st.index.end()) continue;
    auto i = it->second;
    auto& n = st.nodes[i];
    if (n.plan.power == power_state::on) continue;
    want_up(self, i);
    left.insert(i);
  }
  if (left.empty()) return aliases_of(self, job.nodes);
  SHOAL_DEBUG(power, "job waits for its nodes job={} nodes={}", job.job_id, left.size());
  auto rp = self->make_response_promise<std::string>();
  auto id = job.job_id;
  // A job asking again (placed anew after a requeue) replaces its earlier wait, which is told so.
  if (auto old = st.waiters.find(id); old != st.waiters.end())
    old->second.promise.deliver(make_error(errc::invalid_request, "placed again meanwhile"));
  st.waiters[id] = waiter{rp, std::move(job), std::move(left)};
  return rp;
}

void on_register(power_self self, const std::string& node, int64_t previous_boot, int64_t boot,
                 const std::string& hostname, const caf::actor& daemon) {
  auto& st = self->state;
  auto it = st.index.find(node);
  if (it == st.index.end()) return;
  auto i = it->second;
  auto& n = st.nodes[i];
  switch (n.plan.power) {
    case power_state::powering_up:
      SHOAL_DEBUG(power, "node resumed node={} after_s={}", node, unix_now() - n.since);
      enter(self, i, power_state::on);
      publish(self, i);
      take_addresses(self, i, hostname, daemon, [self, i] { node_up(self, i); });
      return;
    case power_state::powered_down:
      if (n.resume_failed) {
        // It came back after ResumeTimeout: the guide's "Node unexpectedly rebooted".
        config::log().warn("node registered after its resume failed node={}", node);
        self->send(n.actor, msg::nodedown_atom_v, std::string{rebooted_reason});
        return;
      }
      config::log().warn("node powered up unasked node={}", node);
      enter(self, i, power_state::on);
      publish(self, i);
      take_addresses(self, i, hostname, daemon, [self, i] { node_up(self, i); });
      return;
    case power_state::powering_down:
      SHOAL_DEBUG(power, "node registered while powering down node={}", node);
      return;
    case power_state::on:
      take_addresses(self, i, hostname, daemon, [] {});
      if ((n.managed || n.plan.cloud) && previous_boot != 0 && boot > previous_boot) {
        config::log().warn("node rebooted unasked node={} boot_time={} previous={}", node, boot,
                           previous_boot);
        self->send(n.actor, msg::nodedown_atom_v, std::string{rebooted_reason});
      }
      return;
  }
}

caf::result<caf::ok_atom> on_manual(power_self self, const std::string& node,
                                    const std::string& word) {
  auto& st = self->state;
  auto it = st.index.find(node);
  if (it == st.index.end())
    return make_error(errc::unknown_node, "node " + node + " is not power managed");
  auto i = it->second;
  auto& n = st.nodes[i];
  config::log().info("node power update node={} state={}", node, word);
  if (word == "POWER_UP") {
    want_up(self, i);
    if (n.plan.power == power_state::on) publish(self, i);
  } else if (word == "POWER_DOWN" || word == "POWER_DOWN_ASAP" || word == "POWER_DOWN_FORCE") {
    if (n.plan.power == power_state::powered_down || n.plan.power == power_state::powering_down)
      return caf::ok_atom_v;  // on its way already: the guide's "only changes the state"
    n.plan.down_asked = true;
    n.resume_after = false;
    publish(self, i);
    if (word == "POWER_DOWN_ASAP") {
      msg::node_update up;
      up.state = "DRAIN";
      up.reason = "POWER_DOWN_ASAP";
      up.user = "shoal";
      caf::anon_send(n.actor, msg::nodeupd_atom_v, up);
    } else if (word == "POWER_DOWN_FORCE") {
      self->send(n.actor, msg::cancel_atom_v, std::string{"POWER_DOWN_FORCE"});
    }
  } else if (word == "RESUME") {
    n.plan.down_asked = false;
    // The guide: a resume hastens a power down that is under way.
    if (n.plan.power == power_state::powering_down) n.deadline = unix_now();
    publish(self, i);
  } else {
    return make_error(errc::invalid_request, "invalid power state '" + word +
                                                 "' (use POWER_DOWN, POWER_UP, POWER_DOWN_ASAP "
                                                 "or POWER_DOWN_FORCE)");
  }
  return caf::ok_atom_v;
}

/// Each node's starting power state: its saved record, else POWERED_DOWN for a CLOUD node (the
/// guide: a cloud node starts IDLE~), else on.
void restore(power_self self, const power_setup& setup) {
  auto& st = self->state;
  auto now = unix_now();
  for (auto& cfg : setup.cfg.nodes) {
    tracked_node n;
    n.plan.name = cfg.name;
    n.plan.partitions = cfg.partitions;
    auto initial = cfg.initial_state;
    for (auto& c : initial) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    n.plan.cloud = initial == "CLOUD";
    n.plan.idle_since = now;
    n.since = now;
    if (auto a = setup.nodes.find(cfg.name); a != setup.nodes.end()) n.actor = a->second;
    take_partitions(self, n);
    if (auto saved = setup.saved.find(cfg.name); saved != setup.saved.end()) {
      auto& r = saved->second;
      n.plan.power = r.state;
      n.plan.down_asked = r.down_asked;
      n.deadline = r.deadline;
      n.program_run = r.program_run;
      n.since = r.since;
      config::log().info("node power recovered node={} state={} program_run={} deadline_in_s={}",
                         cfg.name, shown(r.state), r.program_run,
                         r.deadline ? r.deadline - now : 0);
    } else if (n.plan.cloud) {
      n.plan.power = power_state::powered_down;
    }
    st.index.emplace(cfg.name, st.nodes.size());
    st.nodes.push_back(std::move(n));
  }
  for (size_t i = 0; i < st.nodes.size(); ++i) {
    auto& n = st.nodes[i];
    if (!n.actor) continue;
    self->send(n.actor, msg::power_atom_v, caf::actor_cast<caf::actor>(self));
    self->send(n.actor, msg::power_atom_v, static_cast<uint8_t>(n.plan.power), n.plan.down_asked);
  }
}

power_impl::behavior_type power_behavior(power_self self, power_setup setup) {
  auto& st = self->state;
  tolerate_strays(self);
  actor_probe probe{self, setup.meters, "power"};
  st.cfg = setup.cfg;
  st.keeper = setup.keeper;
  st.meters = setup.meters;
  st.suspend_rate = cluster::rate_limit{st.cfg.power.suspend_rate, now_ms()};
  st.resume_rate = cluster::rate_limit{st.cfg.power.resume_rate, now_ms()};
  st.last_suspend_scan = unix_now();
  restore(self, setup);
  config::log().info(
      "power saving on nodes={} suspend_time={} suspend_rate={} resume_rate={} interval_s={}",
      st.nodes.size(), config::suspend_time_text(st.cfg.power.suspend_time_s),
      st.cfg.power.suspend_rate, st.cfg.power.resume_rate, st.cfg.power.power_save_interval_s);
  self->delayed_send(self, tick_period, msg::check_atom_v);
  return {
      probe.metered("view",
                    [self](msg::view_atom, const msg::node_info& info) { on_view(self, info); }),
      probe.metered("ready",
                    [self](msg::ready_atom, power_job& job) { return on_ready(self, job); }),
      probe.metered("register",
                    [self](msg::register_atom, const std::string& node, int64_t previous,
                           int64_t boot, const std::string& hostname, const caf::actor& daemon) {
                      on_register(self, node, previous, boot, hostname, daemon);
                    }),
      probe.metered("manual",
                    [self](msg::power_atom, const std::string& node, const std::string& word) {
                      return on_manual(self, node, word);
                    }),
      probe.metered("partitions",
                    [self](msg::parts_atom, const partition_table& table) {
                      self->state.parts = table;
                      for (auto& n : self->state.nodes) take_partitions(self, n);
                    }),
      probe.metered("tick", [self](msg::check_atom) { on_tick(self); }),
  };
}

}  // namespace

bool power_saving_wanted(const config::cluster_config& cfg, std::string& why_not) {
  bool managed = false;
  bool cloud = false;
  for (auto& n : cfg.nodes) {
    auto initial = n.initial_state;
    for (auto& c : initial) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    cloud = cloud || initial == "CLOUD";
    managed = managed || config::node_power_timing(cfg, n).suspend_time_s != config::suspend_never;
  }
  if (!managed && !cloud) return false;
  const char* missing = cfg.power.suspend_program.empty()  ? "SuspendProgram"
                        : cfg.power.resume_program.empty() ? "ResumeProgram"
                                                           : nullptr;
  if (missing) {
    why_not = std::string{"power saving is off: "} + missing +
              " is not set (SuspendTime or State=CLOUD asks for it)";
    return false;
  }
  return true;
}

std::string power_key(const std::string& node) {
  return "power/" + node;
}

power_actor spawn_power(caf::actor_system& sys, power_setup setup) {
  return caf::actor_cast<power_actor>(sys.spawn(power_behavior, std::move(setup)));
}

}  // namespace shoal::actors
