// The job lifecycle's transition function, pair by pair: every state x every event is a row of
// the table below (and a check makes sure none is missing), so a changed transition fails here.

#include <boost/test/unit_test.hpp>

#include <csignal>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "policy/job_lifecycle.hpp"

using namespace shoal;
using namespace shoal::policy;

namespace {

using S = lifecycle_state;
using E = event_kind;
using K = effect_kind;
using N = client_note;

constexpr auto IGN = verdict::ignored;
constexpr auto REF = verdict::refused;

/// The lifecycle each state is tried from in the table: what a job in that state remembers on
/// the usual path there. `completing` is a job being cancelled (other endings: further below).
lifecycle start_of(S s) {
  lifecycle l;
  l.state = s;
  switch (s) {
    case S::pending:
      l.reason = "BeginTime";
      break;
    case S::held:
      l.reason = "JobHeldUser";
      break;
    case S::dependency_never:
      l.reason = "DependencyNeverSatisfied";
      break;
    case S::requeued:
      l.reason = "NodeFail";
      break;
    case S::completing:
      l.ending = S::cancelled;
      break;
    case S::preempting:
      l.ending = S::preempted;  // PreemptMode=CANCEL
      break;
    default:
      break;
  }
  return l;
}

/// The event each kind is tried with in the table.
event sample(E k) {
  event ev{k};
  switch (k) {
    case E::step_ended:
      ev.exit_code = 3;
      break;
    case E::signal:
      ev.signo = SIGUSR1;
      break;
    case E::node_failed:
      ev.text = "n2";
      break;
    case E::hold:
      ev.text = "JobHeldAdmin";
      break;
    case E::release:
      ev.text = "Resources";
      break;
    case E::dependency_never:
      ev.text = "DependencyNeverSatisfied";
      break;
    case E::pending_reason:
      ev.text = "Priority";
      break;
    case E::prolog_failed:
      ev.text = "Prolog /p failed: exit 1";
      ev.requeue = true;  // held
      break;
    case E::preempt:
      ev.grace_time = 30;  // PreemptMode=CANCEL, GraceTime=30
      break;
    default:
      break;
  }
  return ev;
}

/// The facts in the table: job 7, some step still running.
job_facts facts(bool steps_running = true) {
  job_facts f;
  f.job_id = 7;
  f.steps_running = steps_running;
  return f;
}

effect sig(int32_t signo) {
  effect e{K::signal_tasks};
  e.signo = signo;
  return e;
}

effect note(N n, std::string text = "") {
  effect e{K::notify_client};
  e.note = n;
  e.text = std::move(text);
  return e;
}

effect code(int32_t exit_code) {
  effect e{K::record_exit_code};
  e.exit_code = exit_code;
  return e;
}

effect ended(bool ok) {
  effect e{K::tell_scheduler_ended};
  e.ok = ok;
  return e;
}

effect forget(std::string node) {
  effect e{K::forget_node};
  e.text = std::move(node);
  return e;
}

struct row {
  /// An ignored or refused pair: nothing changes, nothing happens.
  row(S f, E e, verdict v)
      : from(f), ev(e), outcome(v), to(f), reason(start_of(f).reason), ending(start_of(f).ending) {}
  /// An applied pair. `ending` is checked when `to` is completing.
  row(S f, E e, S t, std::string r, std::vector<effect> fx, S end = S::completed)
      : from(f),
        ev(e),
        outcome(verdict::applied),
        to(t),
        reason(std::move(r)),
        effects(std::move(fx)),
        ending(end) {}

  S from;
  E ev;
  verdict outcome;
  S to;
  std::string reason;
  std::vector<effect> effects;
  S ending = S::completed;
};

std::string show(const std::vector<effect>& fx) {
  std::string out = "[";
  for (auto& e : fx) out += (out.size() > 1 ? ", " : "") + to_string(e);
  return out + "]";
}

const char* show(verdict v) {
  return v == verdict::applied ? "applied" : v == verdict::ignored ? "ignored" : "refused";
}

// Effects that recur.
const std::vector<effect> place = {K::take_allocation, K::publish,         K::start_nodes,
                                   K::arm_time_limit,  note(N::allocated), K::launch_main_step};
const std::vector<effect> cancel_queued = {K::dequeue, K::stamp_end_time, ended(false),
                                           K::publish, note(N::ended),    K::stop};
const std::vector<effect> client_gone_queued = {K::forget_client, K::dequeue, K::stamp_end_time,
                                                ended(false),     K::publish, note(N::ended),
                                                K::stop};
const std::vector<effect> term = {K::publish, K::nodes_done, sig(SIGTERM), K::arm_kill_timer};
const std::vector<effect> term_client_gone = {K::forget_client, K::publish, K::nodes_done,
                                              sig(SIGTERM), K::arm_kill_timer};
const std::vector<effect> term_time_limit = {
    note(N::message, "*** JOB 7 CANCELLED DUE TO TIME LIMIT ***"), K::publish, K::nodes_done,
    sig(SIGTERM), K::arm_kill_timer};
const std::vector<effect> node_down = {
    K::publish, note(N::message, "node n2 failed; the job is ending"), sig(SIGKILL), forget("n2")};
const std::vector<effect> main_ended = {sig(SIGKILL), code(0), K::release_nodes};
const std::vector<effect> reason_fx = {K::take_priority, K::publish};
const std::vector<effect> prolog_requeue = {
    note(N::message, "Prolog /p failed: exit 1; the job is queued again"), K::publish,
    K::nodes_done, sig(SIGTERM), K::arm_kill_timer};
effect kill_after(int64_t seconds) {
  effect e{K::arm_kill_timer};
  e.seconds = seconds;
  return e;
}
const std::vector<effect> preempt_grace = {K::publish, sig(SIGCONT), sig(SIGTERM), kill_after(30)};
/// What a suspended job does first when an event ends it: SIGCONT, its suspended time counted.
std::vector<effect> woken(std::vector<effect> fx) {
  fx.insert(fx.begin(), {sig(SIGCONT), K::resume_clock});
  return fx;
}
effect resumed() {
  effect e{K::resume_clock};
  e.ok = true;  // the time limit runs on
  return e;
}
std::vector<effect> queued_fx(const std::string& reason) {
  return {K::take_priority, K::publish, note(N::queued, reason)};
}
const std::vector<effect> finish_not_ok = {K::stamp_end_time, ended(false), K::publish,
                                           note(N::ended), K::stop};

// clang-format off
const std::vector<row> table = {
      // pending (BeginTime)
      {S::pending, E::placed, S::configuring, "", place},
      {S::pending, E::launched, IGN},
      {S::pending, E::step_ended, IGN},
      {S::pending, E::main_step_ended, IGN},
      {S::pending, E::time_limit, IGN},
      {S::pending, E::cancel, S::cancelled, "", cancel_queued},
      {S::pending, E::client_gone, S::cancelled, "ClientGone", client_gone_queued},
      {S::pending, E::signal, REF},
      {S::pending, E::kill_wait_expired, IGN},
      {S::pending, E::node_failed, IGN},
      {S::pending, E::admin_requeue, IGN},
      {S::pending, E::hold, S::held, "JobHeldAdmin", reason_fx},
      {S::pending, E::release, IGN},
      {S::pending, E::dependency_never, S::dependency_never, "DependencyNeverSatisfied", reason_fx},
      {S::pending, E::pending_reason, S::pending, "Priority", queued_fx("Priority")},
      {S::pending, E::step_requested, REF},
      {S::pending, E::release_done, IGN},
      {S::pending, E::warning_due, IGN},
      {S::pending, E::released, REF},
      {S::pending, E::nodes_ready, IGN},
      {S::pending, E::prolog_failed, IGN},
      {S::pending, E::preempt, IGN},
      {S::pending, E::suspend, REF},
      {S::pending, E::resume, REF},
      // held (JobHeldUser)
      {S::held, E::placed, S::configuring, "", place},
      {S::held, E::launched, IGN},
      {S::held, E::step_ended, IGN},
      {S::held, E::main_step_ended, IGN},
      {S::held, E::time_limit, IGN},
      {S::held, E::cancel, S::cancelled, "", cancel_queued},
      {S::held, E::client_gone, S::cancelled, "ClientGone", client_gone_queued},
      {S::held, E::signal, REF},
      {S::held, E::kill_wait_expired, IGN},
      {S::held, E::node_failed, IGN},
      {S::held, E::admin_requeue, IGN},
      {S::held, E::hold, S::held, "JobHeldAdmin", reason_fx},
      {S::held, E::release, S::pending, "Resources", queued_fx("Resources")},
      {S::held, E::dependency_never, S::dependency_never, "DependencyNeverSatisfied", reason_fx},
      {S::held, E::pending_reason, S::pending, "Priority", queued_fx("Priority")},
      {S::held, E::step_requested, REF},
      {S::held, E::release_done, IGN},
      {S::held, E::warning_due, IGN},
      {S::held, E::released, REF},
      {S::held, E::nodes_ready, IGN},
      {S::held, E::prolog_failed, IGN},
      {S::held, E::preempt, IGN},
      {S::held, E::suspend, REF},
      {S::held, E::resume, REF},
      // dependency_never (DependencyNeverSatisfied; with --kill-on-invalid-dep the scheduler
      // cancels the job instead, through the controller: the cancel row)
      {S::dependency_never, E::placed, S::configuring, "", place},
      {S::dependency_never, E::launched, IGN},
      {S::dependency_never, E::step_ended, IGN},
      {S::dependency_never, E::main_step_ended, IGN},
      {S::dependency_never, E::time_limit, IGN},
      {S::dependency_never, E::cancel, S::cancelled, "", cancel_queued},
      {S::dependency_never, E::client_gone, S::cancelled, "ClientGone", client_gone_queued},
      {S::dependency_never, E::signal, REF},
      {S::dependency_never, E::kill_wait_expired, IGN},
      {S::dependency_never, E::node_failed, IGN},
      {S::dependency_never, E::admin_requeue, IGN},
      {S::dependency_never, E::hold, S::held, "JobHeldAdmin", reason_fx},
      {S::dependency_never, E::release, IGN},
      {S::dependency_never, E::dependency_never, IGN},
      {S::dependency_never, E::pending_reason, S::pending, "Priority", queued_fx("Priority")},
      {S::dependency_never, E::step_requested, REF},
      {S::dependency_never, E::release_done, IGN},
      {S::dependency_never, E::warning_due, IGN},
      {S::dependency_never, E::released, REF},
      {S::dependency_never, E::nodes_ready, IGN},
      {S::dependency_never, E::prolog_failed, IGN},
      {S::dependency_never, E::preempt, IGN},
      {S::dependency_never, E::suspend, REF},
      {S::dependency_never, E::resume, REF},
      // requeued (NodeFail)
      {S::requeued, E::placed, S::configuring, "", place},
      {S::requeued, E::launched, IGN},
      {S::requeued, E::step_ended, IGN},
      {S::requeued, E::main_step_ended, IGN},
      {S::requeued, E::time_limit, IGN},
      {S::requeued, E::cancel, S::cancelled, "", cancel_queued},
      {S::requeued, E::client_gone, S::cancelled, "ClientGone", client_gone_queued},
      {S::requeued, E::signal, REF},
      {S::requeued, E::kill_wait_expired, IGN},
      {S::requeued, E::node_failed, IGN},
      {S::requeued, E::admin_requeue, IGN},
      {S::requeued, E::hold, S::held, "JobHeldAdmin", reason_fx},
      {S::requeued, E::release, IGN},
      {S::requeued, E::dependency_never, S::dependency_never, "DependencyNeverSatisfied", reason_fx},
      {S::requeued, E::pending_reason, S::pending, "Priority", queued_fx("Priority")},
      {S::requeued, E::step_requested, REF},
      {S::requeued, E::release_done, IGN},
      {S::requeued, E::warning_due, IGN},
      {S::requeued, E::released, REF},
      {S::requeued, E::nodes_ready, IGN},
      {S::requeued, E::prolog_failed, IGN},
      {S::requeued, E::preempt, IGN},
      {S::requeued, E::suspend, REF},
      {S::requeued, E::resume, REF},
      // configuring
      {S::configuring, E::placed, IGN},
      {S::configuring, E::launched, S::running, "", {}},
      {S::configuring, E::step_ended, S::configuring, "", {K::notify_step_client}},
      {S::configuring, E::main_step_ended, S::completing, "", main_ended, S::completed},
      {S::configuring, E::time_limit, S::completing, "TimeLimit", term_time_limit, S::timeout},
      {S::configuring, E::cancel, S::completing, "", term, S::cancelled},
      {S::configuring, E::client_gone, S::completing, "ClientGone", term_client_gone, S::cancelled},
      {S::configuring, E::signal, S::configuring, "", {sig(SIGUSR1)}},
      {S::configuring, E::kill_wait_expired, IGN},
      {S::configuring, E::node_failed, S::completing, "NodeFail: n2", node_down, S::node_fail},
      {S::configuring, E::admin_requeue, S::completing, "Requeued", term, S::requeued},
      {S::configuring, E::hold, IGN},
      {S::configuring, E::release, IGN},
      {S::configuring, E::dependency_never, IGN},
      {S::configuring, E::pending_reason, IGN},
      {S::configuring, E::step_requested, S::configuring, "", {K::launch_step}},
      {S::configuring, E::release_done, IGN},
      {S::configuring, E::warning_due, IGN},
      {S::configuring, E::released, REF},
      {S::configuring, E::nodes_ready, IGN},
      {S::configuring, E::prolog_failed, S::completing, "Prolog /p failed: exit 1", prolog_requeue, S::requeued},
      {S::configuring, E::preempt, S::preempting, "", preempt_grace},
      {S::configuring, E::suspend, REF},
      {S::configuring, E::resume, REF},
      // running
      {S::running, E::placed, IGN},
      {S::running, E::launched, IGN},
      {S::running, E::step_ended, S::running, "", {K::notify_step_client}},
      {S::running, E::main_step_ended, S::completing, "", main_ended, S::completed},
      {S::running, E::time_limit, S::completing, "TimeLimit", term_time_limit, S::timeout},
      {S::running, E::cancel, S::completing, "", term, S::cancelled},
      {S::running, E::client_gone, S::completing, "ClientGone", term_client_gone, S::cancelled},
      {S::running, E::signal, S::running, "", {sig(SIGUSR1)}},
      {S::running, E::kill_wait_expired, IGN},
      {S::running, E::node_failed, S::completing, "NodeFail: n2", node_down, S::node_fail},
      {S::running, E::admin_requeue, S::completing, "Requeued", term, S::requeued},
      {S::running, E::hold, IGN},
      {S::running, E::release, IGN},
      {S::running, E::dependency_never, IGN},
      {S::running, E::pending_reason, IGN},
      {S::running, E::step_requested, S::running, "", {K::launch_step}},
      {S::running, E::release_done, IGN},
      {S::running, E::warning_due, IGN},
      {S::running, E::released, REF},
      {S::running, E::nodes_ready, IGN},
      {S::running, E::prolog_failed, S::completing, "Prolog /p failed: exit 1", prolog_requeue, S::requeued},
      {S::running, E::preempt, S::preempting, "", preempt_grace},
      {S::running, E::suspend, S::suspended, "", {sig(SIGSTOP), K::stop_clock, K::publish}},
      {S::running, E::resume, REF},
      // completing (being cancelled)
      {S::completing, E::placed, IGN},
      {S::completing, E::launched, IGN},
      {S::completing, E::step_ended, S::completing, "", {K::notify_step_client}, S::cancelled},
      {S::completing, E::main_step_ended, S::completing, "", main_ended, S::cancelled},
      {S::completing, E::time_limit, IGN},
      {S::completing, E::cancel, IGN},
      {S::completing, E::client_gone, IGN},
      {S::completing, E::signal, REF},
      {S::completing, E::kill_wait_expired, S::completing, "", {sig(SIGKILL)}, S::cancelled},
      {S::completing, E::node_failed, S::completing, "", {forget("n2")}, S::cancelled},
      {S::completing, E::admin_requeue, REF},
      {S::completing, E::hold, IGN},
      {S::completing, E::release, IGN},
      {S::completing, E::dependency_never, IGN},
      {S::completing, E::pending_reason, IGN},
      {S::completing, E::step_requested, REF},
      {S::completing, E::release_done, S::cancelled, "", finish_not_ok},
      {S::completing, E::warning_due, IGN},
      {S::completing, E::released, REF},
      {S::completing, E::nodes_ready, IGN},
      {S::completing, E::prolog_failed, IGN},
      {S::completing, E::preempt, IGN},
      {S::completing, E::suspend, REF},
      {S::completing, E::resume, REF},
      // completed: final, the actor has stopped
      {S::completed, E::placed, IGN},
      {S::completed, E::launched, IGN},
      {S::completed, E::step_ended, IGN},
      {S::completed, E::main_step_ended, IGN},
      {S::completed, E::time_limit, IGN},
      {S::completed, E::cancel, IGN},
      {S::completed, E::client_gone, IGN},
      {S::completed, E::signal, IGN},
      {S::completed, E::kill_wait_expired, IGN},
      {S::completed, E::node_failed, IGN},
      {S::completed, E::admin_requeue, IGN},
      {S::completed, E::hold, IGN},
      {S::completed, E::release, IGN},
      {S::completed, E::dependency_never, IGN},
      {S::completed, E::pending_reason, IGN},
      {S::completed, E::step_requested, IGN},
      {S::completed, E::release_done, IGN},
      {S::completed, E::warning_due, IGN},
      {S::completed, E::released, IGN},
      {S::completed, E::nodes_ready, IGN},
      {S::completed, E::prolog_failed, IGN},
      {S::completed, E::preempt, IGN},
      {S::completed, E::suspend, IGN},
      {S::completed, E::resume, IGN},
      // failed: final, the actor has stopped
      {S::failed, E::placed, IGN},
      {S::failed, E::launched, IGN},
      {S::failed, E::step_ended, IGN},
      {S::failed, E::main_step_ended, IGN},
      {S::failed, E::time_limit, IGN},
      {S::failed, E::cancel, IGN},
      {S::failed, E::client_gone, IGN},
      {S::failed, E::signal, IGN},
      {S::failed, E::kill_wait_expired, IGN},
      {S::failed, E::node_failed, IGN},
      {S::failed, E::admin_requeue, IGN},
      {S::failed, E::hold, IGN},
      {S::failed, E::release, IGN},
      {S::failed, E::dependency_never, IGN},
      {S::failed, E::pending_reason, IGN},
      {S::failed, E::step_requested, IGN},
      {S::failed, E::release_done, IGN},
      {S::failed, E::warning_due, IGN},
      {S::failed, E::released, IGN},
      {S::failed, E::nodes_ready, IGN},
      {S::failed, E::prolog_failed, IGN},
      {S::failed, E::preempt, IGN},
      {S::failed, E::suspend, IGN},
      {S::failed, E::resume, IGN},
      // cancelled: final, the actor has stopped
      {S::cancelled, E::placed, IGN},
      {S::cancelled, E::launched, IGN},
      {S::cancelled, E::step_ended, IGN},
      {S::cancelled, E::main_step_ended, IGN},
      {S::cancelled, E::time_limit, IGN},
      {S::cancelled, E::cancel, IGN},
      {S::cancelled, E::client_gone, IGN},
      {S::cancelled, E::signal, IGN},
      {S::cancelled, E::kill_wait_expired, IGN},
      {S::cancelled, E::node_failed, IGN},
      {S::cancelled, E::admin_requeue, IGN},
      {S::cancelled, E::hold, IGN},
      {S::cancelled, E::release, IGN},
      {S::cancelled, E::dependency_never, IGN},
      {S::cancelled, E::pending_reason, IGN},
      {S::cancelled, E::step_requested, IGN},
      {S::cancelled, E::release_done, IGN},
      {S::cancelled, E::warning_due, IGN},
      {S::cancelled, E::released, IGN},
      {S::cancelled, E::nodes_ready, IGN},
      {S::cancelled, E::prolog_failed, IGN},
      {S::cancelled, E::preempt, IGN},
      {S::cancelled, E::suspend, IGN},
      {S::cancelled, E::resume, IGN},
      // timeout: final, the actor has stopped
      {S::timeout, E::placed, IGN},
      {S::timeout, E::launched, IGN},
      {S::timeout, E::step_ended, IGN},
      {S::timeout, E::main_step_ended, IGN},
      {S::timeout, E::time_limit, IGN},
      {S::timeout, E::cancel, IGN},
      {S::timeout, E::client_gone, IGN},
      {S::timeout, E::signal, IGN},
      {S::timeout, E::kill_wait_expired, IGN},
      {S::timeout, E::node_failed, IGN},
      {S::timeout, E::admin_requeue, IGN},
      {S::timeout, E::hold, IGN},
      {S::timeout, E::release, IGN},
      {S::timeout, E::dependency_never, IGN},
      {S::timeout, E::pending_reason, IGN},
      {S::timeout, E::step_requested, IGN},
      {S::timeout, E::release_done, IGN},
      {S::timeout, E::warning_due, IGN},
      {S::timeout, E::released, IGN},
      {S::timeout, E::nodes_ready, IGN},
      {S::timeout, E::prolog_failed, IGN},
      {S::timeout, E::preempt, IGN},
      {S::timeout, E::suspend, IGN},
      {S::timeout, E::resume, IGN},
      // node_fail: final, the actor has stopped
      {S::node_fail, E::placed, IGN},
      {S::node_fail, E::launched, IGN},
      {S::node_fail, E::step_ended, IGN},
      {S::node_fail, E::main_step_ended, IGN},
      {S::node_fail, E::time_limit, IGN},
      {S::node_fail, E::cancel, IGN},
      {S::node_fail, E::client_gone, IGN},
      {S::node_fail, E::signal, IGN},
      {S::node_fail, E::kill_wait_expired, IGN},
      {S::node_fail, E::node_failed, IGN},
      {S::node_fail, E::admin_requeue, IGN},
      {S::node_fail, E::hold, IGN},
      {S::node_fail, E::release, IGN},
      {S::node_fail, E::dependency_never, IGN},
      {S::node_fail, E::pending_reason, IGN},
      {S::node_fail, E::step_requested, IGN},
      {S::node_fail, E::release_done, IGN},
      {S::node_fail, E::warning_due, IGN},
      {S::node_fail, E::released, IGN},
      {S::node_fail, E::nodes_ready, IGN},
      {S::node_fail, E::prolog_failed, IGN},
      {S::node_fail, E::preempt, IGN},
      {S::node_fail, E::suspend, IGN},
      {S::node_fail, E::resume, IGN},
      // out_of_memory: final, the actor has stopped
      {S::out_of_memory, E::placed, IGN},
      {S::out_of_memory, E::launched, IGN},
      {S::out_of_memory, E::step_ended, IGN},
      {S::out_of_memory, E::main_step_ended, IGN},
      {S::out_of_memory, E::time_limit, IGN},
      {S::out_of_memory, E::cancel, IGN},
      {S::out_of_memory, E::client_gone, IGN},
      {S::out_of_memory, E::signal, IGN},
      {S::out_of_memory, E::kill_wait_expired, IGN},
      {S::out_of_memory, E::node_failed, IGN},
      {S::out_of_memory, E::admin_requeue, IGN},
      {S::out_of_memory, E::hold, IGN},
      {S::out_of_memory, E::release, IGN},
      {S::out_of_memory, E::dependency_never, IGN},
      {S::out_of_memory, E::pending_reason, IGN},
      {S::out_of_memory, E::step_requested, IGN},
      {S::out_of_memory, E::release_done, IGN},
      {S::out_of_memory, E::warning_due, IGN},
      {S::out_of_memory, E::released, IGN},
      {S::out_of_memory, E::nodes_ready, IGN},
      {S::out_of_memory, E::prolog_failed, IGN},
      {S::out_of_memory, E::preempt, IGN},
      {S::out_of_memory, E::suspend, IGN},
      {S::out_of_memory, E::resume, IGN},
      // booting: placed, waiting for power saving to resume its nodes
      {S::booting, E::placed, IGN},
      {S::booting, E::launched, IGN},
      {S::booting, E::step_ended, IGN},
      {S::booting, E::main_step_ended, IGN},
      {S::booting, E::time_limit, IGN},
      {S::booting, E::cancel, S::completing, "", {K::publish, K::release_nodes}, S::cancelled},
      {S::booting, E::client_gone, S::completing, "ClientGone", {K::forget_client, K::publish, K::release_nodes}, S::cancelled},
      {S::booting, E::signal, REF},
      {S::booting, E::kill_wait_expired, IGN},
      {S::booting, E::node_failed, S::completing, "NodeFail: n2", {note(N::message, "node n2 failed to power up; the job is queued again"), K::publish, K::release_nodes}, S::requeued},
      {S::booting, E::admin_requeue, S::completing, "Requeued", {K::publish, K::release_nodes}, S::requeued},
      {S::booting, E::hold, IGN},
      {S::booting, E::release, IGN},
      {S::booting, E::dependency_never, IGN},
      {S::booting, E::pending_reason, IGN},
      {S::booting, E::step_requested, REF},
      {S::booting, E::release_done, IGN},
      {S::booting, E::warning_due, IGN},
      {S::booting, E::released, REF},
      {S::booting, E::nodes_ready, S::configuring, "", {K::stamp_start_time, K::publish, K::arm_time_limit, note(N::allocated), K::launch_main_step}},
      {S::booting, E::prolog_failed, IGN},
      {S::booting, E::preempt, IGN},
      {S::booting, E::suspend, IGN},
      {S::booting, E::resume, IGN},
      // preempted (final)
      {S::preempted, E::placed, IGN},
      {S::preempted, E::launched, IGN},
      {S::preempted, E::step_ended, IGN},
      {S::preempted, E::main_step_ended, IGN},
      {S::preempted, E::time_limit, IGN},
      {S::preempted, E::cancel, IGN},
      {S::preempted, E::client_gone, IGN},
      {S::preempted, E::signal, IGN},
      {S::preempted, E::kill_wait_expired, IGN},
      {S::preempted, E::node_failed, IGN},
      {S::preempted, E::admin_requeue, IGN},
      {S::preempted, E::hold, IGN},
      {S::preempted, E::release, IGN},
      {S::preempted, E::dependency_never, IGN},
      {S::preempted, E::pending_reason, IGN},
      {S::preempted, E::step_requested, IGN},
      {S::preempted, E::release_done, IGN},
      {S::preempted, E::warning_due, IGN},
      {S::preempted, E::released, IGN},
      {S::preempted, E::nodes_ready, IGN},
      {S::preempted, E::prolog_failed, IGN},
      {S::preempted, E::preempt, IGN},
      {S::preempted, E::suspend, IGN},
      {S::preempted, E::resume, IGN},
      // suspended: as running, SIGCONT and its suspended time counted first when it leaves
      {S::suspended, E::placed, IGN},
      {S::suspended, E::launched, IGN},
      {S::suspended, E::step_ended, S::suspended, "", {K::notify_step_client}},
      {S::suspended, E::main_step_ended, S::completing, "", woken(main_ended), S::completed},
      {S::suspended, E::time_limit, IGN},
      {S::suspended, E::cancel, S::completing, "", woken(term), S::cancelled},
      {S::suspended, E::client_gone, S::completing, "ClientGone", woken(term_client_gone), S::cancelled},
      {S::suspended, E::signal, S::suspended, "", {sig(SIGUSR1)}},
      {S::suspended, E::kill_wait_expired, IGN},
      {S::suspended, E::node_failed, S::completing, "NodeFail: n2", woken(node_down), S::node_fail},
      {S::suspended, E::admin_requeue, S::completing, "Requeued", woken(term), S::requeued},
      {S::suspended, E::hold, IGN},
      {S::suspended, E::release, IGN},
      {S::suspended, E::dependency_never, IGN},
      {S::suspended, E::pending_reason, IGN},
      {S::suspended, E::step_requested, REF},
      {S::suspended, E::release_done, IGN},
      {S::suspended, E::warning_due, IGN},
      {S::suspended, E::released, REF},
      {S::suspended, E::nodes_ready, IGN},
      {S::suspended, E::prolog_failed, S::completing, "Prolog /p failed: exit 1", woken(prolog_requeue), S::requeued},
      {S::suspended, E::preempt, S::preempting, "", woken(preempt_grace)},
      {S::suspended, E::suspend, REF},
      {S::suspended, E::resume, S::running, "", {sig(SIGCONT), resumed(), K::publish}},
      // preempting (GraceTime running, PreemptMode=CANCEL): RUNNING until the SIGKILL
      {S::preempting, E::placed, IGN},
      {S::preempting, E::launched, IGN},
      {S::preempting, E::step_ended, S::preempting, "", {K::notify_step_client}},
      {S::preempting, E::main_step_ended, S::completing, "", main_ended, S::preempted},
      {S::preempting, E::time_limit, S::completing, "TimeLimit", term_time_limit, S::timeout},
      {S::preempting, E::cancel, S::completing, "", term, S::cancelled},
      {S::preempting, E::client_gone, S::completing, "ClientGone", term_client_gone, S::cancelled},
      {S::preempting, E::signal, S::preempting, "", {sig(SIGUSR1)}},
      {S::preempting, E::kill_wait_expired, S::completing, "", {K::publish, K::nodes_done, sig(SIGKILL)}, S::preempted},
      {S::preempting, E::node_failed, S::completing, "NodeFail: n2", node_down, S::node_fail},
      {S::preempting, E::admin_requeue, S::completing, "Requeued", term, S::requeued},
      {S::preempting, E::hold, IGN},
      {S::preempting, E::release, IGN},
      {S::preempting, E::dependency_never, IGN},
      {S::preempting, E::pending_reason, IGN},
      {S::preempting, E::step_requested, REF},
      {S::preempting, E::release_done, IGN},
      {S::preempting, E::warning_due, IGN},
      {S::preempting, E::released, REF},
      {S::preempting, E::nodes_ready, IGN},
      {S::preempting, E::prolog_failed, S::completing, "Prolog /p failed: exit 1", prolog_requeue, S::requeued},
      {S::preempting, E::preempt, IGN},
      {S::preempting, E::suspend, REF},
      {S::preempting, E::resume, REF},
};
// clang-format on

}  // namespace

BOOST_AUTO_TEST_SUITE(job_lifecycle)

BOOST_AUTO_TEST_CASE(every_state_and_event_gives_the_tabled_transition) {
  for (auto& r : table) {
    auto now = start_of(r.from);
    auto t = on_event(now, sample(r.ev), facts());
    std::ostringstream where;
    where << to_string(r.from) << " x " << to_string(r.ev) << ": ";
    BOOST_CHECK_MESSAGE(t.outcome == r.outcome, where.str() << "got " << show(t.outcome)
                                                            << ", expected " << show(r.outcome));
    BOOST_CHECK_MESSAGE(t.next.state == r.to, where.str() << "went to " << to_string(t.next.state)
                                                          << ", expected " << to_string(r.to));
    BOOST_CHECK_MESSAGE(t.next.reason == r.reason, where.str()
                                                       << "reason \"" << t.next.reason
                                                       << "\", expected \"" << r.reason << "\"");
    BOOST_CHECK_MESSAGE(t.effects == r.effects, where.str() << "effects " << show(t.effects)
                                                            << ", expected " << show(r.effects));
    if (r.to == S::completing) {
      BOOST_CHECK_MESSAGE(t.next.ending == r.ending, where.str()
                                                         << "ends as " << to_string(t.next.ending)
                                                         << ", expected " << to_string(r.ending));
      // A node that failed to power up requeues with NodeFail; an admin's requeue with Requeued.
      auto requeue_reason = r.ending != S::requeued    ? ""
                            : r.ev == E::node_failed   ? "NodeFail"
                            : r.ev == E::prolog_failed ? "launch failed requeued held"
                                                       : "Requeued";
      BOOST_CHECK_MESSAGE(t.next.requeue_reason == requeue_reason,
                          where.str() << "requeue reason \"" << t.next.requeue_reason << "\"");
    }
    bool told = now.told_queued;
    for (auto& e : r.effects) told = told || (e.kind == K::notify_client && e.note == N::queued);
    BOOST_CHECK_MESSAGE(t.next.told_queued == told, where.str() << "told_queued wrong");
    if (r.outcome != verdict::applied) {
      BOOST_CHECK_MESSAGE(t.next == now, where.str() << "an unapplied event changed the lifecycle");
    }
  }
}

BOOST_AUTO_TEST_CASE(the_table_has_exactly_one_row_for_every_state_and_event) {
  std::set<std::pair<S, E>> seen;
  for (auto& r : table)
    BOOST_CHECK_MESSAGE(seen.emplace(r.from, r.ev).second,
                        "two rows for " << to_string(r.from) << " x " << to_string(r.ev));
  for (size_t s = 0; s < lifecycle_state_count; ++s)
    for (size_t e = 0; e < event_kind_count; ++e) {
      auto state = static_cast<S>(s);
      auto ev = static_cast<E>(e);
      BOOST_CHECK_MESSAGE(seen.count({state, ev}) == 1,
                          "no row for " << to_string(state) << " x " << to_string(ev));
    }
  BOOST_TEST(table.size() == lifecycle_state_count * event_kind_count);
}

BOOST_AUTO_TEST_CASE(completing_ends_where_it_was_headed) {
  struct variant {
    S ending;
    std::string requeue_reason;
    S to;
    std::string reason;
    std::vector<effect> effects;
  };
  const std::vector<variant> variants = {
      {S::completed,
       "",
       S::completed,
       "",
       {K::stamp_end_time, ended(true), K::publish, note(N::ended), K::stop}},
      {S::failed, "", S::failed, "", finish_not_ok},
      {S::out_of_memory, "", S::out_of_memory, "", finish_not_ok},
      {S::cancelled, "", S::cancelled, "", finish_not_ok},
      {S::timeout, "", S::timeout, "", finish_not_ok},
      {S::node_fail, "", S::node_fail, "", finish_not_ok},
      {S::preempted, "", S::preempted, "", finish_not_ok},
      {S::requeued,
       "NodeFail",
       S::requeued,
       "NodeFail",
       {K::tell_scheduler_released, K::drop_allocation, K::publish, K::enqueue}},
      {S::requeued,
       "Requeued",
       S::requeued,
       "Requeued",
       {K::tell_scheduler_released, K::drop_allocation, K::publish, K::enqueue}},
  };
  for (auto& v : variants) {
    lifecycle now;
    now.state = S::completing;
    now.ending = v.ending;
    now.requeue_reason = v.requeue_reason;
    auto t = on_event(now, event{E::release_done}, facts(false));
    BOOST_TEST_CONTEXT("ending " << to_string(v.ending)) {
      BOOST_CHECK(t.outcome == verdict::applied);
      BOOST_TEST(to_string(t.next.state) == to_string(v.to));
      BOOST_TEST(t.next.reason == v.reason);
      BOOST_CHECK_MESSAGE(t.effects == v.effects, show(t.effects));
    }
  }
}

BOOST_AUTO_TEST_CASE(the_main_steps_end_decides_completed_failed_or_out_of_memory) {
  lifecycle running;
  running.state = S::running;
  event ok{E::main_step_ended};
  auto t = on_event(running, ok, facts(false));
  BOOST_TEST(to_string(t.next.ending) == "completed");
  BOOST_CHECK_MESSAGE(t.effects == (std::vector<effect>{code(0), K::release_nodes}),
                      show(t.effects));

  event bad{E::main_step_ended};
  bad.exit_code = 3;
  bad.text = "node n1: exec failed";
  t = on_event(running, bad, facts(false));
  BOOST_TEST(to_string(t.next.ending) == "failed");
  BOOST_TEST(t.next.reason == "node n1: exec failed");
  BOOST_CHECK_MESSAGE(t.effects == (std::vector<effect>{code(3), K::release_nodes}),
                      show(t.effects));

  event oom{E::main_step_ended};
  oom.exit_code = 137;
  oom.out_of_memory = true;
  oom.text = "OutOfMemory: over the memory limit on n1";
  t = on_event(running, oom, facts(false));
  BOOST_TEST(to_string(t.next.ending) == "out_of_memory");
  BOOST_TEST(t.next.reason == oom.text);

  // Already ending: the ending and the reason stay (a timed-out job killed over its memory).
  lifecycle timing_out;
  timing_out.state = S::completing;
  timing_out.ending = S::timeout;
  timing_out.reason = "TimeLimit";
  t = on_event(timing_out, oom, facts(false));
  BOOST_TEST(to_string(t.next.ending) == "timeout");
  BOOST_TEST(t.next.reason == "TimeLimit");
  BOOST_CHECK_MESSAGE(t.effects == (std::vector<effect>{code(137), K::release_nodes}),
                      show(t.effects));
}

BOOST_AUTO_TEST_CASE(a_node_failure_with_requeue_heads_back_to_the_queue) {
  lifecycle running;
  running.state = S::running;
  event down{E::node_failed};
  down.text = "n3";
  down.requeue = true;
  auto t = on_event(running, down, facts());
  BOOST_TEST(to_string(t.next.state) == "completing");
  BOOST_TEST(to_string(t.next.ending) == "requeued");
  BOOST_TEST(t.next.requeue_reason == "NodeFail");
  BOOST_TEST(t.next.reason == "NodeFail: n3");
  auto back = on_event(on_event(t.next, event{E::main_step_ended}, facts(false)).next,
                       event{E::release_done}, facts(false));
  BOOST_TEST(to_string(back.next.state) == "requeued");
  BOOST_TEST(back.next.reason == "NodeFail");
  BOOST_TEST(back.next.requeue_reason == "");
  BOOST_CHECK(to_job_state(back.next.state) == msg::job_state::pending);
  // Queued again, it runs again.
  auto again = on_event(back.next, event{E::placed}, facts());
  BOOST_TEST(to_string(again.next.state) == "configuring");
}

BOOST_AUTO_TEST_CASE(kill_wait_kills_only_while_tasks_remain) {
  lifecycle completing;
  completing.state = S::completing;
  completing.ending = S::timeout;
  BOOST_CHECK(on_event(completing, event{E::kill_wait_expired}, facts(false)).outcome ==
              verdict::ignored);
  auto t = on_event(completing, event{E::kill_wait_expired}, facts(true));
  BOOST_CHECK_MESSAGE(t.effects == std::vector<effect>{sig(SIGKILL)}, show(t.effects));
}

BOOST_AUTO_TEST_CASE(the_client_hears_queued_once_and_repeated_reasons_are_ignored) {
  lifecycle told;
  told.reason = "Priority";
  told.told_queued = true;
  auto t = on_event(told, pending_reason_event(S::pending, "Resources"), facts());
  BOOST_CHECK_MESSAGE(t.effects == reason_fx, show(t.effects));
  BOOST_CHECK(on_event(told, pending_reason_event(S::pending, "Priority"), facts()).outcome ==
              verdict::ignored);
  // Reasons other than Resources and Priority are published but not told.
  lifecycle fresh;
  t = on_event(fresh, pending_reason_event(S::pending, "Dependency"), facts());
  BOOST_CHECK_MESSAGE(t.effects == reason_fx, show(t.effects));
  BOOST_TEST(!t.next.told_queued);
}

BOOST_AUTO_TEST_CASE(a_new_priority_is_published_even_with_the_same_reason) {
  lifecycle held = initial_lifecycle(true);
  auto t = on_event(held, pending_reason_event(S::held, "JobHeldUser", true), facts());
  BOOST_CHECK(t.outcome == verdict::applied);
  BOOST_TEST(to_string(t.next.state) == "held");
  BOOST_CHECK_MESSAGE(t.effects == reason_fx, show(t.effects));
  BOOST_CHECK(
      on_event(held, pending_reason_event(S::held, "JobHeldUser", false), facts()).outcome ==
      verdict::ignored);
  // Not queued: no reason and no priority to show.
  lifecycle running;
  running.state = S::running;
  BOOST_CHECK(
      on_event(running, pending_reason_event(S::running, "Priority", true), facts()).outcome ==
      verdict::ignored);
}

BOOST_AUTO_TEST_CASE(pending_reasons_become_hold_release_and_dependency_events) {
  struct row {
    S current;
    std::string reason;
    E expected;
  };
  const row rows[] = {
      {S::pending, "JobHeldUser", E::hold},
      {S::pending, "JobHeldAdmin", E::hold},
      {S::held, "JobHeldAdmin", E::hold},
      {S::pending, "DependencyNeverSatisfied", E::dependency_never},
      {S::held, "DependencyNeverSatisfied", E::dependency_never},
      {S::held, "Resources", E::release},
      {S::held, "BeginTime", E::release},
      {S::pending, "Resources", E::pending_reason},
      {S::requeued, "Priority", E::pending_reason},
      {S::dependency_never, "Dependency", E::pending_reason},
  };
  for (auto& r : rows) {
    auto ev = pending_reason_event(r.current, r.reason);
    BOOST_TEST_CONTEXT(to_string(r.current) << " + " << r.reason) {
      BOOST_TEST(to_string(ev.kind) == to_string(r.expected));
      BOOST_TEST(ev.text == r.reason);
    }
  }
}

BOOST_AUTO_TEST_CASE(listings_show_slurms_states_as_before) {
  using J = msg::job_state;
  const std::pair<S, J> rows[] = {
      {S::pending, J::pending},
      {S::held, J::pending},
      {S::dependency_never, J::pending},
      {S::requeued, J::pending},
      {S::configuring, J::running},
      {S::running, J::running},
      {S::completing, J::completing},
      {S::completed, J::completed},
      {S::failed, J::failed},
      {S::cancelled, J::cancelled},
      {S::timeout, J::timeout},
      {S::node_fail, J::node_fail},
      {S::out_of_memory, J::out_of_memory},
      {S::booting, J::configuring},
      {S::preempted, J::preempted},
      {S::suspended, J::suspended},
      {S::preempting, J::running},
  };
  BOOST_TEST(std::size(rows) == lifecycle_state_count);
  for (auto& [s, j] : rows) {
    BOOST_TEST_CONTEXT(to_string(s)) {
      BOOST_TEST(static_cast<int>(to_job_state(s)) == static_cast<int>(j));
      BOOST_TEST(is_final(s) == msg::is_finished(j));
    }
  }
}

BOOST_AUTO_TEST_CASE(with_power_saving_a_placed_job_boots_its_nodes_before_it_starts) {
  auto f = facts(false);
  f.power_managed = true;
  auto placed = on_event(start_of(S::pending), event{E::placed}, f);
  BOOST_TEST(to_string(placed.next.state) == "booting");
  const std::vector<effect> boot = {K::take_allocation, K::publish, K::start_nodes, K::await_nodes};
  BOOST_CHECK_MESSAGE(placed.effects == boot, show(placed.effects));
  BOOST_TEST(static_cast<int>(to_job_state(placed.next.state)) ==
             static_cast<int>(msg::job_state::configuring));
  // An allocation runs once its nodes are up; it has no main step to launch.
  f.allocation = true;
  auto ready = on_event(placed.next, event{E::nodes_ready}, f);
  BOOST_TEST(to_string(ready.next.state) == "running");
  const std::vector<effect> start = {K::stamp_start_time, K::publish, K::arm_time_limit,
                                     note(N::allocated)};
  BOOST_CHECK_MESSAGE(ready.effects == start, show(ready.effects));
  // Its node failing to power up ends it (an allocation is never requeued).
  event down{E::node_failed};
  down.text = "c1";
  auto failed = on_event(placed.next, down, f);
  BOOST_TEST(to_string(failed.next.ending) == "node_fail");
}

BOOST_AUTO_TEST_CASE(a_new_job_is_pending_or_held) {
  BOOST_TEST(to_string(initial_lifecycle(false).state) == "pending");
  BOOST_TEST(initial_lifecycle(false).reason == "");
  BOOST_TEST(to_string(initial_lifecycle(true).state) == "held");
  BOOST_TEST(initial_lifecycle(true).reason == "JobHeldUser");
}

BOOST_AUTO_TEST_CASE(the_signal_warning_goes_once_per_run_to_the_steps_or_the_batch_shell) {
  auto with_warning = [](bool batch_only) {
    auto f = facts();
    f.warn_signal = SIGUSR1;
    f.warn_batch_only = batch_only;
    return f;
  };
  auto scoped = [](int32_t signo, signal_scope scope) {
    auto e = sig(signo);
    e.scope = scope;
    return e;
  };
  for (auto state : {S::configuring, S::running}) {
    lifecycle now;
    now.state = state;
    BOOST_TEST_CONTEXT(to_string(state)) {
      // Slurm's send_job_warn_signal: SIGCONT, then the signal; without B: not the batch shell.
      auto t = on_event(now, event{E::warning_due}, with_warning(false));
      BOOST_CHECK(t.outcome == verdict::applied);
      BOOST_TEST(to_string(t.next.state) == to_string(state));
      BOOST_TEST(t.next.warned);
      BOOST_CHECK_MESSAGE(
          t.effects == (std::vector<effect>{scoped(SIGCONT, signal_scope::steps_only),
                                            scoped(SIGUSR1, signal_scope::steps_only)}),
          show(t.effects));
      BOOST_CHECK(on_event(t.next, event{E::warning_due}, with_warning(false)).outcome ==
                  verdict::ignored);
      auto b = on_event(now, event{E::warning_due}, with_warning(true));
      BOOST_CHECK_MESSAGE(
          b.effects == (std::vector<effect>{scoped(SIGCONT, signal_scope::batch_shell),
                                            scoped(SIGUSR1, signal_scope::batch_shell)}),
          show(b.effects));
    }
  }
  // Not running (queued, ending, ended): nothing to signal.
  for (auto state : {S::pending, S::completing, S::timeout}) {
    lifecycle now;
    now.state = state;
    BOOST_CHECK(on_event(now, event{E::warning_due}, with_warning(false)).outcome ==
                verdict::ignored);
  }
  // Each run gets its own warning: a requeued job is warned again.
  lifecycle warned;
  warned.state = S::completing;
  warned.ending = S::requeued;
  warned.requeue_reason = "Requeued";
  warned.warned = true;
  auto back = on_event(warned, event{E::release_done}, facts(false));
  BOOST_TEST(!back.next.warned);
  lifecycle queued = back.next;
  queued.warned = true;  // as if restored from an older record
  BOOST_TEST(!on_event(queued, event{E::placed}, facts()).next.warned);
}

BOOST_AUTO_TEST_CASE(an_allocation_runs_without_a_main_step_until_released) {
  auto alloc = [](bool steps_running) {
    auto f = facts(steps_running);
    f.allocation = true;
    return f;
  };
  // Placed: running at once, nothing launched.
  auto placed = on_event(lifecycle{}, event{E::placed}, alloc(false));
  BOOST_TEST(to_string(placed.next.state) == "running");
  BOOST_CHECK_MESSAGE(
      placed.effects == (std::vector<effect>{K::take_allocation, K::publish, K::start_nodes,
                                             K::arm_time_limit, note(N::allocated)}),
      show(placed.effects));
  lifecycle running;
  running.state = S::running;
  // Released with no step: the nodes go at once, COMPLETED for 0, FAILED otherwise.
  event ok{E::released};
  auto t = on_event(running, ok, alloc(false));
  BOOST_TEST(to_string(t.next.state) == "completing");
  BOOST_TEST(to_string(t.next.ending) == "completed");
  BOOST_CHECK_MESSAGE(t.effects == (std::vector<effect>{code(0), K::publish, K::release_nodes}),
                      show(t.effects));
  auto done = on_event(t.next, event{E::release_done}, alloc(false));
  BOOST_TEST(to_string(done.next.state) == "completed");
  event bad{E::released};
  bad.exit_code = 3;
  t = on_event(running, bad, alloc(false));
  BOOST_TEST(to_string(t.next.ending) == "failed");
  event killed{E::released};
  killed.exit_code = 143;
  killed.exit_signal = SIGTERM;
  t = on_event(running, killed, alloc(false));
  BOOST_TEST(to_string(t.next.ending) == "failed");
  auto signalled = code(143);
  signalled.signo = SIGTERM;
  BOOST_CHECK_MESSAGE(t.effects == (std::vector<effect>{signalled, K::publish, K::release_nodes}),
                      show(t.effects));
  // Released with steps running: they are killed, and the last one's end releases the nodes.
  t = on_event(running, ok, alloc(true));
  BOOST_CHECK_MESSAGE(
      t.effects == (std::vector<effect>{code(0), K::publish, K::nodes_done, sig(SIGKILL)}),
      show(t.effects));
  auto one_left = on_event(t.next, event{E::step_ended}, alloc(true));
  BOOST_CHECK_MESSAGE(one_left.effects == std::vector<effect>{K::notify_step_client},
                      show(one_left.effects));
  auto last = on_event(t.next, event{E::step_ended}, alloc(false));
  BOOST_CHECK_MESSAGE(
      last.effects == (std::vector<effect>{K::notify_step_client, K::release_nodes}),
      show(last.effects));
  // Already ending: a late release changes nothing; before the start it withdraws the job.
  BOOST_CHECK(on_event(t.next, ok, alloc(false)).outcome == verdict::ignored);
  auto withdrawn = on_event(lifecycle{}, ok, alloc(false));
  BOOST_TEST(to_string(withdrawn.next.state) == "cancelled");
  BOOST_CHECK_MESSAGE(withdrawn.effects == cancel_queued, show(withdrawn.effects));
  // A job that is not an allocation cannot be released.
  BOOST_CHECK(on_event(running, ok, facts(false)).outcome == verdict::refused);
}

BOOST_AUTO_TEST_CASE(
    an_allocation_ended_by_the_controller_releases_its_nodes_when_no_step_is_left) {
  auto alloc = [](bool steps_running) {
    auto f = facts(steps_running);
    f.allocation = true;
    return f;
  };
  lifecycle running;
  running.state = S::running;
  auto with_release = [](std::vector<effect> fx) {
    fx.push_back(K::release_nodes);
    return fx;
  };
  auto t = on_event(running, event{E::cancel}, alloc(false));
  BOOST_TEST(to_string(t.next.ending) == "cancelled");
  BOOST_CHECK_MESSAGE(t.effects == with_release(term), show(t.effects));
  BOOST_CHECK_MESSAGE(on_event(running, event{E::cancel}, alloc(true)).effects == term,
                      show(on_event(running, event{E::cancel}, alloc(true)).effects));
  t = on_event(running, event{E::time_limit}, alloc(false));
  BOOST_TEST(to_string(t.next.ending) == "timeout");
  BOOST_CHECK_MESSAGE(t.effects == with_release(term_time_limit), show(t.effects));
  t = on_event(running, event{E::client_gone}, alloc(false));
  BOOST_CHECK_MESSAGE(t.effects == with_release(term_client_gone), show(t.effects));
  // A node failure never requeues an allocation.
  event down{E::node_failed};
  down.text = "n2";
  down.requeue = true;
  t = on_event(running, down, alloc(false));
  BOOST_TEST(to_string(t.next.ending) == "node_fail");
  BOOST_TEST(t.next.requeue_reason == "");
  BOOST_CHECK_MESSAGE(t.effects == with_release(node_down), show(t.effects));
  // Its steps' ends finish it.
  lifecycle timing_out;
  timing_out.state = S::completing;
  timing_out.ending = S::timeout;
  auto last = on_event(timing_out, event{E::step_ended}, alloc(false));
  BOOST_CHECK_MESSAGE(
      last.effects == (std::vector<effect>{K::notify_step_client, K::release_nodes}),
      show(last.effects));
  BOOST_TEST(to_string(on_event(last.next, event{E::release_done}, alloc(false)).next.state) ==
             "timeout");
}

BOOST_AUTO_TEST_CASE(every_kind_has_a_name) {
  std::set<std::string> names;
  for (size_t s = 0; s < lifecycle_state_count; ++s) names.insert(to_string(static_cast<S>(s)));
  BOOST_TEST(names.size() == lifecycle_state_count);
  names.clear();
  for (size_t e = 0; e < event_kind_count; ++e) names.insert(to_string(static_cast<E>(e)));
  BOOST_TEST(names.size() == event_kind_count);
  names.clear();
  for (size_t k = 0; k < effect_kind_count; ++k) names.insert(to_string(static_cast<K>(k)));
  BOOST_TEST(names.size() == effect_kind_count);
  BOOST_TEST(names.count("?") == 0);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(job_lifecycle_preemption)

BOOST_AUTO_TEST_CASE(a_preempted_job_without_grace_time_is_killed_at_once) {
  lifecycle now;
  now.state = S::running;
  event ev{E::preempt};
  auto t = on_event(now, ev, facts());
  BOOST_CHECK(t.outcome == verdict::applied);
  BOOST_TEST(to_string(t.next.ending) == "preempted");
  BOOST_CHECK_MESSAGE(t.effects == (std::vector<effect>{K::publish, K::nodes_done, sig(SIGKILL)}),
                      show(t.effects));
}

BOOST_AUTO_TEST_CASE(preempt_mode_requeue_queues_the_job_again_after_its_grace_time) {
  lifecycle now;
  now.state = S::running;
  event ev{E::preempt};
  ev.requeue = true;
  ev.grace_time = 30;
  auto t = on_event(now, ev, facts());
  BOOST_TEST(to_string(t.next.ending) == "requeued");
  BOOST_TEST(t.next.requeue_reason == "Requeued");
  BOOST_CHECK_MESSAGE(t.effects == preempt_grace, show(t.effects));
  // RUNNING in its grace time, as Slurm shows it.
  BOOST_TEST(to_string(t.next.state) == "preempting");
  BOOST_TEST(static_cast<int>(to_job_state(t.next.state)) ==
             static_cast<int>(msg::job_state::running));
  // The grace time over, what still runs is killed; once released it is pending again.
  auto killed = on_event(t.next, event{E::kill_wait_expired}, facts());
  BOOST_CHECK_MESSAGE(
      killed.effects == (std::vector<effect>{K::publish, K::nodes_done, sig(SIGKILL)}),
      show(killed.effects));
  BOOST_TEST(to_string(killed.next.state) == "completing");
  auto back = on_event(killed.next, event{E::release_done}, facts(false));
  BOOST_TEST(to_string(back.next.state) == "requeued");
  BOOST_TEST(back.next.reason == "Requeued");
}

BOOST_AUTO_TEST_CASE(an_allocation_preempted_under_requeue_ends_preempted) {
  lifecycle now;
  now.state = S::running;
  auto f = facts(false);
  f.allocation = true;
  event ev{E::preempt};
  ev.requeue = true;
  auto t = on_event(now, ev, f);
  BOOST_TEST(to_string(t.next.ending) == "preempted");
  BOOST_CHECK_MESSAGE(
      t.effects == (std::vector<effect>{K::publish, K::nodes_done, sig(SIGKILL), K::release_nodes}),
      show(t.effects));
}

BOOST_AUTO_TEST_CASE(preempt_mode_suspend_stops_the_job_and_only_the_scheduler_resumes_it) {
  lifecycle now;
  now.state = S::running;
  event ev{E::preempt};
  ev.by_preemption = true;
  ev.grace_time = 30;  // GraceTime is for CANCEL and REQUEUE
  auto t = on_event(now, ev, facts());
  BOOST_CHECK(t.outcome == verdict::applied);
  BOOST_TEST(to_string(t.next.state) == "suspended");
  BOOST_TEST(t.next.lent);
  BOOST_CHECK_MESSAGE(t.effects == (std::vector<effect>{sig(SIGSTOP), K::stop_clock,
                                                        K::lend_resources, K::publish}),
                      show(t.effects));
  // An admin's resume would run it on CPUs the preemptor holds: refused.
  BOOST_CHECK(on_event(t.next, event{E::resume}, facts()).outcome == verdict::refused);
  // The scheduler's, once they are free again.
  event back{E::resume};
  back.by_preemption = true;
  auto resumed_run = on_event(t.next, back, facts());
  BOOST_CHECK(resumed_run.outcome == verdict::applied);
  BOOST_TEST(to_string(resumed_run.next.state) == "running");
  BOOST_TEST(!resumed_run.next.lent);
  BOOST_CHECK_MESSAGE(
      resumed_run.effects == (std::vector<effect>{sig(SIGCONT), resumed(), K::publish}),
      show(resumed_run.effects));
  // Cancelled while stopped: woken first, and no longer lent.
  auto cancelled = on_event(t.next, event{E::cancel}, facts());
  BOOST_TEST(to_string(cancelled.next.state) == "completing");
  BOOST_TEST(!cancelled.next.lent);
  BOOST_CHECK_MESSAGE(cancelled.effects == woken(term), show(cancelled.effects));
}

BOOST_AUTO_TEST_CASE(the_scheduler_never_resumes_or_takes_a_job_an_admin_suspended) {
  lifecycle now;
  now.state = S::suspended;  // scontrol suspend: not lent
  event back{E::resume};
  back.by_preemption = true;
  BOOST_CHECK(on_event(now, back, facts()).outcome == verdict::ignored);
  event take{E::preempt};
  take.by_preemption = true;
  BOOST_CHECK(on_event(now, take, facts()).outcome == verdict::ignored);
  // Nor is a job that is not running yet suspended (it boots its nodes).
  now.state = S::booting;
  BOOST_CHECK(on_event(now, take, facts()).outcome == verdict::ignored);
}

BOOST_AUTO_TEST_SUITE_END()
