#include "policy/job_lifecycle.hpp"

#include <csignal>
#include <utility>

namespace shoal::policy {

namespace {

using S = lifecycle_state;
using E = event_kind;
using K = effect_kind;

/// Queued with the scheduler: the states listings show as PENDING.
bool is_queued(S s) {
  return s == S::pending || s == S::held || s == S::dependency_never || s == S::requeued;
}

/// Holding nodes with tasks launched or being launched, and not ending yet.
bool is_active(S s) {
  return s == S::configuring || s == S::running;
}

effect signal_effect(int32_t signo, signal_scope scope = signal_scope::all) {
  effect e{K::signal_tasks};
  e.signo = signo;
  e.scope = scope;
  return e;
}

effect exit_code_effect(int32_t exit_code, int32_t exit_signal) {
  effect e{K::record_exit_code};
  e.exit_code = exit_code;
  e.signo = exit_signal;
  return e;
}

/// An allocation that is ending and has no step left: its nodes go now (nothing else would
/// report to end it).
bool allocation_done(const job_facts& facts) {
  return facts.allocation && !facts.steps_running;
}

effect note_effect(client_note note, std::string text = "") {
  effect e{K::notify_client};
  e.note = note;
  e.text = std::move(text);
  return e;
}

transition ignored(const lifecycle& now) {
  return {verdict::ignored, now, {}};
}
transition refused(const lifecycle& now) {
  return {verdict::refused, now, {}};
}

transition applied(lifecycle next, std::vector<effect> effects = {}) {
  return {verdict::applied, std::move(next), std::move(effects)};
}

/// A running job begins to end: SIGTERM now, SIGKILL after KillWait (kill_wait_expired), the
/// final state once the main step reported (main_step_ended, release_done).
/// An allocation ends once its steps are gone (at once when it has none).
transition terminate(lifecycle next, S ending, std::string reason, const job_facts& facts,
                     std::vector<effect> before = {}) {
  next.state = S::completing;
  next.ending = ending;
  next.reason = std::move(reason);
  auto effects = std::move(before);
  effects.insert(effects.end(),
                 {K::publish, K::nodes_done, signal_effect(SIGTERM), K::arm_kill_timer});
  if (allocation_done(facts)) effects.push_back(K::release_nodes);
  return applied(std::move(next), std::move(effects));
}

/// A queued job ends at once: it holds no nodes, so the scheduler only drops it and records the
/// outcome (dependencies on it).
transition end_queued(lifecycle next, std::string reason, std::vector<effect> before = {}) {
  next.state = S::cancelled;
  next.reason = std::move(reason);
  auto effects = std::move(before);
  effects.insert(effects.end(), {K::dequeue, K::stamp_end_time, K::tell_scheduler_ended, K::publish,
                                 note_effect(client_note::ended), K::stop});
  return applied(std::move(next), std::move(effects));
}

/// A pending reason (and priority) from the scheduler while queued; `state` is where it leads.
transition new_reason(const lifecycle& now, const event& ev, S state) {
  if (now.reason == ev.text && !ev.priority_changed) return ignored(now);  // told already
  auto next = now;
  next.state = state;
  next.reason = ev.text;
  std::vector<effect> effects{K::take_priority, K::publish};
  if (!next.told_queued && (next.reason == "Resources" || next.reason == "Priority")) {
    next.told_queued = true;
    effects.push_back(note_effect(client_note::queued, next.reason));
  }
  return applied(std::move(next), std::move(effects));
}

/// A queued job got its nodes: launch its main step, or for an allocation hand them to its client.
transition on_placed(const lifecycle& now, const job_facts& facts) {
  const S s = now.state;
  auto next = now;
  // Not queued: cancelled while the scheduler placed it (the scheduler knows it ended).
  // A held job is never placed; should one be, it runs, as a PENDING one would.
  if (!is_queued(s)) return ignored(now);
  next.reason.clear();
  next.warned = false;
  if (facts.allocation) {
    // Nothing to launch: the allocation is the job, and its client starts the steps.
    next.state = S::running;
    return applied(std::move(next), {K::take_allocation, K::publish, K::start_nodes,
                                     K::arm_time_limit, note_effect(client_note::allocated)});
  }
  if (facts.power_managed) {
    // Its nodes may be powered down: the time limit and the launch wait until they are up.
    next.state = S::booting;
    return applied(std::move(next),
                   {K::take_allocation, K::publish, K::start_nodes, K::await_nodes});
  }
  next.state = S::configuring;
  return applied(std::move(next),
                 {K::take_allocation, K::publish, K::start_nodes, K::arm_time_limit,
                  note_effect(client_note::allocated), K::launch_main_step});
}

/// A booting job's nodes are all up: it starts now (its start time and time limit from here).
transition on_nodes_ready(const lifecycle& now, const job_facts& facts) {
  if (now.state != S::booting) return ignored(now);
  auto next = now;
  if (facts.allocation) {
    next.state = S::running;
    return applied(std::move(next), {K::stamp_start_time, K::publish, K::arm_time_limit,
                                     note_effect(client_note::allocated)});
  }
  next.state = S::configuring;
  return applied(std::move(next), {K::stamp_start_time, K::publish, K::arm_time_limit,
                                   note_effect(client_note::allocated), K::launch_main_step});
}

/// A booting job ends or goes back to the queue: no task ran, so its nodes are released at once.
transition end_booting(lifecycle next, S ending, std::string reason,
                       std::vector<effect> before = {}) {
  next.state = S::completing;
  next.ending = ending;
  next.reason = std::move(reason);
  auto effects = std::move(before);
  effects.insert(effects.end(), {K::publish, K::release_nodes});
  return applied(std::move(next), std::move(effects));
}

/// What ends a booting job: cancel, its client gone, a node that did not resume, a requeue, an
/// allocation's release. Other events wait for the nodes.
transition on_booting_event(const lifecycle& now, const event& ev, const job_facts& facts) {
  auto next = now;
  switch (ev.kind) {
    case E::cancel:
      return end_booting(std::move(next), S::cancelled, "");
    case E::client_gone:
      return end_booting(std::move(next), S::cancelled, "ClientGone", {K::forget_client});
    case E::node_failed: {
      // Nothing ran: a batch or run job is queued again whatever --requeue says, as Slurm
      // requeues a job whose node missed ResumeTimeout; an allocation's client is told.
      bool requeue = !facts.allocation;
      next.requeue_reason = requeue ? "NodeFail" : "";
      return end_booting(
          std::move(next), requeue ? S::requeued : S::node_fail, "NodeFail: " + ev.text,
          {note_effect(client_note::message, "node " + ev.text + " failed to power up" +
                                                 (requeue ? "; the job is queued again" : ""))});
    }
    case E::admin_requeue:
      if (facts.allocation) return refused(now);
      next.requeue_reason = "Requeued";
      return end_booting(std::move(next), S::requeued, "Requeued");
    case E::released:
      if (!facts.allocation) return refused(now);
      return end_booting(std::move(next),
                         ev.exit_code == 0 && ev.exit_signal == 0 ? S::completed : S::failed, "",
                         {exit_code_effect(ev.exit_code, ev.exit_signal)});
    case E::signal:
    case E::step_requested:
      return refused(now);
    case E::nodes_ready:
      return on_nodes_ready(now, facts);
    default:
      return ignored(now);
  }
}

/// The main step (the batch script or the run command) ended: the job ends with its outcome.
transition on_main_step_ended(const lifecycle& now, const event& ev, const job_facts& facts) {
  const S s = now.state;
  auto next = now;
  if (!is_active(s) && s != S::completing) return ignored(now);
  if (!ev.text.empty() && now.reason.empty()) next.reason = ev.text;
  if (s != S::completing)
    next.ending = ev.out_of_memory    ? S::out_of_memory
                  : ev.exit_code == 0 ? S::completed
                                      : S::failed;
  next.state = S::completing;
  std::vector<effect> effects;
  // Steps still running when the main one ends (the batch script returned) are killed.
  if (facts.steps_running) effects.push_back(signal_effect(SIGKILL));
  effects.push_back(exit_code_effect(ev.exit_code, ev.exit_signal));
  effects.push_back(K::release_nodes);
  return applied(std::move(next), std::move(effects));
}

/// The nodes are released: the job is queued again (requeue) or ends.
transition on_release_done(const lifecycle& now) {
  const S s = now.state;
  auto next = now;
  if (s != S::completing) return ignored(now);
  if (now.ending == S::requeued) {
    next.state = S::requeued;
    next.reason = now.requeue_reason;
    next.requeue_reason.clear();
    next.ending = S::completed;
    next.warned = false;
    return applied(std::move(next),
                   {K::tell_scheduler_released, K::drop_allocation, K::publish, K::enqueue});
  } else {
    next.state = is_final(now.ending) ? now.ending : S::completed;
    effect ended{K::tell_scheduler_ended};
    ended.ok = next.state == S::completed;
    return applied(std::move(next), {K::stamp_end_time, ended, K::publish,
                                     note_effect(client_note::ended), K::stop});
  }
}

/// One of the job's nodes failed: the job ends at once, or is requeued.
transition on_node_failed(const lifecycle& now, const event& ev, const job_facts& facts) {
  const S s = now.state;
  auto next = now;
  effect forget{K::forget_node};
  forget.text = ev.text;
  if (s == S::completing) return applied(std::move(next), {forget});
  if (!is_active(s)) return ignored(now);
  bool requeue = ev.requeue && !facts.allocation;
  next.state = S::completing;
  next.ending = requeue ? S::requeued : S::node_fail;
  next.requeue_reason = requeue ? "NodeFail" : "";
  next.reason = "NodeFail: " + ev.text;
  // No SIGTERM grace: the node is gone, the rest are killed at once.
  std::vector<effect> effects{
      K::publish,
      note_effect(client_note::message, "node " + ev.text + " failed; the job is ending"),
      signal_effect(SIGKILL), forget};
  if (allocation_done(facts)) effects.push_back(K::release_nodes);
  return applied(std::move(next), std::move(effects));
}

/// A Prolog failed (nothing of the job may run there): a batch or run job is queued again,
/// as Slurm requeues a job whose launch failed (held unless nohold_on_prolog_fail); an
/// allocation ends FAILED.
transition on_prolog_failed(const lifecycle& now, const event& ev, const job_facts& facts) {
  if (!is_active(now.state)) return ignored(now);
  auto next = now;
  if (facts.allocation)
    return terminate(std::move(next), S::failed, ev.text, facts,
                     {note_effect(client_note::message, ev.text + "; the job is ending")});
  next.requeue_reason = ev.requeue ? "launch failed requeued held" : "Requeued";
  return terminate(std::move(next), S::requeued, ev.text, facts,
                   {note_effect(client_note::message, ev.text + "; the job is queued again")});
}

/// The scheduler preempts the job (Slurm's slurm_job_preempt): with a GraceTime, SIGCONT and
/// SIGTERM now and SIGKILL once it passed, the job RUNNING meanwhile (preempting); without,
/// SIGKILL at once. It ends PREEMPTED, or with PreemptMode=REQUEUE is queued again (batch jobs;
/// an allocation ends PREEMPTED).
transition on_preempt(const lifecycle& now, const event& ev, const job_facts& facts) {
  if (!is_active(now.state)) return ignored(now);  // queued, or ending already
  auto next = now;
  if (ev.by_preemption) {
    // PreemptMode=SUSPEND (Slurm's gang scheduler): stopped until its CPUs are free again.
    if (now.state != S::running && now.state != S::configuring) return ignored(now);
    next.state = S::suspended;
    next.lent = true;
    return applied(std::move(next),
                   {signal_effect(SIGSTOP), K::stop_clock, K::lend_resources, K::publish});
  }
  bool requeue = ev.requeue && !facts.allocation;
  next.ending = requeue ? S::requeued : S::preempted;
  if (requeue) next.requeue_reason = "Requeued";
  if (ev.grace_time > 0) {
    next.state = S::preempting;
    effect kill_later{K::arm_kill_timer};
    kill_later.seconds = ev.grace_time;
    return applied(std::move(next),
                   {K::publish, signal_effect(SIGCONT), signal_effect(SIGTERM), kill_later});
  }
  next.state = S::completing;
  std::vector<effect> effects{K::publish, K::nodes_done, signal_effect(SIGKILL)};
  if (allocation_done(facts)) effects.push_back(K::release_nodes);
  return applied(std::move(next), std::move(effects));
}

/// scontrol suspend of a running job: its tasks stop, its clock stops; its nodes stay its own.
transition on_suspend(const lifecycle& now) {
  if (now.state != S::running) return refused(now);
  auto next = now;
  next.state = S::suspended;
  return applied(std::move(next), {signal_effect(SIGSTOP), K::stop_clock, K::publish});
}

/// scontrol resume: the tasks go on, and so does the time limit from where it stopped.
transition on_resume(const lifecycle& now, const event& ev) {
  if (now.state != S::suspended) return refused(now);
  // Only the scheduler gives a preempted job its CPUs back; it resumes no one an admin stopped.
  if (now.lent != ev.by_preemption) return ev.by_preemption ? ignored(now) : refused(now);
  auto next = now;
  next.state = S::running;
  next.lent = false;
  effect resumed{K::resume_clock};
  resumed.ok = true;
  return applied(std::move(next), {signal_effect(SIGCONT), resumed, K::publish});
}

transition on_running_event(const lifecycle& now, const event& ev, const job_facts& facts);

/// `ev` as a running job takes it, for a job in state `now.state` that behaves as running: an
/// event that leaves a running job running leaves it where it was.
transition as_running(const lifecycle& now, const event& ev, const job_facts& facts) {
  auto running = now;
  running.state = S::running;
  auto t = on_running_event(running, ev, facts);
  if (t.outcome != verdict::applied) return {t.outcome, now, {}};
  if (t.next.state == S::running) t.next.state = now.state;
  return t;
}

/// A job in its GraceTime: it runs on (its tasks had SIGTERM) until its grace time is over
/// (SIGKILL) or its main step ends; either way it ends as the preemption said. Other events
/// are a running job's (a cancel ends it CANCELLED).
transition on_preempting_event(const lifecycle& now, const event& ev, const job_facts& facts) {
  auto ending = now;
  ending.state = S::completing;
  switch (ev.kind) {
    case E::kill_wait_expired: {
      std::vector<effect> effects{K::publish, K::nodes_done, signal_effect(SIGKILL)};
      if (allocation_done(facts)) effects.push_back(K::release_nodes);
      return applied(std::move(ending), std::move(effects));
    }
    case E::main_step_ended:
      return on_main_step_ended(ending, ev, facts);
    case E::preempt:
    case E::warning_due:
      return ignored(now);
    case E::suspend:
    case E::resume:
    case E::step_requested:
      return refused(now);
    default:
      return as_running(now, ev, facts);
  }
}

/// A suspended job takes every other event as a running one would. When that ends it (cancel,
/// requeue, preemption, a node failure) its tasks get SIGCONT first so that they see the
/// signals that follow, and its suspended time is counted; a signal alone leaves it stopped.
/// Its clock is stopped, so a time limit or warning tick of the run means nothing.
transition on_suspended_event(const lifecycle& now, const event& ev, const job_facts& facts) {
  switch (ev.kind) {
    case E::suspend:
      return refused(now);
    case E::resume:
      return on_resume(now, ev);
    case E::preempt:
      // An admin stopped it: it is not taken from them (it holds its CPUs until resumed).
      if (ev.by_preemption && !now.lent) return ignored(now);
      break;
    case E::time_limit:
    case E::warning_due:
      return ignored(now);
    case E::step_requested:
      return refused(now);  // Slurm: "Job is suspended" (a new step would run)
    default:
      break;
  }
  auto t = as_running(now, ev, facts);
  if (t.outcome != verdict::applied || t.next.state == S::suspended) return t;
  t.next.lent = false;
  t.effects.insert(t.effects.begin(), {signal_effect(SIGCONT), K::resume_clock});
  return t;
}

/// The --signal warning is due before the time limit.
transition on_warning_due(const lifecycle& now, const job_facts& facts) {
  const S s = now.state;
  auto next = now;
  // Slurm's send_job_warn_signal: SIGCONT first, then the signal, once per run; without
  // B: every step but the batch shell, with B: the batch shell only.
  if (!is_active(s) || now.warned || facts.warn_signal == 0) return ignored(now);
  next.warned = true;
  auto scope = facts.warn_batch_only ? signal_scope::batch_shell : signal_scope::steps_only;
  return applied(std::move(next),
                 {signal_effect(SIGCONT, scope), signal_effect(facts.warn_signal, scope)});
}

/// The client of an allocation gave it back (exit status of its shell or command).
transition on_released(const lifecycle& now, const event& ev, const job_facts& facts) {
  const S s = now.state;
  auto next = now;
  if (!facts.allocation) return refused(now);
  // Before it started, a release withdraws the request (Slurm's job_complete on a pending
  // job: CANCELLED).
  if (is_queued(s)) return end_queued(std::move(next), "");
  if (!is_active(s)) return ignored(now);  // already ending
  // Slurm's job_complete: an exit status other than 0 (a signal included) is FAILED.
  next.state = S::completing;
  next.ending = ev.exit_code == 0 && ev.exit_signal == 0 ? S::completed : S::failed;
  std::vector<effect> effects{exit_code_effect(ev.exit_code, ev.exit_signal), K::publish};
  if (facts.steps_running)
    effects.insert(effects.end(), {K::nodes_done, signal_effect(SIGKILL)});
  else
    effects.push_back(K::release_nodes);
  return applied(std::move(next), std::move(effects));
}

}  // namespace

lifecycle initial_lifecycle(bool held) {
  lifecycle out;
  if (held) {
    out.state = S::held;
    out.reason = "JobHeldUser";
  }
  return out;
}

transition on_event(const lifecycle& now, const event& ev, const job_facts& facts) {
  const S s = now.state;
  if (is_final(s)) return ignored(now);  // the actor has stopped; nothing changes any more
  if (s == S::booting) return on_booting_event(now, ev, facts);
  if (s == S::suspended) return on_suspended_event(now, ev, facts);
  if (s == S::preempting) return on_preempting_event(now, ev, facts);
  return on_running_event(now, ev, facts);
}

namespace {

/// Every state but booting (suspended and preempting borrow it through as_running).
transition on_running_event(const lifecycle& now, const event& ev, const job_facts& facts) {
  const S s = now.state;
  auto next = now;
  switch (ev.kind) {
    case E::placed:
      return on_placed(now, facts);

    case E::launched:
      if (s != S::configuring) return ignored(now);
      next.state = S::running;
      return applied(std::move(next));

    case E::step_ended:
      if (!is_active(s) && s != S::completing) return ignored(now);
      if (s == S::completing && allocation_done(facts))
        return applied(std::move(next), {K::notify_step_client, K::release_nodes});
      return applied(std::move(next), {K::notify_step_client});

    case E::main_step_ended:
      return on_main_step_ended(now, ev, facts);

    case E::release_done:
      return on_release_done(now);

    case E::time_limit:
      if (!is_active(s)) return ignored(now);
      return terminate(
          std::move(next), S::timeout, "TimeLimit", facts,
          {note_effect(client_note::message, "*** JOB " + std::to_string(facts.job_id) +
                                                 " CANCELLED DUE TO TIME LIMIT ***")});

    case E::cancel:
      if (is_queued(s)) return end_queued(std::move(next), "");
      if (is_active(s)) return terminate(std::move(next), S::cancelled, "", facts);
      return ignored(now);  // completing: already on its way out

    case E::client_gone:
      if (is_queued(s)) return end_queued(std::move(next), "ClientGone", {K::forget_client});
      if (is_active(s))
        return terminate(std::move(next), S::cancelled, "ClientGone", facts, {K::forget_client});
      return ignored(now);

    case E::signal:
      if (!is_active(s)) return refused(now);
      return applied(std::move(next), {signal_effect(ev.signo)});

    case E::kill_wait_expired:
      if (s != S::completing || !facts.steps_running) return ignored(now);
      return applied(std::move(next), {signal_effect(SIGKILL)});

    case E::node_failed:
      return on_node_failed(now, ev, facts);

    case E::prolog_failed:
      return on_prolog_failed(now, ev, facts);

    case E::admin_requeue:
      if (is_queued(s)) return ignored(now);  // already queued
      if (!is_active(s)) return refused(now);
      next.requeue_reason = "Requeued";
      return terminate(std::move(next), S::requeued, "Requeued", facts);

    case E::hold:
      if (!is_queued(s)) return ignored(now);
      return new_reason(now, ev, S::held);

    case E::release:
      if (s != S::held) return ignored(now);
      return new_reason(now, ev, S::pending);

    case E::dependency_never:
      if (!is_queued(s)) return ignored(now);
      return new_reason(now, ev, S::dependency_never);

    case E::pending_reason:
      if (!is_queued(s)) return ignored(now);
      return new_reason(now, ev, S::pending);

    case E::step_requested:
      if (!is_active(s)) return refused(now);
      return applied(std::move(next), {K::launch_step});

    case E::warning_due:
      return on_warning_due(now, facts);

    case E::released:
      return on_released(now, ev, facts);

    case E::nodes_ready:
      return ignored(now);  // only a booting job waits for its nodes

    case E::preempt:
      return on_preempt(now, ev, facts);

    case E::suspend:
      return on_suspend(now);

    case E::resume:
      return on_resume(now, ev);
  }
  return ignored(now);
}

}  // namespace

event pending_reason_event(lifecycle_state current, std::string reason, bool priority_changed) {
  event ev;
  ev.priority_changed = priority_changed;
  if (reason == "JobHeldUser" || reason == "JobHeldAdmin")
    ev.kind = E::hold;
  else if (reason == "DependencyNeverSatisfied")
    ev.kind = E::dependency_never;
  else if (current == S::held)
    ev.kind = E::release;
  else
    ev.kind = E::pending_reason;
  ev.text = std::move(reason);
  return ev;
}

msg::job_state to_job_state(lifecycle_state s) {
  switch (s) {
    case S::pending:
    case S::held:
    case S::dependency_never:
    case S::requeued:
      return msg::job_state::pending;
    case S::booting:
      return msg::job_state::configuring;
    case S::configuring:
    case S::running:
      return msg::job_state::running;
    case S::completing:
      return msg::job_state::completing;
    case S::completed:
      return msg::job_state::completed;
    case S::failed:
      return msg::job_state::failed;
    case S::cancelled:
      return msg::job_state::cancelled;
    case S::timeout:
      return msg::job_state::timeout;
    case S::node_fail:
      return msg::job_state::node_fail;
    case S::out_of_memory:
      return msg::job_state::out_of_memory;
    case S::preempted:
      return msg::job_state::preempted;
    case S::suspended:
      return msg::job_state::suspended;
    case S::preempting:
      return msg::job_state::running;
  }
  return msg::job_state::pending;
}

bool is_final(lifecycle_state s) {
  switch (s) {
    case S::completed:
    case S::failed:
    case S::cancelled:
    case S::timeout:
    case S::node_fail:
    case S::out_of_memory:
    case S::preempted:
      return true;
    default:
      return false;
  }
}

const char* to_string(lifecycle_state s) {
  switch (s) {
    case S::pending:
      return "pending";
    case S::held:
      return "held";
    case S::dependency_never:
      return "dependency_never";
    case S::requeued:
      return "requeued";
    case S::configuring:
      return "configuring";
    case S::running:
      return "running";
    case S::completing:
      return "completing";
    case S::completed:
      return "completed";
    case S::failed:
      return "failed";
    case S::cancelled:
      return "cancelled";
    case S::timeout:
      return "timeout";
    case S::node_fail:
      return "node_fail";
    case S::out_of_memory:
      return "out_of_memory";
    case S::booting:
      return "booting";
    case S::preempted:
      return "preempted";
    case S::suspended:
      return "suspended";
    case S::preempting:
      return "preempting";
  }
  return "?";
}

const char* to_string(event_kind k) {
  switch (k) {
    case E::placed:
      return "placed";
    case E::launched:
      return "launched";
    case E::step_ended:
      return "step_ended";
    case E::main_step_ended:
      return "main_step_ended";
    case E::time_limit:
      return "time_limit";
    case E::cancel:
      return "cancel";
    case E::client_gone:
      return "client_gone";
    case E::signal:
      return "signal";
    case E::kill_wait_expired:
      return "kill_wait_expired";
    case E::node_failed:
      return "node_failed";
    case E::admin_requeue:
      return "admin_requeue";
    case E::hold:
      return "hold";
    case E::release:
      return "release";
    case E::dependency_never:
      return "dependency_never";
    case E::pending_reason:
      return "pending_reason";
    case E::step_requested:
      return "step_requested";
    case E::release_done:
      return "release_done";
    case E::warning_due:
      return "warning_due";
    case E::released:
      return "released";
    case E::nodes_ready:
      return "nodes_ready";
    case E::prolog_failed:
      return "prolog_failed";
    case E::preempt:
      return "preempt";
    case E::suspend:
      return "suspend";
    case E::resume:
      return "resume";
  }
  return "?";
}

const char* to_string(effect_kind k) {
  switch (k) {
    case K::take_allocation:
      return "take_allocation";
    case K::start_nodes:
      return "start_nodes";
    case K::arm_time_limit:
      return "arm_time_limit";
    case K::launch_main_step:
      return "launch_main_step";
    case K::launch_step:
      return "launch_step";
    case K::signal_tasks:
      return "signal_tasks";
    case K::nodes_done:
      return "nodes_done";
    case K::arm_kill_timer:
      return "arm_kill_timer";
    case K::forget_node:
      return "forget_node";
    case K::record_exit_code:
      return "record_exit_code";
    case K::release_nodes:
      return "release_nodes";
    case K::dequeue:
      return "dequeue";
    case K::tell_scheduler_ended:
      return "tell_scheduler_ended";
    case K::tell_scheduler_released:
      return "tell_scheduler_released";
    case K::drop_allocation:
      return "drop_allocation";
    case K::enqueue:
      return "enqueue";
    case K::stamp_end_time:
      return "stamp_end_time";
    case K::take_priority:
      return "take_priority";
    case K::publish:
      return "publish";
    case K::notify_client:
      return "notify_client";
    case K::notify_step_client:
      return "notify_step_client";
    case K::forget_client:
      return "forget_client";
    case K::await_nodes:
      return "await_nodes";
    case K::stamp_start_time:
      return "stamp_start_time";
    case K::stop_clock:
      return "stop_clock";
    case K::resume_clock:
      return "resume_clock";
    case K::lend_resources:
      return "lend_resources";
    case K::stop:
      return "stop";
  }
  return "?";
}

std::string to_string(const effect& e) {
  std::string out = to_string(e.kind);
  switch (e.kind) {
    case K::signal_tasks: {
      static const char* scopes[] = {"", ", steps_only", ", batch_shell"};
      return out + "(" + std::to_string(e.signo) + scopes[static_cast<size_t>(e.scope)] + ")";
    }
    case K::record_exit_code:
      return out + "(" + std::to_string(e.exit_code) +
             (e.signo != 0 ? ", signal " + std::to_string(e.signo) : std::string{}) + ")";
    case K::tell_scheduler_ended:
      return out + (e.ok ? "(ok)" : "(not ok)");
    case K::forget_node:
      return out + "(" + e.text + ")";
    case K::arm_kill_timer:
      return e.seconds > 0 ? out + "(" + std::to_string(e.seconds) + " s)" : out;
    case K::notify_client: {
      static const char* notes[] = {"queued", "allocated", "message", "ended"};
      return out + "(" + notes[static_cast<size_t>(e.note)] + ", \"" + e.text + "\")";
    }
    default:
      return out;
  }
}

}  // namespace shoal::policy
